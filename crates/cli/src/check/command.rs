//! `palisade check command --jsonl`.

use super::{LineChecker, NotBuilt};

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(NotBuilt("command"))
}
