//! `palisade`: batch checks, session scans and guard commands.
//!
//! Exit codes:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success; for `check`, every line was answered (bad lines get an `{"error"}` line) |
//! | 1 | `scan` found something at or above `--fail-on` |
//! | 2 | usage error, or an input that cannot be read at all |

#![forbid(unsafe_code)]

mod check;

use clap::{Parser, Subcommand};
use std::io::{self, BufWriter};
use std::process::ExitCode;

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
    Check {
        /// Which check to run.
        #[arg(value_enum)]
        guard: check::Guard,
        /// Read JSON Lines from stdin (the only input format so far).
        #[arg(long)]
        jsonl: bool,
    },
    /// Audit a recorded agent session (OpenAI chat format, one message per line).
    Scan {
        /// The session file.
        session: std::path::PathBuf,
        /// One JSON object per finding instead of the human report.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { guard, jsonl } => {
            if !jsonl {
                eprintln!("palisade check: only --jsonl input is supported; pass --jsonl");
                return ExitCode::from(2);
            }
            let stdin = io::stdin().lock();
            let stdout = BufWriter::new(io::stdout().lock());
            match check::run(guard, stdin, stdout) {
                Ok(_) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("palisade check {}: {err}", guard.name());
                    ExitCode::from(2)
                }
            }
        }
        Command::Scan { session, .. } => {
            eprintln!(
                "palisade scan {}: not available in this build yet (the session scanner has not landed)",
                session.display()
            );
            ExitCode::from(2)
        }
    }
}
