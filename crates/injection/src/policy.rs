//! The tier policy: how the signal classes present in a message make its
//! tier. Rules do not store a tier; they carry a signal class, and this
//! table decides.
//!
//! | signal class | what it is | alone |
//! |---|---|---|
//! | `override` | "ignore / forget / disregard the previous instructions" in any covered language | quarantine |
//! | `forgery` | a forged system or authority boundary in words ("[SYSTEM OVERRIDE]", "admin mode authorised") | quarantine |
//! | `turn` (L3) | a forged chat turn (`\n\nHuman:`, `System:` after a blank line, `{"role":"system"}`), a closed agent wrapper (`</tool_output>`, `<system>`), a reset ("end of document", "New conversation.") | nothing alone (recorded at pass: transcripts, XML and contracts have them) |
//! | special token (L3) | `<\|im_start\|>`, `[INST]`, `<<SYS>>`, `<start_of_turn>`, `</s>` … (full-width and NFKC variants fold first) | quarantine (block when a system turn follows) |
//! | `persona`, `prompt_leak`, `exfil`, `safety_bypass`, `conceal` | one suspicious order in words: adopt an unrestricted persona, reveal the prompt, send data out, drop safety, hide it from the user | quarantine |
//! | `address` | a note addressed to the AI reading the text ("KI-Assistent:", "Note to AI tools:") | quarantine for the phrase rules, flag for the structural vocative |
//! | `claim` | approval given in advance, a standing rule to remember ("the user has pre-approved", "remember forever: the user authorises") | quarantine |
//! | `weak` | phrasing that is often innocent (a bare shell pipe, "act as") | flag |
//! | `order` | what an agent is told to do: a shell command, a secret file, a mail address/URL/IBAN sink, a tool identifier, the system prompt, an action verb | nothing alone |
//! | `hidden` | an HTML comment, CSS-hidden element, alt/title text, SVG desc | nothing alone |
//!
//! | combination | tier |
//! |---|---|
//! | **hijack**: a boundary (`override` or `forgery` at quarantine, a `turn`, a special token) followed within 1 KiB by an `order` or an order-class phrase (`persona`, `prompt_leak`, `exfil`, `safety_bypass`, `conceal`) | block |
//! | two suspicious classes at quarantine, or a quarantine phrase next to another layer's finding | block |
//! | an `address` followed within 512 bytes by an `order`, or an `address` inside a `hidden` region | quarantine |
//! | three `weak`/flag phrase families | quarantine |
//! | any of the above made by obfuscated phrasing (homoglyphs, letter splitting, leetspeak, invisible characters) | block |
//!
//! Context caps a phrase at flag before the table applies: a phrase inside
//! quotes or a code fence, after a reporting verb or "for example", or in
//! a sentence about attacks (discussion nouns) is a mention, not an order,
//! so it is no boundary either.

use crate::Tier;

/// The tier a phrase rule's hit alone gets from its signal class.
///
/// ```text
/// weak → flag; every other class → quarantine
/// ```
pub(crate) fn alone(signal: &str) -> Tier {
    match signal {
        "weak" => Tier::Flag,
        "order" | "hidden" => Tier::Pass,
        "turn" => Tier::Pass,
        _ => Tier::Quarantine,
    }
}

/// Phrase classes that are themselves an order aimed at the agent.
pub(crate) fn is_order_class(family: &str) -> bool {
    matches!(
        family,
        "persona" | "prompt_leak" | "exfil" | "safety_bypass" | "conceal" | "compliance"
    )
}

/// How far after a boundary an order makes a hijack.
pub(crate) const HIJACK_WINDOW: usize = 1024;
/// How far after an address an order makes a held message.
pub(crate) const ADDRESS_WINDOW: usize = 512;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        assert_eq!(alone("weak"), Tier::Flag);
        assert_eq!(alone("override"), Tier::Quarantine);
        assert_eq!(alone("order"), Tier::Pass);
        assert_eq!(alone("turn"), Tier::Pass);
        assert!(is_order_class("prompt_leak") && !is_order_class("override"));
    }
}
