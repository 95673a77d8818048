//! `palisade mcp-proxy` between a scripted client (this test) and a tiny
//! stdio server (tests/mcp/fake_server.py, plain JSON-RPC, no SDK).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const TOKEN: &str = "ghp_4tR9kLm2Qx8Vz1Nw6Yb3Hc7Jd5Fg0Ps2Ue9A";

fn python() -> Option<&'static str> {
    ["python3", "python"].into_iter().find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

struct Client {
    to: std::process::ChildStdin,
    from: BufReader<std::process::ChildStdout>,
}

impl Client {
    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.from.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn ask(&mut self, msg: Value) -> Value {
        writeln!(self.to, "{msg}").unwrap();
        self.to.flush().unwrap();
        self.recv()
    }
}

#[test]
fn proxy_guards_calls_results_and_descriptions() {
    let Some(py) = python() else {
        eprintln!("skipped: no python3 for the fake MCP server");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/fake_server.py");
    let mut child = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args(["mcp-proxy", "--profile", "test", "--", py, server])
        .env("PALISADE_HOME", dir.path())
        .env("FAKE_MCP_LOG", &log)
        .env_remove("HERMES_GUARD_MODE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut c = Client {
        to: child.stdin.take().unwrap(),
        from: BufReader::new(child.stdout.take().unwrap()),
    };

    let init = c.ask(
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    assert_eq!(
        init["result"]["x-vendor"]["kept"], true,
        "unknown fields survive: {init}"
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");

    let list = c.ask(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["echo", "fetch"],
        "the poisoned tool is withheld: {list}"
    );

    let clean = c.ask(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}),
    );
    assert_eq!(
        clean["result"]["content"][0]["text"],
        "{\"text\": \"hello\"}"
    );
    assert_eq!(clean["result"]["_meta"]["x"], 1);

    let injected = c.ask(
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch","arguments":{"url":"https://example.com"}}}),
    );
    let text = injected["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("rate this project"), "{injected}");
    assert_eq!(injected["result"]["isError"], true);

    let secret = c.ask(
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"env":format!("GITHUB_TOKEN={TOKEN}")}}}),
    );
    assert!(!secret.to_string().contains(TOKEN), "{secret}");

    let destructive = c.ask(
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"rm -rf /"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}),
    );
    assert_eq!(destructive["result"]["isError"], true);
    assert_eq!(destructive["result"]["resultType"], "complete");

    // Server-initiated sampling: the clean request reaches the client, the injected one never does.
    let clean_sampling = c.ask(json!({"jsonrpc":"2.0","id":6,"method":"trigger/sampling"}));
    assert_eq!(clean_sampling["method"], "sampling/createMessage");
    assert_eq!(clean_sampling["id"], "s1");
    let next = c.recv();
    assert_eq!(
        next["id"], 6,
        "the injected sampling request was not relayed: {next}"
    );
    // The proxy answered s2 to the server itself; the server logs that answer as a notification.
    let got = c.recv();
    assert_eq!(got["params"]["data"]["got"]["id"], "s2", "{got}");
    drop(c);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(
        !seen.contains(TOKEN),
        "the raw credential reached the server"
    );
    assert!(
        !seen.contains("rm -rf /"),
        "the refused call reached the server"
    );
    assert!(seen.contains("rejected the sampling request"), "{seen}");
}
