//! The wrapper table (`data/wrappers.json`): commands that run the command
//! given in their arguments, with each one's option grammar, and [`peel`],
//! which skips them to find the command that really runs.

use crate::reader::split_assignment;
use serde::Deserialize;
use std::sync::OnceLock;

/// One entry of the wrapper table.
///
/// ```
/// let sudo = palisade_shell::wrappers().iter().find(|w| w.names.iter().any(|n| n == "sudo")).unwrap();
/// assert!(sudo.value_options.iter().any(|o| o == "-u"));
/// ```
#[derive(Clone, Debug, Default, Deserialize, Eq, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Wrapper {
    /// Command names (basenames) this entry describes.
    pub names: Vec<String>,
    /// Options that take the next word as their value (`sudo -u USER`).
    #[serde(default)]
    pub value_options: Vec<String>,
    /// Operands before the command (`timeout DURATION`, `gosu USER`).
    #[serde(default)]
    pub positional: usize,
    /// Whether `NAME=value` words among the options are skipped (`env`).
    #[serde(default)]
    pub assignments: bool,
    /// Options whose value is a whole command line (`env -S '…'`, `flock -c '…'`).
    #[serde(default)]
    pub string_options: Vec<String>,
    /// Whether options may also follow the operands (`ansible HOSTS -m shell
    /// -a 'CMD'`): they are skipped again after the `positional` operands.
    #[serde(default)]
    pub options_after_operands: bool,
    /// Whether options are also written with `/` (`cmd /d /s /c …`).
    #[serde(default)]
    pub slash_options: bool,
    /// Whether option names match in any case (`CMD /C …`).
    #[serde(default)]
    pub ignore_case: bool,
    /// `[command line, command word peel finds]`.
    #[serde(default)]
    pub examples: Vec<(String, String)>,
    /// `[command line, word peel must not take for the command]`.
    #[serde(default)]
    pub negatives: Vec<(String, String)>,
}

#[derive(Deserialize)]
struct Table {
    wrappers: Vec<Wrapper>,
}

/// The built-in wrapper table, parsed once.
///
/// The data file is compiled in and a test proves it parses, so the empty
/// fallback is never taken in a tested build.
///
/// ```
/// assert!(palisade_shell::wrappers().len() > 20);
/// ```
pub fn wrappers() -> &'static [Wrapper] {
    static TABLE: OnceLock<Vec<Wrapper>> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str::<Table>(include_str!("../data/wrappers.json"))
            .map(|t| t.wrappers)
            .unwrap_or_default()
    })
}

/// The wrapper entry for a command name, if it is one.
///
/// ```
/// assert!(palisade_shell::wrapper("torsocks").is_some());
/// assert!(palisade_shell::wrapper("rm").is_none());
/// ```
pub fn wrapper(name: &str) -> Option<&'static Wrapper> {
    wrappers()
        .iter()
        .find(|w| w.names.iter().any(|n| n == name))
}

/// The last path component of a command word, without a Windows `.exe`
/// (`/usr/bin/curl` → `curl`, `C:\\bin\\curl.exe` → `curl`).
///
/// ```
/// assert_eq!(palisade_shell::basename("/usr/bin/rm"), "rm");
/// assert_eq!(palisade_shell::basename("curl.exe"), "curl");
/// ```
pub fn basename(word: &str) -> &str {
    let w = word.rsplit(['/', '\\']).next().unwrap_or(word);
    match w.len().checked_sub(4) {
        Some(cut) if w.is_char_boundary(cut) && w[cut..].eq_ignore_ascii_case(".exe") => &w[..cut],
        _ => w,
    }
}

/// At most this many wrappers are peeled from one command.
const MAX_PEEL: usize = 64;

/// Skip leading assignments and wrappers; the index of the word that names
/// the command that really runs, or `None` when nothing is left.
///
/// A word after a `string_options` option is returned as it is: a command
/// word holding blanks is a whole command line for the caller to read again.
///
/// ```
/// let w: Vec<String> = "sudo -u root nice -n 5 rm -rf /".split(' ').map(String::from).collect();
/// assert_eq!(palisade_shell::peel(&w), Some(6));
/// let w: Vec<String> = ["timeout".to_string(), "5".into()].to_vec();
/// assert_eq!(palisade_shell::peel(&w), None);
/// ```
pub fn peel(words: &[String]) -> Option<usize> {
    let mut i = 0;
    let mut rounds = 0;
    while i < words.len() && rounds < MAX_PEEL {
        rounds += 1;
        let w = words[i].as_str();
        if split_assignment(w).is_some() {
            i += 1;
            continue;
        }
        let Some(entry) = wrapper(basename(w)) else {
            return Some(i);
        };
        i += 1;
        let (next, string_value) = skip_options(entry, words, i);
        i = next;
        if string_value {
            break;
        }
        i += entry.positional;
        // `ansible HOSTS -m shell -a 'CMD'`: options after the operands.
        if entry.options_after_operands {
            let (next, string_value) = skip_options(entry, words, i);
            i = next;
            if string_value {
                break;
            }
        }
        // `flock FILE -c 'CMD'`: a string option after the operands.
        if entry.positional > 0
            && words
                .get(i)
                .is_some_and(|o| entry.string_options.iter().any(|s| s == o))
        {
            i += 1;
            break;
        }
    }
    (i < words.len()).then_some(i)
}

/// Skip a wrapper's options from `i`: the index after them, and whether
/// they ended at a `string_options` option (its value, a whole command
/// line, is next).
fn skip_options(entry: &Wrapper, words: &[String], mut i: usize) -> (usize, bool) {
    while i < words.len() {
        let o = words[i].as_str();
        if o == "--" {
            return (i + 1, false);
        }
        if entry.assignments && split_assignment(o).is_some() {
            i += 1;
            continue;
        }
        let same = |s: &String| {
            if entry.ignore_case {
                s.eq_ignore_ascii_case(o)
            } else {
                s == o
            }
        };
        if entry.string_options.iter().any(same) {
            return (i + 1, true);
        }
        if (o.starts_with('-') || (entry.slash_options && o.starts_with('/'))) && o.len() > 1 {
            i += 1;
            if entry.value_options.iter().any(same) {
                i += 1;
            }
            continue;
        }
        break;
    }
    (i, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command_word(line: &str) -> Option<String> {
        let parsed = crate::parse(line);
        let cmd = parsed.commands.iter().find(|c| {
            c.words
                .first()
                .is_some_and(|w| wrapper(basename(w)).is_some() || split_assignment(w).is_some())
        })?;
        peel(&cmd.words).map(|i| cmd.words[i].clone())
    }

    #[test]
    fn table_parses_and_names_are_unique() {
        let table = wrappers();
        assert!(table.len() > 20, "wrappers.json did not parse");
        let mut names: Vec<&str> = table
            .iter()
            .flat_map(|w| w.names.iter().map(String::as_str))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a wrapper name is listed twice");
    }

    #[test]
    fn every_wrapper_has_examples_and_negatives() {
        for w in wrappers() {
            assert!(!w.examples.is_empty(), "{:?} has no example", w.names);
            assert!(!w.negatives.is_empty(), "{:?} has no negative", w.names);
        }
    }

    #[test]
    fn examples_peel_to_their_command() {
        for w in wrappers() {
            for (line, runs) in &w.examples {
                assert_eq!(
                    command_word(line).as_deref(),
                    Some(runs.as_str()),
                    "{line:?} should run {runs:?}"
                );
            }
        }
    }

    #[test]
    fn negatives_do_not_peel_to_the_named_word() {
        for w in wrappers() {
            for (line, not) in &w.negatives {
                let got = command_word(line);
                assert_ne!(
                    got.as_deref(),
                    Some(not.as_str()),
                    "{line:?} wrongly runs {not:?}"
                );
            }
        }
    }

    #[test]
    fn the_six_issue_wrappers_peel() {
        for line in [
            "torsocks rm -rf /",
            "flock /tmp/l rm -rf /",
            "gosu root rm -rf /",
            "sshpass -p x rm -rf /",
            "watch -n 1 rm -rf /",
            "busybox rm -rf /",
        ] {
            assert_eq!(command_word(line).as_deref(), Some("rm"), "{line}");
        }
    }
}
