//! The simulation arena: the seed's canonical vectors as data, run in memory.
//!
//! 21 message vectors (A01–A14 attacks, S01–S07 near-misses) and 7
//! tool-argument vectors (A15, A16, S08, T01–T04), in `data/arena.json`.
//! Running the arena touches no telemetry: it uses a fresh session and an
//! empty pattern store.

use crate::{PatternStore, Scanner, SessionState, Tier, ToolCall, ToolPolicy};
use serde::{Deserialize, Serialize};

/// The built-in vectors.
const ARENA: &str = include_str!("../data/arena.json");

/// One arena vector.
///
/// ```
/// let v = palisade_injection::ArenaVector::builtin();
/// assert_eq!(v.len(), 28);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaVector {
    /// Id (`A01`, `S03`, `T02` …).
    pub id: String,
    /// What the vector exercises.
    pub name: String,
    /// `message` or `tool`.
    pub kind: String,
    /// The message text (message vectors).
    #[serde(default)]
    pub text: String,
    /// The tool name (tool vectors).
    #[serde(default)]
    pub tool: String,
    /// The tool arguments (tool vectors).
    #[serde(default)]
    pub args: serde_json::Value,
    /// The tier the guard must give.
    pub expected: Tier,
}

impl ArenaVector {
    /// The built-in 28 vectors.
    ///
    /// ```
    /// let v = palisade_injection::ArenaVector::builtin();
    /// assert!(v.iter().any(|x| x.id == "A01"));
    /// ```
    pub fn builtin() -> Vec<ArenaVector> {
        // Invariant: compiled-in data, parsed by the crate's tests.
        #[allow(clippy::expect_used)] // built-in data is validated by tests
        serde_json::from_str(ARENA).expect("arena data is valid")
    }
}

/// The outcome of one vector.
///
/// ```
/// let r = palisade_injection::run_arena(&palisade_injection::Scanner::new());
/// assert!(r.outcomes.iter().all(|o| o.passed));
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize)]
pub struct VectorOutcome {
    /// The vector's id.
    pub id: String,
    /// Expected tier.
    pub expected: Tier,
    /// Tier the guard gave.
    pub actual: Tier,
    /// Whether they agree.
    pub passed: bool,
}

/// The arena's result, kept apart from the live posture.
///
/// ```
/// let r = palisade_injection::run_arena(&palisade_injection::Scanner::new());
/// assert_eq!((r.message_passed, r.message_total), (21, 21));
/// assert_eq!((r.tool_passed, r.tool_total), (7, 7));
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq, Serialize)]
pub struct ArenaResult {
    /// Every vector's outcome.
    pub outcomes: Vec<VectorOutcome>,
    /// Message vectors that met their tier.
    pub message_passed: usize,
    /// Message vectors run.
    pub message_total: usize,
    /// Tool vectors that met their tier.
    pub tool_passed: usize,
    /// Tool vectors run.
    pub tool_total: usize,
}

/// Run the built-in arena in memory.
///
/// ```
/// let r = palisade_injection::run_arena(&palisade_injection::Scanner::new());
/// assert_eq!(r.outcomes.len(), 28);
/// ```
pub fn run_arena(scanner: &Scanner) -> ArenaResult {
    let mut res = ArenaResult::default();
    let store = PatternStore::new();
    let policy = ToolPolicy::default();
    for (i, v) in ArenaVector::builtin().into_iter().enumerate() {
        let actual = if v.kind == "tool" {
            let mut session = SessionState::new();
            let call = ToolCall::new(v.tool.clone(), v.args.clone());
            // spaced far apart so no vector is a replay of another
            scanner
                .check_tool_call(&call, &mut session, &policy, i as u64 * 1_000_000)
                .tier
        } else {
            scanner.scan_with(&v.text, &store).tier
        };
        let passed = actual == v.expected;
        if v.kind == "tool" {
            res.tool_total += 1;
            res.tool_passed += usize::from(passed);
        } else {
            res.message_total += 1;
            res.message_passed += usize::from(passed);
        }
        res.outcomes.push(VectorOutcome {
            id: v.id,
            expected: v.expected,
            actual,
            passed,
        });
    }
    res
}
