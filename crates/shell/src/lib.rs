//! A pure POSIX-shell reader shared by the guards.
//!
//! [`parse`] turns a command string into simple commands (argv lists)
//! joined by `&& || ; | &`, with quoting, escapes, `$'…'`, comments,
//! redirects, heredocs and here-strings, subshells, `$(…)` and backticks
//! (parsed recursively), and variables assigned earlier in the same string
//! substituted. What an evader does to a word is undone as a shell would:
//! empty quotes (`r''m`), backslashes (`r\m`), `${IFS}`/`$IFS` separators,
//! simple brace lists (`{rm,-rf,/}`), ANSI-C escapes (`$'\x72m'`).
//!
//! [`peel`] skips wrappers (`sudo`, `env`, `nohup`, `timeout`, `torsocks`,
//! `flock`, `gosu`, `sshpass`, `watch`, `busybox`, `xargs`, …) using the
//! table in `data/wrappers.json` ([`wrappers`]), each entry with its option
//! grammar, examples and negative examples that tests check.
//!
//! [`commands_run`] goes further: every command the string runs, including
//! those handed to another shell (`bash -c`, `eval`, `echo … | sh`,
//! `echo B64 | base64 -d | sh`, heredocs, `find -exec`, `su -c`, `ssh HOST
//! CMD`), and the programs handed to interpreters (`python -c`, `node -e`).
//!
//! ```
//! let s = palisade_shell::commands_run("torsocks r''m${IFS}-rf${IFS}/");
//! assert_eq!(s.commands[0].words, ["rm", "-rf", "/"]);
//! ```
//!
//! # What this crate does not do
//! No files, no environment, no clock, no processes: it reads the string it
//! is given. It does not expand globs, `~`, or variables it was not shown.
//!
//! # Untrusted input
//! Total and linear: parsing never fails (what it cannot read is reported in
//! [`Parsed::problems`]), every input character is read a bounded number of
//! times, nesting is capped at [`MAX_DEPTH`], variable expansion and
//! re-reading are charged against budgets proportional to the input.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod reader;
mod run;
mod wrappers;

pub use reader::{
    parse, split_assignment, Parsed, Redirect, SimpleCommand, Stdin, HARMLESS_SUBSTITUTION,
    MAX_DEPTH, SUBSTITUTION, TEMP_SUBSTITUTION, TOKEN_SUBSTITUTION, TOO_MANY_COMMANDS,
};
pub use run::{commands_run, is_interpreter, Code, Invocation, Script};
pub use wrappers::{basename, peel, wrapper, wrappers, Wrapper};

/// Decode a base64 literal (standard alphabet, padding optional, blanks
/// ignored) to UTF-8 text.
///
/// ```
/// assert_eq!(palisade_shell::decode_base64("cm0gLXJmIC8=").as_deref(), Some("rm -rf /"));
/// assert_eq!(palisade_shell::decode_base64("not base64!"), None);
/// ```
pub fn decode_base64(literal: &str) -> Option<String> {
    use base64::Engine as _;
    let cleaned: String = literal.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(cleaned.as_bytes())
        .ok()
        .or_else(|| {
            base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(cleaned.trim_end_matches('=').as_bytes())
                .ok()
        })?;
    String::from_utf8(bytes).ok()
}
