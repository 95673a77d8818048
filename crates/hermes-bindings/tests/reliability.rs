//! Reliability bars: concurrent writers, a writer killed mid-append, corrupt
//! lines, ledger tampering on disk, hostile session ids, file modes.
//!
//! Multi-process tests re-run this test binary as the writer (`writer_child`
//! does nothing unless the PALISADE_TEST_WRITER_* variables are set).

use palisade_hermes::storage::jsonl::JsonlLog;
use palisade_hermes::storage::ledger::Ledger;
use palisade_hermes::{Env, GuardName, Host, Plugin, Timestamp};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const PATH_VAR: &str = "PALISADE_TEST_WRITER_PATH";
const ID_VAR: &str = "PALISADE_TEST_WRITER_ID";
const COUNT_VAR: &str = "PALISADE_TEST_WRITER_COUNT";

/// The child side: append COUNT rows `{"w": ID, "i": n, "pad": …}`.
#[test]
fn writer_child() {
    let (Ok(path), Ok(id), Ok(count)) = (
        std::env::var(PATH_VAR),
        std::env::var(ID_VAR),
        std::env::var(COUNT_VAR),
    ) else {
        return;
    };
    let log = JsonlLog::new(path);
    let count: u64 = count.parse().unwrap();
    // Rows big enough that a torn write is plausible when killed.
    let pad = "x".repeat(700);
    for i in 0..count {
        log.append(&json!({"w": id, "i": i, "pad": pad})).unwrap();
    }
}

fn spawn_writer(path: &Path, id: &str, count: u64) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "writer_child", "--test-threads", "1", "--quiet"])
        .env(PATH_VAR, path)
        .env(ID_VAR, id)
        .env(COUNT_VAR, count.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Rows per writer id, asserting each writer's sequence has no gaps.
fn sequences(rows: &[Value]) -> BTreeMap<String, u64> {
    let mut next: BTreeMap<String, u64> = BTreeMap::new();
    for r in rows {
        let w = r["w"].as_str().unwrap().to_owned();
        let i = r["i"].as_u64().unwrap();
        let expected = next.entry(w.clone()).or_insert(0);
        assert_eq!(
            i, *expected,
            "writer {w}: row {i} out of order or a row was lost"
        );
        *expected += 1;
    }
    next
}

#[test]
fn two_processes_appending_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("said.jsonl");
    let a = spawn_writer(&path, "a", 1500);
    let b = spawn_writer(&path, "b", 1500);
    for mut child in [a, b] {
        assert!(child.wait().unwrap().success());
    }
    let report = JsonlLog::new(&path).read_all().unwrap();
    assert_eq!(report.skipped, 0, "every line must be whole");
    let counts = sequences(&report.rows);
    assert_eq!(counts["a"], 1500);
    assert_eq!(counts["b"], 1500);
}

#[test]
fn threads_with_separate_handles_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evidence.jsonl");
    std::thread::scope(|s| {
        for w in ["t1", "t2", "t3", "t4"] {
            let path = path.clone();
            s.spawn(move || {
                let log = JsonlLog::new(path);
                for i in 0..400u64 {
                    log.append(&json!({"w": w, "i": i})).unwrap();
                }
            });
        }
    });
    let report = JsonlLog::new(&path).read_all().unwrap();
    assert_eq!(report.skipped, 0);
    assert_eq!(report.rows.len(), 1600);
    sequences(&report.rows);
}

#[cfg(unix)]
#[test]
fn killed_writer_leaves_only_parseable_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let mut child = spawn_writer(&path, "k", 1_000_000);
    // Let it write for a while, then SIGKILL it mid-stream.
    let log = JsonlLog::new(&path);
    for _ in 0..200 {
        std::thread::sleep(Duration::from_millis(10));
        if std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) > 200_000 {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let report = log.read_all().unwrap();
    assert!(report.rows.len() > 10, "the writer never got going");
    assert!(
        report.skipped <= 1,
        "only a torn last line may be unparseable"
    );
    let written = sequences(&report.rows)["k"];
    // A new append after the crash is intact, whatever the tail looked like.
    log.append(&json!({"w": "after", "i": 0})).unwrap();
    let again = log.read_all().unwrap();
    assert_eq!(again.rows.len() as u64, written + 1);
    assert_eq!(again.rows.last().unwrap()["w"], "after");
    assert!(again.skipped <= 1);
    // A retention rewrite drops the torn fragment and keeps every row.
    let r = log.retain(|_| true).unwrap();
    assert_eq!(r.kept as u64, written + 1);
    assert_eq!(log.read_all().unwrap().skipped, 0);
}

#[test]
fn ledger_tampering_on_disk_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite3");
    {
        let l = Ledger::open(&path).unwrap();
        for i in 0..6 {
            l.append(
                Timestamp::from_unix(i),
                "s",
                "block",
                &format!("{{\"i\":{i}}}"),
            )
            .unwrap();
        }
    }
    // Closing does not checkpoint (one short process per hook event): a
    // copy of the database file alone is taken after a checkpoint, as a
    // backup would be.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let tamper = |sql: &str| {
        let copy = dir.path().join("copy.sqlite3");
        std::fs::copy(&path, &copy).unwrap();
        let conn = rusqlite::Connection::open(&copy).unwrap();
        conn.execute_batch(sql).unwrap();
        drop(conn);
        let v = Ledger::open(&copy).unwrap().verify().unwrap();
        std::fs::remove_file(&copy).unwrap();
        v
    };
    assert!(Ledger::open(&path).unwrap().verify().unwrap().ok);
    let edit = tamper("UPDATE ledger SET decision = 'pass' WHERE seq = 3;");
    assert!(!edit.ok && edit.at == Some(3), "{edit:?}");
    let delete = tamper("DELETE FROM ledger WHERE seq = 2;");
    assert!(!delete.ok, "{delete:?}");
    let reorder = tamper(
        "UPDATE ledger SET seq = 99 WHERE seq = 4; UPDATE ledger SET seq = 4 WHERE seq = 5; UPDATE ledger SET seq = 5 WHERE seq = 99;",
    );
    assert!(!reorder.ok, "{reorder:?}");
    let truncate = tamper("DELETE FROM ledger WHERE seq > 4;");
    assert!(!truncate.ok, "{truncate:?}");
    let ts_edit = tamper("UPDATE ledger SET ts = '2000-01-01T00:00:00Z' WHERE seq = 6;");
    assert!(!ts_edit.ok, "{ts_edit:?}");
}

#[test]
fn hostile_session_ids_stay_in_their_folder() {
    let home = tempfile::tempdir().unwrap();
    let plugin = Plugin::new(GuardName::Closure, Host::default(), Env::default());
    let long = "A".repeat(10_000);
    let ids = [
        "../../x",
        "..",
        "/etc/passwd",
        "a\u{0}b",
        "用户/../会话",
        "..\\..\\win",
        long.as_str(),
    ];
    for id in ids {
        let kwargs = json!({"session_id": id, "completed": true, "interrupted": false});
        plugin.handle_at(
            home.path(),
            "on_session_end",
            &kwargs.to_string(),
            Timestamp::from_unix(1_800_000_000),
        );
    }
    // Nothing was created outside the closure trail (turn.closure.audit/).
    let mut stack = vec![home.path().to_path_buf()];
    let root = GuardName::Closure.data_dir(home.path());
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            assert!(
                p.starts_with(&root) || root.starts_with(&p),
                "{} escaped the data folder",
                p.display()
            );
        }
    }
    let latest = root.join("latest");
    let names: Vec<String> = std::fs::read_dir(&latest)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names.len(),
        ids.len(),
        "one snapshot per distinct id: {names:?}"
    );
    for name in names {
        assert!(name.len() <= 103 && name.ends_with(".json"), "{name}");
    }
}

#[cfg(unix)]
#[test]
fn data_files_are_0600() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let env = Env::default();
    let now = Timestamp::from_unix(1_800_000_000);
    let prov = Plugin::new(GuardName::Provenance, Host::default(), env.clone());
    prov.handle_at(
        home.path(),
        "pre_llm_call",
        r#"{"session_id":"s","user_message":"I decided we ship on Friday"}"#,
        now,
    );
    let inj = Plugin::new(GuardName::Injection, Host::default(), env);
    inj.command_at(home.path(), "verify", "{}", now);
    let mut checked = 0;
    let mut stack = vec![home.path().join("plugin-data")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            assert_eq!(mode & 0o077, 0, "{} is mode {mode:o}", p.display());
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "expected said.jsonl, its lock and the sqlite files"
    );
}

#[test]
fn corrupt_said_store_never_crashes_commands() {
    let home = tempfile::tempdir().unwrap();
    let dir = GuardName::Provenance.data_dir(home.path());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("evidence.jsonl"),
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"verdict\":\"would_block\",\"reason\":\"no_quote\"}\n{\"ts\": trunc\n\u{0}\u{0}\n",
    )
    .unwrap();
    let p = Plugin::new(GuardName::Provenance, Host::default(), Env::default());
    let out = p.command_at(
        home.path(),
        "report",
        "{}",
        Timestamp::from_unix(1_800_000_000),
    );
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["result"]["skipped_lines"], 2);
    assert_eq!(out["result"]["by_reason"]["no_quote"], 1);
}

#[test]
fn home_is_resolved_per_call() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let env = Env::from_pairs([("PROVENANCE_GATE_MODE", "block")]);
    let p = Plugin::new(GuardName::Provenance, Host::default(), env);
    let now = Timestamp::from_unix(1_800_000_000);
    let typed = r#"{"session_id":"s","turn_id":"u","user_message":"I decided we ship on Friday"}"#;
    let write = json!({"session_id": "s", "turn_id": "u", "tool_name": "memory",
        "args": {"action": "add", "target": "memory",
            "content": "User decided to ship on Friday (\"I decided we ship on Friday\")"}})
    .to_string();
    p.handle_at(a.path(), "pre_llm_call", typed, now);
    // Profile A has the user's words; profile B (same process) does not.
    assert_eq!(
        p.handle_at(a.path(), "pre_tool_call", &write, now)
            .directive
            .to_json(),
        "null"
    );
    assert!(p
        .handle_at(b.path(), "pre_tool_call", &write, now)
        .directive
        .is_block());
    assert!(!GuardName::Provenance
        .data_dir(b.path())
        .join("said.jsonl")
        .exists());
}
