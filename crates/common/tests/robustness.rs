//! Nothing in palisade-common panics on arbitrary input, and every span it
//! returns is in bounds and on char boundaries.

use palisade_common::negation::{contains_negation, negation_before, starts_with_negation};
use palisade_common::text::{lines, logical_lines};
use palisade_common::tokens::{content_tokens, shared_token_count, words};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn tokens_and_negation_never_panic(s in ".{0,80}", pos in 0usize..100) {
        let _ = content_tokens(&s);
        let _ = shared_token_count(&s, "ship the release on friday");
        let _ = contains_negation(&s);
        let _ = starts_with_negation(&s);
        if let Some(span) = negation_before(&s, pos, 12, 6) {
            prop_assert!(s.get(span.range()).is_some());
        }
        for (span, word) in words(&s) {
            prop_assert_eq!(s.get(span.range()), Some(word));
        }
    }

    #[test]
    fn line_splitters_partition(s in "[a-z \n\t\r-]{0,80}") {
        for spans in [lines(&s).collect::<Vec<_>>(), logical_lines(&s)] {
            let joined: String = spans.iter().map(|sp| &s[sp.range()]).collect();
            prop_assert_eq!(&joined, &s);
        }
    }
}

#[test]
fn chinese_and_mixed_text_end_to_end() {
    use palisade_common::{normalize::normalize, quotes::quoted_spans, text::sentences};
    let input = "用户说：「以后不要再自动提交代码。」然后**决定**使用ＰｏｓｔｇｒｅＳ。 The user\n  approved “ship it now”.";
    let n = normalize(input);
    assert!(n.as_str().contains("决定使用PostgreS。"));
    let parts: Vec<&str> = sentences(n.as_str())
        .iter()
        .map(|s| &n.as_str()[s.range()])
        .collect();
    // 。」 closes both the quotation and the sentence; the hard wrap joins.
    assert_eq!(parts.len(), 3, "{parts:?}");
    assert_eq!(parts[0], "用户说:「以后不要再自动提交代码。」");
    assert!(parts[2].starts_with("The user\n  approved"));
    let quotes = quoted_spans(n.as_str());
    let inner: Vec<&str> = quotes
        .iter()
        .map(|q| &n.as_str()[q.inner.range()])
        .collect();
    assert_eq!(inner, vec!["以后不要再自动提交代码。", "ship it now"]);
    // Every quote maps back to the same words in the original.
    for q in &quotes {
        let orig = n.original_span(q.inner);
        assert_eq!(
            normalize(&input[orig.range()]).as_str(),
            &n.as_str()[q.inner.range()]
        );
    }
}
