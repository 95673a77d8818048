//! `palisade provenance|egress|injection|closure COMMAND`: the seeds' user
//! commands over the data a Hermes profile holds.
//!
//! Every command is a function in `palisade_hermes::commands` returning
//! JSON; this module only parses arguments and renders: `--json` prints the
//! result object, otherwise a readable outline. `--home DIR` picks the
//! profile (default `$HERMES_HOME`, else `~/.hermes`). Negative counts are
//! passed through so the library can reject them with a clear message.

mod render;

use clap::{Args, Subcommand};
use palisade_hermes::{Env, GuardName, Host, Plugin};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options every guard command takes.
#[derive(Args, Debug, Clone)]
pub struct Opts {
    /// The Hermes home (profile) to read; default `$HERMES_HOME`, else `~/.hermes`.
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Print the structured result as JSON.
    #[arg(long, global = true)]
    json: bool,
}

/// The per-guard command groups.
#[derive(Subcommand, Debug)]
pub enum GuardCommand {
    /// provenance-gate: evidence report and log, dry-run check, purge.
    Provenance {
        #[command(subcommand)]
        cmd: ProvenanceCmd,
        #[command(flatten)]
        opts: Opts,
    },
    /// egress-guard: policy status, audit report, dry-run check, purge.
    Egress {
        #[command(subcommand)]
        cmd: EgressCmd,
        #[command(flatten)]
        opts: Opts,
    },
    /// hermes-guard: posture, quarantine review, arena, ledger verification.
    Injection {
        #[command(subcommand)]
        cmd: InjectionCmd,
        #[command(flatten)]
        opts: Opts,
    },
    /// turn-closure-audit: recent judgments, pending candidates, promotion.
    Closure {
        #[command(subcommand)]
        cmd: ClosureCmd,
        #[command(flatten)]
        opts: Opts,
    },
}

/// `palisade provenance …`
#[derive(Subcommand, Debug)]
pub enum ProvenanceCmd {
    /// Mode, search scope, retention and files.
    Status,
    /// Counts by verdict and reason, newest flagged claims.
    Report {
        /// Only rows from the last N days.
        #[arg(long, allow_negative_numbers = true)]
        days: Option<i64>,
    },
    /// The newest evidence rows.
    Log {
        /// How many rows (default 20).
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<i64>,
        /// Only rows with this verdict (pass, blocked, would_block, approve).
        #[arg(long)]
        verdict: Option<String>,
    },
    /// Dry run: check TEXT as a memory write; writes nothing.
    Check {
        /// The text to check.
        text: String,
        /// Look quotes up in this session's stored messages.
        #[arg(long)]
        session: Option<String>,
    },
    /// Delete stored user text and evidence rows.
    Purge(PurgeArgs),
}

/// Exactly one of `--older-than DAYS` or `--all`.
#[derive(Args, Debug)]
pub struct PurgeArgs {
    /// Delete rows older than this many days.
    #[arg(long, allow_negative_numbers = true, value_name = "DAYS")]
    older_than: Option<i64>,
    /// Delete every row.
    #[arg(long)]
    all: bool,
}

/// `palisade egress …`
#[derive(Subcommand, Debug)]
pub enum EgressCmd {
    /// The active policy, its source and each rule's settings.
    Status,
    /// Finding counts by rule and action, the last 5 entries.
    Report,
    /// Dry run: what each rule would do with TEXT; writes nothing.
    Check {
        /// The text to check (use made-up values, not real secrets).
        text: String,
    },
    /// Delete audit rows.
    Purge(PurgeArgs),
}

/// `palisade injection …`
#[derive(Subcommand, Debug)]
pub enum InjectionCmd {
    /// Posture score from live telemetry, ledger state, latest intercept.
    Status,
    /// Held messages, newest first (160-character previews).
    List {
        /// How many (default 20).
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<i64>,
    },
    /// One held message by id.
    Show {
        /// The entry id.
        id: String,
    },
    /// A cleaned copy of one entry, for a manual re-send.
    CleanCopy {
        /// The entry id.
        id: String,
    },
    /// Owner only: release an entry (its phrase stops quarantining on its own).
    Release {
        /// The entry id.
        id: String,
    },
    /// Owner only: delete an entry and its text.
    Delete {
        /// The entry id.
        id: String,
    },
    /// Run the simulation arena in memory (never touches live data).
    Simulate,
    /// Verify the hash-chained decision ledger.
    Verify,
}

/// `palisade closure …`
#[derive(Subcommand, Debug)]
pub enum ClosureCmd {
    /// Turn and candidate counts, the last judgment, paths.
    Status,
    /// The newest N turn judgments (default 10).
    Recent {
        /// How many.
        #[arg(allow_negative_numbers = true)]
        n: Option<i64>,
    },
    /// The latest turn judgment.
    Last,
    /// Where the trail is written.
    Path,
    /// Pending review candidates (default 20) and the overdue count.
    Pending {
        /// How many.
        #[arg(allow_negative_numbers = true)]
        n: Option<i64>,
    },
    /// Counts by judgment, status and classification.
    Report,
    /// Promotion: buckets (--dry-run), or the seed's opt-in promotion of one
    /// candidate (--apply --candidate ID): rejections, merges and
    /// confirmations go to the candidate ledger, a low-risk user/memory
    /// candidate is appended to Hermes' memories/USER.md or MEMORY.md.
    Promote {
        /// Show what would happen; writes nothing.
        #[arg(long, conflicts_with = "apply")]
        dry_run: bool,
        /// Apply the decision for --candidate (owner only).
        #[arg(long, requires = "candidate")]
        apply: bool,
        /// Only this candidate.
        #[arg(long)]
        candidate: Option<String>,
    },
    /// Delete turn and candidate rows.
    Purge(PurgeArgs),
}

fn purge_args(p: &PurgeArgs) -> Value {
    let mut v = json!({});
    if let Some(d) = p.older_than {
        v["older_than"] = json!(d);
    }
    if p.all {
        v["all"] = json!(true);
    }
    v
}

/// Run one guard command; prints the result and returns the exit code
/// (0 ok, 2 bad arguments or an unreadable store).
pub fn run(command: GuardCommand) -> ExitCode {
    let (guard, name, args, opts) = match command {
        GuardCommand::Provenance { cmd, opts } => {
            let (name, args) = match cmd {
                ProvenanceCmd::Status => ("status", json!({})),
                ProvenanceCmd::Report { days } => ("report", json!({ "days": days })),
                ProvenanceCmd::Log { limit, verdict } => {
                    ("log", json!({ "limit": limit, "verdict": verdict }))
                }
                ProvenanceCmd::Check { text, session } => {
                    ("check", json!({ "text": text, "session": session }))
                }
                ProvenanceCmd::Purge(p) => ("purge", purge_args(&p)),
            };
            (GuardName::Provenance, name, args, opts)
        }
        GuardCommand::Egress { cmd, opts } => {
            let (name, args) = match cmd {
                EgressCmd::Status => ("status", json!({})),
                EgressCmd::Report => ("report", json!({})),
                EgressCmd::Check { text } => ("check", json!({ "text": text })),
                EgressCmd::Purge(p) => ("purge", purge_args(&p)),
            };
            (GuardName::Egress, name, args, opts)
        }
        GuardCommand::Injection { cmd, opts } => {
            let (name, args) = match cmd {
                InjectionCmd::Status => ("status", json!({})),
                InjectionCmd::List { limit } => ("list", json!({ "limit": limit })),
                InjectionCmd::Show { id } => ("show", json!({ "id": id })),
                InjectionCmd::CleanCopy { id } => ("clean_copy", json!({ "id": id })),
                InjectionCmd::Release { id } => ("release", json!({ "id": id })),
                InjectionCmd::Delete { id } => ("delete", json!({ "id": id })),
                InjectionCmd::Simulate => ("simulate", json!({})),
                InjectionCmd::Verify => ("verify", json!({})),
            };
            (GuardName::Injection, name, args, opts)
        }
        GuardCommand::Closure { cmd, opts } => {
            let (name, args) = match cmd {
                ClosureCmd::Status => ("status", json!({})),
                ClosureCmd::Recent { n } => ("recent", json!({ "n": n })),
                ClosureCmd::Last => ("last", json!({})),
                ClosureCmd::Path => ("path", json!({})),
                ClosureCmd::Pending { n } => ("pending", json!({ "n": n })),
                ClosureCmd::Report => ("report", json!({})),
                ClosureCmd::Promote {
                    dry_run,
                    apply,
                    candidate,
                } => (
                    "promote",
                    json!({ "dry_run": dry_run, "apply": apply, "candidate": candidate }),
                ),
                ClosureCmd::Purge(p) => ("purge", purge_args(&p)),
            };
            (GuardName::Closure, name, args, opts)
        }
    };
    let env = Env::from_process();
    let home = opts.home.clone().unwrap_or_else(|| env.hermes_home());
    // `simulate` runs in memory and `check` is a dry run; every other
    // command reads (or writes) the profile's stores, and must not create
    // them under a mistyped path and report a clean posture.
    if !matches!(name, "simulate" | "check") {
        if let Err(message) = require_home(&home) {
            eprintln!("palisade {guard} {}: {message}", name.replace('_', "-"));
            return ExitCode::from(2);
        }
    }
    let plugin = Plugin::new(guard, Host::default(), env);
    let out: Value = serde_json::from_str(&plugin.command(&home, name, &args.to_string()))
        .unwrap_or_else(|e| json!({"ok": false, "error": format!("bad command output: {e}")}));
    let ok = out["ok"] == true;
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if opts.json {
        let _ = writeln!(w, "{out}");
    } else if ok || out.get("result").is_some() {
        // A failed verification still shows what it checked.
        let _ = w.write_all(render::outline(&out["result"]).as_bytes());
    }
    if !ok {
        eprintln!(
            "palisade {guard} {}: {}",
            name.replace('_', "-"),
            out["error"].as_str().unwrap_or("failed")
        );
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// `Err("no Hermes home at …")` when `home` is not an existing directory.
pub fn require_home(home: &std::path::Path) -> Result<(), String> {
    if home.is_dir() {
        Ok(())
    } else {
        Err(format!(
            "no Hermes home at {} (pass --home DIR or set HERMES_HOME); nothing was read or created",
            home.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct T {
        #[command(subcommand)]
        g: GuardCommand,
    }

    fn run_json(args: &[&str]) -> Value {
        let t = T::try_parse_from(args).unwrap();
        let GuardCommand::Provenance { cmd, .. } = t.g else {
            panic!("not provenance")
        };
        match cmd {
            ProvenanceCmd::Log { limit, .. } => json!({ "limit": limit }),
            _ => json!({}),
        }
    }

    #[test]
    fn negative_counts_reach_the_library() {
        assert_eq!(
            run_json(&["t", "provenance", "log", "--limit", "-3"])["limit"],
            -3
        );
        // Nothing is read or written for a rejected argument.
        let home = std::env::temp_dir().join("palisade-cli-test-nonexistent");
        let p = Plugin::new(GuardName::Provenance, Host::default(), Env::default());
        let out: Value = serde_json::from_str(&p.command(&home, "log", r#"{"limit":-3}"#)).unwrap();
        assert_eq!(out["ok"], false);
        assert!(out["error"].as_str().unwrap().contains("zero or more"));
    }

    #[test]
    fn global_flags_after_the_subcommand() {
        let t =
            T::try_parse_from(["t", "closure", "recent", "5", "--home", "/x", "--json"]).unwrap();
        let GuardCommand::Closure { opts, .. } = t.g else {
            panic!("not closure")
        };
        assert!(opts.json);
        assert_eq!(opts.home, Some(PathBuf::from("/x")));
    }
}
