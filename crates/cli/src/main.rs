//! `palisade`: batch checks, session scans and guard commands.
//!
//! Exit codes:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success; for `check`, every line was answered (bad lines get an `{"error"}` line) |
//! | 1 | `scan` found something at or above `--fail-on` |
//! | 2 | usage error, an input that cannot be read at all, or (`scan`) a line that could not be read: the rest is still scanned and reported, and the unreadable lines are named by number |

#![forbid(unsafe_code)]

mod check;
mod commands;
mod hook;
mod hud;
mod mcp;
mod scan;

use clap::{Parser, Subcommand};
use std::io::{self, BufWriter};
use std::process::ExitCode;

/// A process that answers one hook event or one `check` line spends most of
/// its start-up building automata, whose millions of small allocations cost
/// glibc's allocator about 40 % of the instructions; mimalloc serves them in
/// a fraction (see BENCHMARKS.md, start-up).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Guard libraries for AI agents: check text, commands, tables and turns.
#[derive(Parser, Debug)]
#[command(name = "palisade", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Batch mode: one JSON object per line on stdin, one JSON verdict per line on stdout.
    ///
    /// `check secrets --text FILE…` reads plain files instead (no JSON), on
    /// every core, and prints one JSON line per finding,
    /// `{"file","line","kind","span","preview","rule","severity"}` (span: byte
    /// offsets in the file; line: 1-based), and one per file that could not be
    /// read, `{"file","error"}`; files in the order given, clean files print
    /// nothing. Exit 0 when every file was scanned, 2 when one could not be
    /// read (the others are still scanned and reported).
    Check {
        /// Which check to run.
        #[arg(value_enum)]
        guard: check::Guard,
        /// Read JSON Lines from stdin.
        #[arg(long, conflicts_with = "text")]
        jsonl: bool,
        /// Scan these plain-text files (secrets only).
        #[arg(long, value_name = "FILE", num_args = 1..)]
        text: Vec<std::path::PathBuf>,
        /// Threads for --text; default one per core.
        #[arg(long, value_name = "N", requires = "text")]
        threads: Option<usize>,
    },
    /// Audit a recorded agent session (OpenAI chat format, one message per line).
    Scan {
        /// The session file (`-` for stdin).
        session: std::path::PathBuf,
        /// One JSON object per finding and line instead of the human report.
        #[arg(long)]
        json: bool,
        /// Exit with 1 when a finding is at or above this severity.
        #[arg(long, value_enum, default_value = "high")]
        fail_on: scan::FailOn,
    },
    /// Write the posture page: one self-contained HTML file (`palisade hud > hud.html`).
    Hud {
        /// The Hermes home (profile) to read; default `$HERMES_HOME`, else `~/.hermes`.
        #[arg(long, value_name = "DIR")]
        home: Option<std::path::PathBuf>,
    },
    /// Answer one host hook event (stdin JSON) in the host's own protocol.
    Hook {
        /// The host that runs the hook.
        #[arg(value_enum)]
        host: hook::HostKind,
        /// The profile to keep state in; default `$PALISADE_HOME/<host>`, else `~/.palisade/<host>`.
        #[arg(long, value_name = "DIR")]
        home: Option<std::path::PathBuf>,
    },
    /// Add or remove Palisade's entries in a host's hook settings.
    Hooks {
        /// `install` or `uninstall`.
        #[arg(value_enum)]
        action: HooksAction,
        /// The host whose settings to change.
        #[arg(value_enum)]
        host: hook::HostKind,
        /// The project's settings (`.claude/settings.json` under --dir, default the current directory).
        #[arg(long, conflicts_with = "user")]
        project: bool,
        /// The user's settings (`~/.claude/settings.json`, …); the default.
        #[arg(long)]
        user: bool,
        /// Print the resulting file; change nothing.
        #[arg(long)]
        dry_run: bool,
        /// The project directory for --project.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
        /// The palisade binary the hooks run; default this binary's path.
        #[arg(long, value_name = "PATH")]
        command: Option<String>,
    },
    /// A stdio MCP proxy in front of a server: `palisade mcp-proxy -- npx some-server`.
    McpProxy {
        /// The profile to keep state in: `$PALISADE_HOME/<NAME>` (default `mcp`).
        #[arg(long, value_name = "NAME")]
        profile: Option<String>,
        /// The server command and its arguments.
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Guard commands over a Hermes profile's data (`palisade provenance report`, …).
    #[command(flatten)]
    Guard(commands::GuardCommand),
}

/// What `palisade hooks` does.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum HooksAction {
    Install,
    Uninstall,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            guard,
            jsonl,
            text,
            threads,
        } => {
            if !text.is_empty() {
                return run_check_text(guard, &text, threads);
            }
            if !jsonl {
                eprintln!("palisade check: pass --jsonl (or, for secrets, --text FILE…)");
                return ExitCode::from(2);
            }
            // Large buffers: a batch moves its whole input through them.
            let stdin = io::BufReader::with_capacity(1 << 18, io::stdin().lock());
            let stdout = BufWriter::with_capacity(1 << 18, io::stdout().lock());
            match check::run(guard, stdin, stdout) {
                Ok(_) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("palisade check {}: {err}", guard.name());
                    ExitCode::from(2)
                }
            }
        }
        Command::Scan {
            session,
            json,
            fail_on,
        } => run_scan(&session, json, fail_on),
        Command::Hud { home } => {
            let env = palisade_hermes::Env::from_process();
            let home = home.unwrap_or_else(|| env.hermes_home());
            if let Err(message) = commands::require_home(&home) {
                eprintln!("palisade hud: {message}");
                return ExitCode::from(2);
            }
            match hud::gather(&home, env, palisade_hermes::Timestamp::now()) {
                Ok(data) => {
                    let mut out = io::stdout().lock();
                    match std::io::Write::write_all(&mut out, hud::render(&data).as_bytes()) {
                        Ok(()) => ExitCode::SUCCESS,
                        Err(e) => {
                            eprintln!("palisade hud: writing the page failed: {e}");
                            ExitCode::from(2)
                        }
                    }
                }
                Err(e) => {
                    eprintln!("palisade hud: cannot read {}: {e}", home.display());
                    ExitCode::from(2)
                }
            }
        }
        Command::Hook { host, home } => hook::run_process(host, home),
        Command::McpProxy { profile, command } => mcp::run(profile, command),
        Command::Hooks {
            action,
            host,
            project,
            user: _,
            dry_run,
            dir,
            command,
        } => hook::run_install(
            host,
            matches!(action, HooksAction::Uninstall),
            project,
            dry_run,
            dir,
            command,
        ),
        Command::Guard(command) => commands::run(command),
    }
}

/// `palisade check secrets --text FILE…`.
fn run_check_text(
    guard: check::Guard,
    files: &[std::path::PathBuf],
    threads: Option<usize>,
) -> ExitCode {
    if guard != check::Guard::Secrets {
        eprintln!(
            "palisade check {}: --text is for secrets only; pass --jsonl",
            guard.name()
        );
        return ExitCode::from(2);
    }
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match check::secrets::run_text(files, threads, &mut out) {
        Ok(stats) => match stats.first_error {
            Some(first) => {
                eprintln!(
                    "palisade check secrets: {} file(s) could not be read (first: {}); exit 2",
                    stats.errors,
                    first.display()
                );
                ExitCode::from(2)
            }
            None => ExitCode::SUCCESS,
        },
        Err(err) => {
            eprintln!("palisade check secrets: writing the findings failed: {err}");
            ExitCode::from(2)
        }
    }
}

/// `palisade scan`: stream the session, print findings, pick the exit code.
fn run_scan(path: &std::path::Path, json: bool, fail_on: scan::FailOn) -> ExitCode {
    use std::io::{BufRead, BufReader, IsTerminal, Write};

    let source = path.display().to_string();
    let (input, size): (Box<dyn BufRead>, Option<u64>) = if source == "-" {
        (Box::new(BufReader::new(io::stdin().lock())), None)
    } else {
        match std::fs::File::open(path) {
            Ok(f) => {
                let size = f.metadata().ok().map(|m| m.len());
                (Box::new(BufReader::with_capacity(1 << 16, f)), size)
            }
            Err(e) => {
                eprintln!("palisade scan: cannot read {source}: {e}");
                return ExitCode::from(2);
            }
        }
    };
    // A progress bar only for big files, and only when a person is watching.
    let bar = match size {
        Some(len) if len > 8 << 20 && io::stderr().is_terminal() => {
            let bar = indicatif::ProgressBar::new(len);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {eta}")
            {
                bar.set_style(style);
            }
            Some(bar)
        }
        _ => None,
    };
    let stdout = io::stdout();
    let mut sink = ScanSink {
        out: BufWriter::new(stdout.lock()),
        json,
        source: &source,
        bar,
        write_failed: false,
    };
    let result = scan::scan(input, &mut sink);
    if let Some(bar) = sink.bar.take() {
        bar.finish_and_clear();
    }
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("palisade scan: reading {source} failed: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = sink.out;
    if !json {
        let _ = out.write_all(scan::render_human(&source, &outcome).as_bytes());
    } else {
        for note in &outcome.notes {
            eprintln!("palisade scan: {source}: note: {note}");
        }
    }
    if out.flush().is_err() || sink.write_failed {
        return ExitCode::from(2);
    }
    if outcome.error_count > 0 {
        // An audit that could not read part of its input must not look clean.
        eprintln!(
            "palisade scan: {source}: {} line(s) could not be read (first: line {}); exit 2",
            outcome.error_count,
            outcome.errors.first().map_or(0, |e| e.line)
        );
        return ExitCode::from(2);
    }
    if outcome.worst().is_some_and(|worst| fail_on.trips(worst)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Where `palisade scan` sends what it finds: JSON lines to stdout as they
/// come (with `--json`), unreadable lines to stderr as they come, and the
/// byte count to the progress bar.
struct ScanSink<'a, W: std::io::Write> {
    out: W,
    json: bool,
    source: &'a str,
    bar: Option<indicatif::ProgressBar>,
    write_failed: bool,
}

impl<W: std::io::Write> scan::Sink for ScanSink<'_, W> {
    fn finding(&mut self, finding: &scan::ScanFinding) {
        if self.json {
            let written = serde_json::to_writer(&mut self.out, finding).map_err(io::Error::from);
            if written.and_then(|()| self.out.write_all(b"\n")).is_err() {
                self.write_failed = true;
            }
        }
    }

    fn error(&mut self, error: &scan::LineError) {
        let line = format!(
            "palisade scan: {}:{}: skipped: {}",
            self.source, error.line, error.error
        );
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    fn progress(&mut self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(bytes);
        }
    }
}
