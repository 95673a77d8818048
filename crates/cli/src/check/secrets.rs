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
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Request {
    text: String,
}

struct Secrets {
    scanner: &'static SecretScanner,
    /// The decoded text of a line with escapes, reused from line to line.
    scratch: String,
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

    /// `{"text":"…"}` decoded in one pass over the line ([`TextLine`]):
    /// no `Value`, no copy of a text without escapes, and one buffer
    /// reused for the texts with escapes. A clean text's verdict quotes the
    /// input's own string literal when it is canonical (then it is exactly
    /// what serializing the text writes).
    fn check_raw(&mut self, line: &str, out: &mut dyn Write) -> Option<io::Result<()>> {
        let parsed = TextLine::parse(line, &mut self.scratch)?;
        let text = parsed.text(line, &self.scratch);
        let findings = self.scanner.scan(text);
        if !findings.is_empty() {
            let value = verdict(text, &findings);
            return Some(serde_json::to_writer(out, &value).map_err(io::Error::from));
        }
        Some((|| {
            out.write_all(b"{\"findings\":[],\"redacted\":")?;
            if parsed.canonical {
                out.write_all(parsed.literal(line).as_bytes())?;
            } else {
                serde_json::to_writer(&mut *out, text)?;
            }
            out.write_all(b"}")
        })())
    }
}

/// A line that is exactly `{"text":"…"}` (JSON whitespace allowed between
/// the tokens, the key written without escapes), read in one pass: where
/// its string literal is, whether the text went to the scratch buffer
/// (the literal has escapes), and whether the literal is canonical, i.e.
/// what serde_json writes for its string (escapes `\"`, `\\`,
/// `\b \f \n \r \t`, and `\u00xx` in lower-case hex for the other control
/// characters; nothing else escaped).
///
/// Anything else (another key, an escaped key, invalid escapes, lone
/// surrogates, raw control characters) is `None`, and the line takes the
/// general path, which accepts or words the error exactly as serde_json
/// does.
struct TextLine {
    /// The literal's bytes in the line, quotes included.
    literal: (usize, usize),
    /// The text is the scratch buffer (else the literal's body).
    decoded: bool,
    canonical: bool,
}

impl TextLine {
    fn parse(line: &str, scratch: &mut String) -> Option<TextLine> {
        let b = line.as_bytes();
        let ws = |mut i: usize| {
            while b
                .get(i)
                .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
            {
                i += 1;
            }
            i
        };
        let expect = |i: usize, what: &[u8]| b[i..].starts_with(what).then_some(i + what.len());
        let i = expect(0, b"{")?;
        let i = expect(ws(i), b"\"text\"")?;
        let i = expect(ws(i), b":")?;
        let open = ws(i);
        let mut at = expect(open, b"\"")?;
        scratch.clear();
        let mut decoded = false;
        let mut canonical = true;
        let close = loop {
            let j = at + memchr::memchr2(b'"', b'\\', &b[at..])?;
            if b[j] == b'"' {
                if decoded {
                    scratch.push_str(&line[at..j]);
                }
                break j;
            }
            scratch.push_str(&line[at..j]);
            decoded = true;
            let (c, len, short) = escape(&b[j..])?;
            scratch.push(c);
            canonical &= short;
            at = j + len;
        };
        // A raw control character is not JSON (one pass over the whole
        // literal, which the compiler vectorizes).
        if b[open..close]
            .iter()
            .fold(false, |bad, &c| bad | (c < 0x20))
        {
            return None;
        }
        let end = expect(ws(close + 1), b"}")?;
        (ws(end) == b.len()).then_some(TextLine {
            literal: (open, close + 1),
            decoded,
            canonical,
        })
    }

    /// The string literal, quotes included.
    fn literal<'a>(&self, line: &'a str) -> &'a str {
        &line[self.literal.0..self.literal.1]
    }

    /// The decoded text.
    fn text<'a>(&self, line: &'a str, scratch: &'a str) -> &'a str {
        if self.decoded {
            scratch
        } else {
            &line[self.literal.0 + 1..self.literal.1 - 1]
        }
    }
}

/// The escape at the start of `b` (which starts with `\`): the character,
/// the escape's length in bytes, and whether serde_json writes that
/// character this way. `None` for an escape that is not JSON or a lone
/// surrogate.
fn escape(b: &[u8]) -> Option<(char, usize, bool)> {
    let short = |c: char| Some((c, 2, true));
    match b.get(1)? {
        b'"' => short('"'),
        b'\\' => short('\\'),
        b'/' => Some(('/', 2, false)),
        b'b' => short('\u{8}'),
        b'f' => short('\u{c}'),
        b'n' => short('\n'),
        b'r' => short('\r'),
        b't' => short('\t'),
        b'u' => {
            let hex = |at: usize| -> Option<u32> {
                let digits = b.get(at..at + 4)?;
                digits
                    .iter()
                    .try_fold(0u32, |v, &d| Some(v * 16 + char::from(d).to_digit(16)?))
            };
            let unit = hex(2)?;
            match unit {
                0xd800..=0xdbff => {
                    if b.get(6..8)? != b"\\u" {
                        return None;
                    }
                    let low = hex(8)?;
                    if !(0xdc00..=0xdfff).contains(&low) {
                        return None;
                    }
                    let c = char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))?;
                    Some((c, 12, false))
                }
                0xdc00..=0xdfff => None,
                _ => {
                    let c = char::from_u32(unit)?;
                    // `\u00xx`, lower-case, for a control character
                    // without a short escape.
                    let lower = b[2..6].iter().all(|d| !d.is_ascii_uppercase());
                    let canonical =
                        unit < 0x20 && !matches!(unit, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) && lower;
                    Some((c, 6, canonical))
                }
            }
        }
        _ => None,
    }
}

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(Secrets {
        scanner: SecretScanner::builtin(),
        scratch: String::new(),
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
            r#"{"text":"\u0000 \u001f \u007f \u00E9 \uFFFF \uD83D\uDE00 \u00e9\""}"#.to_string(),
            "{\"text\":\"raw \u{7f} and é\"}".to_string(),
            r#"{"text":"\\\\\"\\"}"#.to_string(),
            r#"{"text":"password=\"Tr0ub4dor&3x\"\n"}"#.to_string(),
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

    /// Every character, written as serde_json writes it and as an
    /// ASCII-only writer does (`\uXXXX` for everything past ASCII,
    /// surrogate pairs past the BMP), decodes to what serde_json decodes.
    #[test]
    fn the_fast_path_decodes_every_character_as_serde_json_does() {
        let chars: Vec<char> = (0u32..0x800)
            .chain([0xfffd, 0xffff, 0x1f600, 0x10ffff])
            .filter_map(char::from_u32)
            .collect();
        for chunk in chars.chunks(61) {
            let text: String = chunk.iter().collect();
            let ascii: String = text
                .encode_utf16()
                .map(|u| match u {
                    0x20..=0x7e if u != 0x22 && u != 0x5c => char::from(u as u8).to_string(),
                    _ => format!("\\u{u:04X}"),
                })
                .collect();
            for line in [
                serde_json::to_string(&json!({ "text": text })).unwrap(),
                format!(r#"{{"text":"{ascii}"}}"#),
            ] {
                let mut fast = Vec::new();
                let written = checker().check_raw(&line, &mut fast);
                assert!(
                    written.is_some_and(|w| w.is_ok()),
                    "no fast path for {line}"
                );
                assert_eq!(fast, general(&line).unwrap(), "{line}");
            }
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
            r#"{"text":"\udc00"}"#,
            r#"{"text":"\ud800\u0041"}"#,
            r#"{"text":"\ud800x"}"#,
            r#"{"text":"\u12"}"#,
            r#"{"text":"\u12g4"}"#,
            r#"{"text":"\x"}"#,
            r#"{"text":"\"#,
            r#"{"text":"open"#,
            "{\"text\":\"raw \t tab\"}",
            r#"{"t\u0065xt":"escaped key"}"#,
            r#"{"text":"a",}"#,
            r#"{"text" "a"}"#,
            r#"{"text":"a"}}"#,
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
