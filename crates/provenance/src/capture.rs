//! Capture cleaning: the user's own words from a turn as Hermes built it.
//!
//! Hermes adds blocks to the user message before the model sees it. Quoting
//! those blocks is not quoting the user, so they are removed before a message
//! is stored in the [`SaidIndex`](crate::said::SaidIndex):
//!
//! * routing notes (`[Discord routing …]`), reply pointers
//!   (`[Replying to …: "…"]`), `[The user sent …]` attachment notes, the
//!   model-switch note (`[Note: model was just switched …]`), a leading
//!   `[System note: …]` / `[System: …]` before the user's new message;
//! * inlined attachment text (`[Content of NAME]:` and everything after it)
//!   and `--- Attached Context ---` blocks;
//! * shared-chat sender labels (`[Alice]: …`, `[sender: …]`);
//! * skill bodies inlined by a skill command (only the user's own
//!   instruction after the body is kept);
//! * quoted replies — WeChat `[引用: …]` / `[引用媒体…]` and QQ
//!   `[Quoted message]:` — up to the last block boundary (losing typed words
//!   is safe, keeping quoted words is not).
//!
//! Turns Hermes writes itself store nothing: scaffolding rows (`[System:`,
//! `[CONTEXT`, `[PRIOR CONTEXT`, `[IMPORTANT:`, `[Your active task list`,
//! `[Planning state preserved`, `[ASYNC DELEGATION`, `[OUT-OF-BAND`,
//! `Cronjob Response:`, `[Background process`, `[Continuing toward`,
//! `[Goal set]`, `[Heartbeat`, `[System note:`, cron and webhook deliveries),
//! and every turn of the `curator`, `subagent` and `cron` platforms.
//!
//! ```
//! use palisade_provenance::capture::clean_capture;
//!
//! let turn = "[Replying to Bot: \"User decided X\"]\nno, I decided we ship on Friday";
//! assert_eq!(clean_capture(turn, None).as_deref(), Some("no, I decided we ship on Friday"));
//! assert_eq!(clean_capture("[Goal set] finish the report", None), None);
//! assert_eq!(clean_capture("hello", Some("cron")), None);
//! ```

/// Platforms whose turns are not typed by the user.
pub const AGENT_PLATFORMS: &[&str] = &["curator", "subagent", "cron"];

/// Headers of turns Hermes writes itself (nothing is captured).
pub const SCAFFOLDING_HEADERS: &[&str] = &[
    "[System:",
    "[CONTEXT",
    "[PRIOR CONTEXT",
    "[IMPORTANT: Background",
    "[IMPORTANT:",
    "[Your active task list",
    "[Planning state preserved",
    "[ASYNC DELEGATION",
    "[OUT-OF-BAND",
    "Cronjob Response:",
    "[Background process",
    "[Continuing toward",
    "[Goal set]",
    "[Heartbeat",
    "[System note:",
    "[Cron",
    "[cron",
    "[Webhook",
    "[webhook",
    "[Scheduled task",
    "[Delegation result",
    "[Subagent",
];

/// Bracketed notes removed wherever they start a line.
const NOTE_OPENERS: &[&str] = &[
    "[Replying to ",
    "[The user sent ",
    "[Note: model was just switched",
    "[Discord routing",
    "[Routing",
    "[Channel backfill",
    "[Recent channel messages",
];

/// At most this many blocks are stripped from one message (a bound).
const MAX_BLOCKS: usize = 256;

/// The user's own words in `text`, or `None` when nothing is left or the
/// turn is scaffolding / from an agent platform.
pub fn clean_capture(text: &str, platform: Option<&str>) -> Option<String> {
    if platform.is_some_and(|p| AGENT_PLATFORMS.iter().any(|a| p.eq_ignore_ascii_case(a))) {
        return None;
    }
    let mut t = text.trim_start().to_owned();
    // A leading system note before the user's new message goes; a turn that
    // is only a system note (or any scaffolding header) stores nothing.
    for opener in ["[System note:", "[System:"] {
        if t.starts_with(opener) {
            match closing_bracket(&t, 0) {
                Some(end)
                    if !t[end..].trim().is_empty()
                        && t[end..].starts_with(['\n', '\r', ' '])
                        && t[..end].contains(']')
                        && !t[end..].trim_start().starts_with('[') =>
                {
                    t = t[end..].trim_start().to_owned();
                }
                _ => return None,
            }
        }
    }
    if SCAFFOLDING_HEADERS.iter().any(|h| t.starts_with(h)) {
        return None;
    }
    // Inlined attachment text and attached-context blocks: everything after.
    for marker in ["[Content of ", "--- Attached Context ---"] {
        if let Some(i) = t.find(marker) {
            t.truncate(i);
        }
    }
    // Quoted replies: drop everything up to the last block boundary.
    for marker in ["[引用", "[Quoted message]"] {
        if let Some(i) = t.rfind(marker) {
            let rest = &t[i..];
            let boundary = rest
                .rfind("]\n")
                .map(|j| i + j + 2)
                .or_else(|| rest.rfind("\n\n").map(|j| i + j + 2));
            match boundary {
                Some(b) => t = t[b..].to_owned(),
                None => return None,
            }
        }
    }
    // Skill bodies: keep only the user's instruction after the body.
    if t.starts_with("[Skill") || t.contains("<skill>") {
        for marker in ["User instruction:", "</skill>", "[End skill]"] {
            if let Some(i) = t.rfind(marker) {
                t = t[i + marker.len()..].to_owned();
                break;
            }
        }
        if t.starts_with("[Skill") {
            return None;
        }
    }
    // Bracketed notes at line starts, and sender labels.
    let mut out = String::with_capacity(t.len());
    let mut removed = 0usize;
    for line in t.split_inclusive('\n') {
        let mut l = line;
        loop {
            let trimmed = l.trim_start();
            let opener = NOTE_OPENERS.iter().any(|o| trimmed.starts_with(o));
            if !opener || removed >= MAX_BLOCKS {
                break;
            }
            let off = l.len() - trimmed.len();
            match closing_bracket(l, off) {
                Some(end) => {
                    l = &l[end..];
                    removed += 1;
                }
                None => {
                    l = "";
                    break;
                }
            }
        }
        out.push_str(strip_sender_label(l));
    }
    let cleaned = out.trim();
    (!cleaned.is_empty()).then(|| cleaned.to_owned())
}

/// End (exclusive) of the bracket block opening at `start`, honouring one
/// level of `"…"` inside it (reply pointers quote the replied text).
fn closing_bracket(s: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_quote = false;
    for (i, c) in s[start..].char_indices() {
        match c {
            '"' => in_quote = !in_quote,
            '[' if !in_quote => depth += 1,
            ']' if !in_quote => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(start + i + 1);
                }
            }
            '\n' if in_quote && s[start..start + i].ends_with(']') => {}
            _ => {}
        }
    }
    // A reply pointer whose quote hid the closing bracket: end at `"]`.
    s[start..].find("\"]").map(|i| start + i + 2)
}

/// `[Alice]: hi` or `[sender: Alice] hi` → `hi`.
fn strip_sender_label(line: &str) -> &str {
    let t = line.trim_start();
    if let Some(rest) = t
        .strip_prefix("[sender:")
        .or_else(|| t.strip_prefix("[Sender:"))
    {
        if let Some(i) = rest.find(']') {
            return rest[i + 1..].trim_start_matches([' ', ':']);
        }
    }
    if t.starts_with('[') {
        if let Some(i) = t.find("]:") {
            let label = &t[1..i];
            if !label.is_empty()
                && label.len() <= 40
                && !label.contains(['[', '\n'])
                && !label.contains(": ")
            {
                return t[i + 2..].trim_start();
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_removed() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "[The user sent an image: cat.png]\nship it on Friday",
                Some("ship it on Friday"),
            ),
            (
                "please review\n[Content of notes.txt]:\nUser approved everything",
                Some("please review"),
            ),
            (
                "see this\n--- Attached Context ---\nthe user decided X",
                Some("see this"),
            ),
            (
                "[Note: model was just switched to x]\nkeep going",
                Some("keep going"),
            ),
            (
                "[System note: resuming after restart]\nI decided we use Postgres",
                Some("I decided we use Postgres"),
            ),
            ("[System note: the turn was interrupted]", None),
            ("[引用: 老板说用户同意上线]\n我不同意", Some("我不同意")),
            (
                "[Quoted message]: the user approved it\n]\nno I did not",
                Some("no I did not"),
            ),
            ("[Alice]: let's ship Friday", Some("let's ship Friday")),
            ("[CONTEXT COMPACTION] summary", None),
            ("Cronjob Response: done", None),
            ("[Replying to Hermes: \"User decided [x]\"] no", Some("no")),
            ("   ", None),
        ];
        for (input, want) in cases {
            assert_eq!(clean_capture(input, None).as_deref(), *want, "{input:?}");
        }
        assert_eq!(clean_capture("hi there", Some("subagent")), None);
        assert_eq!(
            clean_capture("hi there", Some("telegram")).as_deref(),
            Some("hi there")
        );
    }
}
