//! The JSONL store's line reader: arbitrary bytes, appended in arbitrary
//! pieces, read whole, from the tail and incrementally.
//!
//! Properties:
//! - every non-blank line is either a row or counted as skipped;
//! - reading incrementally while the file grows yields the rows of one whole read;
//! - a tail read yields a suffix of the whole read's rows;
//! - `retain(|_| true)` keeps every row and drops only corrupt lines.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use palisade_hermes::storage::jsonl::{IncrementalCache, JsonlLog};

fuzz_target!(|data: &[u8]| {
    // The first two bytes choose a split point and a tail size; the rest is the file.
    let [a, b, body @ ..] = data else { return };
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("log.jsonl");
    let log = JsonlLog::new(&path);

    let split = (*a as usize * body.len()) / 255;
    let mut cache = IncrementalCache::default();
    let mut file = std::fs::File::create(&path).expect("create");
    file.write_all(&body[..split]).expect("write");
    log.read_incremental(&mut cache).expect("read");
    file.write_all(&body[split..]).expect("write");
    // Terminate the last line so the incremental reader takes it too.
    file.write_all(b"\n").expect("write");
    drop(file);
    log.read_incremental(&mut cache).expect("read");

    let all = log.read_all().expect("read all");
    let mut text = body.to_vec();
    text.push(b'\n');
    let lines = text
        .split(|&c| c == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    assert_eq!(all.rows.len() + all.skipped, lines, "every line is a row or skipped");
    assert_eq!(cache.rows(), all.rows.as_slice(), "incremental equals whole");

    let tail = log.read_tail(u64::from(*b) * 4).expect("read tail");
    assert!(all.rows.ends_with(&tail.rows), "a tail read is a suffix");

    let kept = log.retain(|_| true).expect("retain");
    assert_eq!(kept.kept, all.rows.len());
    let again = log.read_all().expect("read again");
    assert_eq!(again.rows, all.rows);
    assert_eq!(again.skipped, 0);
});
