//! Command tools: the command is read with the shared shell reader
//! (`palisade-shell`), every command it runs (wrappers peeled, nested
//! shells, `eval`, `base64 -d | sh`, heredocs, `find -exec`, `xargs`,
//! `ssh HOST CMD`, `docker run … CMD`) goes through the rule registry, and
//! code handed to interpreters is read by [`super::code`].
//!
//! Pipe-to-shell and reverse-shell patterns are matched on the executed
//! text with quotes intact (heredoc bodies fed to data commands removed).

use super::destructive;
use super::registry::{self, Hit};
use super::{code, exfil, persistence, sub, Ctx, ToolRules, MAX_NEST};
use crate::Tier;
use palisade_common::Span;
use std::borrow::Cow;
use std::cell::OnceCell;

/// Analyze a command string as a shell would run it. `at` is the span of
/// `cmd` in the argument (findings inside nested strings point at it).
/// `read`: where the reading of `cmd` is kept, so the argument's other
/// rules reuse it instead of reading the command again (`None` for nested
/// commands).
pub(super) fn analyze_command(
    rules: &ToolRules,
    ctx: &mut Ctx,
    cmd: &str,
    depth: usize,
    at: Span,
    read: Option<&OnceCell<palisade_shell::Script>>,
) {
    if depth > MAX_NEST {
        return;
    }
    let census = super::Census::of(cmd);
    if let Some(m) = rules.find_fork_bomb_in(cmd, census) {
        ctx.add(
            "tool.fork_bomb",
            sub(at, depth, m.start(), m.end()),
            Tier::Block,
        );
    } else if named_fork_bomb(rules, cmd) {
        ctx.add("tool.fork_bomb", at, Tier::Block);
    }
    let (exec_text, bodies) = split_heredocs(rules, cmd);
    // Heredocs fed to a shell run: their text gets the same patterns.
    for (runner, body) in bodies {
        if matches!(
            runner.as_str(),
            "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "fish"
        ) {
            analyze_command(rules, ctx, &body, depth + 1, at, None);
        }
    }
    if depth == 0 || !exec_text.is_empty() {
        let census = match &exec_text {
            Cow::Borrowed(_) => census,
            Cow::Owned(t) => super::Census::of(t),
        };
        if let Some(m) = rules.find_pipe_shell_in(&exec_text, census) {
            if !quoted_data_only(&exec_text, m.start()) {
                ctx.add(
                    "tool.pipe_to_shell",
                    sub(at, depth, m.start(), m.end()),
                    Tier::Block,
                );
            }
        }
        if let Some(m) = rules.find_reverse_shell_in(&exec_text, census) {
            if !quoted_data_only(&exec_text, m.start()) {
                // `bash -c '</dev/tcp/127.0.0.1/5432'` opens a local port
                // and attaches nothing to it: a probe, a look.
                let probe_only = super::context::without_loopback_probes(&exec_text)
                    .is_some_and(|rest| rules.find_reverse_shell(&rest).is_none());
                let (id, tier) = if probe_only {
                    ("tool.port_probe", Tier::Flag)
                } else {
                    ("tool.reverse_shell", Tier::Block)
                };
                ctx.add(id, sub(at, depth, m.start(), m.end()), tier);
            }
        }
        if let Some(m) = rules.windows_delete.find(&exec_text) {
            ctx.add(
                "tool.rm_root",
                sub(at, depth, m.start(), m.end()),
                Tier::Block,
            );
        } else if let Some(folded) = super::powershell::fold(&exec_text) {
            // `& ('Remo'+'ve-It'+'em') -Recurse -Path ('C:'+'\')`: the
            // cmdlet and the path assembled from literals.
            if rules.windows_delete.is_match(&folded) {
                ctx.add("tool.rm_root", at, Tier::Block);
            }
        }
    }
    let owned;
    let script = match read {
        Some(cell) => cell.get_or_init(|| palisade_shell::commands_run(cmd)),
        None => {
            owned = palisade_shell::commands_run(cmd);
            &owned
        }
    };
    if script
        .problems
        .iter()
        .any(|p| p == palisade_shell::TOO_MANY_COMMANDS)
    {
        // Not every command was read: fail closed.
        ctx.add("tool.oversize", at, Tier::Quarantine);
    }
    let payload = rules.runs_payload(cmd);
    let mut hits: Vec<Hit> = Vec::new();
    // `cd ~ && rm -rf ./*`: relative targets after a `cd` into a root or home.
    let mut in_root = false;
    // `cd /srv && rm -rf ledger-data/`: the directory a literal `cd` went
    // to, so a relative target of `rm` is read as the path it names.
    let mut cwd: Option<String> = None;
    // `echo 'rm -rf ~' > /tmp/c.sh && chmod +x /tmp/c.sh && /tmp/c.sh`:
    // a script written and run in the same command is read as a command.
    // Each script is read once, however often it runs (linear).
    let mut written: Vec<(String, String)> = Vec::new();
    // `curl -o /tmp/i.sh URL && sh /tmp/i.sh`: a download saved and then
    // run is a download run, as `curl URL | sh` is (the latest 16 kept).
    let mut downloads: Vec<String> = Vec::new();
    // Where each command's hits end: one command's hits describe one
    // action (`context::collapse_families`).
    let mut ends: Vec<usize> = Vec::with_capacity(script.commands.len());
    // Start-up file writes whose whole content is in view and runs nothing
    // (`echo 'export PATH=…' >> ~/.bashrc`): a payload elsewhere in the
    // script is not what lands there.
    let mut clean_writes: Vec<usize> = Vec::new();
    for inv in &script.commands {
        let first_hit = hits.len();
        if matches!(inv.name(), "echo" | "printf") {
            if written.len() < 16 {
                written.extend(written_script(inv));
            }
        } else if let Some(at_script) = runs_written(inv, &written) {
            let (_, body) = written.swap_remove(at_script);
            analyze_command(rules, ctx, &body.replace("\\n", "\n"), depth + 1, at, None);
        }
        if let Some(file) = downloaded_to(inv) {
            // The latest 16: earlier downloads cannot push a later one out.
            if downloads.len() == 16 {
                downloads.remove(0);
            }
            downloads.push(file);
        } else if runs_path(inv).is_some_and(|run| downloads.iter().any(|d| same_file(run, d))) {
            hits.push(Hit::new("tool.download_execute", Tier::Block));
        }
        if inv.name() == "cd" {
            let dir = inv.args().iter().find(|a| !a.starts_with('-'));
            in_root = match dir {
                Some(dir) => destructive::root_like(dir),
                None => true, // `cd` alone goes home
            };
            cwd = match dir {
                Some(d) if literal_dir(d) => Some(d.trim_end_matches('/').to_owned()),
                None => Some("~".to_owned()),
                // `cd "$X"`, `cd -`, `cd ..`: no longer known
                Some(_) => None,
            };
        } else if in_root && matches!(inv.name(), "rm" | "shred") && relative_everything(inv.args())
        {
            hits.push(Hit::new("tool.rm_root", Tier::Block));
        }
        registry::check(inv, &mut hits);
        // Only a loss the joined path makes (a root, home, system or
        // service directory) counts: deleting inside a project after
        // `cd ~/proj` is routine, as it is written relative.
        if let Some(dir) = cwd.as_deref().filter(|_| inv.name() == "rm") {
            let mut joined = Vec::new();
            registry::check(&joined_targets(inv, dir), &mut joined);
            hits.extend(joined.into_iter().filter(|h| h.tier == Tier::Block));
        }
        if matches!(inv.name(), "echo" | "printf")
            && inv.stdin != palisade_shell::Stdin::Pipe
            && !rules.runs_payload(&inv.words.join(" ").replace("\\n", "\n").replace("\\t", " "))
        {
            clean_writes.extend(
                (first_hit..hits.len()).filter(|&i| hits[i].id == persistence::PERSISTENCE_PATH),
            );
        }
        // The data rules that read one command (`scope: invocation`).
        super::context::invocation_hits(inv, &mut hits);
        // A download piped into a shell, read from the commands themselves
        // (so `c=cu; c+=rl; $c URL | $s` counts as much as `curl URL | sh`).
        if downloads_into_shell(inv) {
            hits.push(Hit::new("tool.pipe_to_shell", Tier::Block));
        }
        // A shell reading piped text no rule can see through (`… | rev | sh`),
        // or text a filter of its pipeline decoded (`… | base64 -d | sh`):
        // what it runs was hidden from a reader; what the decoded text does
        // is read as well.
        if inv.opaque_input || inv.decoded_input {
            hits.push(Hit::new("tool.obfuscated_pipe_to_shell", Tier::Quarantine));
        }
        // A command a rule holds, spelled to get past a reader (`$'\x72\x6d'
        // -rf …`, `r''m`, `${IFS}`): the disguise is the intent.
        if inv.disguised && (hits.len() > first_hit || deletes(inv)) {
            hits.push(Hit::new("tool.disguised_command", Tier::Block));
        }
        ends.push(hits.len());
    }
    if serves_root_publicly(&script.commands) {
        hits.push(Hit::new("tool.public_share", Tier::Block));
    }
    if exfil::forced_secret_push(&script.commands) {
        hits.push(Hit::new("tool.secret_push", Tier::Block));
    }
    if exfil::staged_secret_upload(&script.commands) {
        hits.push(Hit::new("tool.env_exfil", Tier::Block));
    }
    let mut ends = ends.into_iter().peekable();
    let mut action = None;
    for (i, hit) in hits.into_iter().enumerate() {
        // A new command's first hit opens its action; the hits after the
        // last command (the whole script's) each stand alone.
        while ends.peek().is_some_and(|&end| end <= i) {
            ends.next();
            action = None;
        }
        if ends.peek().is_some() && action.is_none() {
            action = Some(ctx.new_action());
        }
        let (id, tier) =
            if hit.id == persistence::PERSISTENCE_PATH && payload && !clean_writes.contains(&i) {
                ("tool.persistence", Tier::Block)
            } else {
                (hit.id, hit.tier)
            };
        ctx.action = action;
        ctx.add(id, at, tier);
    }
    ctx.action = None;
    for program in &script.code {
        analyze_code(rules, ctx, &program.text, depth + 1, at);
    }
}

/// Interpreter code: destructive calls, reverse shells, and the commands
/// it runs (read as commands).
pub(super) fn analyze_code(
    rules: &ToolRules,
    ctx: &mut Ctx,
    program: &str,
    depth: usize,
    at: Span,
) {
    if depth > MAX_NEST {
        return;
    }
    // A reverse-shell pattern inside a regex literal (`re.compile(r'…/dev/tcp/…')`)
    // is searched for, not run.
    let raw_reverse = rules
        .find_reverse_shell(program)
        .is_some_and(|m| !rules.in_regex_literal(program, m.start()));
    if raw_reverse {
        ctx.add("tool.reverse_shell", at, Tier::Block);
    }
    if code::sends_secrets(program) {
        ctx.add("tool.credential_exfil", at, Tier::Block);
    }
    analyze_code_calls(rules, ctx, program, depth, at);
}

/// What a program's calls do (deletions, reverse shells, the commands it
/// runs), without the text patterns: a test source's string literals are
/// data, its calls are not.
pub(super) fn analyze_code_calls(
    rules: &ToolRules,
    ctx: &mut Ctx,
    program: &str,
    depth: usize,
    at: Span,
) {
    if depth > MAX_NEST {
        return;
    }
    let found = code::read(program);
    if found.delete {
        ctx.add("tool.code_delete", at, Tier::Block);
    }
    if found.reverse_shell {
        ctx.add("tool.reverse_shell", at, Tier::Block);
    }
    if found.remote_exec {
        ctx.add("tool.code_remote_exec", at, Tier::Block);
    }
    if found.persist {
        ctx.add("tool.code_persistence", at, Tier::Block);
    }
    for command in &found.commands {
        let before = ctx.findings.len();
        analyze_command(rules, ctx, command, depth + 1, at, None);
        // The folded command names the target the program spelled in
        // pieces (`['pro', 'duction'].join('')`): weigh it by that name.
        if super::context::names_production(command) {
            for f in &mut ctx.findings[before..] {
                if matches!(
                    f.rule.reason(),
                    "tool.data_destroy"
                        | "tool.cloud_delete"
                        | "tool.cloud_bulk_delete"
                        | "tool.kubectl_delete"
                ) {
                    f.tier = Tier::Block;
                }
            }
        }
    }
}

/// Shells and interpreters that run the program they are given (on
/// standard input, or as their first operand).
const PROGRAM_RUNNERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "python", "python3", "perl", "ruby", "node",
    "php",
];

/// A shell or interpreter reading its program from a pipeline that starts
/// with a downloader (`curl …`, `wget -O- …`), with no script file named.
fn downloads_into_shell(inv: &palisade_shell::Invocation) -> bool {
    let shell = PROGRAM_RUNNERS.contains(&inv.name());
    shell
        && matches!(
            inv.pipe_source.as_str(),
            "curl" | "wget" | "fetch" | "aria2c"
        )
        && inv.args().iter().all(|a| a.starts_with('-') || a == "-")
}

/// `echo TEXT > PATH` / `printf TEXT > PATH`: the path (without `./`) and
/// the text written.
fn written_script(inv: &palisade_shell::Invocation) -> Option<(String, String)> {
    if !matches!(inv.name(), "echo" | "printf") {
        return None;
    }
    let target = inv
        .redirects
        .iter()
        .find(|r| (r.op == ">" || r.op == ">>" || r.op == ">|") && !r.target.is_empty())?;
    let text: Vec<&str> = inv
        .args()
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    let path = target.target.strip_prefix("./").unwrap_or(&target.target);
    Some((path.to_owned(), text.join(" ")))
}

/// The file a command runs as a program (without `./`): the command word
/// itself (`./x`, `/tmp/.x`), or the first operand of a shell or an
/// interpreter (`sh PATH`, `source PATH`, `python3 PATH`).
fn runs_path(inv: &palisade_shell::Invocation) -> Option<&str> {
    let run = if PROGRAM_RUNNERS.contains(&inv.name())
        || matches!(inv.name(), "source" | "." | "pwsh" | "powershell")
    {
        inv.args().iter().find(|a| !a.starts_with('-'))?
    } else {
        inv.words.first()?
    };
    Some(run.strip_prefix("./").unwrap_or(run))
}

/// A file server started on a root or the home directory (`cd ~ && python3
/// -m http.server`, `php -S 0.0.0.0:80 -t /`) and a tunnel that publishes a
/// local port to the internet (`ngrok http`, `cloudflared tunnel --url`,
/// `lt --port`, `bore local`, `ssh -R … serveo.net`) in the same command:
/// every key and credential file in it is on a public URL. A project's own
/// directory served, or a tunnel alone, is no share of this kind.
fn serves_root_publicly(commands: &[palisade_shell::Invocation]) -> bool {
    let mut cwd_root = false;
    let mut served = false;
    let mut tunnel = false;
    for inv in commands {
        let args = inv.args();
        let after = |flags: &[&str]| {
            args.iter()
                .position(|a| flags.contains(&a.as_str()))
                .and_then(|i| args.get(i + 1))
        };
        match inv.name() {
            "cd" => {
                cwd_root = match args.iter().find(|a| !a.starts_with('-')) {
                    Some(dir) => destructive::root_like(dir),
                    None => true,
                };
            }
            "python" | "python3" | "python2"
                if args.windows(2).any(|w| {
                    w[0] == "-m" && matches!(w[1].as_str(), "http.server" | "SimpleHTTPServer")
                }) =>
            {
                served |= match after(&["-d", "--directory"]) {
                    Some(dir) => destructive::root_like(dir),
                    None => cwd_root,
                };
            }
            "php" if args.iter().any(|a| a == "-S") => {
                served |= match after(&["-t"]) {
                    Some(dir) => destructive::root_like(dir),
                    None => cwd_root,
                };
            }
            "ngrok" => {
                tunnel |= args
                    .iter()
                    .any(|a| matches!(a.as_str(), "http" | "tcp" | "tls"))
            }
            "cloudflared" => tunnel |= args.iter().any(|a| a == "tunnel"),
            "lt" | "localtunnel" | "bore" => tunnel = true,
            "ssh" => {
                tunnel |= args.iter().any(|a| a == "-R")
                    && args
                        .iter()
                        .any(|a| a.contains("serveo") || a.contains("localhost.run"));
            }
            _ => {}
        }
    }
    served && tunnel
}

/// Which script written earlier this command runs (`PATH`, `./PATH`,
/// `sh PATH`, `bash PATH`, `source PATH`): its index in `written`.
fn runs_written(inv: &palisade_shell::Invocation, written: &[(String, String)]) -> Option<usize> {
    if written.is_empty() {
        return None;
    }
    let run = runs_path(inv)?;
    written.iter().rposition(|(path, _)| path == run)
}

/// The file a download writes (without `./`): `curl -o F` / `--output F`,
/// `curl -O URL` (the URL's last segment), `wget -O F` /
/// `--output-document=F`, or `wget URL` (its last segment). `-o -`
/// (standard output) writes no file.
fn downloaded_to(inv: &palisade_shell::Invocation) -> Option<String> {
    let args = inv.args();
    // The value of `-X FILE`, `-XFILE`, a cluster ending in the letter
    // (`-fsSLo FILE`), `--long FILE` or `--long=FILE`.
    let value = |letter: char, long: &str| {
        args.iter().enumerate().find_map(|(i, a)| {
            if a == long {
                return args.get(i + 1).cloned();
            }
            if let Some(v) = a.strip_prefix(long).and_then(|v| v.strip_prefix('=')) {
                return Some(v.to_owned());
            }
            let cluster = a.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
            let at = cluster.find(letter)?;
            let rest = &cluster[at + letter.len_utf8()..];
            if rest.is_empty() {
                args.get(i + 1).cloned()
            } else {
                Some(rest.to_owned())
            }
        })
    };
    let url_name = || {
        let url = args.iter().rev().find(|a| a.contains("://"))?;
        let path = url.split(['?', '#']).next()?;
        let name = path.rsplit('/').next()?;
        (!name.is_empty() && !path.ends_with("//")).then(|| name.to_owned())
    };
    let remote_name = args.iter().any(|a| {
        a == "--remote-name"
            || a.strip_prefix('-')
                .is_some_and(|c| !c.starts_with('-') && c.contains('O'))
    });
    let file = match inv.name() {
        "curl" => match value('o', "--output") {
            Some(f) => Some(f),
            None if remote_name => url_name(),
            None => None,
        },
        "wget" => value('O', "--output-document").or_else(url_name),
        _ => None,
    }?;
    let file = file.strip_prefix("./").unwrap_or(&file);
    (file != "-" && file != "/dev/null").then(|| file.to_owned())
}

/// Whether `run` (a path a command runs) is the file a download wrote:
/// the same path, or the same name where either is relative.
fn same_file(run: &str, downloaded: &str) -> bool {
    let name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_owned();
    run == downloaded
        || ((!run.contains('/') || !downloaded.contains('/')) && name(run) == name(downloaded))
}

/// A recursive deletion of everything in the current directory
/// (`rm -rf ./* ./.??*`, `rm -r *`).
fn relative_everything(args: &[String]) -> bool {
    let recursive = args.iter().any(|a| {
        a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R']))
    });
    recursive
        && args.iter().filter(|a| !a.starts_with('-')).any(|a| {
            let a = a.strip_prefix("./").unwrap_or(a);
            matches!(a, "*" | ".*" | ".??*" | ".[!.]*" | "." | "")
        })
}

/// A directory `cd` names literally: absolute or under `~`, with no
/// expansion, glob or parent step in it.
fn literal_dir(d: &str) -> bool {
    (d.starts_with('/') || d == "~" || d.starts_with("~/"))
        && !d.contains(['$', '*', '?', '[', '`'])
        && !d.split('/').any(|p| p == "..")
}

/// `rm` with every relative target put under `dir` (`cd /srv && rm -rf
/// data/` removes `/srv/data/`); options and absolute targets as given.
fn joined_targets(inv: &palisade_shell::Invocation, dir: &str) -> palisade_shell::Invocation {
    let mut out = inv.clone();
    let mut options = true;
    let at = out.words.len() - inv.args().len();
    for w in &mut out.words[at..] {
        if options && w == "--" {
            options = false;
            continue;
        }
        if options && w.starts_with('-') {
            continue;
        }
        let relative = !w.starts_with(['/', '~', '$']) && !w.is_empty();
        if relative {
            let rest = w.strip_prefix("./").unwrap_or(w);
            *w = if dir == "/" {
                format!("/{rest}")
            } else {
                format!("{dir}/{rest}")
            };
        }
    }
    out
}

/// `f(){ f | f & }; f` with any function name.
fn named_fork_bomb(rules: &ToolRules, cmd: &str) -> bool {
    if !cmd.contains('&') || !cmd.contains('|') {
        return false;
    }
    rules.named_fork_bomb.captures_iter(cmd).take(16).any(|c| {
        let name = c.get(1).map(|m| m.as_str());
        name.is_some()
            && name == c.get(2).map(|m| m.as_str())
            && name == c.get(3).map(|m| m.as_str())
    })
}

/// Whether the match at `pos` sits inside a quoted argument of a data
/// command (`echo "curl x | sh"`, `grep '…'`, `git commit -m '…'`).
pub(super) fn quoted_data_only(text: &str, pos: usize) -> bool {
    let line_start = text[..pos].rfind(['\n', ';']).map_or(0, |p| p + 1);
    let before = &text[line_start..pos];
    let quotes = before.matches(['\'', '"']).count();
    if quotes % 2 == 0 {
        return false;
    }
    let first = before.split_whitespace().next().unwrap_or("");
    matches!(
        first,
        "echo" | "printf" | "grep" | "rg" | "git" | "cat" | "awk" | "sed" | "tee" | "logger" | "#"
    ) || before.contains("VAR=")
        || before.trim_start().starts_with('#')
}

/// Remove heredoc bodies from the command; return the remaining text and
/// the bodies with the command that reads them.
fn split_heredocs<'c>(rules: &ToolRules, cmd: &'c str) -> (Cow<'c, str>, Vec<(String, String)>) {
    if !cmd.contains("<<") {
        return (Cow::Borrowed(cmd), Vec::new());
    }
    let mut out = String::with_capacity(cmd.len());
    let mut bodies = Vec::new();
    let mut lines = cmd.split_inclusive('\n');
    while let Some(line) = lines.next() {
        // here-string: cmd <<< 'text'
        if let Some(p) = line.find("<<<") {
            let runner = first_command(&line[..p]);
            let rest = line[p + 3..].trim();
            let body = rest.trim_matches(|c| c == '\'' || c == '"' || c == '\n');
            bodies.push((runner, body.to_owned()));
            out.push_str(&line[..p]);
            out.push('\n');
            continue;
        }
        if let Some(c) = rules.heredoc.captures(line) {
            let (Some(whole), Some(delim)) = (c.get(0), c.get(3)) else {
                out.push_str(line);
                continue;
            };
            let strip_tabs = c.get(1).is_some_and(|m| m.as_str() == "-");
            let runner = first_command(&line[..whole.start()]);
            let mut body = String::new();
            for l in lines.by_ref() {
                let t = if strip_tabs {
                    l.trim_start_matches('\t')
                } else {
                    l
                };
                if t.trim_end_matches(['\n', '\r']) == delim.as_str() {
                    break;
                }
                body.push_str(t);
            }
            bodies.push((runner, body));
            out.push_str(&line[..whole.start()]);
            out.push_str(&line[whole.end()..]);
            continue;
        }
        out.push_str(line);
    }
    (Cow::Owned(out), bodies)
}

/// The command that reads a heredoc: the last simple command of the
/// text before `<<`, wrappers peeled.
fn first_command(s: &str) -> String {
    let parsed = palisade_shell::parse(s);
    parsed
        .commands
        .last()
        .and_then(|c| {
            palisade_shell::peel(&c.words).map(|i| palisade_shell::basename(&c.words[i]).to_owned())
        })
        .unwrap_or_default()
}

/// A program that deletes or overwrites what it is given (`rm`, `shred`,
/// `unlink`, `dd`, `mkfs…`): spelled in disguise, it blocks whatever its
/// targets (`cd /opt/gitea && \r\m -\r\f data repositories`).
fn deletes(inv: &palisade_shell::Invocation) -> bool {
    let name = inv.name();
    matches!(
        name,
        "rm" | "shred" | "unlink" | "rmdir" | "dd" | "wipefs" | "srm"
    ) || name.starts_with("mkfs")
}
