//! Loose-rate checks against the open corpora in `../shared/corpora` (beside the workspace, or `$PALISADE_CORPORA`).
//!
//! The secret-rule rates live with the catalogue (`palisade-secrets`'s
//! `tests/shared_corpora.rs`); this file keeps the command analyser's. When
//! the directory is absent (CI, other machines) each test says so and passes.

#![allow(missing_docs)] // integration test crate
#![allow(clippy::disallowed_methods)] // tests may read the optional shared corpus from disk

use palisade_egress::command::{check_command, NetworkOptions};

#[path = "../../../tests/support/corpora.rs"]
mod support;

use support::read_jsonl;

#[test]
fn dcg_commands_rarely_look_like_uploads() {
    let Some(rows) = read_jsonl("tool-calls/dcg-corpus.jsonl") else {
        return;
    };
    let opts = NetworkOptions::default();
    let mut flagged = 0;
    for row in &rows {
        let cmd = row["command"].as_str().unwrap_or_default();
        let v = check_command(cmd, &opts);
        if v.is_upload() {
            flagged += 1;
            if std::env::var_os("PALISADE_DUMP").is_some() {
                eprintln!("UPLOAD {cmd:?} -> {:?}", v.findings[0]);
            }
        }
    }
    eprintln!(
        "tool-calls/dcg-corpus.jsonl: {flagged}/{} destructive-command cases flagged as uploads",
        rows.len()
    );
    // These are destructive-command cases, not uploads: a few mention curl/nc.
    assert!(flagged * 100 <= rows.len() * 10, "{flagged} flagged");
}
