//! Table-driven tests, one table per rule of issue 20: the write-success
//! rule, the retention-write rule, retention paths, failed writes leaving a
//! turn to its content, interrupted turns, and words without a write.

use palisade_closure::classify::{Classification, Classifier, JudgmentKind, Turn};
use palisade_closure::detect::{
    call_outcome, detect_write, retention_effect, Effect, Outcome, RetentionPolicy, ToolCall,
};
use serde_json::{json, Value};

fn ok(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Succeeded)
}

/// The write-success rule ([`call_outcome`]).
#[test]
fn write_success_rule() {
    let table: &[(&str, Value, Option<bool>)] = &[
        // JSON strings, compact or pretty-printed, are judged as the object.
        (
            "compact string, success",
            json!("{\"success\":true,\"target\":\"user\"}"),
            Some(true),
        ),
        (
            "pretty string, success",
            json!("{\n  \"success\": true,\n  \"entries\": 11\n}"),
            Some(true),
        ),
        (
            "compact string, failure",
            json!("{\"success\":false,\"error\":\"disabled\"}"),
            Some(false),
        ),
        (
            "pretty string, failure",
            json!("{\n  \"success\": false,\n  \"retryable\": true\n}"),
            Some(false),
        ),
        // "success": false fails, whatever else is there.
        (
            "success false",
            json!({"success": false, "message": "Entry added."}),
            Some(false),
        ),
        ("success false as 0", json!({"success": 0}), Some(false)),
        ("ok false", json!({"ok": false}), Some(false)),
        // An error key without a success key fails.
        (
            "error key alone",
            json!({"error": "rate limited: retry after 30s"}),
            Some(false),
        ),
        (
            "error object alone",
            json!({"error": {"code": 503}}),
            Some(false),
        ),
        ("empty error alone", json!({"error": ""}), Some(true)),
        (
            "null error alone",
            json!({"error": null, "bytes_written": 3}),
            Some(true),
        ),
        // success true wins, whatever else the object carries.
        (
            "success true with warning",
            json!({"success": true, "error": null, "warning": "similar entry"}),
            Some(true),
        ),
        (
            "success true with error text",
            json!({"success": true, "error": "near capacity"}),
            Some(true),
        ),
        (
            "success true with exit code",
            json!({"success": true, "exit_code": 1}),
            Some(true),
        ),
        // hindsight_retain errors.
        (
            "hindsight error string",
            json!("Error: Hindsight server returned 503 Service Unavailable"),
            Some(false),
        ),
        (
            "hindsight error object",
            json!({"error": "bank 'nadia' not found"}),
            Some(false),
        ),
        (
            "hindsight request failed",
            json!("Hindsight request failed: connection refused"),
            Some(false),
        ),
        // Error / Failed prefixes in any case.
        (
            "Error prefix",
            json!("Error: ENOSPC: no space left on device"),
            Some(false),
        ),
        (
            "ERROR prefix",
            json!("ERROR: memory provider timeout after 10s"),
            Some(false),
        ),
        (
            "error prefix",
            json!("error: EACCES: permission denied"),
            Some(false),
        ),
        (
            "Failed prefix",
            json!("Failed: entry exceeds 500 character limit (612)"),
            Some(false),
        ),
        (
            "failed prefix",
            json!("failed to write /x: Read-only file system"),
            Some(false),
        ),
        ("FAILED prefix", json!("FAILED"), Some(false)),
        // Plain confirmations succeed; a failure among the first words fails.
        (
            "plain confirmation",
            json!("Entry replaced in MEMORY.md"),
            Some(true),
        ),
        (
            "file written",
            json!("File written: memory/2026-05-21.md (78 bytes)"),
            Some(true),
        ),
        (
            "limit mentioned late",
            json!("Entry added (limit 2,200 chars, 61% used)"),
            Some(true),
        ),
        ("no error", json!("Saved, no error"), Some(true)),
        (
            "memory full",
            json!("Memory full: remove an entry first"),
            Some(false),
        ),
        ("not found", json!("Skill 'deploy' not found"), Some(false)),
        (
            "not added",
            json!("Entry not added: duplicate"),
            Some(false),
        ),
        ("status error", json!({"status": "error"}), Some(false)),
        (
            "result error",
            json!("{\"result\": \"error\", \"detail\": \"quota\"}"),
            Some(false),
        ),
        (
            "message error",
            json!({"message": "Error: bank missing"}),
            Some(false),
        ),
        ("German error", json!("Fehler: Speicher voll"), Some(false)),
        ("Chinese error", json!("错误：磁盘已满"), Some(false)),
        // A cancelled call (null) or blank text is no result at all.
        ("null", Value::Null, None),
        ("blank", json!("   "), None),
    ];
    for (name, result, want) in table {
        let got = call_outcome(result);
        match want {
            None => assert_eq!(got, Outcome::Unknown, "{name}: {result}"),
            Some(w) => assert_eq!(ok(&got), *w, "{name}: {result} -> {got:?}"),
        }
    }
}

/// The retention-write rule ([`retention_effect`] and [`detect_write`]).
#[test]
fn retention_write_rule() {
    let home = RetentionPolicy::with_home("/home/u/.hermes");
    let done = json!({"success": true});
    let table: &[(&str, &str, Value, Option<Effect>)] = &[
        (
            "memory add",
            "memory",
            json!({"action": "add", "target": "user", "content": "x"}),
            Some(Effect::Retain),
        ),
        (
            "memory replace",
            "memory",
            json!({"action": "replace", "old_text": "a", "content": "b"}),
            Some(Effect::Retain),
        ),
        (
            "memory remove",
            "memory",
            json!({"action": "remove", "old_text": "a"}),
            Some(Effect::Delete),
        ),
        ("memory read", "memory", json!({"action": "read"}), None),
        (
            "skill create",
            "skill_manage",
            json!({"action": "create", "name": "s"}),
            Some(Effect::Retain),
        ),
        (
            "skill edit",
            "skill_manage",
            json!({"action": "edit", "name": "s"}),
            Some(Effect::Retain),
        ),
        (
            "skill patch",
            "skill_manage",
            json!({"action": "patch", "name": "s"}),
            Some(Effect::Retain),
        ),
        (
            "skill delete",
            "skill_manage",
            json!({"action": "delete", "name": "s"}),
            Some(Effect::Delete),
        ),
        (
            "hindsight",
            "hindsight_retain",
            json!({"content": "x"}),
            Some(Effect::Retain),
        ),
        (
            "write memory/",
            "write_file",
            json!({"path": "/home/u/.hermes/memory/d.md"}),
            Some(Effect::Retain),
        ),
        (
            "write memories/",
            "patch",
            json!({"path": "/home/u/.hermes/memories/USER.md"}),
            Some(Effect::Retain),
        ),
        (
            "write knowledge/",
            "write_file",
            json!({"path": "/home/u/.hermes/knowledge/a.md"}),
            Some(Effect::Retain),
        ),
        (
            "write config",
            "patch",
            json!({"path": "/home/u/.hermes/config.yaml"}),
            None,
        ),
        (
            "patch deletes only",
            "patch",
            json!({"mode": "patch", "patch": "*** Delete File: memory/old.md\n"}),
            Some(Effect::Delete),
        ),
        (
            "terminal",
            "terminal",
            json!({"command": "echo x >> ~/.hermes/memory/a.md"}),
            None,
        ),
    ];
    for (name, tool, args, want) in table {
        let call = ToolCall::new(*tool, args.clone(), done.clone());
        let got = detect_write(&call, &home).map(|e| e.effect);
        assert_eq!(got, *want, "{name}");
    }
    assert_eq!(
        retention_effect(" Memory ", Some(" ADD ")),
        None,
        "tool names are exact"
    );
    assert_eq!(
        retention_effect("memory", Some(" ADD ")),
        Some(Effect::Retain)
    );
    // A retention-shaped call whose result failed is no write.
    let failed = ToolCall::new(
        "memory",
        json!({"action": "add", "content": "x"}),
        json!("Error: full"),
    );
    assert!(detect_write(&failed, &home).is_none());
}

/// (name, home, path, cwd, expected home-relative path)
type PathCase<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, Option<&'a str>);

/// Retention paths ([`RetentionPolicy::retention_path`]).
#[test]
fn retention_paths() {
    let table: &[PathCase<'_>] = &[
        (
            "relative, cwd is the home",
            "/home/u/.hermes",
            "memory/a.md",
            Some("/home/u/.hermes"),
            Some("memory/a.md"),
        ),
        (
            "relative, no cwd: the home",
            "/home/u/.hermes",
            "knowledge/g.md",
            None,
            Some("knowledge/g.md"),
        ),
        (
            "relative, cwd a project",
            "/home/u/.hermes",
            "knowledge/a/README.md",
            Some("/home/u/src/infra"),
            None,
        ),
        (
            "relative, cwd inside knowledge",
            "/home/u/.hermes",
            "./steps/backup.md",
            Some("/home/u/.hermes/knowledge"),
            Some("knowledge/steps/backup.md"),
        ),
        (
            "relative .. from a plugin dir",
            "/home/u/.hermes",
            "../../knowledge/adr.md",
            Some("/home/u/.hermes/plugins/x"),
            Some("knowledge/adr.md"),
        ),
        (
            "absolute with .. staying inside",
            "/home/u/.hermes",
            "/home/u/.hermes/tmp/../memory/d.md",
            None,
            Some("memory/d.md"),
        ),
        (
            "absolute with .. escaping",
            "/home/u/.hermes",
            "/home/u/.hermes/knowledge/../../notes/r.md",
            None,
            None,
        ),
        (
            "component containment",
            "/home/u/.hermes",
            "/home/u/.hermes-old/knowledge/README.md",
            None,
            None,
        ),
        (
            "memory-archive is not memory",
            "/home/u/.hermes",
            "/home/u/.hermes/memory-archive/R.md",
            None,
            None,
        ),
        (
            "trailing-slash home",
            "/home/u/.hermes/",
            "/home/u/.hermes/knowledge/p.md",
            None,
            Some("knowledge/p.md"),
        ),
        (
            "parent's knowledge is outside",
            "/home/u/.hermes",
            "/home/u/knowledge/r.md",
            None,
            None,
        ),
        (
            "profile home: own knowledge",
            "/home/u/.hermes/profiles/work",
            "/home/u/.hermes/profiles/work/knowledge/o.md",
            None,
            Some("knowledge/o.md"),
        ),
        (
            "profile home: parent knowledge is outside",
            "/home/u/.hermes/profiles/work",
            "/home/u/.hermes/knowledge/adr/README.md",
            None,
            None,
        ),
        (
            "tilde",
            "/home/u/.hermes",
            "~/.hermes/knowledge/nas.md",
            None,
            Some("knowledge/nas.md"),
        ),
        (
            "folder itself is no file",
            "/home/u/.hermes",
            "/home/u/.hermes/memory",
            None,
            None,
        ),
    ];
    for (name, home, path, cwd, want) in table {
        let policy = RetentionPolicy::with_home(*home);
        assert_eq!(
            policy.retention_path(path, *cwd).as_deref(),
            *want,
            "{name}"
        );
    }
}

fn turn(user: &str, assistant: &str, calls: Vec<ToolCall>) -> Turn {
    let mut t = Turn::new(user, assistant);
    t.tool_calls = calls;
    t
}

/// A failed or out-of-home retention write leaves the turn to its content.
#[test]
fn failed_or_outside_writes_leave_the_turn_to_its_content() {
    let judge = Classifier::new().with_policy(RetentionPolicy::with_home("/home/u/.hermes"));
    let add = |result: Value| {
        ToolCall::new(
            "memory",
            json!({"action": "add", "target": "user", "content": "x"}),
            result,
        )
    };
    let table: Vec<(&str, Turn, Classification)> = vec![
        (
            "preference, failed add",
            turn(
                "From now on, reply in French.",
                "Couldn't save.",
                vec![add(json!({"success": false}))],
            ),
            Classification::UserPreference,
        ),
        (
            "boundary, error string",
            turn(
                "Never post my son's name anywhere.",
                "Failed.",
                vec![add(json!("ERROR: timeout"))],
            ),
            Classification::UserBoundary,
        ),
        (
            "boundary, cancelled add",
            turn(
                "Going forward, never schedule anything on Wednesdays.",
                "…",
                vec![add(Value::Null)],
            ),
            Classification::UserBoundary,
        ),
        (
            "governance, outside the home",
            turn(
                "New rule for memory: nothing short-lived goes into MEMORY.md.",
                "Done.",
                vec![ToolCall::new(
                    "write_file",
                    json!({"path": "/home/u/.hermes-old/knowledge/R.md"}),
                    json!({"success": true}),
                )],
            ),
            Classification::GovernanceOrKnowledge,
        ),
        (
            "boundary, only a deletion",
            turn(
                "Delete the autopost skill. And never post without my OK.",
                "Deleted.",
                vec![ToolCall::new(
                    "skill_manage",
                    json!({"action": "delete", "name": "autopost"}),
                    json!({"success": true}),
                )],
            ),
            Classification::UserBoundary,
        ),
    ];
    for (name, t, want) in table {
        let j = judge.judge(&t);
        assert_eq!(j.kind, JudgmentKind::Candidate, "{name}: {:?}", j.reasons);
        assert_eq!(j.classification, want, "{name}");
    }
}

/// Interrupted turns and words without a write.
#[test]
fn interrupted_turns_and_words_without_writes() {
    let judge = Classifier::new();
    let interrupted = |mut t: Turn| {
        t.completed = false;
        t.interrupted = true;
        t
    };
    let returned = || {
        ToolCall::new(
            "terminal",
            json!({"command": "ls"}),
            json!({"output": "a", "exit_code": 0}),
        )
    };
    let cancelled = || ToolCall::new("terminal", json!({"command": "pnpm install"}), Value::Null);
    let saved = || {
        ToolCall::new(
            "memory",
            json!({"action": "add", "content": "x"}),
            json!({"success": true}),
        )
    };
    let table: Vec<(&str, Turn, JudgmentKind)> = vec![
        (
            "no tool calls",
            interrupted(turn("write me a limerick", "There once was", vec![])),
            JudgmentKind::Routine,
        ),
        (
            "only a cancelled call",
            interrupted(turn("install the deps", "Installing…", vec![cancelled()])),
            JudgmentKind::Routine,
        ),
        (
            "returned call, no completed step",
            interrupted(turn("list my files", "Looking…", vec![returned()])),
            JudgmentKind::Routine,
        ),
        (
            "partial work",
            interrupted(turn(
                "sort my photos",
                "Progress so far: I moved 2014–2019 into by-year.",
                vec![returned(), cancelled()],
            )),
            JudgmentKind::Candidate,
        ),
        (
            "partial work, Chinese",
            interrupted(turn(
                "整理照片",
                "已经把 2014 年的照片整理好了，正在处理 2015…",
                vec![returned()],
            )),
            JudgmentKind::Candidate,
        ),
        (
            "write before the interruption",
            interrupted(turn(
                "note my daughter's start date, then search buses",
                "Noted. Searching…",
                vec![saved(), cancelled()],
            )),
            JudgmentKind::Retained,
        ),
        (
            "interrupted preference, no work",
            interrupted(turn("From now on, answer in French.", "D'acc", vec![])),
            JudgmentKind::Candidate,
        ),
        (
            "saved, in words only",
            turn("Remember I use zsh.", "Saved!", vec![]),
            JudgmentKind::Candidate,
        ),
        (
            "记住了, in words only",
            turn("记住我用 zsh。", "记住了！", vec![]),
            JudgmentKind::Candidate,
        ),
        (
            "saved, routine content",
            turn("what's 2+2?", "4 — saved to memory.", vec![]),
            JudgmentKind::Routine,
        ),
    ];
    for (name, t, want) in table {
        let j = judge.judge(&t);
        assert_eq!(j.kind, want, "{name}: {:?}", j.reasons);
        if want == JudgmentKind::Candidate && !t.completed {
            assert!(j.candidate.is_some(), "{name}");
        }
    }
}
