//! The four guards, wired to session events.
//!
//! | event | guards |
//! |---|---|
//! | user message | injection scan; the text is remembered as "said" for provenance |
//! | assistant reply | egress: secrets, small cells and microdata in tables |
//! | assistant tool call | egress: secrets in arguments, uploads in commands; injection: tool-call guard; provenance: memory/skill writes |
//! | tool result | injection scan (indirect injection); egress: secrets in results |
//! | end of turn | closure: was what should be retained retained? |

use super::session::{Message, ToolCall};
use super::{ScanFinding, Turn, MAX_SAID_BYTES};
use palisade_closure::classify::{Classification, Classifier, JudgmentKind};
use palisade_common::mask::preview_line;
use palisade_common::Severity;
use palisade_egress::command::{check_command, NetworkOptions};
use palisade_egress::secrets::SecretScanner;
use palisade_egress::table::{self, TableOptions};
use palisade_injection::{
    clean_copy, Report as InjectionReport, Scanner, SessionState, Tier, ToolPolicy,
};
use palisade_provenance::gate::{Gate, GateConfig, Outcome};
use palisade_provenance::replay::{check_write, Stored};
use palisade_provenance::SaidIndex;
use serde_json::{json, Value};

/// The session id provenance uses for the scanned session.
const SESSION: &str = "scan";

/// Longest preview printed for a claim or a turn.
const PREVIEW_CHARS: usize = 100;

/// At most this many injection findings are reported per message (the
/// strongest first); the rest add nothing a reader needs.
const INJECTION_FINDINGS_PER_MESSAGE: usize = 3;

/// Offline there is no clock: each line is taken as a minute after the last,
/// so the replay window only catches calls repeated back to back.
const MS_PER_LINE: u64 = 60_000;

/// Tools whose `command` argument is a shell command.
const SHELL_TOOLS: &[&str] = &[
    "terminal",
    "shell",
    "bash",
    "run_command",
    "execute_command",
];

/// Compiled guard engines and the little state a scan keeps.
pub struct Guards {
    secrets: &'static SecretScanner,
    tables: TableOptions,
    gate: Gate,
    said: SaidIndex,
    closure: Classifier,
    injection: Scanner,
    tool_policy: ToolPolicy,
    session: SessionState,
    network: NetworkOptions,
    /// User text captured so far, in bytes.
    said_bytes: usize,
    /// The most user text to capture ([`MAX_SAID_BYTES`]).
    said_cap: usize,
}

impl Guards {
    /// Build every guard engine.
    pub fn new() -> Self {
        Guards {
            secrets: SecretScanner::builtin(),
            tables: TableOptions::default(),
            gate: Gate::new(GateConfig::default()),
            said: SaidIndex::new(),
            closure: Classifier::new(),
            injection: Scanner::new(),
            tool_policy: ToolPolicy::default(),
            session: SessionState::new(),
            // Offline there is no policy file: every destination is unlisted.
            network: NetworkOptions::with_allowed_hosts(Vec::<String>::new()),
            said_bytes: 0,
            said_cap: MAX_SAID_BYTES,
        }
    }

    /// A user message: injection scan; remember what the user said (up to
    /// [`MAX_SAID_BYTES`]; reaching the cap adds one note).
    pub fn user_message(
        &mut self,
        msg: &Message,
        out: &mut Vec<ScanFinding>,
        notes: &mut Vec<String>,
    ) {
        let report = self.injection.scan(&msg.text);
        self.injections(msg.line, &msg.text, &report, "the user message", out);
        if self.said_bytes + msg.text.len() <= self.said_cap {
            self.said_bytes += msg.text.len();
            self.said.push(SESSION, None, "", &msg.text);
        } else if self.said_bytes <= self.said_cap {
            self.said_bytes = self.said_cap + 1;
            notes.push(format!(
                "user text past {} MiB (from line {}) was not kept: quotes of it in later memory writes read as unbacked",
                self.said_cap >> 20,
                msg.line
            ));
        }
    }

    /// An assistant message: the reply (egress) and its tool calls.
    pub fn assistant_message(&mut self, msg: &Message, out: &mut Vec<ScanFinding>) {
        if !msg.text.is_empty() {
            self.secrets_in(msg.line, &msg.text, "the reply", out);
            self.tables_in(msg.line, &msg.text, out);
        }
        for call in &msg.tool_calls {
            let args = args_text(&call.args);
            self.secrets_in(
                msg.line,
                &args,
                &format!("the arguments of {}", call.name),
                out,
            );
            self.tool_call(msg.line, call, out);
            if matches!(call.name.as_str(), "memory" | "skill_manage") {
                self.provenance(msg.line, call, out);
            }
        }
    }

    /// A tool result: injection scan (indirect injection) and secrets.
    pub fn tool_result(
        &mut self,
        msg: &Message,
        call: Option<&ToolCall>,
        out: &mut Vec<ScanFinding>,
    ) {
        let tool = call.map_or("a tool", |c| c.name.as_str());
        let place = format!("the result of {tool}");
        let report = self.injection.scan(&msg.text);
        if report.tier >= Tier::Quarantine {
            // Later tool calls of this session get stricter scrutiny.
            self.session.taint(&self.tool_policy, now(msg.line));
        }
        self.injections(msg.line, &msg.text, &report, &place, out);
        self.secrets_in(msg.line, &msg.text, &place, out);
    }

    /// A finished turn: the closure judgment.
    pub fn turn_end(&mut self, turn: &Turn, out: &mut Vec<ScanFinding>) {
        let calls: Vec<Value> = turn
            .tool_calls
            .iter()
            .map(|c| json!({ "name": c.call.name, "args": c.call.args, "result": c.result }))
            .collect();
        let shape = json!({ "user": turn.user, "assistant": turn.assistant, "tool_calls": calls });
        let Ok(parsed) = palisade_closure::classify::Turn::from_json(&shape) else {
            return;
        };
        let judgment = self.closure.judge(&parsed);
        if judgment.kind != JudgmentKind::Candidate {
            return;
        }
        let Some(candidate) = judgment.candidate else {
            return;
        };
        let (kind, severity) = match candidate.classification {
            Classification::UserPreference => ("unretained_preference", Severity::Medium),
            Classification::UserBoundary => ("unretained_boundary", Severity::Medium),
            Classification::InterruptedTurn => ("interrupted_turn", Severity::Low),
            Classification::GovernanceOrKnowledge => ("unretained_knowledge", Severity::Low),
            _ => ("unretained_outcome", Severity::Info),
        };
        out.push(ScanFinding {
            line: turn.line,
            guard: "closure",
            kind: kind.into(),
            rule: format!("turn-closure-audit:{}", candidate.classification.as_str()),
            severity,
            preview: self.masked_preview(&candidate.content),
            why: format!(
                "the turn ended without a retention write; review candidate ({})",
                judgment.reasons.join("; ")
            ),
        });
    }

    fn injections(
        &self,
        line: usize,
        text: &str,
        report: &InjectionReport,
        place: &str,
        out: &mut Vec<ScanFinding>,
    ) {
        if report.tier == Tier::Pass {
            return;
        }
        let mut findings: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.tier > Tier::Pass)
            .collect();
        findings.sort_by_key(|f| std::cmp::Reverse(f.tier));
        let mut seen = Vec::new();
        for f in findings {
            if seen.len() == INJECTION_FINDINGS_PER_MESSAGE || seen.contains(&&f.rule) {
                continue;
            }
            seen.push(&f.rule);
            let matched = f.span.slice(text).unwrap_or_default();
            out.push(ScanFinding {
                line,
                guard: "injection",
                kind: "injection".into(),
                rule: f.rule.to_string(),
                severity: tier_severity(f.tier),
                preview: self.masked_preview(&clean_copy(matched)),
                why: format!(
                    "{} ({}) in {place}; the message as a whole would be {}",
                    layer_phrase(f.layer.name()),
                    f.tier.as_str(),
                    tier_verb(report.tier)
                ),
            });
        }
    }

    fn tool_call(&mut self, line: usize, call: &ToolCall, out: &mut Vec<ScanFinding>) {
        let guarded = palisade_injection::ToolCall::new(call.name.clone(), call.args.clone());
        let report = self.injection.check_tool_call(
            &guarded,
            &mut self.session,
            &self.tool_policy,
            now(line),
        );
        if report.tier > Tier::Pass {
            let args = args_text(&call.args);
            let top = report.findings.iter().max_by_key(|f| f.tier);
            out.push(ScanFinding {
                line,
                guard: "injection",
                kind: if report.replay {
                    "replayed_tool_call"
                } else {
                    "dangerous_tool_call"
                }
                .into(),
                rule: top.map_or_else(|| "hermes-guard:tool".to_string(), |f| f.rule.to_string()),
                severity: tier_severity(report.tier),
                preview: self.masked_preview(&args),
                why: format!(
                    "the {} call would be {}{}",
                    call.name,
                    tier_verb(report.tier),
                    if report.tainted {
                        " (the session was tainted by an earlier injection)"
                    } else {
                        ""
                    }
                ),
            });
        }
        if !SHELL_TOOLS.contains(&call.name.as_str()) {
            return;
        }
        let Some(command) = call.args.get("command").and_then(Value::as_str) else {
            return;
        };
        let verdict = check_command(command, &self.network);
        if let Some(f) = verdict.findings.first() {
            out.push(ScanFinding {
                line,
                guard: "egress",
                kind: "upload".into(),
                rule: "egress-guard:EG-NET-001".into(),
                severity: Severity::High,
                preview: self.masked_preview(command),
                why: format!(
                    "{} sends data to {}, which no policy lists ({})",
                    f.tool, f.destination, f.reason
                ),
            });
        }
    }

    fn secrets_in(&self, line: usize, text: &str, place: &str, out: &mut Vec<ScanFinding>) {
        for f in self.secrets.scan(text) {
            out.push(ScanFinding {
                line,
                guard: "egress",
                kind: "secret".into(),
                rule: "egress-guard:EG-SECRET-001".into(),
                severity: f.severity,
                preview: f.preview,
                why: format!("{} ({}) in {place}", f.kind.replace('_', " "), f.rule_id),
            });
        }
    }

    fn tables_in(&self, line: usize, text: &str, out: &mut Vec<ScanFinding>) {
        let report = table::scan(text, &self.tables);
        for f in report.findings(&self.tables) {
            let kind = if f.rule.reason() == "EG-MICRO-001" {
                "microdata"
            } else {
                "small_cell"
            };
            let why = if kind == "microdata" {
                "a record-level table in the reply (an identifier column and many rows)"
            } else {
                "a table in the reply publishes counts below the disclosure threshold"
            };
            out.push(ScanFinding {
                line,
                guard: "egress",
                kind: kind.into(),
                rule: f.rule.to_string(),
                severity: f.severity,
                preview: f.preview,
                why: why.into(),
            });
        }
    }

    fn provenance(&self, line: usize, call: &ToolCall, out: &mut Vec<ScanFinding>) {
        // Offline there is no MEMORY.md to replay against: the write is
        // checked as written.
        let report = check_write(
            &self.gate,
            &call.name,
            &call.args,
            &Stored::default(),
            &self.said,
            SESSION,
        );
        if report.outcome == Outcome::Pass {
            return;
        }
        if report.claims.is_empty() {
            if let Some(reason) = report.reason {
                out.push(ScanFinding {
                    line,
                    guard: "provenance",
                    kind: "unbacked_claim".into(),
                    rule: reason.rule_key().to_string(),
                    severity: Severity::Medium,
                    preview: self.masked_preview(&args_text(&call.args)),
                    why: format!(
                        "the {} write could not be checked ({})",
                        call.name,
                        reason.as_str()
                    ),
                });
            }
            return;
        }
        for claim in report.claims.iter().filter(|c| c.outcome != Outcome::Pass) {
            let reason = claim.reason.map_or("no_quote", |r| r.as_str());
            out.push(ScanFinding {
                line,
                guard: "provenance",
                kind: "unbacked_claim".into(),
                rule: format!("provenance-gate:{reason}"),
                severity: Severity::Medium,
                preview: self.masked_preview(&claim.claim.text),
                why: format!(
                    "a {} write states a user decision the user's own words in this session do not back ({reason})",
                    call.name
                ),
            });
        }
    }

    /// A one-line preview with any secret masked.
    fn masked_preview(&self, text: &str) -> String {
        preview_line(&self.secrets.redact(text).text, PREVIEW_CHARS)
    }
}

fn now(line: usize) -> u64 {
    line as u64 * MS_PER_LINE
}

fn tier_verb(tier: Tier) -> &'static str {
    match tier {
        Tier::Block => "blocked",
        Tier::Quarantine => "held for review",
        Tier::Flag => "flagged",
        Tier::Pass => "passed",
    }
}

fn layer_phrase(layer: &str) -> &'static str {
    match layer {
        "invisible" => "L1 invisible characters",
        "instruction" => "L2 instruction phrasing",
        "token" => "L3 special tokens or lookalike letters",
        "encoding" => "L4 an encoded payload",
        _ => "a risky tool argument",
    }
}

fn tier_severity(tier: Tier) -> Severity {
    match tier {
        Tier::Block => Severity::Critical,
        Tier::Quarantine => Severity::High,
        Tier::Flag => Severity::Medium,
        Tier::Pass => Severity::Info,
    }
}

/// Tool-call arguments as text to scan: strings as they are, JSON compact.
fn args_text(args: &Value) -> String {
    match args {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(line: usize, text: &str) -> Message {
        Message {
            role: "user".into(),
            text: text.into(),
            line,
            ..Message::default()
        }
    }

    #[test]
    fn user_text_past_the_cap_is_not_kept_and_noted_once() {
        let mut guards = Guards::new();
        guards.said_cap = 12;
        let (mut out, mut notes) = (Vec::new(), Vec::new());
        guards.user_message(&user(1, "use postgres"), &mut out, &mut notes);
        guards.user_message(&user(2, "ship friday"), &mut out, &mut notes);
        guards.user_message(&user(3, "more words"), &mut out, &mut notes);
        assert_eq!(guards.said.len(), 1);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("from line 2"), "{}", notes[0]);
    }
}
