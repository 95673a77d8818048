//! Rendering a scan for people, and the `--fail-on` threshold.

use super::{Outcome, ScanFinding};
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
        outcome.findings.len()
    );
    for severity in [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
        Severity::Info,
    ] {
        let group: Vec<&ScanFinding> = outcome
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n{} ({})",
            severity.as_str().to_uppercase(),
            group.len()
        );
        for f in group {
            let _ = writeln!(
                out,
                "  line {:<5} {:<10} {:<22} {}",
                f.line, f.guard, f.kind, f.preview
            );
            let _ = writeln!(out, "             {} — {}", f.rule, f.why);
        }
    }
    if !outcome.errors.is_empty() {
        let _ = writeln!(out, "\nunreadable lines ({}):", outcome.errors.len());
        for e in &outcome.errors {
            let _ = writeln!(out, "  line {}: {}", e.line, e.error);
        }
    }
    if outcome.findings.is_empty() {
        let _ = writeln!(out, "\nnothing found");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
            guard: "egress",
            kind: "secret".into(),
            rule: "egress-guard:EG-SECRET-001".into(),
            severity,
            preview: "AKIA…****".into(),
            why: "an AWS access key id".into(),
        };
        let outcome = Outcome {
            findings: vec![mk(3, Severity::Medium), mk(1, Severity::Critical)],
            messages: 4,
            turns: 1,
            errors: vec![],
        };
        let text = render_human("s.jsonl", &outcome);
        let crit = text.find("CRITICAL").unwrap();
        let med = text.find("MEDIUM").unwrap();
        assert!(crit < med);
        assert!(text.contains("line 1"));
        assert!(!text.contains("nothing found"));
    }
}
