//! Where the open corpora are, for the tests that read them.
//!
//! Included by path (`#[path = "…/tests/support/corpora.rs"] mod corpora;`)
//! from every test that reads `../shared/corpora`, so the lookup and the
//! skip line are written once. The library crates never read files; only
//! their tests do.

#![allow(dead_code)] // each including test uses what it needs

use std::io::Write;
use std::path::{Path, PathBuf};

/// The open corpora directory: `$PALISADE_CORPORA` when set, else the first
/// `shared/corpora` found in the including crate's directory or above it
/// (the workspace sits beside `shared/`). `None`, after one visible line on
/// stderr, when there is none.
#[allow(clippy::disallowed_methods)] // tests may read the environment and the disk
pub fn root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PALISADE_CORPORA") {
        let dir = PathBuf::from(dir);
        if dir.is_dir() {
            return Some(dir);
        }
        skip(&format!(
            "PALISADE_CORPORA={} is not a directory",
            dir.display()
        ));
        return None;
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = here
        .ancestors()
        .map(|dir| dir.join("shared/corpora"))
        .find(|dir| dir.is_dir());
    if found.is_none() {
        skip(&format!(
            "no shared/corpora above {} (set PALISADE_CORPORA to run the open-corpora checks)",
            here.display()
        ));
    }
    found
}

/// One line on stderr that `cargo test` shows even while it captures test
/// output (libtest captures the print macros, not direct writes).
pub fn skip(why: &str) {
    let _ = writeln!(std::io::stderr(), "skipping open-corpora check: {why}");
}

/// The JSON lines of one corpus file, `rel` below [`root`] (blank and
/// unparsable lines left out); `None`, after a skip line, when the corpora
/// or the file are absent.
#[allow(clippy::disallowed_methods)] // tests may read the disk
pub fn read_jsonl(rel: &str) -> Option<Vec<serde_json::Value>> {
    let path = root()?.join(rel);
    let Ok(text) = std::fs::read_to_string(&path) else {
        skip(&format!("{} is absent", path.display()));
        return None;
    };
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    )
}
