//! Property tests: obfuscation keeps a claim a claim, verdicts are
//! deterministic, nothing panics on arbitrary input.

use palisade_provenance::capture::clean_capture;
use palisade_provenance::gate::{Gate, GateConfig};
use palisade_provenance::replay::{replay, Stored};
use palisade_provenance::{ClaimDetector, SaidIndex, Scope};
use proptest::prelude::*;
use std::sync::OnceLock;

fn detector() -> &'static ClaimDetector {
    static D: OnceLock<ClaimDetector> = OnceLock::new();
    D.get_or_init(|| ClaimDetector::new(Scope::Decisions))
}

fn gate() -> &'static Gate {
    static G: OnceLock<Gate> = OnceLock::new();
    G.get_or_init(|| Gate::new(GateConfig::default()))
}

const CLAIMS: &[&str] = &[
    "User decided to ship on Friday.",
    "The user approved the migration plan.",
    "User wants all commit messages in Conventional Commits format.",
    "The user and I agreed to pin numpy below 2.0.",
    "The user said no to offering lifetime deals.",
    "Dana (the user) picked FastAPI.",
    "The owner vetoed the rewrite in Go.",
    "The migration plan was approved by the user on Monday.",
    "Per the user, all dates are stored in UTC.",
    "用户决定使用Postgres。",
    "用户说以后不要再自动提交代码。",
    "负责人已经同意上线。",
    "Dana picked FastAPI for the API service.",
    "The user reviewed the options and picked Postgres.",
    "We merged the branch after the user approved it.",
    "用户看了两个方案后选择了方案B。",
    "用户同意后，我们已经把代码合并了。",
];

const INVISIBLE: &[char] = &[
    '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{00AD}', '\u{2062}', '\u{FE0F}',
];

/// Full-width form of an ASCII letter or digit.
fn full_width(c: char) -> char {
    if c.is_ascii_alphanumeric() {
        char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c)
    } else {
        c
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn invisible_characters_keep_a_claim(idx in 0..CLAIMS.len(), seed in proptest::collection::vec((0usize..64, 0..INVISIBLE.len()), 1..6)) {
        let base = CLAIMS[idx];
        let mut chars: Vec<char> = base.chars().collect();
        for (pos, which) in seed {
            let at = pos % (chars.len() + 1);
            chars.insert(at, INVISIBLE[which]);
        }
        let text: String = chars.into_iter().collect();
        let found = detector().detect(&text);
        prop_assert!(!found.is_empty(), "lost claim: {:?}", text);
        for c in &found {
            prop_assert!(text.is_char_boundary(c.span.start) && text.is_char_boundary(c.span.end));
            prop_assert_eq!(&text[c.span.range()], c.text.as_str());
        }
    }

    #[test]
    fn full_width_letters_keep_a_claim(idx in 0..CLAIMS.len(), mask in proptest::collection::vec(any::<bool>(), 64)) {
        let text: String = CLAIMS[idx]
            .chars()
            .enumerate()
            .map(|(i, c)| if mask[i % mask.len()] { full_width(c) } else { c })
            .collect();
        prop_assert!(!detector().detect(&text).is_empty(), "lost claim: {:?}", text);
    }

    #[test]
    fn detection_is_deterministic_and_total(text in any::<String>()) {
        let a = detector().detect(&text);
        let b = detector().detect(&text);
        prop_assert_eq!(&a, &b);
        for c in &a {
            prop_assert!(c.span.end <= text.len());
        }
    }

    #[test]
    fn verdicts_are_deterministic_and_total(text in "(User decided|the user approved|用户同意|\"|“|”|「|」| |[a-z]{1,6}|\\.|\n){0,40}", said in proptest::collection::vec(any::<String>(), 0..4)) {
        let mut index = SaidIndex::new();
        for m in &said {
            index.push("s", None, "u", m);
        }
        let a = gate().check(&text, &index, "s", Some(&text));
        let b = gate().check(&text, &index, "s", None);
        let c = gate().check(&text, &index, "s", None);
        prop_assert_eq!(b, c);
        let _ = a;
    }

    #[test]
    fn replay_and_capture_are_total(raw in any::<String>(), content in any::<String>()) {
        let stored = Stored::default();
        let _ = replay("memory", &serde_json::Value::String(raw.clone()), &stored);
        let args = serde_json::json!({"action": "patch", "name": "x", "old_string": raw, "new_string": content});
        let _ = replay("skill_manage", &args, &stored);
        let _ = clean_capture(&raw, None);
    }
}

#[test]
fn public_types_are_send_and_sync() {
    fn assert<T: Send + Sync>() {}
    assert::<ClaimDetector>();
    assert::<Gate>();
    assert::<SaidIndex>();
    assert::<Stored>();
}
