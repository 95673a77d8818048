//! Table-driven tests: every `testdata/*.jsonl` line is one case with a
//! `name`, a `kind` selecting the runner, the `input`, the `expected` result
//! and a `note`. A failure prints the case name, the file and line, and the
//! line itself as a one-line reproduction.

use palisade_closure::classify::{Classifier, Turn};
use palisade_closure::detect::{detect_write, Effect, PathCase, RetentionPolicy, ToolCall};
use palisade_closure::ledger::{Applied, CandidateEvent, Ledger, Proposal};
use palisade_closure::promote::{
    Bucket, ExistingMemory, Mode, Promoter, PromotionOutcome, PromotionWriter,
};
use palisade_closure::redact::{preview, redact_text};
use palisade_closure::schema::{
    candidate_id, candidate_id_with_epoch, CandidateRecord, FinalSink, Receipt,
};
use palisade_closure::session::session_filename;
use palisade_closure::time::Timestamp;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

const FILES: &[(&str, &str)] = &[
    ("judge.jsonl", include_str!("../testdata/judge.jsonl")),
    (
        "judge_negative.jsonl",
        include_str!("../testdata/judge_negative.jsonl"),
    ),
    (
        "judge_multilingual.jsonl",
        include_str!("../testdata/judge_multilingual.jsonl"),
    ),
    (
        "fresh_closure.jsonl",
        include_str!("../testdata/fresh_closure.jsonl"),
    ),
    ("detect.jsonl", include_str!("../testdata/detect.jsonl")),
    ("redact.jsonl", include_str!("../testdata/redact.jsonl")),
    ("ledger.jsonl", include_str!("../testdata/ledger.jsonl")),
    ("promote.jsonl", include_str!("../testdata/promote.jsonl")),
    ("schema.jsonl", include_str!("../testdata/schema.jsonl")),
];

#[derive(serde::Deserialize)]
struct Case {
    name: String,
    kind: String,
    input: Value,
    expected: Value,
    note: String,
}

#[test]
fn testdata_cases() {
    let classifier = Classifier::new();
    let promoter = Promoter::new();
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    let mut total = 0;
    for (file, text) in FILES {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            total += 1;
            let case: Case = match serde_json::from_str(line) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{file}:{}: unparseable case: {e}", i + 1));
                    continue;
                }
            };
            if !names.insert(case.name.clone()) {
                failures.push(format!(
                    "{file}:{}: duplicate case name {}",
                    i + 1,
                    case.name
                ));
            }
            if case.note.trim().is_empty() {
                failures.push(format!("{file}:{}: case {} has no note", i + 1, case.name));
            }
            let result = match case.kind.as_str() {
                "judge" => run_judge(&classifier, &case),
                "detect" => run_detect(&case),
                "redact" => run_redact(&case),
                "ledger" => run_ledger(&case),
                "promote" => run_promote(&promoter, &case),
                "promote_flow" => run_promote_flow(&promoter, &case),
                "ids" => run_ids(&case),
                "session" => run_session(&case),
                "record" => run_record(&case),
                "receipt" => run_receipt(&case),
                "distill" => run_distill(&case),
                other => Err(format!("unknown kind {other}")),
            };
            if let Err(msg) = result {
                failures.push(format!(
                    "{file}:{} [{}] {msg}\n    repro: {line}",
                    i + 1,
                    case.name
                ));
            }
        }
    }
    assert!(total > 0);
    assert!(
        failures.is_empty(),
        "{} of {total} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn run_judge(classifier: &Classifier, case: &Case) -> Result<(), String> {
    let turn = Turn::from_json(&case.input["turn"]).map_err(|e| format!("bad turn: {e}"))?;
    let j = match case.input.get("home").and_then(Value::as_str) {
        Some(h) => classifier
            .clone()
            .with_policy(RetentionPolicy::with_home(h))
            .judge(&turn),
        None => classifier.judge(&turn),
    };
    let out = j.to_json();
    let e = &case.expected;
    check("judgment", out["judgment"].as_str(), e["judgment"].as_str())?;
    if let Some(c) = e.get("classification") {
        check("classification", &out["classification"], c)?;
    }
    if let Some(list) = e.get("classification_in") {
        let got = out["classification"].as_str().unwrap_or("").to_owned();
        if !strs(list).contains(&got) {
            return Err(format!("classification {got} not in {list}"));
        }
    }
    if let Some(s) = e.get("status") {
        check("status", &out["status"], s)?;
    }
    let cand = &out["candidate"];
    let content = cand["content"].as_str().unwrap_or("");
    for needle in strs(&e["content_contains"]) {
        if !content.contains(&needle) {
            return Err(format!("content {content:?} lacks {needle:?}"));
        }
    }
    for needle in strs(&e["content_excludes"]) {
        if content.contains(&needle) {
            return Err(format!("content {content:?} contains {needle:?}"));
        }
    }
    for key in ["risk", "final_sink"] {
        if let Some(v) = e.get(key) {
            check(key, &cand[key], v)?;
        }
    }
    if let Some(list) = e.get("risk_in") {
        let got = cand["risk"].as_str().unwrap_or("").to_owned();
        if !strs(list).contains(&got) {
            return Err(format!("risk {got} not in {list}"));
        }
    }
    if let Some(min) = e.get("confidence_min").and_then(Value::as_f64) {
        let got = cand["confidence"].as_f64().unwrap_or(0.0);
        if got < min {
            return Err(format!("confidence {got} < {min}"));
        }
    }
    if let Some(p) = e.get("candidate_id_prefix").and_then(Value::as_str) {
        if !cand["candidate_id"].as_str().unwrap_or("").starts_with(p) {
            return Err(format!(
                "candidate id {} lacks prefix {p}",
                cand["candidate_id"]
            ));
        }
    }
    let reasons = strs(&out["reasons"]).join(" | ");
    for needle in strs(&e["reasons_contain"]) {
        if !reasons.contains(&needle) {
            return Err(format!("reasons {reasons:?} lack {needle:?}"));
        }
    }
    if let Some(t) = e.get("write_targets") {
        let got: Vec<String> = j.writes.iter().flat_map(|w| w.targets()).collect();
        check("write_targets", got, strs(t))?;
    }
    if let Some(p) = e.get("write_preview") {
        check("write_preview", &out["writes"][0]["content_preview"], p)?;
    }
    if let Some(n) = e.get("deletions").and_then(Value::as_u64) {
        check("deletions", j.deletions.len() as u64, n)?;
    }
    Ok(())
}

fn run_detect(case: &Case) -> Result<(), String> {
    let c = &case.input["call"];
    let call = ToolCall {
        name: c["name"].as_str().unwrap_or("").to_owned(),
        args: c.get("args").cloned().unwrap_or(Value::Null),
        result: c.get("result").cloned().unwrap_or(Value::Null),
        cwd: c.get("cwd").and_then(Value::as_str).map(str::to_owned),
    };
    let mut policy = match case.input.get("home").and_then(Value::as_str) {
        Some(h) => RetentionPolicy::with_home(h),
        None => RetentionPolicy::default(),
    };
    if case.input.get("case").and_then(Value::as_str) == Some("insensitive") {
        policy.case = PathCase::Insensitive;
    }
    let ev = detect_write(&call, &policy);
    let e = &case.expected;
    let effect = ev.as_ref().map(|ev| match ev.effect {
        Effect::Retain => "retain",
        Effect::Delete => "delete",
    });
    check("effect", effect, e["effect"].as_str())?;
    if let Some(ev) = ev {
        if let Some(p) = e.get("paths") {
            check("paths", ev.paths.clone(), strs(p))?;
        }
        if let Some(k) = e.get("kind").and_then(Value::as_str) {
            check("kind", ev.kind.as_str(), k)?;
        }
        if let Some(t) = e.get("target") {
            check("target", ev.target.as_deref(), t.as_str())?;
        }
        if let Some(p) = e.get("content_preview") {
            check("content_preview", ev.content_preview.as_deref(), p.as_str())?;
        }
    }
    Ok(())
}

fn run_redact(case: &Case) -> Result<(), String> {
    let out = match (
        case.input.get("text").and_then(Value::as_str),
        case.input.get("value"),
    ) {
        (Some(t), _) => redact_text(t),
        (None, Some(v)) => preview(v, 2000),
        _ => return Err("input needs text or value".into()),
    };
    let e = &case.expected;
    if let Some(o) = e.get("output").and_then(Value::as_str) {
        check("output", out.as_str(), o)?;
    }
    for needle in strs(&e["excludes"]) {
        if out.contains(&needle) {
            return Err(format!("output {out:?} still contains {needle:?}"));
        }
    }
    for needle in strs(&e["contains"]) {
        if !out.contains(&needle) {
            return Err(format!("output {out:?} lacks {needle:?}"));
        }
    }
    // Idempotence: a second pass changes nothing.
    if case.input.get("text").is_some() {
        check("idempotent", redact_text(&out), out.clone())?;
    }
    Ok(())
}

fn record_from(v: &Value) -> Result<CandidateRecord, String> {
    let mut m = v.as_object().cloned().unwrap_or_default();
    m.entry("classification")
        .or_insert(json!("user-preference"));
    m.entry("confidence").or_insert(json!(0.9));
    m.entry("risk").or_insert(json!("low"));
    m.entry("final_sink").or_insert(json!("user"));
    CandidateRecord::from_value(&Value::Object(m)).map_err(|e| format!("bad record: {e}"))
}

/// Replace "$alias" strings: `candidate` keys get the record, others its id.
fn substitute(v: &Value, recs: &HashMap<String, CandidateRecord>, key: &str) -> Value {
    match v {
        Value::String(s) if s.starts_with('$') => match recs.get(&s[1..]) {
            Some(r) if key == "candidate" => r.to_value(),
            Some(r) => json!(r.candidate_id),
            None => v.clone(),
        },
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), substitute(x, recs, k)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, recs, key)).collect()),
        other => other.clone(),
    }
}

fn applied_name(a: &Applied) -> String {
    match a {
        Applied::Accepted => "accepted".into(),
        Applied::Duplicate => "duplicate".into(),
        Applied::Deduped => "deduped".into(),
        Applied::Deferred => "deferred".into(),
        Applied::Rejected(why) => format!("rejected: {why}"),
    }
}

fn run_ledger(case: &Case) -> Result<(), String> {
    let mut recs = HashMap::new();
    if let Some(m) = case.input.get("candidates").and_then(Value::as_object) {
        for (alias, v) in m {
            recs.insert(alias.clone(), record_from(v)?);
        }
    }
    let mut ledger = Ledger::new();
    let mut outcomes = Vec::new();
    for ev in case.input["events"].as_array().cloned().unwrap_or_default() {
        let ev = substitute(&ev, &recs, "");
        outcomes.push(applied_name(&ledger.apply_value(&ev)));
    }
    let e = &case.expected;
    if let Some(want) = e.get("outcomes") {
        let want = strs(want);
        if want.len() != outcomes.len() {
            return Err(format!("outcomes: got {outcomes:?}, want {want:?}"));
        }
        for (g, w) in outcomes.iter().zip(&want) {
            if !g.starts_with(w.as_str()) {
                return Err(format!("outcomes: got {outcomes:?}, want {want:?}"));
            }
        }
    }
    if let Some(m) = e.get("status").and_then(Value::as_object) {
        for (alias, want) in m {
            let id = recs
                .get(alias)
                .map(|r| r.candidate_id.clone())
                .unwrap_or_else(|| alias.clone());
            let got = ledger.get(&id).map(|v| v.record.status.as_str());
            check(&format!("status of {alias}"), got, want.as_str())?;
        }
    }
    if let Some(m) = e.get("receipt_id").and_then(Value::as_object) {
        for (alias, want) in m {
            let id = &recs[alias].candidate_id;
            let got = ledger
                .get(id)
                .and_then(|v| v.record.receipt.as_ref())
                .map(|r| r.id.clone());
            check(
                &format!("receipt of {alias}"),
                got.as_deref(),
                want.as_str(),
            )?;
        }
    }
    if let Some(n) = e.get("event_count").and_then(Value::as_u64) {
        check("event_count", ledger.event_count() as u64, n)?;
    }
    let now = case
        .input
        .get("now")
        .and_then(Value::as_str)
        .map(Timestamp::parse);
    if let Some(now) = now {
        let now = now.map_err(|e| e.to_string())?;
        if let Some(r) = e.get("report") {
            let hours = case
                .input
                .get("overdue_hours")
                .and_then(Value::as_i64)
                .unwrap_or(24);
            let rep = ledger.pending_report(&now, hours * 3600);
            let oldest = rep.oldest_pending.clone().map(|id| {
                recs.iter()
                    .find(|(_, r)| r.candidate_id == id)
                    .map(|(a, _)| a.clone())
                    .unwrap_or(id)
            });
            let got = json!({
                "pending_total": rep.pending_total, "pending_overdue": rep.pending_overdue,
                "needs_user_confirmation_total": rep.needs_user_confirmation_total,
                "promoted_today": rep.promoted_today, "merged_today": rep.merged_today,
                "rejected_today": rep.rejected_today, "expired_today": rep.expired_today,
                "oldest_pending": oldest,
            });
            for (k, v) in r.as_object().cloned().unwrap_or_default() {
                check(&format!("report.{k}"), &got[&k], &v)?;
            }
        }
        if let Some(want) = e.get("expire") {
            let ttl = case
                .input
                .get("ttl_hours")
                .and_then(Value::as_i64)
                .unwrap_or(72);
            let evs = ledger.expire_due(&now, ttl * 3600);
            let mut got: Vec<String> = evs
                .iter()
                .map(|ev| {
                    recs.iter()
                        .find(|(_, r)| r.candidate_id == ev.candidate_id)
                        .map(|(a, _)| a.clone())
                        .unwrap_or_default()
                })
                .collect();
            got.sort();
            check("expire", got, strs(want))?;
            for ev in evs {
                let a = ledger.apply(ev);
                check("expire applies", applied_name(&a), "accepted".into())?;
            }
        }
    }
    if let Some(p) = e.get("propose").and_then(Value::as_str) {
        let alias = case.input["propose"].as_str().unwrap_or("");
        let rec = recs.get(alias).cloned().ok_or("propose alias unknown")?;
        let got = match ledger.propose(rec, Timestamp::from_unix(1_780_000_000)) {
            Proposal::New(_) => "new",
            Proposal::Existing { .. } => "existing",
            Proposal::Reproposable { .. } => "reproposable",
        };
        check("propose", got, p)?;
    }
    if let Some(after) = e.get("status_after_expire").and_then(Value::as_object) {
        for (alias, want) in after {
            let got = ledger
                .get(&recs[alias].candidate_id)
                .map(|v| v.record.status.as_str());
            check(
                &format!("status after expire of {alias}"),
                got,
                want.as_str(),
            )?;
        }
    }
    Ok(())
}

fn memories(v: &Value) -> Vec<ExistingMemory> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|m| ExistingMemory {
                    id: m["id"].as_str().unwrap_or("").to_owned(),
                    content: m["content"].as_str().unwrap_or("").to_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn run_promote(p: &Promoter, case: &Case) -> Result<(), String> {
    let mut cands = Vec::new();
    let mut aliases = HashMap::new();
    for c in case.input["candidates"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let rec = record_from(&c)?;
        if let Some(a) = c.get("alias").and_then(Value::as_str) {
            aliases.insert(rec.candidate_id.clone(), a.to_owned());
        }
        cands.push(rec);
    }
    let mut conflicts: HashMap<String, Vec<String>> = HashMap::new();
    if let Some(m) = case.input.get("conflicts").and_then(Value::as_object) {
        for (alias, list) in m {
            if let Some((id, _)) = aliases.iter().find(|(_, a)| *a == alias) {
                conflicts.insert(id.clone(), strs(list));
            }
        }
    }
    let report = p.dry_run(&cands, &memories(&case.input["existing"]), &conflicts);
    if let Some(counts) = case.expected.get("counts").and_then(Value::as_object) {
        for b in Bucket::ALL {
            let want = counts.get(b.as_str()).and_then(Value::as_u64).unwrap_or(0);
            check(
                &format!("count {}", b.as_str()),
                report.count(b) as u64,
                want,
            )?;
        }
    }
    if let Some(m) = case.expected.get("buckets").and_then(Value::as_object) {
        for (bucket, id, _) in &report.entries {
            if let Some(alias) = aliases.get(id) {
                if let Some(want) = m.get(alias).and_then(Value::as_str) {
                    check(&format!("bucket of {alias}"), bucket.as_str(), want)?;
                }
            }
        }
    }
    Ok(())
}

struct MemWriter(Vec<String>);

impl PromotionWriter for MemWriter {
    fn write(&mut self, c: &CandidateRecord) -> Result<Receipt, String> {
        self.0.push(c.candidate_id.clone());
        Ok(Receipt::promotion(
            "2026-05-18T00:00:00Z",
            "fake-memory-writer",
            c.final_sink.as_str(),
            &c.candidate_id,
        ))
    }
}

fn run_promote_flow(p: &Promoter, case: &Case) -> Result<(), String> {
    let rec = record_from(&case.input["candidate"])?;
    let id = rec.candidate_id.clone();
    let existing = memories(&case.input["existing"]);
    let mut ledger = Ledger::new();
    let t0 = Timestamp::parse("2026-05-16T00:00:00Z").map_err(|e| e.to_string())?;
    ledger.apply(CandidateEvent::created(rec, t0));
    let mut writer = MemWriter(Vec::new());
    let mut outcomes = Vec::new();
    for (i, step) in strs(&case.input["steps"]).iter().enumerate() {
        let current = ledger.get(&id).ok_or("candidate vanished")?.record.clone();
        let at = t0.add_seconds(60 * (i as i64 + 1));
        let out = match step.as_str() {
            "dry_run" => p.promote(&current, &existing, &[], at, Mode::DryRun, None),
            "apply" => p.promote(&current, &existing, &[], at, Mode::Apply, None),
            "apply_with_writer" => {
                p.promote(&current, &existing, &[], at, Mode::Apply, Some(&mut writer))
            }
            "confirm_with_writer" => p.confirm_by_user(&current, at, Some(&mut writer)),
            other => return Err(format!("unknown step {other}")),
        };
        let name = match out {
            PromotionOutcome::DryRun(d) => format!("dry_run:{}", d.bucket.as_str()),
            PromotionOutcome::WriterRequired => "writer_required".into(),
            PromotionOutcome::WriterFailed(e) => format!("writer_failed:{e}"),
            PromotionOutcome::Terminal(s) => format!("terminal:{s}"),
            PromotionOutcome::AwaitingUser => "awaiting_user".into(),
            PromotionOutcome::Event(ev) => {
                let a = ledger.apply(*ev);
                let status = ledger
                    .get(&id)
                    .map(|v| v.record.status.as_str())
                    .unwrap_or("?");
                match a {
                    Applied::Accepted => format!("event:{status}"),
                    other => format!("event_{}", applied_name(&other)),
                }
            }
        };
        outcomes.push(name);
    }
    let e = &case.expected;
    check("outcomes", outcomes, strs(&e["outcomes"]))?;
    if let Some(s) = e.get("final_status").and_then(Value::as_str) {
        check(
            "final_status",
            ledger.get(&id).map(|v| v.record.status.as_str()),
            Some(s),
        )?;
    }
    if let Some(n) = e.get("writes").and_then(Value::as_u64) {
        check("writes", writer.0.len() as u64, n)?;
    }
    Ok(())
}

fn run_ids(case: &Case) -> Result<(), String> {
    let i = &case.input;
    let sink = FinalSink::parse(i["sink"].as_str().unwrap_or("")).ok_or("bad sink")?;
    let id = candidate_id_with_epoch(
        i["content"].as_str().unwrap_or(""),
        sink,
        i["classification"].as_str().unwrap_or(""),
        i.get("epoch").and_then(Value::as_str).unwrap_or(""),
    );
    let e = &case.expected;
    if let Some(want) = e.get("id").and_then(Value::as_str) {
        check("id", id.as_str(), want)?;
    }
    if let Some(other) = e.get("same_as") {
        let s2 = FinalSink::parse(other["sink"].as_str().unwrap_or("")).ok_or("bad sink")?;
        let id2 = candidate_id(
            other["content"].as_str().unwrap_or(""),
            s2,
            other["classification"].as_str().unwrap_or(""),
        );
        check("same id", id.clone(), id2)?;
    }
    if let Some(other) = e.get("differs_from") {
        let s2 = FinalSink::parse(other["sink"].as_str().unwrap_or("")).ok_or("bad sink")?;
        let id2 = candidate_id(
            other["content"].as_str().unwrap_or(""),
            s2,
            other["classification"].as_str().unwrap_or(""),
        );
        if id == id2 {
            return Err(format!("ids should differ: {id}"));
        }
    }
    if let Some(ev) = e.get("event_id").and_then(Value::as_str) {
        let x = &i["event"];
        let got = palisade_closure::schema::event_id(
            x["event_type"].as_str().unwrap_or(""),
            x["candidate_id"].as_str().unwrap_or(""),
            x["at"].as_str().unwrap_or(""),
            x["status"].as_str(),
            x["reason"].as_str().unwrap_or(""),
            None,
        );
        check("event_id", got.as_str(), ev)?;
    }
    Ok(())
}

fn run_session(case: &Case) -> Result<(), String> {
    let name = session_filename(case.input["id"].as_str().unwrap_or(""));
    let e = &case.expected;
    if let Some(p) = e.get("prefix").and_then(Value::as_str) {
        if !name.starts_with(p) {
            return Err(format!("{name} lacks prefix {p}"));
        }
    }
    if name.contains(['/', '\\']) || name.starts_with('.') || name.is_empty() || name.len() > 98 {
        return Err(format!("unsafe file name {name:?}"));
    }
    if let Some(other) = e.get("differs_from_id").and_then(Value::as_str) {
        if session_filename(other) == name {
            return Err(format!("collision with {other:?}"));
        }
    }
    Ok(())
}

fn run_record(case: &Case) -> Result<(), String> {
    let r = CandidateRecord::from_value(&case.input);
    let e = &case.expected;
    match (r, e.get("error").and_then(Value::as_str)) {
        (Err(err), Some(needle)) => {
            if err.to_string().contains(needle) {
                Ok(())
            } else {
                Err(format!("error {err} lacks {needle:?}"))
            }
        }
        (Err(err), None) => Err(format!("unexpected error {err}")),
        (Ok(_), Some(needle)) => Err(format!("expected an error containing {needle:?}")),
        (Ok(rec), None) => {
            let back = CandidateRecord::from_value(&rec.to_value()).map_err(|e| e.to_string())?;
            check("roundtrip", &back, &rec)?;
            let v = rec.to_value();
            for (k, want) in e.as_object().cloned().unwrap_or_default() {
                check(&k, &v[&k], &want)?;
            }
            Ok(())
        }
    }
}

fn run_receipt(case: &Case) -> Result<(), String> {
    let r = Receipt::from_value(&case.input);
    match (r, case.expected.get("ok").and_then(Value::as_bool)) {
        (Ok(r), Some(true)) => {
            for (k, want) in case
                .expected
                .get("fields")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or(Map::new())
            {
                check(&k, &r.to_value()[&k], &want)?;
            }
            Ok(())
        }
        (Err(_), Some(false)) => Ok(()),
        (r, want) => Err(format!("receipt: got {r:?}, want ok={want:?}")),
    }
}

fn run_distill(case: &Case) -> Result<(), String> {
    let got = palisade_closure::distill::candidates_from_model(
        &case.input["output"],
        "rec-1",
        "s1",
        "2026-05-18T00:00:00Z",
    );
    let e = &case.expected;
    check("count", got.len() as u64, e["count"].as_u64().unwrap_or(0))?;
    if let Some(first) = got.first() {
        for (k, want) in e
            .get("first")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
        {
            check(&k, &first.to_value()[&k], &want)?;
        }
        for needle in strs(&e["content_excludes"]) {
            if first.candidate_content.contains(&needle) {
                return Err(format!("content still contains {needle:?}"));
            }
        }
    }
    Ok(())
}
