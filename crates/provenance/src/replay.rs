//! Write replay: what text a `memory` or `skill_manage` call would produce.
//!
//! The caller passes the tool name, the call's arguments (as Hermes hands
//! them to `pre_tool_call`) and the current stored text ([`Stored`]). The
//! operations are replayed in order over a copy of that text, so an add
//! followed by a patch in one call is seen, and only what the write
//! produces is returned for checking:
//!
//! * `memory`: `content` (or its alias `new_text`) of `add`; for
//!   `replace`/`patch`, the whole patched entry (entries are separated by
//!   `"\n§\n"`). `remove` adds nothing.
//! * `skill_manage`: `content` of `create`/`edit`; for `patch`, every line of
//!   the patched file the replacement touches (exact match first, then a
//!   whitespace- and quote-normalized line match, else just the new text);
//!   `file_content` of `write_file`. `delete`/`remove_file` add nothing.
//!
//! Shapes: flat fields; `operations` as a list, a single object or a JSON
//! string; operation items as JSON strings; a whole JSON-string argument
//! object; Hermes' string booleans (`"replace_all": "true"`). An empty
//! `operations` list runs the flat fields. Anything else is
//! [`Reason::UnreadableArguments`].
//!
//! ```
//! use palisade_provenance::replay::{replay, Stored};
//! use serde_json::json;
//!
//! let mut stored = Stored::default();
//! stored.set_memory("memory", "User is evaluating Postgres.\n§\nUses fish shell.");
//! let args = json!({"action": "replace", "target": "memory",
//!                   "old_text": "evaluating Postgres", "content": "User chose Postgres."});
//! let texts = replay("memory", &args, &stored).unwrap();
//! assert_eq!(texts[0].text, "User chose Postgres.");
//! assert_eq!(texts[0].stored.as_deref(), Some("User is evaluating Postgres."));
//! assert!(replay("memory", &json!({"operations": "not json"}), &stored).is_err());
//! ```

use crate::gate::{Gate, PreparedStored, Reason, Report};
use crate::said::{match_form, SaidIndex};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The memory entry separator of Hermes' store.
pub const ENTRY_SEPARATOR: &str = "\n§\n";

/// At most this many operations of one call are replayed.
pub const MAX_OPERATIONS: usize = 1000;

/// The stored text a write edits, passed in by the caller.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct Stored {
    memory: HashMap<String, String>,
    skills: HashMap<(String, String), String>,
}

impl Stored {
    /// Set the current text of a memory target (`memory` or `user`).
    ///
    /// ```
    /// let mut s = palisade_provenance::replay::Stored::default();
    /// s.set_memory("user", "Name: Dana");
    /// ```
    pub fn set_memory(&mut self, target: &str, text: &str) {
        self.memory.insert(target.to_owned(), text.to_owned());
    }

    /// Set the current text of a skill file (`file_path` defaults to `SKILL.md`).
    ///
    /// ```
    /// let mut s = palisade_provenance::replay::Stored::default();
    /// s.set_skill_file("deploy", "SKILL.md", "# Deploy\nRun make deploy.");
    /// ```
    pub fn set_skill_file(&mut self, name: &str, file_path: &str, text: &str) {
        self.skills.insert(
            (name.to_owned(), skill_path(name, file_path)),
            text.to_owned(),
        );
    }
}

/// One text a write produces, to be checked.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct WriteText {
    /// Where it goes (`memory:memory`, `memory:user`, `skill:NAME/FILE`).
    pub target: String,
    /// The produced text to check.
    pub text: String,
    /// The stored text it replaces or extends, if any (its unchanged
    /// sentences are not re-checked; its quotes count as evidence).
    pub stored: Option<String>,
}

/// Replay a `memory` or `skill_manage` call (see the [module docs](self)).
/// Other tools produce nothing.
pub fn replay(tool: &str, args: &Value, stored: &Stored) -> Result<Vec<WriteText>, Reason> {
    let args = decode_object(args).ok_or(Reason::UnreadableArguments)?;
    let ops = operations(&args)?;
    match tool {
        "memory" => replay_memory(&args, &ops, stored),
        "skill_manage" => replay_skill(&args, &ops, stored),
        _ => Ok(Vec::new()),
    }
}

/// Replay and check a write: the verdict of every produced text, merged.
/// Unreadable arguments are a verdict, not an error.
///
/// ```
/// use palisade_provenance::gate::{Gate, GateConfig, Reason};
/// use palisade_provenance::replay::{check_write, Stored};
/// use palisade_provenance::said::SaidIndex;
/// use serde_json::json;
///
/// let gate = Gate::new(GateConfig::default());
/// let said = SaidIndex::new();
/// let args = json!({"action": "add", "target": "memory", "content": "User decided to ship on Friday."});
/// let r = check_write(&gate, "memory", &args, &Stored::default(), &said, "s1");
/// assert_eq!(r.reason, Some(Reason::NoQuote));
/// let r = check_write(&gate, "memory", &json!({"operations": 7}), &Stored::default(), &said, "s1");
/// assert_eq!(r.reason, Some(Reason::UnreadableArguments));
/// ```
pub fn check_write(
    gate: &Gate,
    tool: &str,
    args: &Value,
    stored: &Stored,
    said: &SaidIndex,
    session: &str,
) -> Report {
    check_write_cached(
        gate,
        tool,
        args,
        stored,
        said,
        session,
        &mut StoredCache::new(),
    )
}

/// [`check_write`] with a cache of prepared stored texts that the host keeps
/// between calls: a stored text seen before (the same skill file patched
/// again, the same memory entry) is not normalized again.
///
/// ```
/// use palisade_provenance::gate::{Gate, GateConfig};
/// use palisade_provenance::replay::{check_write_cached, Stored, StoredCache};
/// use palisade_provenance::said::SaidIndex;
/// use serde_json::json;
///
/// let gate = Gate::new(GateConfig::default());
/// let mut cache = StoredCache::new();
/// let mut stored = Stored::default();
/// stored.set_skill_file("deploy", "SKILL.md", "# Deploy\nRun make deploy.\nUser decided X.");
/// let args = json!({"action": "patch", "name": "deploy",
///                   "old_string": "Run make deploy.", "new_string": "Run make deploy-prod."});
/// for _ in 0..2 {
///     let r = check_write_cached(&gate, "skill_manage", &args, &stored, &SaidIndex::new(), "s1", &mut cache);
///     assert!(r.is_pass());
/// }
/// assert_eq!(cache.len(), 1);
/// ```
pub fn check_write_cached(
    gate: &Gate,
    tool: &str,
    args: &Value,
    stored: &Stored,
    said: &SaidIndex,
    session: &str,
    cache: &mut StoredCache,
) -> Report {
    match replay(tool, args, stored) {
        Err(reason) => Report::refused(reason),
        Ok(texts) => {
            let mut report = Report::pass();
            for t in texts {
                let prepared = t.stored.as_deref().map(|st| cache.get(st));
                report.merge(gate.check_prepared(&t.text, said, session, prepared.as_deref()));
            }
            report
        }
    }
}

/// Prepared stored texts by content (see [`check_write_cached`]). Holds at
/// most [`StoredCache::CAPACITY`] texts; when full it starts over, so its
/// size stays bounded and its behaviour deterministic.
#[derive(Clone, Debug, Default)]
pub struct StoredCache {
    entries: HashMap<u64, Vec<(String, std::sync::Arc<PreparedStored>)>>,
    len: usize,
}

impl StoredCache {
    /// At most this many prepared texts are kept.
    pub const CAPACITY: usize = 64;

    /// An empty cache.
    ///
    /// ```
    /// assert!(palisade_provenance::replay::StoredCache::new().is_empty());
    /// ```
    pub fn new() -> StoredCache {
        StoredCache::default()
    }

    /// Number of prepared texts held.
    ///
    /// ```
    /// let mut c = palisade_provenance::replay::StoredCache::new();
    /// c.get("User decided X.");
    /// c.get("User decided X.");
    /// assert_eq!(c.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is cached.
    ///
    /// ```
    /// assert!(palisade_provenance::replay::StoredCache::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The prepared form of `stored`, prepared now if not cached.
    ///
    /// ```
    /// let mut c = palisade_provenance::replay::StoredCache::new();
    /// assert!(c.get("Uses fish shell.").has_sentence("uses fish shell."));
    /// ```
    pub fn get(&mut self, stored: &str) -> std::sync::Arc<PreparedStored> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        stored.hash(&mut h);
        let key = h.finish();
        if let Some(p) = self
            .entries
            .get(&key)
            .and_then(|list| list.iter().find(|(t, _)| t == stored))
        {
            return p.1.clone();
        }
        if self.len >= Self::CAPACITY {
            self.entries.clear();
            self.len = 0;
        }
        let prepared = std::sync::Arc::new(PreparedStored::new(stored));
        self.entries
            .entry(key)
            .or_default()
            .push((stored.to_owned(), prepared.clone()));
        self.len += 1;
        prepared
    }
}

/// The argument object, decoding a JSON string.
fn decode_object(v: &Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m.clone()),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        },
        _ => None,
    }
}

/// The operation list: `operations` if non-empty, else the flat fields.
fn operations(args: &Map<String, Value>) -> Result<Vec<Map<String, Value>>, Reason> {
    let list: Vec<Value> = match args.get("operations") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Object(o)) => vec![Value::Object(o.clone())],
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => a,
            Ok(Value::Object(o)) => vec![Value::Object(o)],
            _ => return Err(Reason::UnreadableArguments),
        },
        Some(_) => return Err(Reason::UnreadableArguments),
    };
    if list.is_empty() {
        return Ok(vec![args.clone()]);
    }
    list.iter()
        .take(MAX_OPERATIONS)
        .map(|item| decode_object(item).ok_or(Reason::UnreadableArguments))
        .collect()
}

/// A string field: absent/null is `None`, a non-string is unreadable.
fn field<'a>(op: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, Reason> {
    match op.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(Reason::UnreadableArguments),
    }
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        Some(Value::Number(n)) => n.as_i64().is_some_and(|n| n != 0),
        _ => false,
    }
}

fn replay_memory(
    args: &Map<String, Value>,
    ops: &[Map<String, Value>],
    stored: &Stored,
) -> Result<Vec<WriteText>, Reason> {
    let mut files: HashMap<String, Vec<String>> = HashMap::new();
    let mut out = Vec::new();
    for op in ops {
        let target = field(op, "target")?
            .or(field(args, "target")?)
            .unwrap_or("memory")
            .to_owned();
        let action = field(op, "action")?.unwrap_or("").to_ascii_lowercase();
        let content = match field(op, "content")? {
            Some(c) => Some(c),
            None => field(op, "new_text")?,
        };
        let old = field(op, "old_text")?;
        let entries = files.entry(target.clone()).or_insert_with(|| {
            stored
                .memory
                .get(&target)
                .map(|t| {
                    t.split(ENTRY_SEPARATOR)
                        .filter(|e| !e.trim().is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        });
        let label = format!("memory:{target}");
        match action.as_str() {
            "add" => {
                if let Some(c) = content {
                    entries.push(c.to_owned());
                    out.push(WriteText {
                        target: label,
                        text: c.to_owned(),
                        stored: None,
                    });
                }
            }
            "replace" | "patch" | "update" | "edit" => {
                let Some(c) = content else { continue };
                let found =
                    old.and_then(|o| entries.iter().position(|e| !o.is_empty() && e.contains(o)));
                match (found, old) {
                    (Some(i), Some(o)) => {
                        let before = entries[i].clone();
                        let after = if action == "replace" {
                            c.to_owned()
                        } else {
                            before.replacen(o, c, 1)
                        };
                        entries[i] = after.clone();
                        out.push(WriteText {
                            target: label,
                            text: after,
                            stored: Some(before),
                        });
                    }
                    _ => out.push(WriteText {
                        target: label,
                        text: c.to_owned(),
                        stored: None,
                    }),
                }
            }
            "remove" | "delete" => {
                if let Some(o) = old {
                    entries.retain(|e| o.is_empty() || !e.contains(o));
                }
            }
            _ => {
                // An unknown action that carries text is still checked.
                if let Some(c) = content {
                    out.push(WriteText {
                        target: label,
                        text: c.to_owned(),
                        stored: None,
                    });
                }
            }
        }
    }
    Ok(out)
}

fn skill_path(name: &str, file_path: &str) -> String {
    let p = file_path.trim().trim_start_matches("./");
    let own = format!("{name}/SKILL.md");
    if p.is_empty() || p == own {
        "SKILL.md".to_owned()
    } else {
        p.to_owned()
    }
}

fn replay_skill(
    args: &Map<String, Value>,
    ops: &[Map<String, Value>],
    stored: &Stored,
) -> Result<Vec<WriteText>, Reason> {
    let mut files: HashMap<(String, String), Option<String>> = HashMap::new();
    let mut out = Vec::new();
    for op in ops {
        let name = field(op, "name")?
            .or(field(args, "name")?)
            .unwrap_or("")
            .to_owned();
        let action = field(op, "action")?
            .or(field(args, "action")?)
            .unwrap_or("")
            .to_ascii_lowercase();
        let path = skill_path(&name, field(op, "file_path")?.unwrap_or(""));
        let key = (name.clone(), path.clone());
        let current = files
            .entry(key.clone())
            .or_insert_with(|| stored.skills.get(&key).cloned())
            .clone();
        let label = format!("skill:{name}/{path}");
        match action.as_str() {
            "create" | "edit" => {
                if let Some(c) = field(op, "content")? {
                    files.insert(key, Some(c.to_owned()));
                    let prior = if action == "edit" { current } else { None };
                    out.push(WriteText {
                        target: label,
                        text: c.to_owned(),
                        stored: prior,
                    });
                }
            }
            "write_file" => {
                if let Some(c) = field(op, "file_content")?.or(field(op, "content")?) {
                    files.insert(key, Some(c.to_owned()));
                    out.push(WriteText {
                        target: label,
                        text: c.to_owned(),
                        stored: current,
                    });
                }
            }
            "patch" => {
                let new = match field(op, "new_string")? {
                    Some(n) => n,
                    None => field(op, "content")?.unwrap_or(""),
                };
                let old = field(op, "old_string")?.unwrap_or("");
                let replace_all = truthy(op.get("replace_all"));
                match current
                    .as_deref()
                    .and_then(|cur| patch_text(cur, old, new, replace_all))
                {
                    Some((patched, touched)) => {
                        files.insert(key, Some(patched));
                        if !touched.trim().is_empty() {
                            out.push(WriteText {
                                target: label,
                                text: touched,
                                stored: current,
                            });
                        }
                    }
                    None => {
                        if !new.trim().is_empty() {
                            out.push(WriteText {
                                target: label,
                                text: new.to_owned(),
                                stored: None,
                            });
                        }
                    }
                }
            }
            "delete" => {
                files.insert(key, None);
            }
            "remove_file" => {
                files.insert(key, None);
            }
            _ => {
                if let Some(c) = field(op, "content")? {
                    out.push(WriteText {
                        target: label,
                        text: c.to_owned(),
                        stored: current,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Patch `cur`, returning the patched text and the touched lines (every line
/// overlapping a replacement). Exact match first, then a line-level match
/// with whitespace collapsed and quotes/Unicode normalized.
fn patch_text(cur: &str, old: &str, new: &str, replace_all: bool) -> Option<(String, String)> {
    if old.is_empty() {
        return None;
    }
    if cur.contains(old) {
        let mut patched = String::with_capacity(cur.len() + new.len());
        let mut regions = Vec::new();
        let mut at = 0;
        for (i, (pos, _)) in cur.match_indices(old).enumerate() {
            if i > 0 && !replace_all {
                break;
            }
            patched.push_str(&cur[at..pos]);
            let s = patched.len();
            patched.push_str(new);
            regions.push((s, patched.len()));
            at = pos + old.len();
        }
        patched.push_str(&cur[at..]);
        let touched = touched_lines(&patched, &regions);
        return Some((patched, touched));
    }
    // Fuzzy: find the run of lines whose collapsed form equals the collapsed old text.
    let want = collapse(old);
    if want.is_empty() {
        return None;
    }
    let lines: Vec<&str> = cur.split_inclusive('\n').collect();
    let max_span = old.lines().count().max(1) + 2;
    for i in 0..lines.len() {
        let mut acc = String::new();
        for (j, line) in lines.iter().enumerate().skip(i).take(max_span) {
            if !acc.is_empty() {
                acc.push(' ');
            }
            acc.push_str(&collapse(line));
            if acc.contains(&want) {
                let before: String = lines[..i].concat();
                let after: String = lines[j + 1..].concat();
                let mut new_block = new.to_owned();
                if lines[j].ends_with('\n') && !new_block.ends_with('\n') {
                    new_block.push('\n');
                }
                let start = before.len();
                let patched = format!("{before}{new_block}{after}");
                let touched = touched_lines(&patched, &[(start, start + new.len())]);
                return Some((patched, touched));
            }
            if acc.len() > want.len() * 4 + 256 {
                break;
            }
        }
    }
    None
}

fn collapse(s: &str) -> String {
    match_form(s).trim().to_owned()
}

/// Every line of `text` overlapping one of `regions`, joined.
fn touched_lines(text: &str, regions: &[(usize, usize)]) -> String {
    let mut out = String::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let line_end = line_start + line.len();
        let hit = regions.iter().any(|&(s, e)| {
            (s < line_end && e > line_start) || (s == e && s >= line_start && s < line_end)
        });
        if hit {
            out.push_str(line);
        }
        line_start = line_end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn memory_shapes() {
        let s = Stored::default();
        let flat = json!({"action": "add", "target": "memory", "content": "A"});
        assert_eq!(replay("memory", &flat, &s).unwrap().len(), 1);
        let list = json!({"operations": [{"action": "add", "content": "A"}, {"action": "add", "new_text": "B"}]});
        assert_eq!(replay("memory", &list, &s).unwrap().len(), 2);
        let single = json!({"operations": {"action": "add", "content": "A"}});
        assert_eq!(replay("memory", &single, &s).unwrap().len(), 1);
        let string = json!({"operations": "[{\"action\": \"add\", \"content\": \"A\"}]"});
        assert_eq!(replay("memory", &string, &s).unwrap().len(), 1);
        let items = json!({"operations": ["{\"action\": \"add\", \"content\": \"A\"}"]});
        assert_eq!(replay("memory", &items, &s).unwrap().len(), 1);
        let empty = json!({"operations": [], "action": "add", "content": "A"});
        assert_eq!(replay("memory", &empty, &s).unwrap().len(), 1);
        let whole = json!("{\"action\": \"add\", \"content\": \"A\"}");
        assert_eq!(replay("memory", &whole, &s).unwrap().len(), 1);
        for bad in [
            json!({"operations": "nope"}),
            json!({"operations": [3]}),
            json!({"action": "add", "content": 5}),
            json!(42),
        ] {
            assert_eq!(
                replay("memory", &bad, &s),
                Err(Reason::UnreadableArguments),
                "{bad}"
            );
        }
    }

    #[test]
    fn add_then_patch_in_one_call() {
        let s = Stored::default();
        let args = json!({"operations": [
            {"action": "add", "content": "User is evaluating Postgres."},
            {"action": "patch", "old_text": "is evaluating", "content": "chose"}
        ]});
        let t = replay("memory", &args, &s).unwrap();
        assert_eq!(t[1].text, "User chose Postgres.");
    }

    #[test]
    fn skill_patch_touched_lines_and_fuzzy() {
        let mut s = Stored::default();
        s.set_skill_file(
            "db",
            "SKILL.md",
            "# DB\nThe user is evaluating Postgres.\nRun migrations.\n",
        );
        let args = json!({"action": "patch", "name": "db", "old_string": "is evaluating", "new_string": "chose"});
        let t = replay("skill_manage", &args, &s).unwrap();
        assert_eq!(t[0].text, "The user chose Postgres.\n");
        let fuzzy = json!({"action": "patch", "name": "db", "old_string": "The  user is evaluating   Postgres.", "new_string": "The user chose Postgres."});
        let t = replay("skill_manage", &fuzzy, &s).unwrap();
        assert_eq!(t[0].text, "The user chose Postgres.\n");
        let missing = json!({"action": "patch", "name": "db", "old_string": "nowhere", "new_string": "User chose X."});
        assert_eq!(
            replay("skill_manage", &missing, &s).unwrap()[0].text,
            "User chose X."
        );
        let rm = json!({"action": "remove_file", "name": "db", "file_path": "references/a.md"});
        assert!(replay("skill_manage", &rm, &s).unwrap().is_empty());
    }

    #[test]
    fn stored_cache_is_bounded_and_reused() {
        let mut c = StoredCache::new();
        let a = c.get("User decided X.");
        assert!(std::sync::Arc::ptr_eq(&a, &c.get("User decided X.")));
        for i in 0..(StoredCache::CAPACITY * 2) {
            c.get(&format!("Note {i}."));
            assert!(c.len() <= StoredCache::CAPACITY);
        }
        assert!(c.get("Note 3.").has_sentence("note 3."));
    }
}
