//! `palisade scan SESSION`: audit a recorded agent session with all four guards.
//!
//! The session is streamed line by line and each message becomes the events
//! of the session pipeline (`palisade-session`), the one the Hermes plugin
//! runs: user messages and tool results to the injection scan; assistant
//! text, tool calls and tool results to egress through `EgressGuard` with
//! the plugin's built-in default policy; tool calls to injection's
//! tool-call guard and provenance; and each finished turn to the closure
//! guard. The pipeline picks each finding's guard, kind, rule, severity and
//! masked preview; findings carry the 1-based line of the message and a
//! one-line why.
//!
//! Memory stays flat however long the session is: findings and unreadable
//! lines stream to callbacks and only the first [`KEEP_PER_SEVERITY`] of each
//! severity (and [`KEEP_ERRORS`] errors) are kept for the human report, with
//! exact totals; a line longer than [`MAX_LINE_BYTES`] is skipped without
//! being held; one turn keeps at most [`MAX_TURN_TEXT`](palisade_session::MAX_TURN_TEXT) of text per side and
//! [`MAX_TURN_CALLS`](palisade_session::MAX_TURN_CALLS) tool calls for the closure judgment; and at most
//! [`MAX_SAID_BYTES`](palisade_session::MAX_SAID_BYTES) of user text is kept to check quotes against.

mod hosts;
mod report;
mod session;

pub use report::{render_human, FailOn};

use palisade_common::Severity;
use palisade_session::{Egress, Event, Found, Session};
use serde::Serialize;
use session::Message;
use std::io::{self, BufRead};

/// One finding of a scan, in the shape of the `--json` output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScanFinding {
    /// 1-based line of the message in the session file.
    pub line: usize,
    /// `egress`, `injection`, `provenance` or `closure`.
    pub guard: String,
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

/// Findings of each severity kept for the human report; the rest are
/// counted (and streamed to the `on_finding` callback, so `--json` has all).
pub const KEEP_PER_SEVERITY: usize = 1_000;

/// Unreadable lines kept for the report; the rest are counted (and streamed).
pub const KEEP_ERRORS: usize = 100;

/// A line longer than this is reported and skipped without being held.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Everything a scan produced.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Findings in the order they were found: at most [`KEEP_PER_SEVERITY`]
    /// of each severity.
    pub findings: Vec<ScanFinding>,
    /// How many findings of each severity there were in all, indexed by
    /// [`severity_index`].
    pub totals: [usize; 5],
    /// Lines that could not be read: the first [`KEEP_ERRORS`].
    pub errors: Vec<LineError>,
    /// How many lines could not be read in all.
    pub error_count: usize,
    /// Messages read.
    pub messages: usize,
    /// Turns judged by the closure guard.
    pub turns: usize,
    /// Limits the scan reached, said once each (for example the user text
    /// cap).
    pub notes: Vec<String>,
}

impl Outcome {
    /// All findings, counted and kept alike.
    pub fn finding_count(&self) -> usize {
        self.totals.iter().sum()
    }

    /// The most severe finding, if any.
    pub fn worst(&self) -> Option<Severity> {
        SEVERITIES
            .into_iter()
            .find(|&s| self.totals[severity_index(s)] > 0)
    }

    fn record(&mut self, finding: ScanFinding) {
        let slot = &mut self.totals[severity_index(finding.severity)];
        *slot += 1;
        if *slot <= KEEP_PER_SEVERITY {
            self.findings.push(finding);
        }
    }

    fn record_error(&mut self, error: LineError) {
        self.error_count += 1;
        if self.errors.len() < KEEP_ERRORS {
            self.errors.push(error);
        }
    }
}

/// Severities, most severe first.
pub const SEVERITIES: [Severity; 5] = [
    Severity::Critical,
    Severity::High,
    Severity::Medium,
    Severity::Low,
    Severity::Info,
];

/// Where `severity` is counted in [`Outcome::totals`].
pub fn severity_index(severity: Severity) -> usize {
    match severity {
        Severity::Critical => 0,
        Severity::High => 1,
        Severity::Medium => 2,
        Severity::Low => 3,
        Severity::Info => 4,
    }
}

/// What a scan reports as it goes.
pub trait Sink {
    /// A finding, as soon as it is made (so `--json` output streams).
    fn finding(&mut self, finding: &ScanFinding);
    /// A line that could not be read; the scan goes on.
    fn error(&mut self, error: &LineError);
    /// Bytes read so far.
    fn progress(&mut self, bytes: u64);
}

/// Scan a session from `input`, reporting to `sink` as it goes.
pub fn scan(input: impl BufRead, sink: &mut dyn Sink) -> io::Result<Outcome> {
    // The same pipeline the Hermes plugin runs, with the policy the plugin
    // has when no policy file is configured.
    let mut session = Session::new(Egress::offline());
    let mut outcome = Outcome::default();
    let mut found = Vec::new();
    let mut bytes = 0u64;
    let emit = |found: &mut Vec<Found>, outcome: &mut Outcome, sink: &mut dyn Sink| {
        for f in found.drain(..) {
            let f = ScanFinding::from(f);
            sink.finding(&f);
            outcome.record(f);
        }
    };
    let mut reader = LineReader::new(input, MAX_LINE_BYTES);
    let mut line_no = 0;
    while let Some(line) = reader.next_line() {
        line_no += 1;
        let fail = |error: String, outcome: &mut Outcome, sink: &mut dyn Sink| {
            let error = LineError {
                line: line_no,
                error,
            };
            sink.error(&error);
            outcome.record_error(error);
        };
        let (raw, len) = match line {
            Ok(Line::Text(raw)) => {
                let len = raw.len();
                (raw, len)
            }
            Ok(Line::NotUtf8(len)) => {
                bytes += len as u64 + 1;
                fail("not valid UTF-8".into(), &mut outcome, sink);
                continue;
            }
            Ok(Line::Gzip(len)) => {
                bytes += len as u64 + 1;
                fail(
                    "gzip-compressed data (decompress the session first: gzip -dc FILE | palisade scan -)"
                        .into(),
                    &mut outcome,
                    sink,
                );
                continue;
            }
            Ok(Line::TooLong(len)) => {
                bytes += len as u64 + 1;
                fail(
                    format!("longer than {} MiB", MAX_LINE_BYTES >> 20),
                    &mut outcome,
                    sink,
                );
                continue;
            }
            Err(e) => return Err(e),
        };
        bytes += len as u64 + 1;
        sink.progress(bytes);
        if raw.trim().is_empty() {
            continue;
        }
        // Claude Code transcripts and Codex rollouts are mapped in hosts.rs.
        let messages = match hosts::parse_line(line_no, raw) {
            Ok(m) => m,
            Err(error) => {
                fail(error, &mut outcome, sink);
                continue;
            }
        };
        for msg in messages {
            outcome.messages += 1;
            feed(&mut session, &msg, &mut found);
            outcome.notes.extend(session.take_notes());
            emit(&mut found, &mut outcome, sink);
        }
    }
    session.handle(line_no + 1, now(line_no + 1), Event::End, &mut found);
    outcome.turns = session.turns();
    emit(&mut found, &mut outcome, sink);
    Ok(outcome)
}

/// Offline there is no clock: each line is taken as a minute after the last,
/// so the tool-call guard's replay window only catches calls repeated back
/// to back.
const MS_PER_LINE: u64 = 60_000;

fn now(line: usize) -> u64 {
    line as u64 * MS_PER_LINE
}

/// One message as the pipeline's events.
fn feed(session: &mut Session, msg: &Message, found: &mut Vec<Found>) {
    let (at, t) = (msg.line, now(msg.line));
    match msg.role.as_str() {
        "user" => session.handle(at, t, Event::User { text: &msg.text }, found),
        "assistant" => {
            session.handle(at, t, Event::Assistant { text: &msg.text }, found);
            for call in &msg.tool_calls {
                let event = Event::ToolCall {
                    id: &call.id,
                    name: &call.name,
                    args: &call.args,
                };
                session.handle(at, t, event, found);
            }
        }
        "tool" | "function" => {
            let event = Event::ToolResult {
                call_id: msg.tool_call_id.as_deref(),
                name: msg.name.as_deref(),
                text: &msg.text,
            };
            session.handle(at, t, event, found);
        }
        _ => {} // system and developer prompts are the operator's, not inspected
    }
}

impl From<Found> for ScanFinding {
    fn from(found: Found) -> Self {
        let f = found.finding;
        ScanFinding {
            line: found.at,
            guard: f.guard.into_owned(),
            kind: f.kind.into_owned(),
            rule: f.rule.to_string(),
            severity: f.severity,
            preview: f.preview,
            why: found.why,
        }
    }
}

/// One line of input, without its terminator.
#[derive(Debug, PartialEq)]
enum Line<'a> {
    /// A readable line.
    Text(&'a str),
    /// Not UTF-8; its length in bytes.
    NotUtf8(usize),
    /// Not UTF-8 and the first line of the input starts with the gzip magic
    /// bytes; its length in bytes.
    Gzip(usize),
    /// Longer than the limit (and not held); its length in bytes.
    TooLong(usize),
}

/// Reads lines into one reused buffer, never holding more than `max` bytes
/// of a line: the rest of an over-long line is read and dropped.
struct LineReader<R> {
    input: R,
    buf: Vec<u8>,
    max: usize,
    first: bool,
}

impl<R: BufRead> LineReader<R> {
    fn new(input: R, max: usize) -> Self {
        LineReader {
            input,
            buf: Vec::new(),
            max,
            first: true,
        }
    }

    /// The next line, or `None` at the end of the input.
    fn next_line(&mut self) -> Option<io::Result<Line<'_>>> {
        self.buf.clear();
        // Keep the buffer from holding on to a huge line's allocation.
        if self.buf.capacity() > 1 << 20 {
            self.buf.shrink_to(1 << 20);
        }
        let mut len = 0usize;
        let mut ended = false;
        while !ended {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            };
            if chunk.is_empty() {
                break;
            }
            let (take, found) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let body = if found { take - 1 } else { take };
            if len + body <= self.max {
                self.buf.extend_from_slice(&chunk[..body]);
            } else {
                self.buf.clear();
            }
            len += body;
            ended = found;
            self.input.consume(take);
        }
        if len == 0 && !ended {
            return None;
        }
        let first = std::mem::replace(&mut self.first, false);
        if len > self.max {
            return Some(Ok(Line::TooLong(len)));
        }
        while self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Some(Ok(match std::str::from_utf8(&self.buf) {
            Ok(text) => Line::Text(text),
            Err(_) if first && self.buf.starts_with(&[0x1f, 0x8b]) => Line::Gzip(len),
            Err(_) => Line::NotUtf8(len),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects what a scan streams.
    #[derive(Default)]
    struct Collect {
        findings: Vec<ScanFinding>,
        errors: Vec<LineError>,
    }

    impl Sink for Collect {
        fn finding(&mut self, finding: &ScanFinding) {
            self.findings.push(finding.clone());
        }
        fn error(&mut self, error: &LineError) {
            self.errors.push(error.clone());
        }
        fn progress(&mut self, _: u64) {}
    }

    #[test]
    fn malformed_lines_are_reported_and_the_rest_is_scanned() {
        let input = b"{\"role\":\"user\",\"content\":\"hi\"}\nnot json\n\xff\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
        let mut sink = Collect::default();
        let outcome = scan(&input[..], &mut sink).unwrap();
        assert_eq!(outcome.messages, 2);
        assert_eq!(outcome.turns, 1);
        let lines: Vec<usize> = outcome.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 3]);
        assert_eq!(sink.errors, outcome.errors);
    }

    #[test]
    fn line_reader_splits_drops_long_lines_and_keeps_going() {
        // A 3-byte buffer makes lines span many fill_buf calls.
        let input = io::BufReader::with_capacity(3, &b"ab\r\n0123456789\n\xffz\nlast"[..]);
        let mut reader = LineReader::new(input, 5);
        let mut got = Vec::new();
        while let Some(line) = reader.next_line() {
            got.push(format!("{:?}", line.unwrap()));
        }
        assert_eq!(
            got,
            [
                "Text(\"ab\")",
                "TooLong(10)",
                "NotUtf8(2)",
                "Text(\"last\")"
            ]
        );
    }

    #[test]
    fn kept_findings_are_capped_per_severity_but_counted_in_full() {
        let mut session = String::new();
        let n = KEEP_PER_SEVERITY + 7;
        for i in 0..n {
            session.push_str(&format!(
                "{{\"role\":\"assistant\",\"content\":\"key {i}: AKIAQ3EGUWK7ZJ2X5R4N\"}}\n"
            ));
        }
        let mut sink = Collect::default();
        let outcome = scan(session.as_bytes(), &mut sink).unwrap();
        assert_eq!(sink.findings.len(), outcome.finding_count());
        assert!(outcome.finding_count() >= n, "{}", outcome.finding_count());
        let worst = outcome.worst().unwrap();
        let kept = outcome
            .findings
            .iter()
            .filter(|f| f.severity == worst)
            .count();
        assert_eq!(kept, KEEP_PER_SEVERITY);
        assert_eq!(
            outcome.totals[severity_index(worst)],
            sink.findings.iter().filter(|f| f.severity == worst).count()
        );
    }
}
