//! `palisade check secrets --jsonl`: `{"text"}` →
//! `{"findings":[{"kind","span","preview","rule","severity"}],"redacted":"…"}`.
//!
//! `palisade check secrets --text FILE…`: plain files, no JSON; one line
//! per finding (`{"file","line","kind","span","preview","rule","severity"}`,
//! spans in bytes of the file) and one per file that could not be read
//! (`{"file","error"}`), files in the order given, scanned on every core.

use super::LineChecker;
use palisade_egress::secrets::{apply_redactions, SecretFinding, SecretScanner};
use serde::Deserialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Request {
    text: String,
}

/// The one input shape the fast path takes: a `text` string and nothing
/// else (anything more, or less, takes the general path).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequest<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

struct Secrets {
    scanner: &'static SecretScanner,
}

/// The verdict for `text` with `findings` (those of a scan of `text`).
fn verdict(text: &str, findings: &[SecretFinding]) -> Value {
    let listed: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "kind": f.kind,
                "span": f.span,
                "preview": f.preview,
                "rule": f.rule_id,
                "severity": f.severity,
            })
        })
        .collect();
    json!({ "findings": listed, "redacted": apply_redactions(text, findings) })
}

impl LineChecker for Secrets {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let req: Request = super::parse(input)?;
        let findings = self.scanner.scan(&req.text);
        Ok(verdict(&req.text, &findings))
    }

    /// `{"text":"…"}` decoded in place (no `Value`, no copy of an unescaped
    /// string); a clean text's verdict quotes the input's own string literal
    /// when it has no escapes (then it is exactly what serializing the text
    /// writes: a literal without escapes holds no `"`, `\` or control
    /// character).
    fn check_raw(&mut self, line: &str, out: &mut dyn Write) -> Option<io::Result<()>> {
        if !line.starts_with('{') {
            return None;
        }
        let req: RawRequest<'_> = serde_json::from_str(line).ok()?;
        let findings = self.scanner.scan(&req.text);
        if !findings.is_empty() {
            let value = verdict(&req.text, &findings);
            return Some(serde_json::to_writer(out, &value).map_err(io::Error::from));
        }
        Some((|| {
            out.write_all(b"{\"findings\":[],\"redacted\":")?;
            match (&req.text, canonical_literal(line)) {
                (Cow::Borrowed(text), _) => {
                    out.write_all(b"\"")?;
                    out.write_all(text.as_bytes())?;
                    out.write_all(b"\"")?;
                }
                (Cow::Owned(_), Some(literal)) => out.write_all(literal.as_bytes())?,
                (Cow::Owned(text), None) => serde_json::to_writer(&mut *out, text)?,
            }
            out.write_all(b"}")
        })())
    }
}

/// The `text` string literal of a line that parsed as a [`RawRequest`],
/// quotes included, when the line is exactly `{"text":"…"}` (JSON
/// whitespace allowed between the tokens) and the literal
/// is what serializing its string writes (serde_json's escapes: `\"`, `\\`,
/// `\b \f \n \r \t`, `\u00xx` in lower-case hex for the other control
/// characters, nothing else escaped); else `None`.
fn canonical_literal(line: &str) -> Option<&str> {
    // The line parsed with one field and nothing else, so after this
    // prefix the literal runs to the quote before the final brace.
    let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    let literal = line
        .strip_prefix('{')?
        .trim_start_matches(ws)
        .strip_prefix("\"text\"")?
        .trim_start_matches(ws)
        .strip_prefix(':')?
        .trim_start_matches(ws)
        .strip_suffix('}')?
        .trim_end_matches(ws);
    let bytes = literal.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'"' || bytes[bytes.len() - 1] != b'"' {
        return None;
    }
    let body = &bytes[1..bytes.len() - 1];
    let mut at = 0;
    while let Some(i) = memchr::memchr(b'\\', &body[at..]) {
        let e = at + i;
        let step = match body.get(e + 1)? {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
            b'u' => {
                let hex = body.get(e + 2..e + 6)?;
                let lower = |c: &u8| c.is_ascii_digit() || (b'a'..=b'f').contains(c);
                let code = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok();
                // `\u00xx` for a control character without a short escape.
                match code {
                    Some(c)
                        if hex.iter().all(lower)
                            && hex.starts_with(b"00")
                            && c < 0x20
                            && !matches!(c, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) =>
                    {
                        6
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        at = e + step;
    }
    Some(literal)
}

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(Secrets {
        scanner: SecretScanner::builtin(),
    })
}

/// Files bigger than this are not read (`--text`): the file is named in an
/// error line and the run goes on (and exits 2).
pub const MAX_TEXT_FILE_BYTES: u64 = 1 << 30;

/// What a `--text` run did.
#[derive(Debug, Default, Eq, PartialEq)]
pub struct TextStats {
    /// Files read and scanned.
    pub scanned: usize,
    /// Findings printed.
    pub findings: usize,
    /// Files that could not be read (each got an error line).
    pub errors: usize,
    /// The first file that could not be read.
    pub first_error: Option<PathBuf>,
}

/// `palisade check secrets --text FILE…`: scan `files` on `threads` threads
/// (at least one) and write their lines to `out` in the order of `files`.
///
/// # Errors
///
/// Only writing to `out` failed; a file that cannot be read is an error
/// line, and the other files are still scanned.
pub fn run_text(files: &[PathBuf], threads: usize, out: &mut dyn Write) -> io::Result<TextStats> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    let scanner = SecretScanner::builtin();
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, files.len().max(1));
    let mut stats = TextStats::default();
    std::thread::scope(|scope| {
        // A bounded channel: workers run at most a few files ahead of the
        // writer, so what waits to be printed stays small.
        let (send, receive) = mpsc::sync_channel::<(usize, FileResult)>(threads * 4);
        for _ in 0..threads {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                if send.send((i, scan_file(scanner, path))).is_err() {
                    break;
                }
            });
        }
        drop(send);
        // Print in the order given: hold results that come early.
        let mut pending = std::collections::BTreeMap::new();
        let mut due = 0;
        let mut written = Ok(());
        for (i, result) in receive {
            pending.insert(i, result);
            while let Some(result) = pending.remove(&due) {
                due += 1;
                match &result {
                    FileResult::Lines { count, .. } => {
                        stats.scanned += 1;
                        stats.findings += count;
                    }
                    FileResult::Error(_) => {
                        stats.errors += 1;
                        if stats.first_error.is_none() {
                            stats.first_error = Some(files[due - 1].clone());
                        }
                    }
                }
                if written.is_ok() {
                    written = result.write(&files[due - 1], out);
                }
            }
        }
        written
    })?;
    out.flush()?;
    Ok(stats)
}

/// One file's outcome: its finding lines, ready to print, or why it could
/// not be read.
enum FileResult {
    Lines { text: Vec<u8>, count: usize },
    Error(String),
}

impl FileResult {
    fn write(&self, path: &Path, out: &mut dyn Write) -> io::Result<()> {
        match self {
            FileResult::Lines { text, .. } => out.write_all(text),
            FileResult::Error(error) => {
                let line = json!({ "file": path.display().to_string(), "error": error });
                serde_json::to_writer(&mut *out, &line)?;
                out.write_all(b"\n")
            }
        }
    }
}

fn scan_file(scanner: &SecretScanner, path: &Path) -> FileResult {
    let shown = path.display().to_string();
    let bytes = match std::fs::metadata(path) {
        Err(e) => return FileResult::Error(format!("cannot read {shown}: {e}")),
        Ok(m) if m.is_dir() => {
            return FileResult::Error(format!(
                "{shown} is a directory; pass files (e.g. `find {shown} -type f -exec palisade check secrets --text {{}} +`)"
            ))
        }
        Ok(m) if m.len() > MAX_TEXT_FILE_BYTES => {
            return FileResult::Error(format!(
                "{shown} is {} bytes, over the {} MiB limit; not scanned",
                m.len(),
                MAX_TEXT_FILE_BYTES >> 20
            ))
        }
        Ok(_) => match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) => return FileResult::Error(format!("cannot read {shown}: {e}")),
        },
    };
    let mut text = Vec::new();
    let mut count = 0;
    let mut lines = LineCounter::default();
    // Text that is not UTF-8 is scanned one valid run at a time (a
    // credential is text); spans stay offsets into the file.
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        for f in scanner.scan(valid) {
            let (start, end) = (offset + f.span.start, offset + f.span.end);
            let line = json!({
                "file": shown,
                "line": lines.line_of(&bytes, start),
                "kind": f.kind,
                "span": [start, end],
                "preview": f.preview,
                "rule": f.rule_id,
                "severity": f.severity,
            });
            // Writing to a Vec cannot fail.
            let _ = serde_json::to_writer(&mut text, &line);
            text.push(b'\n');
            count += 1;
        }
        offset += valid.len() + chunk.invalid().len();
    }
    FileResult::Lines { text, count }
}

/// 1-based line numbers of increasing offsets, counted incrementally.
#[derive(Default)]
struct LineCounter {
    at: usize,
    line: usize,
}

impl LineCounter {
    fn line_of(&mut self, bytes: &[u8], offset: usize) -> usize {
        let offset = offset.min(bytes.len());
        if offset < self.at {
            self.at = 0;
            self.line = 0;
        }
        self.line += memchr::memchr_iter(b'\n', &bytes[self.at..offset]).count();
        self.at = offset;
        self.line + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN_LINE: &str = "export GITHUB_TOKEN=ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO";

    #[test]
    fn masks_exactly_the_secret() {
        let mut c = checker();
        let out = c.check(json!({ "text": TOKEN_LINE })).unwrap();
        assert_eq!(out["redacted"], "export GITHUB_TOKEN=ghp_…****");
        assert_eq!(out["findings"][0]["kind"], "github_token");
        assert_eq!(out["findings"][0]["span"], json!([20, 60]));
        assert!(c.check(json!({"txt": 1})).is_err());
    }

    /// The general path's output for a line.
    fn general(line: &str) -> Option<Vec<u8>> {
        let value: Value = serde_json::from_str(line).ok()?;
        let mut out = Vec::new();
        checker().check_into(value, &mut out).ok()?.ok()?;
        Some(out)
    }

    #[test]
    fn the_fast_path_writes_what_the_general_path_writes() {
        let token = serde_json::to_string(TOKEN_LINE).unwrap();
        let lines = [
            r#"{"text":"plain words, nothing secret"}"#.to_string(),
            r#"{ "text" : "spaced out" }"#.to_string(),
            r#"{"text":"escapes: \" \\ \/ \u00e9 \n\t \u0001 \ud83d\ude00"}"#.to_string(),
            r#"{"text":"数据已经保存，下一步是生成报告。"}"#.to_string(),
            r#"{"text":"canonical: \" \\ \n\t\r\b\f \u0001 \u001f é"}"#.to_string(),
            r#"{"text":"not canonical: \u000a \u001F \u0041 \u00e9 \/"}"#.to_string(),
            r#"{"text":"ends in an escape\\"}"#.to_string(),
            "{ \"text\" :\t\"spaced\\n\" }".to_string(),
            r#"{"text":""}"#.to_string(),
            format!(r#"{{"text":{token}}}"#),
            format!(r#"{{"text":"line one\n{}"}}"#, &token[1..token.len() - 1]),
        ];
        for line in &lines {
            let mut fast = Vec::new();
            let written = checker().check_raw(line, &mut fast);
            assert!(
                written.is_some_and(|w| w.is_ok()),
                "no fast path for {line}"
            );
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(general(line).unwrap()).unwrap(),
                "{line}"
            );
        }
    }

    #[test]
    fn other_shapes_take_the_general_path_and_write_nothing() {
        for line in [
            r#"{"text":"a","extra":1}"#,
            r#"{"text":"a","text":"b"}"#,
            r#"{"text":5}"#,
            r#"{"txt":"a"}"#,
            r#"["a"]"#,
            r#"{"text":"a"} trailing"#,
            r#"{"text":"\ud800"}"#,
        ] {
            let mut out = Vec::new();
            assert!(checker().check_raw(line, &mut out).is_none(), "{line}");
            assert!(out.is_empty(), "{line}");
        }
    }

    #[test]
    fn text_mode_reports_findings_per_file_in_order_and_errors_without_stopping() {
        let dir = tempfile::tempdir().unwrap();
        let clean = dir.path().join("clean.txt");
        let secret = dir.path().join("secret.txt");
        let binary = dir.path().join("binary.bin");
        std::fs::write(&clean, "nothing here\n").unwrap();
        std::fs::write(&secret, format!("first line\nsecond\n{TOKEN_LINE}\n")).unwrap();
        let mut bin = vec![0xff, 0xfe, b'\n'];
        bin.extend_from_slice(TOKEN_LINE.as_bytes());
        std::fs::write(&binary, &bin).unwrap();
        let missing = dir.path().join("missing.txt");
        let files = vec![
            secret.clone(),
            missing.clone(),
            clean,
            dir.path().to_path_buf(),
            binary,
        ];
        for threads in [1, 3] {
            let mut out = Vec::new();
            let stats = run_text(&files, threads, &mut out).unwrap();
            let lines: Vec<Value> = String::from_utf8(out)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(lines.len(), 4, "{lines:?}");
            assert_eq!(lines[0]["file"], secret.display().to_string());
            assert_eq!(lines[0]["line"], 3);
            assert_eq!(lines[0]["kind"], "github_token");
            assert_eq!(lines[0]["span"], json!([38, 78]));
            assert_eq!(lines[0]["preview"], "ghp_…****");
            assert!(lines[1]["error"].as_str().unwrap().contains("missing.txt"));
            assert!(lines[2]["error"]
                .as_str()
                .unwrap()
                .contains("is a directory"));
            assert_eq!(
                lines[3]["span"],
                json!([23, 63]),
                "offsets are the file's bytes"
            );
            assert_eq!(lines[3]["line"], 2);
            assert_eq!(
                stats,
                TextStats {
                    scanned: 3,
                    findings: 2,
                    errors: 2,
                    first_error: Some(missing.clone()),
                }
            );
        }
    }
}
