//! `palisade scan SESSION`: audit a recorded agent session with all four guards.
//!
//! The session is streamed line by line. Each message is handed to the guards
//! for its role (user messages and tool results to the injection scan; tool
//! calls to egress, injection's tool-call guard and provenance; replies to
//! egress), and each finished turn to the closure guard. Findings carry the
//! 1-based line of the message, a masked preview and a one-line why.

mod guards;
mod report;
mod session;

pub use report::{render_human, FailOn};

use palisade_common::Severity;
use serde::Serialize;
use session::{Message, ToolCall};
use std::io::{self, BufRead};

/// One finding of a scan, in the shape of the `--json` output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScanFinding {
    /// 1-based line of the message in the session file.
    pub line: usize,
    /// `egress`, `injection`, `provenance` or `closure`.
    pub guard: &'static str,
    /// What was found: `secret`, `upload`, `small_cell`, `microdata`,
    /// `injection`, `destructive_tool_call`, `unbacked_claim`,
    /// `unretained_preference`, …
    pub kind: String,
    /// The stable rule key.
    pub rule: String,
    /// How serious.
    pub severity: Severity,
    /// Masked preview: never a raw secret or a raw small count.
    pub preview: String,
    /// One line saying why this was reported.
    pub why: String,
}

/// A line the scan could not read, with the reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub error: String,
}

/// Everything a scan produced.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Findings in the order they were found.
    pub findings: Vec<ScanFinding>,
    /// Lines that could not be read.
    pub errors: Vec<LineError>,
    /// Messages read.
    pub messages: usize,
    /// Turns judged by the closure guard.
    pub turns: usize,
}

/// One user turn as the closure guard sees it.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    /// Line of the user message that opened the turn.
    pub line: usize,
    /// What the user said.
    pub user: String,
    /// What the assistant replied (all reply texts of the turn).
    pub assistant: String,
    /// Tool calls made in the turn, with their results when recorded.
    pub tool_calls: Vec<TurnCall>,
}

/// A tool call of a turn and its result.
#[derive(Clone, Debug)]
pub struct TurnCall {
    /// The call.
    pub call: ToolCall,
    /// The result text, when a `tool` message answered it.
    pub result: Option<String>,
}

/// Scan a session from `input`, calling `on_finding` as findings are made
/// (so `--json` output streams) and `on_progress` with the bytes read so far.
pub fn scan(
    input: impl BufRead,
    mut on_finding: impl FnMut(&ScanFinding),
    mut on_progress: impl FnMut(u64),
) -> io::Result<Outcome> {
    let mut guards = guards::Guards::new();
    let mut outcome = Outcome::default();
    let mut turn: Option<Turn> = None;
    let mut found = Vec::new();
    let mut bytes = 0u64;
    let mut emit = |found: &mut Vec<ScanFinding>, outcome: &mut Outcome| {
        for f in found.drain(..) {
            on_finding(&f);
            outcome.findings.push(f);
        }
    };
    for (index, line) in LineReader::new(input).enumerate() {
        let line_no = index + 1;
        let raw = match line {
            Ok(raw) => raw,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                outcome.errors.push(LineError {
                    line: line_no,
                    error: "not valid UTF-8".into(),
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        bytes += raw.len() as u64 + 1;
        on_progress(bytes);
        if raw.trim().is_empty() {
            continue;
        }
        let messages = match session::parse_line(line_no, &raw) {
            Ok(m) => m,
            Err(error) => {
                outcome.errors.push(LineError {
                    line: line_no,
                    error,
                });
                continue;
            }
        };
        for msg in messages {
            outcome.messages += 1;
            match msg.role.as_str() {
                "user" => {
                    if let Some(done) = turn.take() {
                        outcome.turns += 1;
                        guards.turn_end(&done, &mut found);
                    }
                    guards.user_message(&msg, &mut found);
                    turn = Some(Turn {
                        line: msg.line,
                        user: msg.text.clone(),
                        ..Turn::default()
                    });
                }
                "assistant" => {
                    guards.assistant_message(&msg, &mut found);
                    if let Some(t) = turn.as_mut() {
                        record_assistant(t, &msg);
                    }
                }
                "tool" | "function" => {
                    let call = turn.as_ref().and_then(|t| find_call(t, &msg));
                    guards.tool_result(&msg, call.as_ref(), &mut found);
                    if let Some(t) = turn.as_mut() {
                        record_result(t, &msg);
                    }
                }
                _ => {} // system and developer prompts are the operator's, not inspected
            }
            emit(&mut found, &mut outcome);
        }
    }
    if let Some(done) = turn.take() {
        outcome.turns += 1;
        guards.turn_end(&done, &mut found);
        emit(&mut found, &mut outcome);
    }
    Ok(outcome)
}

fn record_assistant(turn: &mut Turn, msg: &Message) {
    if !msg.text.is_empty() {
        if !turn.assistant.is_empty() {
            turn.assistant.push('\n');
        }
        turn.assistant.push_str(&msg.text);
    }
    for call in &msg.tool_calls {
        turn.tool_calls.push(TurnCall {
            call: call.clone(),
            result: None,
        });
    }
}

fn find_call(turn: &Turn, msg: &Message) -> Option<ToolCall> {
    let id = msg.tool_call_id.as_deref()?;
    turn.tool_calls
        .iter()
        .find(|c| c.call.id == id)
        .map(|c| c.call.clone())
}

fn record_result(turn: &mut Turn, msg: &Message) {
    let slot = match msg.tool_call_id.as_deref() {
        Some(id) => turn
            .tool_calls
            .iter_mut()
            .find(|c| c.call.id == id && c.result.is_none()),
        None => turn.tool_calls.iter_mut().find(|c| c.result.is_none()),
    };
    if let Some(slot) = slot {
        slot.result = Some(msg.text.clone());
    }
}

/// Lines without terminators; invalid UTF-8 is an `InvalidData` error for
/// that line only.
struct LineReader<R> {
    input: R,
    buf: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    fn new(input: R) -> Self {
        LineReader {
            input,
            buf: Vec::new(),
        }
    }
}

impl<R: BufRead> Iterator for LineReader<R> {
    type Item = io::Result<String>;

    fn next(&mut self) -> Option<Self::Item> {
        self.buf.clear();
        match self.input.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
                    self.buf.pop();
                }
                Some(
                    String::from_utf8(std::mem::take(&mut self.buf))
                        .map_err(|_| io::Error::from(io::ErrorKind::InvalidData)),
                )
            }
            Err(e) => Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_are_reported_and_the_rest_is_scanned() {
        let input = b"{\"role\":\"user\",\"content\":\"hi\"}\nnot json\n\xff\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
        let outcome = scan(&input[..], |_| {}, |_| {}).unwrap();
        assert_eq!(outcome.messages, 2);
        assert_eq!(outcome.turns, 1);
        let lines: Vec<usize> = outcome.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 3]);
    }

    #[test]
    fn tool_results_attach_to_their_calls() {
        let mut turn = Turn::default();
        let call = Message {
            role: "assistant".into(),
            tool_calls: vec![
                ToolCall {
                    id: "a".into(),
                    name: "memory".into(),
                    ..ToolCall::default()
                },
                ToolCall {
                    id: "b".into(),
                    name: "terminal".into(),
                    ..ToolCall::default()
                },
            ],
            ..Message::default()
        };
        record_assistant(&mut turn, &call);
        let result = Message {
            role: "tool".into(),
            text: "ok".into(),
            tool_call_id: Some("b".into()),
            ..Message::default()
        };
        assert_eq!(find_call(&turn, &result).unwrap().name, "terminal");
        record_result(&mut turn, &result);
        assert_eq!(turn.tool_calls[1].result.as_deref(), Some("ok"));
        assert!(turn.tool_calls[0].result.is_none());
    }
}
