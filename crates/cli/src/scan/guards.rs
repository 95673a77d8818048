//! The four guards, wired to session events.

use super::session::{Message, ToolCall};
use super::{ScanFinding, Turn};

/// Compiled guard engines, built once per scan.
pub struct Guards {}

impl Guards {
    /// Build every guard engine.
    pub fn new() -> Self {
        Guards {}
    }

    /// Guards that are not wired into the scan in this build.
    pub fn not_built() -> Vec<&'static str> {
        vec!["egress", "injection", "provenance", "closure"]
    }

    /// A user message: injection scan; remember what the user said.
    pub fn user_message(&mut self, _msg: &Message, _out: &mut Vec<ScanFinding>) {}

    /// An assistant message: the reply (egress) and its tool calls (egress,
    /// injection's tool-call guard, provenance).
    pub fn assistant_message(&mut self, _msg: &Message, _out: &mut Vec<ScanFinding>) {}

    /// A tool result: injection scan and secrets in results.
    pub fn tool_result(
        &mut self,
        _msg: &Message,
        _call: Option<&ToolCall>,
        _out: &mut Vec<ScanFinding>,
    ) {
    }

    /// A finished turn: the closure judgment.
    pub fn turn_end(&mut self, _turn: &Turn, _out: &mut Vec<ScanFinding>) {}
}
