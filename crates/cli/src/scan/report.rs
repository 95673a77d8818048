//! Rendering a scan for people, and the `--fail-on` threshold.

use super::{severity_index, Outcome, SEVERITIES};
use palisade_common::Severity;
use std::fmt::Write as _;

/// The least severity that makes `scan` exit with 1.
#[derive(Clone, Copy, Debug, Eq, PartialEq, clap::ValueEnum)]
pub enum FailOn {
    /// Any finding.
    Info,
    /// Low and above.
    Low,
    /// Medium and above.
    Medium,
    /// High and above (the default).
    High,
    /// Critical only.
    Critical,
    /// Never fail on findings (still exit 2 on unreadable input).
    Never,
}

impl FailOn {
    /// Whether a finding of `severity` trips the threshold.
    pub fn trips(self, severity: Severity) -> bool {
        let least = match self {
            FailOn::Info => Severity::Info,
            FailOn::Low => Severity::Low,
            FailOn::Medium => Severity::Medium,
            FailOn::High => Severity::High,
            FailOn::Critical => Severity::Critical,
            FailOn::Never => return false,
        };
        severity >= least
    }
}

/// The human-readable report: findings grouped by severity (most severe
/// first), each with its line, guard, rule, masked preview and why.
pub fn render_human(source: &str, outcome: &Outcome) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "palisade scan {source}: {} messages, {} turns, {} findings",
        outcome.messages,
        outcome.turns,
        outcome.finding_count()
    );
    for severity in SEVERITIES {
        let total = outcome.totals[severity_index(severity)];
        if total == 0 {
            continue;
        }
        let _ = writeln!(out, "\n{} ({total})", severity.as_str().to_uppercase());
        let group = outcome.findings.iter().filter(|f| f.severity == severity);
        let mut shown = 0;
        for f in group {
            shown += 1;
            let _ = writeln!(
                out,
                "  line {:<5} {:<10} {:<22} {}",
                f.line, f.guard, f.kind, f.preview
            );
            let _ = writeln!(out, "             {} — {}", f.rule, f.why);
        }
        if total > shown {
            let _ = writeln!(
                out,
                "  … and {} more {} findings (--json lists every one)",
                total - shown,
                severity.as_str()
            );
        }
    }
    if outcome.error_count > 0 {
        let _ = writeln!(out, "\nunreadable lines ({}):", outcome.error_count);
        for e in &outcome.errors {
            let _ = writeln!(out, "  line {}: {}", e.line, e.error);
        }
        if outcome.error_count > outcome.errors.len() {
            let _ = writeln!(
                out,
                "  … and {} more",
                outcome.error_count - outcome.errors.len()
            );
        }
    }
    for note in &outcome.notes {
        let _ = writeln!(out, "\nnote: {note}");
    }
    if outcome.finding_count() == 0 && outcome.error_count > 0 {
        let _ = writeln!(
            out,
            "\nnothing found in the lines that could be read; {} could not be",
            outcome.error_count
        );
    } else if outcome.finding_count() == 0 {
        let _ = writeln!(out, "\nnothing found");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::ScanFinding;

    #[test]
    fn thresholds() {
        assert!(FailOn::High.trips(Severity::Critical));
        assert!(FailOn::High.trips(Severity::High));
        assert!(!FailOn::High.trips(Severity::Medium));
        assert!(!FailOn::Never.trips(Severity::Critical));
        assert!(FailOn::Info.trips(Severity::Info));
    }

    #[test]
    fn report_groups_by_severity() {
        let mk = |line, severity| ScanFinding {
            line,
            guard: "egress".into(),
            kind: "secret".into(),
            rule: "egress-guard:EG-SECRET-001".into(),
            severity,
            preview: "AKIA…****".into(),
            why: "an AWS access key id".into(),
        };
        let mut outcome = Outcome {
            messages: 4,
            turns: 1,
            ..Outcome::default()
        };
        outcome.record(mk(3, Severity::Medium));
        outcome.record(mk(1, Severity::Critical));
        outcome.totals[severity_index(Severity::Medium)] += 2; // two more, not kept
        let text = render_human("s.jsonl", &outcome);
        let crit = text.find("CRITICAL").unwrap();
        let med = text.find("MEDIUM").unwrap();
        assert!(crit < med);
        assert!(text.contains("line 1"));
        assert!(text.contains("MEDIUM (3)"));
        assert!(text.contains("… and 2 more medium findings"));
        assert!(!text.contains("nothing found"));
    }
}
