//! `palisade check GUARD --jsonl`: the batch contract of DESIGN.md.
//!
//! Every input line gets exactly one output line, in order. A line that is
//! not JSON, or not the shape the guard expects, gets `{"error": "…"}` naming
//! the line, and the run goes on.

mod claims;
mod closure;
mod command;
mod injection;
mod provenance;
pub mod secrets;
mod table;
mod tool_call;

use serde_json::{json, Value};
use std::io::{self, BufRead, Write};

/// The checks `palisade check` can run.
#[derive(Clone, Copy, Debug, Eq, PartialEq, clap::ValueEnum)]
pub enum Guard {
    /// Claim detection only: `{"text"}`.
    Claims,
    /// Full provenance verdict: `{"text","said":[…],"search"?}`.
    Provenance,
    /// Inbound message scan: `{"text"}`.
    Injection,
    /// Tool-call guard: `{"tool","args"}`.
    ToolCall,
    /// Secret redaction: `{"text"}`.
    Secrets,
    /// Upload-command detection: `{"command","allowed_hosts":[…]}`.
    Command,
    /// Small-cell suppression and microdata: `{"text","threshold"?,"method"?}`.
    Table,
    /// Turn retention judgment: `{"turn":{…}}`.
    Closure,
}

impl Guard {
    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Guard::Claims => "claims",
            Guard::Provenance => "provenance",
            Guard::Injection => "injection",
            Guard::ToolCall => "tool-call",
            Guard::Secrets => "secrets",
            Guard::Command => "command",
            Guard::Table => "table",
            Guard::Closure => "closure",
        }
    }
}

/// Answers one parsed input line. Built once per run, so compiled rule sets
/// are reused across lines.
pub trait LineChecker {
    /// The verdict for one input object, or a message saying what is wrong
    /// with its shape.
    fn check(&mut self, input: Value) -> Result<Value, String>;

    /// Answer one input object by writing its verdict straight to `out` as
    /// one JSON value (no newline). The outer `Err` is a shape error, and
    /// then nothing has been written. The default builds the value with
    /// [`LineChecker::check`]; a checker whose verdicts can be many times
    /// the size of the input streams them instead, so memory stays linear.
    fn check_into(&mut self, input: Value, out: &mut dyn Write) -> Result<io::Result<()>, String> {
        let value = self.check(input)?;
        Ok(serde_json::to_writer(out, &value).map_err(io::Error::from))
    }

    /// A fast path over the raw line (trimmed, not empty): write the same
    /// verdict [`LineChecker::check_into`] would, without building a
    /// [`Value`], and return `Some`; or write nothing and return `None`, and
    /// the line takes the general path (which also words every error). The
    /// default has no fast path.
    fn check_raw(&mut self, _line: &str, _out: &mut dyn Write) -> Option<io::Result<()>> {
        None
    }
}

/// What a run did, for the caller's summary.
#[derive(Debug, Default, Eq, PartialEq)]
pub struct Stats {
    /// Lines answered with a verdict.
    pub answered: usize,
    /// Lines answered with an error.
    pub errors: usize,
}

/// Read JSON Lines from `input` and write one verdict line per input line.
pub fn run(guard: Guard, input: impl BufRead, mut output: impl Write) -> io::Result<Stats> {
    let mut checker = build(guard);
    let mut stats = Stats::default();
    let mut lines = Lines::new(input, MAX_LINE_BYTES);
    let mut number = 0;
    while let Some(line) = lines.next_line() {
        number += 1;
        let answer = match line {
            Err(err) if err.kind() == io::ErrorKind::InvalidData => {
                Err(format!("line {number}: not valid UTF-8"))
            }
            Err(err) if err.get_ref().is_some_and(|e| e.is::<LineTooLong>()) => Err(format!(
                "line {number}: longer than {} MiB ({err}); skipped",
                MAX_LINE_BYTES >> 20
            )),
            Err(err) => return Err(err),
            Ok(text) => answer_line(checker.as_mut(), text, &mut output)
                .map_err(|msg| format!("line {number}: {msg}")),
        };
        match answer {
            Ok(written) => {
                written?;
                stats.answered += 1;
            }
            Err(msg) => {
                stats.errors += 1;
                serde_json::to_writer(&mut output, &json!({ "error": msg }))?;
            }
        }
        output.write_all(b"\n")?;
    }
    output.flush()?;
    Ok(stats)
}

fn answer_line(
    checker: &mut dyn LineChecker,
    text: &str,
    out: &mut dyn Write,
) -> Result<io::Result<()>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("empty line; expected a JSON object".into());
    }
    if let Some(written) = checker.check_raw(trimmed, out) {
        return Ok(written);
    }
    let value: Value = serde_json::from_str(trimmed).map_err(|e| format!("not valid JSON: {e}"))?;
    if !value.is_object() {
        return Err("expected a JSON object".into());
    }
    checker.check_into(value, out)
}

/// A line longer than this gets an error line and is skipped without being
/// held (as in `palisade scan`).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Lines of `input` without their terminators; invalid UTF-8 is reported per
/// line (`InvalidData`), a line over `max` bytes as `FileTooLarge`-style
/// `Other` error carrying its length, without holding more than `max` bytes.
#[cfg(test)]
fn split_lines(input: impl BufRead) -> impl Iterator<Item = io::Result<String>> {
    split_lines_capped(input, MAX_LINE_BYTES)
}

#[cfg(test)]
fn split_lines_capped(input: impl BufRead, max: usize) -> impl Iterator<Item = io::Result<String>> {
    let mut lines = Lines::new(input, max);
    std::iter::from_fn(move || lines.next_line().map(|line| line.map(str::to_owned)))
}

/// The lines of a reader, one at a time: a line that lies whole in the
/// reader's buffer is lent from it (no copy), any other is gathered in one
/// buffer reused for every line (no allocation per line once it has grown
/// to the longest).
struct Lines<R> {
    input: R,
    buf: Vec<u8>,
    max: usize,
    /// Bytes of the reader's buffer lent with the last line, consumed when
    /// the next is asked for.
    lent: usize,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R, max: usize) -> Self {
        Lines {
            input,
            buf: Vec::new(),
            max,
            lent: 0,
        }
    }

    /// The next line if it lies whole (terminator included) in what the
    /// reader has buffered: its length without the terminator, and the
    /// bytes to consume after it. `None` when the buffer holds no `\n`
    /// (or an error, which the gathering path then meets and reports).
    fn buffered_line(&mut self) -> Option<(usize, usize)> {
        let chunk = self.input.fill_buf().ok()?;
        let i = memchr::memchr(b'\n', chunk)?;
        (i <= self.max).then_some((i, i + 1))
    }

    /// The next line without its terminator (`\n`, `\r\n`); invalid UTF-8
    /// is an `InvalidData` error for that line, a line over `max` bytes an
    /// `Other` error carrying its length (its bytes are read and dropped,
    /// never held). `None` at the end of the input.
    fn next_line(&mut self) -> Option<io::Result<&str>> {
        self.input.consume(std::mem::take(&mut self.lent));
        if let Some((len, take)) = self.buffered_line() {
            // `fill_buf` again returns the same bytes without reading.
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) => return Some(Err(e)),
            };
            self.lent = take;
            let line = &chunk[..len];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            return Some(
                std::str::from_utf8(line).map_err(|_| io::Error::from(io::ErrorKind::InvalidData)),
            );
        }
        self.buf.clear();
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
            let (take, found) = match memchr::memchr(b'\n', chunk) {
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
        if len > self.max {
            return Some(Err(io::Error::other(LineTooLong(len))));
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Some(
            std::str::from_utf8(&self.buf).map_err(|_| io::Error::from(io::ErrorKind::InvalidData)),
        )
    }
}

/// The error of a line over the cap: its length in bytes.
#[derive(Debug)]
struct LineTooLong(usize);

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line of {} bytes", self.0)
    }
}

impl std::error::Error for LineTooLong {}

fn build(guard: Guard) -> Box<dyn LineChecker> {
    match guard {
        Guard::Claims => claims::checker(),
        Guard::Provenance => provenance::checker(),
        Guard::Injection => injection::checker(),
        Guard::ToolCall => tool_call::checker(),
        Guard::Secrets => secrets::checker(),
        Guard::Command => command::checker(),
        Guard::Table => table::checker(),
        Guard::Closure => closure::checker(),
    }
}

/// Deserialize the input object into a typed request, with a shape error that
/// names the problem.
pub fn parse<T: serde::de::DeserializeOwned>(input: Value) -> Result<T, String> {
    match T::deserialize(&input) {
        Ok(v) => Ok(v),
        Err(e) => {
            // serde_json names the expected type but not the field: find
            // it by re-reading the compact text, whose error has a column.
            let text = input.to_string();
            let msg = e.to_string();
            // "missing field `x`" and "unknown field `x`" name it already.
            let typed = msg.starts_with("invalid type") || msg.starts_with("invalid value");
            let field = serde_json::from_str::<T>(&text)
                .err()
                .filter(|_| typed)
                .and_then(|e2| field_at(&text, e2.column()));
            Err(match field {
                Some(field) => format!("wrong shape: field `{field}`: {e}"),
                None => format!("wrong shape: {e}"),
            })
        }
    }
}

/// The dotted path (`turn.tool_calls[0].name`) of the value that a parse
/// error at 1-based `column` of the compact one-line JSON `text` points
/// into; `None` at the top level.
fn field_at(text: &str, column: usize) -> Option<String> {
    #[derive(Clone)]
    enum Step {
        Key(String),
        Index(usize),
    }
    // One frame per open container: (is array, current step).
    let mut stack: Vec<(bool, Option<Step>)> = Vec::new();
    let bytes = text.as_bytes();
    let end = column.min(bytes.len());
    let mut i = 0;
    let mut expect_key = false;
    while i < end {
        match bytes[i] {
            b'{' => {
                stack.push((false, None));
                expect_key = true;
            }
            b'[' => {
                stack.push((true, Some(Step::Index(0))));
            }
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some((is_array, step)) = stack.last_mut() {
                    if *is_array {
                        if let Some(Step::Index(n)) = step {
                            *n += 1;
                        }
                    } else {
                        expect_key = true;
                    }
                }
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if expect_key {
                    let key = serde_json::from_str::<String>(
                        text.get(start - 1..=i.min(bytes.len() - 1))?,
                    )
                    .ok()?;
                    if let Some((_, step)) = stack.last_mut() {
                        *step = Some(Step::Key(key));
                    }
                    expect_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for (_, step) in &stack {
        match step {
            Some(Step::Key(k)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Some(Step::Index(n)) => {
                let _ = std::fmt::Write::write_fmt(&mut path, format_args!("[{n}]"));
            }
            None => {}
        }
    }
    (!path.is_empty()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;
    impl LineChecker for Echo {
        fn check(&mut self, input: Value) -> Result<Value, String> {
            match input.get("text") {
                Some(Value::String(s)) => Ok(json!({ "len": s.len() })),
                _ => Err("wrong shape: missing field `text`".into()),
            }
        }
    }

    fn run_echo(input: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        let mut checker = Echo;
        for (i, line) in split_lines(input).enumerate() {
            let mut buf = Vec::new();
            let v = match line
                .map_err(|_| "bad utf-8".to_string())
                .and_then(|t| answer_line(&mut checker, &t, &mut buf))
            {
                Ok(written) => {
                    written.unwrap();
                    serde_json::from_slice(&buf).unwrap()
                }
                Err(e) => json!({ "error": format!("line {}: {e}", i + 1) }),
            };
            out.push(v);
        }
        out
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)] // only deserialized
    struct Shape {
        text: String,
        turn: Option<Turn>,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)] // only deserialized
    struct Turn {
        calls: Vec<Call>,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)] // only deserialized
    struct Call {
        name: String,
    }

    #[test]
    fn type_errors_name_the_field() {
        let e = parse::<Shape>(json!({"text": 5})).unwrap_err();
        assert!(e.contains("field `text`"), "{e}");
        let e =
            parse::<Shape>(json!({"text": "x", "turn": {"calls": [{"name": "a"}, {"name": []}]}}))
                .unwrap_err();
        assert!(e.contains("field `turn.calls[1].name`"), "{e}");
        let e = parse::<Shape>(json!({"turn": null})).unwrap_err();
        assert!(
            e.contains("missing field `text`") && !e.contains("field `turn`"),
            "{e}"
        );
    }

    #[test]
    fn lines_over_the_cap_get_an_error_line_and_the_run_goes_on() {
        let input = io::BufReader::with_capacity(4, &b"ab\n0123456789\ncd"[..]);
        let got: Vec<String> = split_lines_capped(input, 5)
            .map(|l| match l {
                Ok(t) => t,
                Err(e) => format!("ERR {e}"),
            })
            .collect();
        assert_eq!(got, ["ab", "ERR line of 10 bytes", "cd"]);
    }

    #[test]
    fn lent_and_gathered_lines_read_alike() {
        // Lines that lie whole in the buffer are lent, the others (across
        // its end, or longer than it) gathered; both read the same.
        let input = b"ab\r\ncdefghijkl\n\nx\xffy\nmn\r\n\r\nlast";
        for cap in [1, 3, 5, 8, 64] {
            let got: Vec<String> = split_lines(io::BufReader::with_capacity(cap, &input[..]))
                .map(|l| match l {
                    Ok(t) => t,
                    Err(e) => format!("ERR {:?}", e.kind()),
                })
                .collect();
            assert_eq!(
                got,
                ["ab", "cdefghijkl", "", "ERR InvalidData", "mn", "", "last"],
                "capacity {cap}"
            );
        }
    }

    #[test]
    fn one_answer_per_line_in_order() {
        let input =
            b"{\"text\":\"ab\"}\nnot json\n\n[1]\n{\"x\":1}\n\xff\xfe\n{\"text\":\"abc\"}\n";
        let out = run_echo(input);
        assert_eq!(out.len(), 7);
        assert_eq!(out[0], json!({"len": 2}));
        assert!(out[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("line 2: not valid JSON"));
        assert!(out[2]["error"].as_str().unwrap().contains("empty line"));
        assert!(out[3]["error"]
            .as_str()
            .unwrap()
            .contains("expected a JSON object"));
        assert!(out[4]["error"].as_str().unwrap().contains("missing field"));
        assert!(
            out[5]["error"].as_str().unwrap().contains("UTF-8")
                || out[5]["error"].as_str().unwrap().contains("utf-8")
        );
        assert_eq!(out[6], json!({"len": 3}));
    }

    #[test]
    fn run_answers_every_line() {
        let mut out = Vec::new();
        let stats = run(Guard::Closure, &b"{\"turn\":{}}\n{}\n"[..], &mut out).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(stats.answered + stats.errors, 2);
    }
}
