//! Which host tool calls write the agent's memory, and what text they add.
//!
//! The provenance gate checks memory writes for user decisions the user
//! never stated. In Hermes that is the `memory` / `skill_manage` tools; in
//! the coding hosts it is a file write to the files the host loads into
//! every session (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`, Cursor rules) and
//! any memory MCP server's tools. The gate sees only the text the write
//! *adds*: claims already in the file were checked when they were written.

use serde_json::Value;
use std::path::Path;

/// A memory file, by name or by the folder it sits in.
///
/// `file`: the file name (case-insensitive); `dir`: a path segment pair the
/// file sits under (`.cursor/rules/x.mdc`). Each rule has examples and
/// negatives, checked by the tests.
// The id and the examples are read by the tests, which check every rule.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct MemoryFileRule {
    pub id: &'static str,
    pub file: Option<&'static str>,
    pub dir: Option<&'static str>,
    pub examples: &'static [&'static str],
    pub negative_examples: &'static [&'static str],
}

/// The memory files of the four hosts.
pub(crate) const MEMORY_FILES: &[MemoryFileRule] = &[
    MemoryFileRule {
        id: "hosts.memory.claude-md",
        file: Some("claude.md"),
        dir: None,
        examples: &[
            "/repo/CLAUDE.md",
            "/home/u/.claude/CLAUDE.md",
            "sub/claude.md",
        ],
        negative_examples: &["/repo/CLAUDE.md.bak", "/repo/docs/claude-md.txt"],
    },
    MemoryFileRule {
        id: "hosts.memory.claude-local-md",
        file: Some("claude.local.md"),
        dir: None,
        examples: &["/repo/CLAUDE.local.md"],
        negative_examples: &["/repo/CLAUDE.local.md~"],
    },
    MemoryFileRule {
        id: "hosts.memory.claude-rules",
        file: None,
        dir: Some(".claude/rules"),
        examples: &["/repo/.claude/rules/testing.md"],
        negative_examples: &["/repo/.claude/settings.json", "/repo/rules/x.md"],
    },
    MemoryFileRule {
        id: "hosts.memory.agents-md",
        file: Some("agents.md"),
        dir: None,
        examples: &["/repo/AGENTS.md", "/home/u/.codex/AGENTS.md"],
        negative_examples: &["/repo/agents.mdx", "/repo/AGENTS"],
    },
    MemoryFileRule {
        id: "hosts.memory.agents-override-md",
        file: Some("agents.override.md"),
        dir: None,
        examples: &["/repo/AGENTS.override.md"],
        negative_examples: &["/repo/AGENTS.override.txt"],
    },
    MemoryFileRule {
        id: "hosts.memory.gemini-md",
        file: Some("gemini.md"),
        dir: None,
        examples: &["/repo/GEMINI.md", "/home/u/.gemini/GEMINI.md"],
        negative_examples: &["/repo/gemini.json"],
    },
    MemoryFileRule {
        id: "hosts.memory.cursorrules",
        file: Some(".cursorrules"),
        dir: None,
        examples: &["/repo/.cursorrules"],
        negative_examples: &["/repo/cursorrules.md"],
    },
    MemoryFileRule {
        id: "hosts.memory.cursor-rules",
        file: None,
        dir: Some(".cursor/rules"),
        examples: &[
            "/repo/.cursor/rules/style.mdc",
            "C:\\repo\\.cursor\\rules\\a.mdc",
        ],
        negative_examples: &["/repo/.cursor/hooks.json", "/repo/cursor/rules/a.mdc"],
    },
];

/// The rule a path matches, if it is a memory file.
pub(crate) fn memory_file(path: &str) -> Option<&'static MemoryFileRule> {
    let norm = path.replace('\\', "/").to_ascii_lowercase();
    let name = norm.rsplit('/').next().unwrap_or(&norm);
    MEMORY_FILES.iter().find(|rule| {
        rule.file.is_some_and(|f| name == f)
            || rule.dir.is_some_and(|d| {
                norm.starts_with(&format!("{d}/")) || norm.contains(&format!("/{d}/"))
            })
    })
}

/// A memory MCP tool: the server or tool name says memory
/// (`mcp__memory__create_entities`, `mcp_memory_add`, `MCP:add_memory`).
pub(crate) fn is_memory_tool(tool: &str) -> bool {
    let t = tool.to_ascii_lowercase();
    let mcp = t.starts_with("mcp__") || t.starts_with("mcp_") || t.starts_with("mcp:");
    mcp && t.contains("memor")
}

/// The text a tool call adds to the agent's memory, or `None` when the
/// call does not write memory. `cwd` resolves relative paths; `read`
/// returns a file's current text (the gate sees only new lines).
pub(crate) fn added_text(
    tool: &str,
    input: &Value,
    cwd: Option<&str>,
    read: &dyn Fn(&Path) -> String,
) -> Option<String> {
    if is_memory_tool(tool) {
        let mut text = String::new();
        super::strings_of(input, &mut text);
        return Some(text);
    }
    // Codex apply_patch: `*** Add File: AGENTS.md` / `*** Update File: …`
    // sections; the added lines start with `+`.
    if let Some(patch) = input["command"].as_str().filter(|_| is_patch_tool(tool)) {
        return patch_additions(patch);
    }
    let path = ["file_path", "path", "target_file", "filePath"]
        .iter()
        .find_map(|k| input[*k].as_str())?;
    memory_file(path)?;
    if let Some(edits) = input["edits"].as_array() {
        let added: Vec<String> = edits
            .iter()
            .map(|e| {
                new_lines(
                    e["old_string"].as_str().unwrap_or(""),
                    e["new_string"].as_str().unwrap_or(""),
                )
            })
            .collect();
        return Some(added.join("\n"));
    }
    if let Some(new) = input["new_string"].as_str() {
        return Some(new_lines(input["old_string"].as_str().unwrap_or(""), new));
    }
    let content = ["content", "contents", "code_edit", "text"]
        .iter()
        .find_map(|k| input[*k].as_str())?;
    let full = match cwd {
        Some(dir) if Path::new(path).is_relative() => Path::new(dir).join(path),
        _ => Path::new(path).to_path_buf(),
    };
    Some(new_lines(&read(&full), content))
}

fn is_patch_tool(tool: &str) -> bool {
    matches!(tool, "apply_patch" | "Edit" | "Write")
}

/// Lines of `new` that are not lines of `old`.
fn new_lines(old: &str, new: &str) -> String {
    let known: std::collections::HashSet<&str> = old.lines().map(str::trim).collect();
    new.lines()
        .filter(|l| !l.trim().is_empty() && !known.contains(l.trim()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `+` lines of the patch sections that touch memory files.
fn patch_additions(patch: &str) -> Option<String> {
    let mut in_memory = false;
    let mut any = false;
    let mut added = Vec::new();
    for line in patch.lines() {
        if let Some(rest) = line
            .strip_prefix("*** Add File: ")
            .or_else(|| line.strip_prefix("*** Update File: "))
        {
            in_memory = memory_file(rest.trim()).is_some();
            any |= in_memory;
            continue;
        }
        if line.starts_with("*** ") {
            in_memory = false;
            continue;
        }
        if in_memory {
            if let Some(text) = line.strip_prefix('+') {
                added.push(text);
            }
        }
    }
    any.then(|| added.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_rule_matches_its_examples_and_none_of_its_negatives() {
        for rule in MEMORY_FILES {
            for ex in rule.examples {
                assert_eq!(
                    memory_file(ex).map(|r| r.id),
                    Some(rule.id),
                    "{} {ex}",
                    rule.id
                );
            }
            for neg in rule.negative_examples {
                assert!(
                    memory_file(neg).is_none(),
                    "{} matched negative {neg}",
                    rule.id
                );
            }
        }
    }

    #[test]
    fn memory_tools() {
        assert!(is_memory_tool("mcp__memory__create_entities"));
        assert!(is_memory_tool("MCP:add_memory"));
        assert!(is_memory_tool("mcp_memory_add_observations"));
        assert!(!is_memory_tool("Write"));
        assert!(!is_memory_tool("mcp__github__search_repositories"));
    }

    #[test]
    fn only_added_lines_reach_the_gate() {
        let read = |_: &Path| "# Project\nUser decided to use Postgres.\n".to_owned();
        let write = json!({"file_path": "/r/CLAUDE.md", "content": "# Project\nUser decided to use Postgres.\nUser decided to ship Friday.\n"});
        assert_eq!(
            added_text("Write", &write, None, &read).as_deref(),
            Some("User decided to ship Friday.")
        );
        let edit = json!({"file_path": "/r/AGENTS.md", "old_string": "a", "new_string": "a\nThe user chose MIT."});
        assert_eq!(
            added_text("Edit", &edit, None, &read).as_deref(),
            Some("The user chose MIT.")
        );
        let other = json!({"file_path": "/r/src/main.rs", "content": "fn main() {}"});
        assert_eq!(added_text("Write", &other, None, &read), None);
        let patch = json!({"command": "*** Begin Patch\n*** Update File: AGENTS.md\n@@\n+User decided to drop Windows.\n*** Update File: src/a.rs\n+let x = 1;\n*** End Patch"});
        assert_eq!(
            added_text("apply_patch", &patch, None, &read).as_deref(),
            Some("User decided to drop Windows.")
        );
        let code_patch =
            json!({"command": "*** Begin Patch\n*** Update File: src/a.rs\n+x\n*** End Patch"});
        assert_eq!(added_text("apply_patch", &code_patch, None, &read), None);
    }
}
