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
mod secrets;
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
    for (index, line) in split_lines(input).enumerate() {
        let number = index + 1;
        let answer = match line {
            Err(err) if err.kind() == io::ErrorKind::InvalidData => {
                Err(format!("line {number}: not valid UTF-8"))
            }
            Err(err) => return Err(err),
            Ok(text) => answer_line(checker.as_mut(), &text, &mut output)
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
    let value: Value = serde_json::from_str(trimmed).map_err(|e| format!("not valid JSON: {e}"))?;
    if !value.is_object() {
        return Err("expected a JSON object".into());
    }
    checker.check_into(value, out)
}

/// Lines of `input` without their terminators; invalid UTF-8 is reported per line.
fn split_lines(mut input: impl BufRead) -> impl Iterator<Item = io::Result<String>> {
    let mut buf = Vec::new();
    std::iter::from_fn(move || {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => None,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                }
                Some(
                    String::from_utf8(std::mem::take(&mut buf))
                        .map_err(|_| io::Error::from(io::ErrorKind::InvalidData)),
                )
            }
            Err(e) => Some(Err(e)),
        }
    })
}

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
    serde_json::from_value(input).map_err(|e| format!("wrong shape: {e}"))
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
