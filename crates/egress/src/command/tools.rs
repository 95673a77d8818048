//! Per-tool rules: wrappers peeled, options read as each tool reads them,
//! destination extracted.

use super::{code, Destination, MatchMode, NetworkOptions, UploadFinding};
use palisade_shell::{self as shell, basename, peel, Parsed, SimpleCommand, Stdin};
use std::collections::HashMap;

/// State shared across the simple commands of one command string.
pub(crate) struct Context<'a> {
    options: &'a NetworkOptions,
    /// `git remote add NAME URL` seen so far.
    git_remotes: HashMap<String, String>,
    pub(crate) hits: Vec<UploadFinding>,
    pub(crate) problems: Vec<String>,
    /// Bytes of nested scripts (`bash -c`, `eval`, decoded payloads, code
    /// one-liners' shell calls) that may still be parsed again: each level
    /// of `bash -c "bash -c '…'"` re-reads its script, so the total is
    /// capped in proportion to the input to keep the analysis linear.
    reparse_budget: usize,
}

impl<'a> Context<'a> {
    /// A context for a command string of `input_len` bytes.
    pub(crate) fn new(options: &'a NetworkOptions, input_len: usize) -> Self {
        Context {
            options,
            git_remotes: HashMap::new(),
            hits: Vec::new(),
            problems: Vec::new(),
            reparse_budget: input_len.saturating_mul(4).saturating_add(4096),
        }
    }

    fn any_host(&self) -> bool {
        self.options.match_mode == MatchMode::AnyHost
    }

    fn hit(&mut self, tool: &str, destination: Destination, reason: impl Into<String>) {
        if self.hits.len() < 256 {
            self.hits.push(UploadFinding {
                tool: tool.to_owned(),
                destination,
                reason: reason.into(),
            });
        }
    }
}

mod cloud;
mod copy;
mod http;
mod publish;
mod shells;
mod sockets;

/// What a tool rule is handed: the command (wrappers peeled: `name` and
/// `args` are its real command word and arguments), the pipeline before
/// it, whether its stdin carries data, and the nesting depth.
#[derive(Clone, Copy)]
pub(crate) struct Call<'c> {
    cmd: &'c SimpleCommand,
    prev: Option<&'c [SimpleCommand]>,
    name: &'c str,
    args: &'c [String],
    stdin_fed: bool,
    depth: usize,
}

/// A tool rule; `false` when it does not apply after all.
type Handler = fn(&Call<'_>, &mut Context<'_>) -> bool;

/// Every tool rule: the command names it reads and its handler. A handler
/// returns `false` when its condition does not hold, and the next entry
/// for the same name (then the fallbacks in `analyze_one`) is tried.
const REGISTRY: &[(&[&str], Handler)] = &[
    (
        &["bash", "sh", "zsh", "dash", "ksh", "ash", "fish"],
        shells::on_bash,
    ),
    (&["eval"], shells::on_eval),
    (&["curl"], http::on_curl),
    (&["wget", "wget2"], http::on_wget),
    (&["lwp-request", "POST", "PUT"], http::on_lwp_request),
    (&["http", "https", "xh", "xhs", "httpie"], http::on_http),
    (&["aria2c"], http::on_aria2c),
    (&["nc", "ncat", "netcat"], sockets::on_nc),
    (&["socat"], sockets::on_socat),
    (&["telnet"], sockets::on_telnet),
    (&["openssl"], sockets::on_openssl),
    (&["ssh"], sockets::on_ssh),
    (&["scp"], copy::on_scp),
    (&["rsync"], copy::on_rsync),
    (&["sftp"], copy::on_sftp),
    (
        &[
            "ftp",
            "lftp",
            "tftp",
            "ncftp",
            "ncftpput",
            "ftpput",
            "smbclient",
        ],
        copy::on_ftp,
    ),
    (&["aws"], cloud::on_aws),
    (&["gsutil"], cloud::on_gsutil),
    (&["gcloud"], cloud::on_gcloud),
    (&["rclone"], cloud::on_rclone),
    (&["azcopy"], cloud::on_azcopy),
    (&["docker", "podman", "nerdctl"], shells::on_container_run),
    (
        &[
            "docker", "podman", "buildah", "npm", "pnpm", "yarn", "twine", "gem", "cargo", "helm",
        ],
        publish::on_registry_publish,
    ),
    (&["at", "batch"], shells::on_at),
    (&["huggingface-cli", "hf"], publish::on_huggingface_cli),
    (&["kaggle"], publish::on_kaggle),
    (&["gh"], publish::on_gh),
    (&["git"], publish::on_git),
    (&["az"], cloud::on_az),
    (&["s3cmd"], cloud::on_s3cmd),
    (&["mc"], cloud::on_mc),
    (
        &[
            "croc",
            "wormhole",
            "ffsend",
            "pastebinit",
            "termbin",
            "nc.traditional",
        ],
        publish::on_croc,
    ),
    (
        &[
            "dig",
            "nslookup",
            "host",
            "drill",
            "ping",
            "ping6",
            "traceroute",
            "getent",
        ],
        sockets::on_dig,
    ),
    (
        &["mail", "mailx", "mutt", "sendmail", "swaks"],
        sockets::on_mail,
    ),
    (&["base64"], shells::on_base64),
    (&["find"], shells::on_find),
    (&["su", "runuser", "script", "sg"], shells::on_su),
    (&["kubectl", "oc"], shells::on_kubectl),
    (&["powershell", "pwsh"], shells::on_powershell),
];

/// Analyze every simple command (and pipelines into shells).
pub(crate) fn analyze(parsed: &Parsed, ctx: &mut Context<'_>, depth: usize) {
    for (i, cmd) in parsed.commands.iter().enumerate() {
        let prev = if i > 0 && parsed.commands[i - 1].pipes_out {
            Some(&parsed.commands[..i])
        } else {
            None
        };
        analyze_one(cmd, prev, ctx, depth);
        for r in &cmd.redirects {
            dev_tcp(&r.target, ctx);
        }
    }
}

fn analyze_nested(script: &str, ctx: &mut Context<'_>, depth: usize) {
    if depth >= shell::MAX_DEPTH {
        ctx.problems.push("nesting too deep".into());
        return;
    }
    if script.len() > ctx.reparse_budget {
        ctx.problems
            .push("nested scripts exceed the analysis budget; not all were read".into());
        ctx.reparse_budget = 0;
        return;
    }
    ctx.reparse_budget -= script.len();
    let parsed = shell::parse(script);
    ctx.problems.extend(parsed.problems.iter().cloned());
    analyze(&parsed, ctx, depth + 1);
}

fn analyze_one(
    cmd: &SimpleCommand,
    prev: Option<&[SimpleCommand]>,
    ctx: &mut Context<'_>,
    depth: usize,
) {
    for w in &cmd.words {
        dev_tcp(w, ctx);
    }
    let Some(start) = peel(&cmd.words) else {
        return;
    };
    // A command word with blanks is a command line given as one string
    // (`env -S 'curl …'`, `watch 'curl …'`).
    if cmd.words[start].contains([' ', '\t']) {
        let script = cmd.words[start..].join(" ");
        analyze_nested(&script, ctx, depth);
        return;
    }
    if let Some(real) = hidden_tool_name(&cmd.words[start]) {
        if depth < shell::MAX_DEPTH {
            let mut sub = cmd.clone();
            sub.words = cmd.words[start..].to_vec();
            sub.words[0] = real;
            analyze_one(&sub, prev, ctx, depth + 1);
        }
        return;
    }
    let words = &cmd.words[start..];
    let name = basename(&words[0]);
    let args = &words[1..];
    let stdin_fed = stdin_carries_data(cmd, prev);
    let xargs = cmd.words[..start].iter().any(|w| basename(w) == "xargs");
    let call = Call {
        cmd,
        prev,
        name,
        args,
        stdin_fed,
        depth,
    };
    let handled = REGISTRY
        .iter()
        .filter(|(names, _)| names.contains(&name))
        .any(|(_, handler)| handler(&call, ctx));
    if !handled {
        match name {
            n if is_powershell_web(n) => powershell_web(args, ctx),
            n if n.contains(shell::SUBSTITUTION) || n.starts_with('$') => {
                // The command name is computed (`$(echo curl)`, `${X}`): judge by arguments.
                for a in args.iter().filter(|a| is_url(a)) {
                    ctx.hit(
                        "obfuscated command",
                        url_destination(a),
                        "command name is computed at run time and it is given a URL",
                    );
                }
            }
            _ if interpreter(name).is_none() => unknown_wrapper(name, args, ctx, depth),
            _ => {}
        }
    }
    if let Some(lang) = interpreter(name) {
        let mut scripts: Vec<String> = Vec::new();
        if let Some(c) = option_value(args, lang.flags) {
            scripts.push(c);
        } else if args.iter().all(|a| a.starts_with('-'))
            || args.first().map(String::as_str) == Some("-")
        {
            scripts.extend(visible_stdin(cmd, prev).unwrap_or_default());
        }
        // Payloads the code decodes and runs (`exec(b64decode('…'))`) are
        // read as code too, one level deep.
        let decoded: Vec<String> = scripts
            .iter()
            .flat_map(|s| code::decoded_payloads(s))
            .collect();
        for s in scripts.iter().chain(&decoded) {
            if let Some(dest) = code::code_upload(s) {
                ctx.hit(lang.tool, dest, format!("{} upload one-liner", lang.tool));
            }
            // Shell commands run from the code: os.system("curl …"), execSync(…).
            for shell_cmd in code::embedded_commands(s) {
                analyze_nested(&shell_cmd, ctx, depth);
            }
        }
        // `python -m twine upload …`, `python -m awscli s3 cp …`: the module is the tool.
        if lang.tool == "python -c" && depth < shell::MAX_DEPTH {
            if let Some(at) = args.iter().position(|a| a == "-m") {
                let tool = match args.get(at + 1).map(String::as_str) {
                    Some("awscli") => Some("aws"),
                    Some("httpie") => Some("http"),
                    Some(m @ ("twine" | "gsutil" | "rclone")) => Some(m),
                    _ => None,
                };
                if let Some(tool) = tool {
                    let mut words = vec![tool.to_owned()];
                    words.extend(args[at + 2..].iter().cloned());
                    let sub = SimpleCommand {
                        words,
                        stdin: cmd.stdin,
                        ..SimpleCommand::default()
                    };
                    analyze_one(&sub, prev, ctx, depth + 1);
                }
            }
        }
    }
    let _ = xargs;
}

/// Network tools a command we do not know may run.
const NETWORK_TOOLS: &[&str] = &[
    "curl", "wget", "wget2", "nc", "ncat", "netcat", "socat", "scp", "rsync", "sftp", "ftp",
    "lftp", "aws", "gsutil", "rclone", "http", "https", "xh",
];

/// Commands that name tools without running them (package managers,
/// documentation, search, process control): their arguments are not commands.
fn names_without_running(name: &str) -> bool {
    matches!(
        name,
        "apt"
            | "apt-get"
            | "apt-cache"
            | "aptitude"
            | "yum"
            | "dnf"
            | "zypper"
            | "apk"
            | "pacman"
            | "brew"
            | "port"
            | "snap"
            | "choco"
            | "winget"
            | "scoop"
            | "pip"
            | "pip3"
            | "pipx"
            | "uv"
            | "conda"
            | "mamba"
            | "micromamba"
            | "npm"
            | "npx"
            | "yarn"
            | "pnpm"
            | "gem"
            | "cargo"
            | "go"
            | "nix"
            | "nix-env"
            | "dpkg"
            | "rpm"
            | "which"
            | "whereis"
            | "type"
            | "hash"
            | "man"
            | "info"
            | "tldr"
            | "help"
            | "apropos"
            | "whatis"
            | "echo"
            | "printf"
            | "grep"
            | "egrep"
            | "fgrep"
            | "rg"
            | "ag"
            | "ack"
            | "sed"
            | "awk"
            | "gawk"
            | "cat"
            | "less"
            | "more"
            | "head"
            | "tail"
            | "ls"
            | "locate"
            | "kill"
            | "pkill"
            | "pgrep"
            | "killall"
            | "ps"
            | "systemctl"
            | "service"
            | "journalctl"
            | "alias"
            | "unalias"
            | "complete"
            | "compgen"
            | "test"
            | "["
            | "[["
            | "git"
            | "notify-send"
            | "logger"
            | "tee"
            | "touch"
            | "mkdir"
            | "rm"
            | "cp"
            | "mv"
            | "ln"
            | "chmod"
            | "chown"
            | "stat"
            | "file"
            | "wc"
            | "sort"
            | "uniq"
            | "cut"
            | "tr"
            | "jq"
            | "yq"
            | "diff"
            | "vim"
            | "vi"
            | "nano"
            | "emacs"
            | "code"
            | "open"
            | "xdg-open"
            | "ssh"
            | "ssh-keygen"
            | "make"
            | ":"
            | "true"
            | "false"
            | "history"
            | "read"
            | "let"
            | "local"
            | "declare"
            | "export"
            | "readonly"
            | "unset"
            | "cd"
            | "pushd"
            | "popd"
    )
}

/// An unknown command that runs a network tool: a wrapper we have no rule
/// for (`chrt -r 50 curl …`, `firejail curl …`, `strace -f curl …`) or one
/// given a command string (`tmux new -d 'curl …'`, `expect -c 'spawn curl
/// …'`). Package managers, documentation and search tools that merely name
/// a tool are not read this way.
fn unknown_wrapper(name: &str, args: &[String], ctx: &mut Context<'_>, depth: usize) {
    if names_without_running(name) || depth >= shell::MAX_DEPTH {
        return;
    }
    for (i, a) in args.iter().enumerate() {
        let mut tokens = a.split_whitespace();
        let first = tokens.next().unwrap_or("");
        if NETWORK_TOOLS.contains(&basename(a)) && i + 1 < args.len() {
            let sub = SimpleCommand {
                words: args[i..].to_vec(),
                ..SimpleCommand::default()
            };
            analyze_one(&sub, None, ctx, depth + 1);
            return;
        }
        // A command string: `'curl …'`, `'spawn curl …'`.
        let tool = if matches!(first, "spawn" | "exec") {
            tokens.next().unwrap_or("")
        } else {
            first
        };
        if a.contains(' ') && NETWORK_TOOLS.contains(&basename(tool)) {
            let script = a.trim_start();
            let script = script
                .strip_prefix("spawn ")
                .or_else(|| script.strip_prefix("exec "))
                .unwrap_or(script);
            analyze_nested(script, ctx, depth);
            return;
        }
    }
}

/// `cu$@rl`, `w${x}get`, `c$(…)url`: a command name with expansions that are
/// empty in an agent's shell (unset variables, no positional parameters)
/// around a network tool's name. Returns that name.
fn hidden_tool_name(name: &str) -> Option<String> {
    if !name.contains('$') || name.starts_with('$') {
        return None;
    }
    let mut out = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('@' | '*' | '#' | '-' | '!' | '?') => {
                chars.next();
            }
            Some('{') | Some('(') => {
                let close = if chars.peek() == Some(&'{') { '}' } else { ')' };
                for d in chars.by_ref() {
                    if d == close {
                        break;
                    }
                }
            }
            _ => {
                while chars
                    .peek()
                    .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_')
                {
                    chars.next();
                }
            }
        }
    }
    const TOOLS: &[&str] = &[
        "curl", "wget", "nc", "ncat", "netcat", "socat", "scp", "rsync", "sftp", "ssh", "ftp",
        "lftp", "aws", "gsutil", "rclone", "gh", "git", "http", "https", "xh", "python", "python3",
        "node", "perl", "ruby", "php", "bash", "sh",
    ];
    let base = basename(&out);
    TOOLS.contains(&base).then(|| base.to_owned())
}

/// The text fed to a command's stdin, when all of it is visible in the
/// command string: heredocs and here-strings, or the arguments of an `echo`
/// / `printf` piped into it. `None` when stdin is a file, another program or
/// inherited.
fn visible_stdin(cmd: &SimpleCommand, prev: Option<&[SimpleCommand]>) -> Option<Vec<String>> {
    match cmd.stdin {
        Stdin::Inherited => None,
        Stdin::Pipe => {
            let source = prev.and_then(<[SimpleCommand]>::last)?;
            pipe_source_text(source).map(|t| vec![t])
        }
        _ => {
            let file_input = cmd
                .redirects
                .iter()
                .any(|r| r.op.ends_with('<') && !r.op.ends_with("<<"));
            (!file_input && !cmd.stdin_text.is_empty()).then(|| cmd.stdin_text.clone())
        }
    }
}

/// The text a pipeline stage writes when it is all in the command string:
/// `echo …`/`printf …` arguments, or `cat` (no file) of a heredoc.
fn pipe_source_text(source: &SimpleCommand) -> Option<String> {
    let first = source.words.first().map(|w| basename(w))?;
    match first {
        "echo" | "printf" if source.stdin == Stdin::Inherited => Some(
            source.words[1..]
                .iter()
                .filter(|a| !matches!(a.as_str(), "-n" | "-e" | "-ne" | "-en" | "-E"))
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
                // `echo -e` and `printf` turn these escapes into line breaks.
                .replace("\\n", "\n")
                .replace("\\r", "\r")
                .replace("\\t", "\t"),
        ),
        "cat" if source.words.len() == 1 && !source.stdin_text.is_empty() => {
            Some(source.stdin_text.join("\n"))
        }
        _ => None,
    }
}

/// Whether a command's stdin carries data: a file, another program's
/// output, or text typed into the command (a heredoc, `echo … |`). `<
/// /dev/null`, `true |` and an empty `echo |` do not.
fn stdin_carries_data(cmd: &SimpleCommand, prev: Option<&[SimpleCommand]>) -> bool {
    let blank = |t: &str| t.trim().is_empty();
    match cmd.stdin {
        Stdin::Inherited => false,
        Stdin::Pipe => match prev.and_then(<[SimpleCommand]>::last) {
            Some(source)
                if matches!(
                    source.words.first().map(|w| basename(w)),
                    Some("true" | ":")
                ) =>
            {
                false
            }
            Some(source) => pipe_source_text(source).is_none_or(|t| !blank(&t)),
            None => true,
        },
        Stdin::Redirect => {
            let mut any_file = false;
            for r in cmd
                .redirects
                .iter()
                .filter(|r| r.op.ends_with('<') && !r.op.ends_with("<<"))
            {
                any_file = true;
                if !matches!(r.target.as_str(), "/dev/null" | "/dev/zero" | "NUL") {
                    return true;
                }
            }
            cmd.stdin_text.iter().any(|t| !blank(t)) || (!any_file && cmd.stdin_text.is_empty())
        }
    }
}

/// A request typed into the command that only reads (`printf 'HEAD /
/// HTTP/1.1…' | openssl s_client …`): a GET, HEAD or OPTIONS line with
/// nothing expanded in it.
fn typed_read_request(cmd: &SimpleCommand, prev: Option<&[SimpleCommand]>) -> bool {
    visible_stdin(cmd, prev).is_some_and(|texts| {
        texts.iter().all(|t| {
            let first = t.split_whitespace().next().unwrap_or("");
            matches!(first, "GET" | "HEAD" | "OPTIONS") && !t.contains('$') && !t.contains('`')
        })
    })
}

struct Interp {
    tool: &'static str,
    flags: &'static [&'static str],
}

fn interpreter(name: &str) -> Option<Interp> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match base {
        "python" | "pypy" => Interp {
            tool: "python -c",
            flags: &["-c"],
        },
        "node" | "nodejs" | "bun" => Interp {
            tool: "node -e",
            flags: &["-e", "--eval", "-p", "--print"],
        },
        "deno" => Interp {
            tool: "deno eval",
            flags: &["eval"],
        },
        "perl" => Interp {
            tool: "perl -e",
            flags: &["-e", "-E"],
        },
        "ruby" => Interp {
            tool: "ruby -e",
            flags: &["-e"],
        },
        "php" => Interp {
            tool: "php -r",
            flags: &["-r"],
        },
        "Rscript" | "R" => Interp {
            tool: "Rscript -e",
            flags: &["-e"],
        },
        "julia" => Interp {
            tool: "julia -e",
            flags: &["-e", "--eval"],
        },
        _ => return None,
    })
}

/// Whether a URL carries command output that may be local data: a
/// substitution of unknown commands anywhere (`https://x/$(cat f | base64)`),
/// or any substitution in the host name (DNS exfiltration).
fn carries_substitution(word: &str) -> bool {
    if word.contains(shell::SUBSTITUTION) || word.contains(shell::TOKEN_SUBSTITUTION) {
        return true;
    }
    let after = word.split_once("://").map_or(word, |(_, rest)| rest);
    let host = after.split(['/', '?', '#']).next().unwrap_or("");
    host.contains(shell::HARMLESS_SUBSTITUTION)
}

fn is_powershell_web(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "invoke-webrequest" | "invoke-restmethod" | "iwr" | "irm"
    )
}

/// `Invoke-WebRequest -Uri U -Method Post -InFile f` and the like.
fn powershell_web(args: &[String], ctx: &mut Context<'_>) {
    let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let method = lower
        .iter()
        .position(|a| a == "-method")
        .and_then(|i| lower.get(i + 1))
        .is_some_and(|m| matches!(m.as_str(), "post" | "put" | "patch"));
    let body = lower
        .iter()
        .any(|a| a == "-infile" || a == "-body" || a == "-form");
    let url = args.iter().find(|a| is_url(a));
    if method || body {
        let dest = url
            .map(|u| url_destination(u))
            .unwrap_or(Destination::Unknown);
        ctx.hit("Invoke-WebRequest", dest, "PowerShell web upload");
    } else if ctx.any_host() {
        if let Some(u) = url {
            ctx.hit(
                "Invoke-WebRequest",
                url_destination(u),
                "PowerShell web request",
            );
        }
    }
}

/// `echo PAYLOAD | base64 -d`, `base64 -d <<< PAYLOAD`: decode a literal
/// payload and analyze it as a script, wherever its output goes.
fn decode_and_analyze(
    cmd: &SimpleCommand,
    prev: Option<&[SimpleCommand]>,
    ctx: &mut Context<'_>,
    depth: usize,
) {
    let mut literals: Vec<String> = cmd.stdin_text.clone();
    if let Some(source) = prev.and_then(|p| p.last()) {
        let sw: Vec<&str> = source.words.iter().map(String::as_str).collect();
        if matches!(
            sw.first().map(|w| basename(w)),
            Some("echo") | Some("printf")
        ) {
            literals.push(
                sw[1..]
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
    }
    for literal in literals {
        if let Some(script) = decode_base64(&literal) {
            analyze_nested(&script, ctx, depth);
        }
    }
}

fn decode_base64(literal: &str) -> Option<String> {
    use base64::Engine as _;
    let cleaned: String = literal.chars().filter(|c| !c.is_whitespace()).collect();
    let std = base64::engine::general_purpose::STANDARD;
    let bytes = std.decode(cleaned.as_bytes()).ok().or_else(|| {
        base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(cleaned.trim_end_matches('=').as_bytes())
            .ok()
    })?;
    String::from_utf8(bytes).ok()
}

/// `echo PAYLOAD | base64 -d | sh`, `echo 'curl …' | sh`, `curl … | sh`.
fn piped_into_shell(prev: &[SimpleCommand], ctx: &mut Context<'_>, depth: usize) {
    // Walk back over the pipeline feeding the shell.
    let mut stages: Vec<&SimpleCommand> = Vec::new();
    for c in prev.iter().rev() {
        stages.push(c);
        if !c.pipes_out {
            break;
        }
        if stages.len() > 1 && !stages[stages.len() - 2].pipes_out {
            break;
        }
    }
    stages.reverse();
    // Only the contiguous pipeline: drop leading commands that do not pipe out.
    while stages.len() > 1 && !stages[0].pipes_out {
        stages.remove(0);
    }
    let decodes = stages.iter().any(|c| {
        let w: Vec<&str> = c.words.iter().map(|s| basename(s)).collect();
        (w.first() == Some(&"base64")
            && w.iter()
                .any(|a| *a == "-d" || *a == "--decode" || *a == "-D"))
            || (w.first() == Some(&"openssl") && w.contains(&"base64"))
    });
    let Some(source) = stages.first() else { return };
    let sw: Vec<&str> = source.words.iter().map(String::as_str).collect();
    let literal = match sw.first().map(|w| basename(w)) {
        Some("echo") | Some("printf") => sw[1..]
            .iter()
            .filter(|a| !a.starts_with('-'))
            .copied()
            .collect::<Vec<_>>()
            .join(" "),
        Some("cat") if sw.len() == 1 && !source.stdin_text.is_empty() => {
            source.stdin_text.join("\n")
        }
        _ => {
            if decodes {
                ctx.problems
                    .push("a decoded payload is piped into a shell".into());
            }
            return;
        }
    };
    let script = if decodes {
        use base64::Engine as _;
        let cleaned: String = literal.chars().filter(|c| !c.is_whitespace()).collect();
        let engine = base64::engine::general_purpose::STANDARD;
        match engine.decode(cleaned.as_bytes()).or_else(|_| {
            base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(cleaned.trim_end_matches('=').as_bytes())
        }) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(_) => {
                ctx.problems
                    .push("a base64 payload piped into a shell could not be decoded".into());
                return;
            }
        }
    } else {
        literal
    };
    analyze_nested(&script, ctx, depth);
}

/// Publishing to a registry named in the command: `docker push
/// host[:port]/image` (an image without a registry host goes to the default
/// registry and is not flagged), `npm publish --registry URL`, `twine upload
/// --repository-url URL`, `gem push --host URL`, `cargo publish --index URL`,
/// `helm push CHART oci://host/…`.
fn publish(tool: &str, args: &[String], ctx: &mut Context<'_>) {
    let sub = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str);
    let url_flag = match (tool, sub) {
        ("docker" | "podman" | "buildah", Some("push")) => {
            let pos = positionals(args, &[]);
            // `push IMAGE [DESTINATION]`: the last positional names where it goes.
            if let Some(image) = pos.get(1..).and_then(<[&str]>::last) {
                let image = image.strip_prefix("docker://").unwrap_or(image);
                let first = image.split('/').next().unwrap_or("");
                if image.contains('/')
                    && (first.contains('.') || first.contains(':') || first == "localhost")
                {
                    ctx.hit(tool, host_dest(first), format!("{tool} push to a registry"));
                }
            }
            return;
        }
        ("npm" | "pnpm" | "yarn", Some("publish")) => &["--registry"][..],
        ("twine", Some("upload")) => &["--repository-url"][..],
        ("gem", Some("push")) => &["--host"][..],
        ("cargo", Some("publish")) => &["--index"][..],
        ("helm", Some("push")) => {
            if let Some(url) = args.iter().find(|a| a.starts_with("oci://")) {
                ctx.hit(tool, url_destination(url), "helm push to a registry");
            }
            return;
        }
        _ => return,
    };
    if let Some(url) = option_value(args, url_flag) {
        if is_url(&url) {
            ctx.hit(
                tool,
                url_destination(&url),
                format!("{tool} publish to a registry"),
            );
        }
    } else if !args.iter().any(|a| a == "--dry-run") {
        // No registry named: the package goes to the tool's default one
        // (a destination like any other; the policy's allowlist decides).
        // A `.npmrc`/`pypirc` may point elsewhere, which a command cannot show.
        if let Some(host) = default_registry(tool) {
            ctx.hit(
                tool,
                Destination::Host(host.into()),
                format!("{tool} publish to its default registry"),
            );
        }
    }
}

/// The registry a publishing tool uploads to when none is named.
fn default_registry(tool: &str) -> Option<&'static str> {
    Some(match tool {
        "npm" | "pnpm" => "registry.npmjs.org",
        "yarn" => "registry.yarnpkg.com",
        "twine" => "upload.pypi.org",
        "gem" => "rubygems.org",
        "cargo" => "crates.io",
        _ => return None,
    })
}

/// Value of the first of `flags` (`-c CODE`, `-cCODE` is not split for long flags).
fn option_value(args: &[String], flags: &[&str]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        for f in flags {
            if a == *f {
                return args.get(i + 1).cloned();
            }
            if let Some(v) = a.strip_prefix(f).and_then(|r| r.strip_prefix('=')) {
                return Some(v.to_owned());
            }
        }
        // Combined short flags ending in the flag: `python -Ic CODE`, `bash -lc CODE`.
        if a.len() > 2 && a.starts_with('-') && !a.starts_with("--") {
            for f in flags.iter().filter(|f| f.len() == 2) {
                let c = &f[1..];
                if a.ends_with(c) && a[1..].chars().all(|ch| ch.is_ascii_alphabetic()) {
                    return args.get(i + 1).cloned();
                }
            }
        }
        i += 1;
    }
    None
}

/// Non-option arguments, skipping the values of `with_arg` options.
fn positionals<'w>(args: &'w [String], with_arg: &[&str]) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut rest = false;
    while i < args.len() {
        let a = args[i].as_str();
        if rest {
            out.push(a);
        } else if a == "--" {
            rest = true;
        } else if a.starts_with('-') && a.len() > 1 {
            if with_arg.contains(&a) {
                i += 1;
            }
        } else {
            out.push(a);
        }
        i += 1;
    }
    out
}

pub(crate) fn is_url(s: &str) -> bool {
    s.contains("://")
}

/// The destination of a URL, or of a `host/path` without scheme.
pub(crate) fn url_destination(url: &str) -> Destination {
    let lower = url.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("s3://") {
        return bucket("s3", rest);
    }
    if let Some(rest) = lower.strip_prefix("gs://") {
        return bucket("gs", rest);
    }
    let after = match url.find("://") {
        Some(i) => &url[i + 3..],
        None => url,
    };
    let host = super::normalize_host(after);
    if host.is_empty() || host.contains('$') || host.contains('…') {
        Destination::Unknown
    } else {
        Destination::Host(host)
    }
}

fn bucket(scheme: &str, rest: &str) -> Destination {
    let name = rest.split('/').next().unwrap_or("");
    if name.is_empty() {
        Destination::Unknown
    } else {
        Destination::Bucket {
            scheme: scheme.into(),
            name: name.into(),
        }
    }
}

/// A positional argument that names a URL or a bare host with a path.
fn url_like(arg: &str) -> Option<Destination> {
    if is_url(arg) {
        return Some(url_destination(arg));
    }
    // curl/wget/httpie accept `host/path` and `host:port/path`.
    let head = arg.split(['/', '?']).next().unwrap_or("");
    let host = head.split(':').next().unwrap_or("");
    let plausible = !host.is_empty()
        && (host.contains('.') || host == "localhost")
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !host.ends_with(".json")
        && !host.ends_with(".txt")
        && !host.ends_with(".csv")
        && host.rsplit('.').next().is_some_and(|tld| {
            tld.chars()
                .all(|c| c.is_ascii_alphabetic() || c.is_ascii_digit())
        });
    if arg.starts_with(':') {
        // httpie shorthand `:3000/path` is localhost.
        return Some(Destination::Host("localhost".into()));
    }
    plausible.then(|| Destination::Host(super::normalize_host(head)))
}

fn host_dest(target: &str) -> Destination {
    if is_url(target) {
        return url_destination(target);
    }
    let t = target.rsplit('@').next().unwrap_or(target);
    let t = t.split(':').next().unwrap_or(t);
    let h = super::normalize_host(t);
    if h.is_empty() || h.contains('$') {
        Destination::Unknown
    } else {
        Destination::Host(h)
    }
}

/// `[user@]host:path`, `host::module`, `scp://`, `rsync://` (not a local path).
fn remote_spec(arg: &str) -> Option<Destination> {
    if is_url(arg) {
        return Some(url_destination(arg));
    }
    let colon = arg.find(':')?;
    let head = &arg[..colon];
    if head.is_empty()
        || head.contains('/')
        || (head.len() == 1 && head.chars().all(|c| c.is_ascii_alphabetic()))
    {
        return None;
    }
    Some(host_dest(head))
}

fn copy_to_remote(tool: &str, args: &[String], with_arg: &[&str], ctx: &mut Context<'_>) {
    let pos = positionals(args, with_arg);
    if pos.len() < 2 {
        if ctx.any_host() {
            if let Some(d) = pos.first().and_then(|a| remote_spec(a)) {
                ctx.hit(tool, d, format!("{tool} connection"));
            }
        }
        return;
    }
    let (dst, srcs) = pos.split_last().map(|(d, s)| (*d, s)).unwrap_or(("", &[]));
    match remote_spec(dst) {
        Some(d) if srcs.iter().any(|s| remote_spec(s).is_none()) => {
            ctx.hit(tool, d, format!("{tool} to remote host"));
        }
        // `scp -3 a:/x b:/y`: copied through this machine to another host.
        Some(d) if srcs.iter().any(|s| remote_spec(s).as_ref() != Some(&d)) => {
            ctx.hit(tool, d, format!("{tool} between remote hosts"));
        }
        _ => {
            if ctx.any_host() {
                for s in srcs {
                    if let Some(d) = remote_spec(s) {
                        ctx.hit(tool, d, format!("{tool} from remote host"));
                    }
                }
            }
        }
    }
}

const CURL_SHORT_WITH_ARG: &str = "AbcCdDeEFHKmoPQrtTuUwxXYyz";
const CURL_LONG_WITH_ARG: &[&str] = &[
    "data",
    "data-ascii",
    "data-binary",
    "data-raw",
    "data-urlencode",
    "json",
    "form",
    "form-string",
    "upload-file",
    "request",
    "header",
    "proxy-header",
    "output",
    "user",
    "user-agent",
    "referer",
    "cookie",
    "cookie-jar",
    "config",
    "proxy",
    "url",
    "max-time",
    "connect-timeout",
    "retry",
    "write-out",
    "range",
    "resolve",
    "cacert",
    "cert",
    "key",
    "url-query",
    "connect-to",
    "proxy-user",
    "output-dir",
    "continue-at",
    "dump-header",
    "limit-rate",
    "max-filesize",
    "retry-delay",
    "retry-max-time",
    "interface",
    "local-port",
    "oauth2-bearer",
    "pass",
    "quote",
    "request-target",
    "trace",
    "trace-ascii",
    "stderr",
    "time-cond",
    "variable",
    "expand-url",
    "mail-from",
    "mail-rcpt",
    "ftp-port",
    "aws-sigv4",
    "unix-socket",
    "abstract-unix-socket",
    "capath",
    "ciphers",
    "dns-servers",
];

/// Whether a curl `-d`/`--data*`/`--json` value sends local data when `-G`
/// turns it into a query string: it reads a file or stdin (`@f`,
/// `name@f` for `--data-urlencode`) or expands a variable or command.
fn curl_query_reads_data(value: &str) -> bool {
    let at_file = match value.find('@') {
        Some(at) => at == 0 || !value[..at].contains('='),
        None => false,
    };
    at_file || value.contains('$')
}

fn curl(args: &[String], ctx: &mut Context<'_>) {
    let mut sends: Option<String> = None;
    // `-G`: `-d` values go into the URL of a GET; only data read from a
    // file, stdin, a variable or a command is local data then.
    let mut get = false;
    let mut query: Option<String> = None;
    let mut pinned: Vec<Destination> = Vec::new();
    let mut urls: Vec<String> = Vec::new();
    let mut method: Option<String> = None;
    let mut i = 0;
    let mut rest = false;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if rest || !a.starts_with('-') || a == "-" {
            urls.push(a.to_owned());
            continue;
        }
        if a == "--" {
            rest = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            // curl accepts unambiguous abbreviations (`--data-b`, `--upload`).
            let takes = CURL_LONG_WITH_ARG.contains(&name)
                || ["data", "form", "upload-f", "json"]
                    .iter()
                    .any(|p| name.starts_with(p));
            let value = if takes {
                inline.or_else(|| {
                    let v = args.get(i).cloned();
                    i += 1;
                    v
                })
            } else {
                None
            };
            match name {
                n if n.starts_with("data") || n == "json" => {
                    if value.as_deref().is_some_and(curl_query_reads_data) {
                        sends = Some(format!("curl --{n}"));
                    } else {
                        query = Some(format!("curl --{n}"));
                    }
                }
                n if n.starts_with("form") || n.starts_with("upload-f") => {
                    sends = Some(format!("curl --{n}"));
                }
                "get" => get = true,
                "request" => method = value.map(|v| v.to_ascii_uppercase()),
                "header" | "user-agent" | "referer" | "cookie" | "user" | "proxy-header"
                    if value
                        .as_deref()
                        .is_some_and(|v| v.contains(shell::SUBSTITUTION)) =>
                {
                    sends = Some(format!("curl --{name} with command output"));
                }
                // `--resolve HOST:PORT:ADDR` / `--connect-to H:P:H2:P2` send
                // the request for an (allowed-looking) URL host elsewhere.
                "resolve" | "connect-to" => {
                    if let Some(target) = value.as_deref().and_then(curl_pinned_target) {
                        pinned.push(target);
                    }
                }
                "url" => urls.extend(value),
                "config" => ctx
                    .problems
                    .push("curl reads options from a config file (-K)".into()),
                _ => {}
            }
            continue;
        }
        // Short option cluster: `-sSd`, `-XPOST`, `-d@file`.
        let cluster: Vec<char> = a[1..].chars().collect();
        let mut j = 0;
        while j < cluster.len() {
            let c = cluster[j];
            j += 1;
            if CURL_SHORT_WITH_ARG.contains(c) {
                let attached: String = cluster[j..].iter().collect();
                let value = if attached.is_empty() {
                    let v = args.get(i).cloned();
                    i += 1;
                    v
                } else {
                    Some(attached)
                };
                j = cluster.len();
                match c {
                    'd' if !value.as_deref().is_some_and(curl_query_reads_data) => {
                        query = Some("curl -d".into());
                    }
                    'd' | 'F' | 'T' => sends = Some(format!("curl -{c}")),
                    'X' => method = value.map(|v| v.to_ascii_uppercase()),
                    // Command output in a header, user agent, referer or cookie.
                    'H' | 'A' | 'e' | 'b' | 'u'
                        if value
                            .as_deref()
                            .is_some_and(|v| v.contains(shell::SUBSTITUTION)) =>
                    {
                        sends = Some(format!("curl -{c} with command output"));
                    }
                    'K' => ctx
                        .problems
                        .push("curl reads options from a config file (-K)".into()),
                    _ => {}
                }
            } else if c == 'G' {
                get = true;
            }
        }
    }
    if sends.is_none() && !get {
        sends = query;
    }
    if sends.is_none() && urls.iter().any(|u| carries_substitution(u)) {
        sends = Some("curl with command output in the URL".into());
    }
    if sends.is_none() {
        if let Some(m) = &method {
            if matches!(m.as_str(), "POST" | "PUT" | "PATCH") {
                sends = Some(format!("curl -X {m}"));
            }
        }
    }
    let mut dests: Vec<Destination> = urls
        .iter()
        .filter_map(|u| url_like(u).or_else(|| unknown_if_var(u)))
        .collect();
    if !dests.is_empty() {
        dests.extend(pinned);
    }
    match sends {
        Some(reason) => {
            if dests.is_empty() {
                ctx.hit("curl", Destination::Unknown, format!("{reason} upload"));
            }
            for d in dests {
                ctx.hit("curl", d, format!("{reason} upload"));
            }
        }
        None if ctx.any_host() => {
            for d in dests {
                ctx.hit("curl", d, "curl request");
            }
        }
        None => {}
    }
}

/// The address of a curl `--resolve HOST:PORT:ADDR[,ADDR]` or the host of
/// `--connect-to HOST:PORT:HOST2:PORT2` (`None` when it keeps the host).
fn curl_pinned_target(value: &str) -> Option<Destination> {
    let mut rest = value;
    for _ in 0..2 {
        rest = if let Some(r) = rest.strip_prefix('[') {
            r.split_once("]:")?.1
        } else {
            rest.split_once(':')?.1
        };
    }
    let rest = rest.trim_start_matches('+');
    let addr = if let Some(r) = rest.strip_prefix('[') {
        r.split(']').next().unwrap_or("")
    } else {
        rest.split([',', ':']).next().unwrap_or("")
    };
    if addr.is_empty() {
        return None;
    }
    Some(if addr.contains('$') {
        Destination::Unknown
    } else {
        Destination::Host(super::normalize_host(addr))
    })
}

/// A word that is an unresolved variable or substitution stands for a URL we cannot see.
fn unknown_if_var(word: &str) -> Option<Destination> {
    (word.starts_with('$')).then_some(Destination::Unknown)
}

fn wget(args: &[String], ctx: &mut Context<'_>) {
    const WITH_ARG: &[&str] = &[
        "-O",
        "-o",
        "-a",
        "-i",
        "-P",
        "-U",
        "-e",
        "-t",
        "-T",
        "-w",
        "-Q",
        "-l",
        "-A",
        "-R",
        "-D",
        "-I",
        "-X",
        "-B",
        "--header",
        "--user-agent",
        "--output-document",
        "--output-file",
        "--post-data",
        "--post-file",
        "--body-data",
        "--body-file",
        "--method",
        "--user",
        "--password",
        "--http-user",
        "--http-password",
        "--referer",
        "--load-cookies",
        "--save-cookies",
        "--directory-prefix",
        "--input-file",
        "--tries",
        "--timeout",
        "--wait",
        "--limit-rate",
        "--execute",
    ];
    let mut sends: Option<String> = None;
    let mut i = 0;
    let mut urls = Vec::new();
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if !a.starts_with('-') {
            urls.push(a);
            continue;
        }
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (a, None),
        };
        // wget accepts unambiguous abbreviations (`--post-f`, `--body-d`).
        let name = match name {
            n if n.starts_with("--post-d") => "--post-data",
            n if n.starts_with("--post-f") => "--post-file",
            n if n.starts_with("--body-d") => "--body-data",
            n if n.starts_with("--body-f") => "--body-file",
            n if n.len() > 4 && "--method".starts_with(n) => "--method",
            n => n,
        };
        let value = if WITH_ARG.contains(&name) && inline.is_none() {
            let v = args.get(i).cloned();
            i += 1;
            v
        } else {
            inline
        };
        match name {
            "--post-data" | "--post-file" | "--body-data" | "--body-file" => {
                sends = Some(format!("wget {name}"))
            }
            "--header" | "--user-agent" | "-U" | "--referer"
                if value
                    .as_deref()
                    .is_some_and(|v| v.contains(shell::SUBSTITUTION)) =>
            {
                sends = Some(format!("wget {name} with command output"));
            }
            "--method"
                if value.is_some_and(|m| {
                    matches!(m.to_ascii_uppercase().as_str(), "POST" | "PUT" | "PATCH")
                }) =>
            {
                sends = Some("wget --method".into());
            }
            _ => {}
        }
    }
    if sends.is_none() && urls.iter().any(|u| carries_substitution(u)) {
        sends = Some("wget with command output in the URL".into());
    }
    let dests: Vec<Destination> = urls
        .iter()
        .filter_map(|u| url_like(u).or_else(|| unknown_if_var(u)))
        .collect();
    if let Some(reason) = sends {
        if dests.is_empty() {
            ctx.hit("wget", Destination::Unknown, format!("{reason} upload"));
        }
        for d in dests {
            ctx.hit("wget", d, format!("{reason} upload"));
        }
    } else if ctx.any_host() {
        for d in dests {
            ctx.hit("wget", d, "wget request");
        }
    }
}

fn httpie(tool: &str, args: &[String], stdin_fed: bool, ctx: &mut Context<'_>) {
    const WITH_ARG: &[&str] = &[
        "-a",
        "--auth",
        "-A",
        "--auth-type",
        "-o",
        "--output",
        "--session",
        "--session-read-only",
        "--verify",
        "--cert",
        "--cert-key",
        "--proxy",
        "--timeout",
        "-p",
        "--print",
        "--pretty",
        "-s",
        "--style",
        "--format-options",
        "--max-redirects",
        "--boundary",
        "--default-scheme",
        "--ssl",
    ];
    let mut i = 0;
    let mut positional = Vec::new();
    let mut form = false;
    let mut ignore_stdin = false;
    let mut raw = false;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a.starts_with('-') && a.len() > 1 {
            let name = a.split('=').next().unwrap_or(a);
            if WITH_ARG.contains(&name) && !a.contains('=') {
                i += 1;
            }
            match name {
                "-f" | "--form" | "--multipart" => form = true,
                "-I" | "--ignore-stdin" => ignore_stdin = true,
                "--raw" => raw = true,
                _ => {}
            }
            continue;
        }
        positional.push(a);
    }
    let mut items = positional.as_slice();
    let mut method = None;
    if let Some(first) = items.first() {
        let upper = first.to_ascii_uppercase();
        if matches!(
            upper.as_str(),
            "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"
        ) {
            method = Some(upper);
            items = &items[1..];
        }
    }
    let Some((url, items)) = items.split_first() else {
        return;
    };
    let data_items = items.iter().any(|it| {
        (it.contains('=') && !it.contains("==")) || it.contains(":=") || it.contains('@')
    });
    let write_method = method
        .as_deref()
        .is_some_and(|m| matches!(m, "POST" | "PUT" | "PATCH"));
    let sends = write_method || data_items || form || raw || (stdin_fed && !ignore_stdin);
    let dest = url_like(url).unwrap_or_else(|| {
        if url.starts_with('$') {
            Destination::Unknown
        } else {
            Destination::Host(super::normalize_host(url))
        }
    });
    if sends {
        ctx.hit(tool, dest, format!("{tool} upload"));
    } else if ctx.any_host() {
        ctx.hit(tool, dest, format!("{tool} request"));
    }
}

fn netcat(tool: &str, args: &[String], ctx: &mut Context<'_>) {
    // `nc -z host port` only probes whether a port is open.
    if args
        .iter()
        .any(|a| a == "-z" || (a.starts_with('-') && !a.starts_with("--") && a.contains('z')))
    {
        return;
    }
    const WITH_ARG: &[&str] = &[
        "-p",
        "-s",
        "-w",
        "-e",
        "-c",
        "-x",
        "-X",
        "-i",
        "-q",
        "-W",
        "-T",
        "-O",
        "-I",
        "-g",
        "-G",
        "--sh-exec",
        "--exec",
        "-o",
        "--proxy",
        "--proxy-type",
    ];
    if args.iter().any(|a| {
        a == "-l"
            || a == "--listen"
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('l') && a.len() <= 5)
    }) {
        return;
    }
    let pos = positionals(args, WITH_ARG);
    match pos.first() {
        Some(h) => ctx.hit(tool, host_dest(h), format!("{tool} connection")),
        None => ctx.hit(tool, Destination::Unknown, format!("{tool} connection")),
    }
}

fn socat(args: &[String], ctx: &mut Context<'_>) {
    for a in args
        .iter()
        .filter(|a| !a.starts_with('-') || a.as_str() == "-")
    {
        let mut parts = a.splitn(3, ':');
        let kind = parts.next().unwrap_or("").to_ascii_lowercase();
        let host = parts.next().unwrap_or("");
        if matches!(
            kind.as_str(),
            "tcp"
                | "tcp4"
                | "tcp6"
                | "tcp-connect"
                | "tcp4-connect"
                | "tcp6-connect"
                | "udp"
                | "udp4"
                | "udp6"
                | "udp-connect"
                | "udp-sendto"
                | "openssl"
                | "openssl-connect"
                | "ssl"
        ) && !host.is_empty()
        {
            ctx.hit(
                "socat",
                host_dest(host.split(',').next().unwrap_or(host)),
                "socat connection",
            );
        }
    }
}

fn ftp_like(
    tool: &str,
    args: &[String],
    stdin_fed: bool,
    stdin_text: &[String],
    ctx: &mut Context<'_>,
) {
    let put_word = |s: &str| {
        s.split(|c: char| c.is_whitespace() || c == ';')
            .any(|w| matches!(w, "put" | "mput" | "send" | "append" | "reput"))
            || s.contains("mirror -R")
            || s.contains("mirror --reverse")
    };
    let puts = matches!(tool, "ncftpput" | "ftpput")
        // BusyBox `tftp -p -l FILE HOST` puts.
        || (tool == "tftp" && args.iter().any(|a| a == "-p"))
        || args.iter().any(|a| put_word(a))
        || stdin_text.iter().any(|t| put_word(t));
    // A visible script (heredoc, `printf … |`) is judged by its commands.
    let stdin_fed = stdin_fed && stdin_text.is_empty();
    if tool == "ftp" {
        // BSD/tnftp `ftp -u URL FILE…` uploads the files.
        if let Some(url) = option_value(args, &["-u"]).filter(|u| is_url(u)) {
            ctx.hit(tool, url_destination(&url), "ftp -u upload");
            return;
        }
    }
    if !(puts || stdin_fed || ctx.any_host()) {
        return;
    }
    let pos = positionals(
        args,
        &[
            "-u", "-p", "-P", "-e", "-c", "-U", "-W", "-A", "-m", "-o", "-s",
        ],
    );
    let mut dest = pos.first().map(|h| {
        if h.starts_with("//") {
            host_dest(h.trim_start_matches('/').split('/').next().unwrap_or(""))
        } else {
            host_dest(h)
        }
    });
    if dest.is_none() {
        for t in stdin_text {
            if let Some(h) = t.lines().find_map(|l| l.trim().strip_prefix("open ")) {
                dest = Some(host_dest(h.split_whitespace().next().unwrap_or("")));
            }
        }
    }
    ctx.hit(
        tool,
        dest.unwrap_or(Destination::Unknown),
        format!("{tool} transfer"),
    );
}

fn aws(args: &[String], ctx: &mut Context<'_>) {
    const WITH_ARG: &[&str] = &[
        "--profile",
        "--region",
        "--endpoint-url",
        "--exclude",
        "--include",
        "--acl",
        "--storage-class",
        "--sse",
        "--content-type",
        "--expires",
        "--cache-control",
        "--metadata-directive",
        "--grants",
        "--sse-kms-key-id",
        "--output",
        "--query",
        "--bucket",
        "--key",
        "--body",
        "--metadata",
        "--content-encoding",
        "--ca-bundle",
    ];
    let pos = positionals(args, WITH_ARG);
    let endpoint = option_value(args, &["--endpoint-url"]);
    if pos.len() >= 3 && pos[0] == "s3" && matches!(pos[1], "cp" | "sync" | "mv") {
        let (src, dst) = (pos[2], pos.get(3).copied().unwrap_or(""));
        if dst.starts_with("s3://") && !src.starts_with("s3://") {
            let dest = match endpoint {
                Some(e) => url_destination(&e),
                None => url_destination(dst),
            };
            ctx.hit("aws s3", dest, format!("aws s3 {} to bucket", pos[1]));
        }
    } else if pos.len() >= 2
        && pos[0] == "s3api"
        && matches!(
            pos[1],
            "put-object" | "upload-part" | "create-multipart-upload"
        )
    {
        let dest = match (endpoint, option_value(args, &["--bucket"])) {
            (Some(e), _) => url_destination(&e),
            (None, Some(b)) => Destination::Bucket {
                scheme: "s3".into(),
                name: b,
            },
            (None, None) => Destination::Unknown,
        };
        ctx.hit("aws s3api", dest, format!("aws s3api {}", pos[1]));
    }
}

fn gsutil(args: &[String], ctx: &mut Context<'_>) {
    let pos = positionals(args, &["-o", "-h", "-u", "-p"]);
    cloud_copy("gsutil", &pos, ctx);
}

/// `cp|rsync|mv SRC… DST` where DST is a bucket and a source is local.
fn cloud_copy(tool: &str, pos: &[&str], ctx: &mut Context<'_>) {
    if pos.len() < 3 || !matches!(pos[0], "cp" | "rsync" | "mv") {
        return;
    }
    let dst = pos[pos.len() - 1];
    let srcs = &pos[1..pos.len() - 1];
    let cloud = |s: &str| s.starts_with("gs://") || s.starts_with("s3://");
    if cloud(dst) && srcs.iter().any(|s| !cloud(s)) {
        ctx.hit(
            tool,
            url_destination(dst),
            format!("{tool} {} to bucket", pos[0]),
        );
    }
}

fn rclone(args: &[String], stdin_fed: bool, ctx: &mut Context<'_>) {
    let pos = positionals(
        args,
        &[
            "--config",
            "--transfers",
            "--checkers",
            "--include",
            "--exclude",
            "--filter",
            "--bwlimit",
            "--log-file",
            "--log-level",
            "--max-age",
            "--min-age",
            "--max-size",
            "--min-size",
            "--backup-dir",
            "--suffix",
            "--files-from",
        ],
    );
    let remote = |s: &str| -> Option<String> {
        // `:s3:bucket/path` configures a backend on the fly: name it by the backend.
        let s = s.strip_prefix(':').unwrap_or(s);
        let colon = s.find(':')?;
        let name = &s[..colon];
        (!name.is_empty() && !name.contains('/') && name.len() > 1).then(|| name.to_owned())
    };
    let Some(op) = pos.first() else { return };
    match *op {
        "copy" | "sync" | "move" | "copyto" | "moveto" | "bisync" | "copyurl" if pos.len() >= 3 => {
            let (src, dst) = (pos[1], pos[2]);
            if let Some(name) = remote(dst) {
                if remote(src).is_none() {
                    ctx.hit(
                        "rclone",
                        Destination::Remote(name),
                        format!("rclone {op} to remote"),
                    );
                }
            }
        }
        "rcat" if pos.len() >= 2 => {
            if let Some(name) = remote(pos[1]) {
                let _ = stdin_fed;
                ctx.hit("rclone", Destination::Remote(name), "rclone rcat to remote");
            }
        }
        _ => {}
    }
}

fn git(args: &[String], ctx: &mut Context<'_>) {
    // Global options before the subcommand.
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    let Some(sub) = args.get(i).map(String::as_str) else {
        return;
    };
    let rest = &args[i + 1..];
    let pos = positionals(
        rest,
        &[
            "-o",
            "--push-option",
            "--receive-pack",
            "--exec",
            "-t",
            "-m",
            "--branch",
            "-b",
            "--depth",
            "--origin",
        ],
    );
    match sub {
        "remote"
            if pos.len() >= 3
                && matches!(pos[0], "add" | "set-url")
                && ctx.git_remotes.len() < 64 =>
        {
            ctx.git_remotes.insert(pos[1].to_owned(), pos[2].to_owned());
        }
        // `git config remote.NAME.url URL` (also `pushurl`).
        "config" if pos.len() >= 2 && ctx.git_remotes.len() < 64 => {
            let key = pos[0].to_ascii_lowercase();
            if let Some(name) = key.strip_prefix("remote.").and_then(|k| {
                k.strip_suffix(".url")
                    .or_else(|| k.strip_suffix(".pushurl"))
            }) {
                ctx.git_remotes.insert(name.to_owned(), pos[1].to_owned());
            }
        }
        "send-email" => {
            let to = option_value(rest, &["--to", "--cc"])
                .and_then(|t| t.rsplit('@').next().map(super::normalize_host))
                .map(Destination::Host)
                .unwrap_or(Destination::Unknown);
            ctx.hit("git send-email", to, "git send-email");
        }
        "push" => {
            // Without a repository, `git push` goes to `origin`: only a
            // remote redefined earlier in this command is known to be elsewhere.
            let repo = option_value(rest, &["--repo"])
                .or_else(|| pos.first().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "origin".to_owned());
            let url = if git_url(&repo) {
                Some(repo.clone())
            } else {
                ctx.git_remotes.get(&repo).cloned()
            };
            if let Some(url) = url {
                ctx.hit("git push", git_destination(&url), "git push to a URL");
            }
        }
        "clone" | "fetch" | "pull" | "ls-remote" if ctx.any_host() => {
            if let Some(url) = pos.iter().find(|p| git_url(p)) {
                ctx.hit("git", git_destination(url), format!("git {sub}"));
            }
        }
        _ => {}
    }
}

fn git_url(s: &str) -> bool {
    is_url(s) || (s.contains('@') && s.contains(':')) || s.starts_with("git@")
}

fn git_destination(url: &str) -> Destination {
    if is_url(url) {
        url_destination(url)
    } else {
        host_dest(url)
    }
}

/// `/dev/tcp/host/port` anywhere in a word or redirect target.
fn dev_tcp(word: &str, ctx: &mut Context<'_>) {
    // Every word passes through here: look for the markers only at slashes
    // (most words have none) instead of building a substring search per marker.
    let bytes = word.as_bytes();
    let at =
        |marker: &[u8]| memchr::memchr_iter(b'/', bytes).find(|&i| bytes[i..].starts_with(marker));
    for marker in ["/dev/tcp/", "/dev/udp/"] {
        if let Some(i) = at(marker.as_bytes()) {
            let host = word[i + marker.len()..].split('/').next().unwrap_or("");
            let dest = if host.is_empty() || host.contains('$') {
                Destination::Unknown
            } else {
                Destination::Host(super::normalize_host(host))
            };
            ctx.hit("/dev/tcp", dest, "bash /dev/tcp connection");
        }
    }
    // gawk's `/inet/tcp/LPORT/HOST/RPORT` (also inet4, inet6, udp); host 0 listens.
    if let Some(i) = at(b"/inet") {
        let mut parts = word[i + 1..].split('/');
        let family = parts.next().unwrap_or("");
        let proto = parts.next().unwrap_or("");
        let _local_port = parts.next();
        let host = parts.next().unwrap_or("");
        if matches!(family, "inet" | "inet4" | "inet6")
            && matches!(proto, "tcp" | "udp")
            && !host.is_empty()
            && host != "0"
        {
            let dest = if host.contains('$') {
                Destination::Unknown
            } else {
                Destination::Host(super::normalize_host(host))
            };
            ctx.hit("gawk /inet", dest, "gawk network connection");
        }
    }
}

/// `docker run [OPTIONS] IMAGE COMMAND…`, `docker exec [OPTIONS] CONTAINER
/// COMMAND…`: the command runs with whatever the container mounts, so it is
/// read like a command run here.
fn container_command(args: &[String], ctx: &mut Context<'_>, depth: usize) {
    const WITH_ARG: &[&str] = &[
        "-v",
        "--volume",
        "-e",
        "--env",
        "--env-file",
        "-p",
        "--publish",
        "-w",
        "--workdir",
        "--name",
        "--network",
        "--net",
        "-u",
        "--user",
        "--entrypoint",
        "-m",
        "--memory",
        "--cpus",
        "--mount",
        "-l",
        "--label",
        "--label-file",
        "--add-host",
        "--device",
        "--dns",
        "-h",
        "--hostname",
        "--ulimit",
        "--cap-add",
        "--cap-drop",
        "--security-opt",
        "--platform",
        "--pull",
        "--restart",
        "--log-driver",
        "--log-opt",
        "--tmpfs",
        "--shm-size",
        "--gpus",
        "--ipc",
        "--pid",
        "--runtime",
        "--group-add",
        "-a",
        "--attach",
        "--cidfile",
        "--expose",
        "--link",
        "--volumes-from",
        "-c",
        "--cpu-shares",
        "--cpuset-cpus",
        "--detach-keys",
        "--stop-signal",
        "--stop-timeout",
        "--health-cmd",
        "--uts",
        "--userns",
        "--memory-swap",
        "--context",
        "-H",
        "--host",
        "--config",
        "--log-level",
    ];
    let mut i = 0;
    // Global options, the subcommand, its options, then the image/container.
    let mut seen_sub = false;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            i += 1;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            i += if WITH_ARG.contains(&a) { 2 } else { 1 };
            continue;
        }
        if !seen_sub {
            seen_sub = true;
            i += 1;
            continue;
        }
        break;
    }
    // args[i] is the image or container; the rest is the command.
    if i + 1 < args.len() && depth < shell::MAX_DEPTH {
        let mut words = args[i + 1..].to_vec();
        if words[0].starts_with('-') {
            // Only options follow: the image's entrypoint is the tool
            // (`curlimages/curl -F …`), named after its repository.
            let image = args[i].rsplit('/').next().unwrap_or("");
            let image = image.split([':', '@']).next().unwrap_or("");
            words.insert(0, image.to_owned());
        }
        let sub = SimpleCommand {
            words,
            ..SimpleCommand::default()
        };
        analyze_one(&sub, None, ctx, depth + 1);
    }
}

/// `powershell -Command SCRIPT` / `-EncodedCommand BASE64(UTF-16LE)`:
/// parameter names are case-insensitive prefixes (`-c`, `-enc`, `-ec`).
fn powershell(args: &[String], ctx: &mut Context<'_>, depth: usize) {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_ascii_lowercase();
        let value = args.get(i + 1);
        let is_prefix = |full: &str, min: usize| {
            a.len() >= min && a.starts_with('-') && full.starts_with(&a[1..])
        };
        if a == "-e" || a == "-ec" || is_prefix("encodedcommand", 3) {
            if let Some(script) = value.and_then(|v| decode_utf16_base64(v)) {
                powershell_script(&script, ctx, depth);
            } else {
                ctx.problems
                    .push("a PowerShell encoded command could not be decoded".into());
            }
            return;
        }
        if a == "-c" || is_prefix("command", 4) {
            // Everything after -Command is the script.
            let script = args[i + 1..].join(" ");
            powershell_script(&script, ctx, depth);
            return;
        }
        if !a.starts_with('-') {
            // A positional script file or command text.
            let script = args[i..].join(" ");
            powershell_script(&script, ctx, depth);
            return;
        }
        // Parameters that take a value.
        let takes = [
            "-executionpolicy",
            "-ep",
            "-file",
            "-f",
            "-windowstyle",
            "-w",
            "-configurationname",
            "-workingdirectory",
            "-wd",
            "-outputformat",
            "-of",
            "-inputformat",
            "-if",
            "-psconsolefile",
            "-version",
            "-v",
            "-settingsfile",
        ];
        i += if takes.contains(&a.as_str()) { 2 } else { 1 };
    }
}

fn powershell_script(script: &str, ctx: &mut Context<'_>, depth: usize) {
    if let Some(dest) = code::code_upload(script) {
        ctx.hit("PowerShell", dest, "PowerShell web upload");
    }
    analyze_nested(script, ctx, depth);
}

fn decode_utf16_base64(text: &str) -> Option<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim().as_bytes())
        .ok()?;
    if bytes.len() % 2 != 0 {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16(&units).ok()
}

/// Whether an unparseable command mentions a network tool or a URL.
pub(crate) fn looks_networked(command: &str) -> bool {
    const WORDS: &[&str] = &[
        "curl",
        "wget",
        "nc ",
        "ncat",
        "netcat",
        "socat",
        "scp ",
        "rsync",
        "sftp",
        "ftp",
        "ssh ",
        "http://",
        "https://",
        "/dev/tcp",
        "s3://",
        "gs://",
        "rclone",
        "gsutil",
        "git push",
        "requests.",
        "fetch(",
    ];
    WORDS.iter().any(|w| command.contains(w))
}
