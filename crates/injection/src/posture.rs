//! The posture score: one number, 0–100, from live telemetry counts.
//!
//! `score = base − pending − degraded − false_positive`, with
//! `base = 35 (pre_llm_call) + 25 (pre_tool_call) + 20 (fail-closed) + 10
//! (redaction) + 10 (ledger verified)`, `pending = min(held × 5, 25)`,
//! `degraded = degraded layers × 15`, `false_positive = round(min(15,
//! released / interceptions × 30))`, floored at 0. Correct blocks never lower it.

/// The telemetry the posture score reads. The host counts; this crate scores.
///
/// ```
/// let t = palisade_injection::Telemetry::fresh_install();
/// assert_eq!(palisade_injection::posture_score(&t), 100);
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash)]
pub struct Telemetry {
    /// The inbound-message hook is active.
    pub pre_llm_call: bool,
    /// The tool-call hook is active.
    pub pre_tool_call: bool,
    /// Errors fail closed.
    pub fail_closed: bool,
    /// Secrets are redacted before persistence.
    pub redaction: bool,
    /// The decision ledger's hash chain verifies (an empty ledger does).
    pub ledger_verified: bool,
    /// Messages held in quarantine, pending review.
    pub held: u32,
    /// Layers currently degraded.
    pub degraded_layers: u32,
    /// Held messages a human released (false positives).
    pub released: u32,
    /// All interceptions (block + quarantine + flag).
    pub interceptions: u32,
}

impl Telemetry {
    /// Everything on, nothing counted: a fresh install.
    ///
    /// ```
    /// assert!(palisade_injection::Telemetry::fresh_install().fail_closed);
    /// ```
    pub fn fresh_install() -> Self {
        Telemetry {
            pre_llm_call: true,
            pre_tool_call: true,
            fail_closed: true,
            redaction: true,
            ledger_verified: true,
            ..Telemetry::default()
        }
    }
}

/// The posture score for `t` (0–100).
///
/// ```
/// use palisade_injection::{posture_score, Telemetry};
/// let t = Telemetry { held: 1, interceptions: 6, ..Telemetry::fresh_install() };
/// assert_eq!(posture_score(&t), 95);
/// ```
pub fn posture_score(t: &Telemetry) -> u32 {
    posture_breakdown(t).score
}

/// The score and the parts it is made of, for a page or a report that
/// explains it.
///
/// ```
/// use palisade_injection::{posture_breakdown, Telemetry};
/// let b = posture_breakdown(&Telemetry { held: 2, ..Telemetry::fresh_install() });
/// assert_eq!(b.score, 90);
/// assert_eq!(b.pending, 10);
/// assert_eq!(b.base.iter().map(|c| c.earned).sum::<u32>(), 100);
/// ```
pub fn posture_breakdown(t: &Telemetry) -> PostureBreakdown {
    let component = |name, points, on: bool| PostureComponent {
        name,
        earned: if on { points } else { 0 },
        possible: points,
    };
    let base = vec![
        component("pre_llm_call", 35, t.pre_llm_call),
        component("pre_tool_call", 25, t.pre_tool_call),
        component("fail_closed", 20, t.fail_closed),
        component("redaction", 10, t.redaction),
        component("ledger_verified", 10, t.ledger_verified),
    ];
    let pending = t.held.saturating_mul(5).min(25);
    let degraded = t.degraded_layers.saturating_mul(15);
    let false_positive = if t.interceptions == 0 {
        0
    } else {
        let share = f64::from(t.released) / f64::from(t.interceptions);
        // In 0..=15 after min and round, so the cast cannot truncate.
        (share * 30.0).min(15.0).round() as u32
    };
    let earned: u32 = base.iter().map(|c| c.earned).sum();
    let score = earned
        .saturating_sub(pending)
        .saturating_sub(degraded)
        .saturating_sub(false_positive);
    PostureBreakdown {
        score,
        base,
        pending,
        degraded,
        false_positive,
    }
}

/// What [`posture_breakdown`] returns.
#[derive(Clone, Debug, Eq, PartialEq, serde::Serialize)]
pub struct PostureBreakdown {
    /// The score, 0–100.
    pub score: u32,
    /// The base components in the seed's order.
    pub base: Vec<PostureComponent>,
    /// Points taken for held entries (5 each, at most 25).
    pub pending: u32,
    /// Points taken for degraded layers (15 each).
    pub degraded: u32,
    /// Points taken for released entries (false positives), at most 15.
    pub false_positive: u32,
}

/// One base component of the posture score.
#[derive(Clone, Debug, Eq, PartialEq, serde::Serialize)]
pub struct PostureComponent {
    /// The seed's name for it.
    pub name: &'static str,
    /// Points earned.
    pub earned: u32,
    /// Points possible.
    pub possible: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_worked_examples() {
        let f = Telemetry::fresh_install();
        assert_eq!(posture_score(&f), 100);
        assert_eq!(
            posture_score(&Telemetry {
                held: 1,
                interceptions: 6,
                ..f
            }),
            95
        );
        assert_eq!(
            posture_score(&Telemetry {
                held: 5,
                interceptions: 5,
                ..f
            }),
            75
        );
        assert_eq!(posture_score(&Telemetry { held: 9, ..f }), 75);
        assert_eq!(
            posture_score(&Telemetry {
                degraded_layers: 1,
                ..f
            }),
            85
        );
        assert_eq!(
            posture_score(&Telemetry {
                released: 1,
                interceptions: 1,
                ..f
            }),
            85
        );
        assert_eq!(
            posture_score(&Telemetry {
                degraded_layers: 9,
                held: 9,
                ..f
            }),
            0
        );
        // correct blocks never lower the score
        assert_eq!(
            posture_score(&Telemetry {
                interceptions: 500,
                ..f
            }),
            100
        );
    }
}
