use super::*;

fn single(rule: &SecretRule) -> SecretScanner {
    SecretScanner::new(vec![rule.spec.clone()]).expect("rule compiles alone")
}

#[test]
fn builtin_rules_compile() {
    let specs = builtin_specs().expect("built-in rule files parse");
    assert!(specs.len() >= 60, "only {} rules", specs.len());
    SecretScanner::new(specs).expect("built-in rules compile");
}

#[test]
fn every_rule_documents_itself() {
    for rule in SecretScanner::builtin().rules() {
        let s = rule.spec();
        assert!(!s.name.is_empty() && !s.description.is_empty(), "{}", s.id);
        assert!(!s.examples.is_empty(), "{} has no examples", s.id);
        assert!(
            !s.negative_examples.is_empty(),
            "{} has no negative examples",
            s.id
        );
    }
}

#[test]
fn every_example_matches_its_rule_and_the_full_set() {
    let full = SecretScanner::builtin();
    let mut failures = Vec::new();
    for rule in full.rules() {
        let alone = single(rule);
        for ex in &rule.spec().examples {
            let found = alone.scan(ex);
            if found.is_empty() {
                failures.push(format!("{}: example not matched: {ex:?}", rule.spec().id));
                continue;
            }
            for f in &found {
                let raw = &ex[f.span.range()];
                assert!(
                    !f.preview.contains(raw) || raw.len() < 5,
                    "{}",
                    rule.spec().id
                );
            }
            if full.scan(ex).is_empty() {
                failures.push(format!("{}: full set misses {ex:?}", rule.spec().id));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_negative_example_matches_its_rule() {
    let mut failures = Vec::new();
    for rule in SecretScanner::builtin().rules() {
        let alone = single(rule);
        for neg in &rule.spec().negative_examples {
            let found = alone.scan(neg);
            if !found.is_empty() {
                failures.push(format!(
                    "{}: negative example matched: {neg:?} -> {:?}",
                    rule.spec().id,
                    found
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ids_are_unique_and_well_formed() {
    let mut specs = builtin_specs().unwrap();
    let n = specs.len();
    specs.sort_by(|a, b| a.id.cmp(&b.id));
    specs.dedup_by(|a, b| a.id == b.id);
    assert_eq!(specs.len(), n);
    let mut bad = builtin_specs().unwrap();
    bad[0].id = "secret.aws".into();
    assert_eq!(SecretScanner::new(bad).unwrap_err().kind(), ErrorKind::Rule);
}

fn github_token(prefix: &str, body: &str) -> String {
    let mut n = crc32fast::hash(body.as_bytes());
    let mut tail = [b'0'; 6];
    for slot in tail.iter_mut().rev() {
        *slot = filters_base62(n % 62);
        n /= 62;
    }
    format!("{prefix}{body}{}", String::from_utf8_lossy(&tail))
}

fn filters_base62(d: u32) -> u8 {
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[d as usize]
}

#[test]
fn github_checksum_marks_findings_verified() {
    let tok = github_token("ghp_", "k7QpZ2mLx9VtR4wNc8BdF1sHj6YgUe");
    let f = SecretScanner::builtin().scan(&format!("token: {tok}"));
    assert_eq!(f.len(), 1);
    assert!(f[0].verified);
    let npm = github_token("npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5");
    let f = SecretScanner::builtin().scan(&format!("//registry.npmjs.org/:_authToken={npm}"));
    assert_eq!(f.len(), 1);
    assert!(f[0].verified);
    // Same shape, checksum broken, still random-looking: reported, unverified.
    let broken = format!("{}AAAAAB", &tok[..34]);
    let f = SecretScanner::builtin().scan(&broken);
    assert_eq!(f.len(), 1);
    assert!(!f[0].verified);
}

#[test]
fn hermes_markers_and_masked_values_are_left_alone() {
    let s = SecretScanner::builtin();
    assert!(s.scan("aws_access_key_id=«redacted:AKIA…»").is_empty());
    assert!(s.scan("password=****").is_empty());
    assert!(s.scan("GITHUB_TOKEN=ghp_…****").is_empty());
    assert!(s.scan("postgres://app:****@db/app").is_empty());
}

#[test]
fn types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<SecretScanner>();
    assert_send_sync::<SecretFinding>();
    assert_send_sync::<Redacted>();
}

/// One case of `testdata/secrets*.jsonl`.
#[derive(serde::Deserialize)]
struct Case {
    name: String,
    input: String,
    /// The exact secrets that must be masked, in order.
    expected: Vec<String>,
    #[allow(dead_code)] // documentation for humans reading the corpus
    note: String,
}

fn run_corpus(file: &str, text: &str) {
    let scanner = SecretScanner::builtin();
    let mut failures = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{file}:{}: bad case: {e}", i + 1));
        let found: Vec<&str> = scanner
            .scan(&case.input)
            .iter()
            .map(|f| &case.input[f.span.range()])
            .collect();
        if found != case.expected {
            failures.push(format!(
                "{file}:{} `{}`: expected {:?}, found {:?}\n  repro: SecretScanner::builtin().scan({:?})",
                i + 1,
                case.name,
                case.expected,
                found,
                case.input
            ));
        }
        let redacted = scanner.redact(&case.input);
        if case
            .expected
            .iter()
            .any(|secret| redacted.text.contains(secret.as_str()))
        {
            failures.push(format!("{}: raw secret survives redaction", case.name));
        }
        if !scanner.scan(&redacted.text).is_empty() {
            failures.push(format!(
                "{}: rescan of redacted text finds something",
                case.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The built-in scanner with no rule's required bytes: every region its
/// keywords select goes to the regex.
fn without_required_bytes() -> SecretScanner {
    let plain = SecretScanner::new(builtin_specs().expect("built-in rules parse"))
        .expect("built-in rules compile");
    for rule in &plain.rules {
        let _ = rule.required.set(None);
    }
    plain
}

/// Every text the crate holds: rule examples, negatives, both corpora.
fn every_test_text() -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for rule in SecretScanner::builtin().rules() {
        texts.extend(rule.spec().examples.iter().cloned());
        texts.extend(rule.spec().negative_examples.iter().cloned());
    }
    for corpus in [
        include_str!("../testdata/secrets.jsonl"),
        include_str!("../testdata/secrets_negative.jsonl"),
    ] {
        for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
            let case: Case = serde_json::from_str(line).expect("corpus case parses");
            texts.push(case.input);
        }
    }
    texts
}

#[test]
fn every_match_holds_its_rules_required_bytes() {
    let texts = every_test_text();
    let mut with_run = 0;
    for rule in SecretScanner::builtin().rules() {
        let Some(req) = required::Required::of_pattern(&ascii_boundaries(&rule.spec.pattern))
        else {
            continue;
        };
        with_run += 1;
        let regex = compile_pattern(&rule.spec.pattern).expect("rule compiles");
        for t in &texts {
            for start in (0..=t.len()).filter(|&i| t.is_char_boundary(i)) {
                let Some(m) = regex.find_at(t, start) else {
                    break;
                };
                assert!(
                    req.occurs_in(m.as_str().as_bytes()),
                    "{}: {:?} lacks {req:?}",
                    rule.spec.id,
                    m.as_str()
                );
                assert!(
                    !(req.single_line() && m.as_str().contains('\n')),
                    "{}: {:?} spans lines",
                    rule.spec.id,
                    m.as_str()
                );
            }
        }
    }
    // Most patterns imply a run; a derivation that found none would make
    // this test vacuous.
    assert!(with_run >= 100, "only {with_run} rules have a run");
}

#[test]
fn required_bytes_change_no_finding_on_the_test_texts() {
    let plain = without_required_bytes();
    let texts = every_test_text();
    for t in &texts {
        assert_eq!(SecretScanner::builtin().scan(t), plain.scan(t), "{t:?}");
    }
    // Several texts as the lines of one: stretches of lines that hold a
    // rule's bytes, between lines that do not.
    for group in texts.chunks(7) {
        let t = group.join("\n");
        assert_eq!(SecretScanner::builtin().scan(&t), plain.scan(&t), "{t:?}");
    }
}

#[test]
fn corpus_positive() {
    run_corpus("secrets.jsonl", include_str!("../testdata/secrets.jsonl"));
}

#[test]
fn corpus_negative() {
    run_corpus(
        "secrets_negative.jsonl",
        include_str!("../testdata/secrets_negative.jsonl"),
    );
}

mod props {
    use super::super::*;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    /// Text made of words, punctuation, assignments and credential-ish
    /// fragments, so rules actually fire.
    fn texty() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-z]{1,8}",
            Just(" ".to_string()),
            Just("\n".to_string()),
            Just("=".to_string()),
            Just(": ".to_string()),
            Just("\"".to_string()),
            Just("password=".to_string()),
            Just("token: ".to_string()),
            Just("Bearer ".to_string()),
            Just("https://u:".to_string()),
            Just("@h.example ".to_string()),
            Just("ghp_".to_string()),
            Just("AKIA".to_string()),
            Just("«redacted:".to_string()),
            Just("»".to_string()),
            Just("数据".to_string()),
            "[A-Za-z0-9]{16,40}",
        ];
        prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    /// Pieces of every rule's own examples, cut anywhere, glued with
    /// separators and mask-like runs: texts where format and context rules
    /// overlap, nest and run into each other.
    fn example_soup() -> impl Strategy<Value = String> {
        let examples: Vec<String> = SecretScanner::builtin()
            .rules()
            .iter()
            .flat_map(|r| r.spec().examples.iter().cloned())
            .collect();
        let piece = prop_oneof![
            4 => (prop::sample::select(examples), any::<prop::sample::Index>(), any::<prop::sample::Index>())
                .prop_map(|(e, a, b)| {
                    let cuts: Vec<usize> = (0..=e.len()).filter(|&i| e.is_char_boundary(i)).collect();
                    let (x, y) = (cuts[a.index(cuts.len())], cuts[b.index(cuts.len())]);
                    e[x.min(y)..x.max(y)].to_string()
                }),
            1 => prop::sample::select(vec![" ", "\n", "=", ":", "\"", "'", "&", "?", "@", "/", "****", "…", "-", "_", ";"])
                .prop_map(str::to_string),
            1 => "[A-Za-z0-9]{1,24}",
        ];
        prop::collection::vec(piece, 1..10).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Skipping a region that lacks a rule's required bytes finds
        /// exactly what running the regex there finds.
        #[test]
        fn required_bytes_skip_nothing_a_regex_finds(text in example_soup(), words in texty()) {
            let s = SecretScanner::builtin();
            let plain = super::without_required_bytes();
            for t in [&text, &words, &format!("{words}\n{text}")] {
                prop_assert_eq!(s.scan(t), plain.scan(t));
            }
        }

        #[test]
        fn redaction_of_example_soup_is_idempotent(text in example_soup()) {
            let s = SecretScanner::builtin();
            let once = s.redact(&text);
            let twice = s.redact(&once.text);
            prop_assert_eq!(&twice.text, &once.text);
            prop_assert!(twice.findings.is_empty(), "{:?}", twice.findings);
        }

        #[test]
        fn redaction_is_idempotent_and_rescan_finds_nothing(text in texty()) {
            let s = SecretScanner::builtin();
            let once = s.redact(&text);
            let twice = s.redact(&once.text);
            prop_assert_eq!(&twice.text, &once.text);
            prop_assert!(s.scan(&once.text).is_empty());
        }

        /// The settle pass derives the masked text's keyword hits from the
        /// original's instead of running the prefilter again: they must be
        /// exactly what a fresh pass finds.
        #[test]
        fn keyword_hits_after_masking_equal_a_fresh_pass(
            left in texty(),
            secret in prop::sample::select(vec![
                "ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO",
                "AKIAZ7QPMX3RWB5TLN2K",
                "password=hunter2hunter2",
                "https://admin:Xk9mP2vL7qTz@db.example",
                "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
                "token: 9f8e7d6c5b4a3f2e1d0c9b8a7f6e",
                "pass:k",
            ]),
            right in texty(),
        ) {
            let text = format!("{left}{secret}{right}");
            let s = SecretScanner::builtin();
            let found = s.scan(&text);
            prop_assume!(!found.is_empty());
            let masked = Masked::new(&text, &found);
            let derived = s.keyword_hits(&text).after_masking(s, &masked);
            prop_assert!(derived.is_some());
            let derived = derived.unwrap_or_else(|| s.keyword_hits(&masked.text));
            let fresh = s.keyword_hits(&masked.text);
            // Format rules are not derived: the settle pass does not run them.
            for (r, rule) in s.rules().iter().enumerate() {
                if rule.spec().tier == Tier::Specific {
                    prop_assert!(!derived.triggered[r]);
                    continue;
                }
                prop_assert_eq!(derived.triggered[r], fresh.triggered[r], "{}", rule.spec().id);
                prop_assert_eq!(&derived.positions[r], &fresh.positions[r], "{}", rule.spec().id);
                prop_assert_eq!(derived.overflow[r], fresh.overflow[r], "{}", rule.spec().id);
            }
        }

        #[test]
        fn bytes_outside_spans_are_unchanged(text in texty()) {
            let s = SecretScanner::builtin();
            let r = s.redact(&text);
            // Rebuild the original from the redacted text: every gap between
            // spans must appear verbatim, in order.
            let mut cursor = 0;
            let mut rebuilt = String::new();
            for f in &r.findings {
                prop_assert!(f.span.start >= cursor);
                prop_assert!(text.is_char_boundary(f.span.start) && text.is_char_boundary(f.span.end));
                rebuilt.push_str(&text[cursor..f.span.start]);
                rebuilt.push_str(&f.preview);
                cursor = f.span.end;
            }
            rebuilt.push_str(&text[cursor..]);
            prop_assert_eq!(rebuilt, r.text);
        }

        #[test]
        fn a_secret_shaped_like_its_rule_is_found(
            rule_index in 0usize..64,
            left in "[a-z ]{0,20}",
            right in "[a-z ]{0,20}",
            seed in any::<u64>(),
        ) {
            let s = SecretScanner::builtin();
            let shaped: Vec<&SecretRule> = s.rules().iter().filter(|r| r.spec().shape.is_some()).collect();
            prop_assume!(!shaped.is_empty());
            let rule = shaped[rule_index % shaped.len()];
            let shape = rule.spec().shape.clone().unwrap_or_default();
            let strategy = proptest::string::string_regex(&shape).expect("shape is a valid regex");
            let mut runner = proptest::test_runner::TestRunner::new_with_rng(
                ProptestConfig::default(),
                proptest::test_runner::TestRng::from_seed(
                    proptest::test_runner::RngAlgorithm::ChaCha,
                    &{
                        let mut b = [0u8; 32];
                        b[..8].copy_from_slice(&seed.to_le_bytes());
                        b
                    },
                ),
            );
            let secret = strategy.new_tree(&mut runner).expect("generate").current();
            prop_assume!(!is_placeholder(&secret) && looks_random(&secret));
            let text = format!("{left} {secret} {right}");
            let found = s.scan(&text);
            prop_assert!(
                found.iter().any(|f| text[f.span.range()] == secret),
                "{} did not find {:?} in {:?}: {:?}", rule.spec().id, secret, text, found
            );
        }
    }
}

/// Redact `text`, assert that redacting the result changes nothing and
/// finds nothing, and return the first redaction.
fn redact_idempotent(scanner: &SecretScanner, text: &str) -> Redacted {
    let once = scanner.redact(text);
    let twice = scanner.redact(&once.text);
    assert_eq!(once.text, twice.text, "not idempotent on {text:?}");
    assert!(twice.findings.is_empty(), "{:?}", twice.findings);
    once
}

/// Found by the `egress_redaction_roundtrip` fuzz target: a credential key
/// inside a rejected or shortened value (`Pass:~/&paSS=…`) was only seen on
/// a second pass, so redaction was not idempotent.
#[test]
fn fuzz_key_inside_rejected_value_is_found_on_the_first_pass() {
    let scanner = SecretScanner::builtin();
    let text = "密钥:AAdumpataPass:~/&paSS=ps#pa:";
    let once = redact_idempotent(scanner, text);
    assert_eq!(once.findings.len(), 2, "{:?}", once.findings);
}

/// Found by the `egress_redaction_roundtrip` fuzz target: a credential
/// assignment lost to an overlapping, more specific key (`sk-…`) inside its
/// value, and the next credential key after that key was only seen on a
/// second pass.
#[test]
fn fuzz_key_after_a_more_specific_overlap_is_found_on_the_first_pass() {
    let scanner = SecretScanner::builtin();
    let text = "--secret=-crs:pb-eli-sk--sk-ppasSaorppasSetsiassss00etsiasssset=-secret=-cret=---dedup--mets-2\n";
    redact_idempotent(scanner, text);
}

/// Found by the `egress_redaction_roundtrip` fuzz target: a credential
/// assignment dropped for overlapping a more specific secret (a database
/// connection value) came back on a second pass, its value now running into
/// the visible prefix of that secret's mask.
#[test]
fn fuzz_assignment_dropped_for_an_overlap_stays_dropped() {
    let scanner = SecretScanner::builtin();
    let text = "-1::&p&{-)---pas秘钥:papas秘钥:papiss&:{pas秘钥:papas秘钥:papiss&:{password=-ko\0\0sword=-ko\0\0\0";
    redact_idempotent(scanner, text);
    // A secret merely next to a mask, with a separator between, is still found.
    let beside = "AKIAZ7QPMX3RWB5TLN2K AKI…****";
    assert_eq!(scanner.scan(beside).len(), 1);
}

/// Found by the `egress_redaction_roundtrip` fuzz target: masking a
/// credential value that held colons changed how many `:` fields its line
/// had, so a second pass read the line as a `.pgpass` entry.
#[test]
fn fuzz_a_mask_does_not_make_a_new_match_around_it() {
    let scanner = SecretScanner::builtin();
    let text =
        "\nmT7nm\n\nm\n--pasS:*:T7n&.pyplaceho:AA\x06AldersS:*:T7nm\n\nm\n--pasS:*:T7n&.pi.s&.pi.s";
    let once = redact_idempotent(scanner, text);
    assert_eq!(once.findings.len(), 2, "{:?}", once.findings);
    // A real .pgpass line is still found.
    let pgpass = "db.internal:5432:app:svc:Zq8wLp2mXvR4";
    assert_eq!(scanner.scan(pgpass).len(), 1);
}

/// Found by the `egress_redaction_roundtrip` fuzz target: the same as
/// above with a short value, whose mask is a bare `****`.
#[test]
fn fuzz_a_short_mask_does_not_make_a_new_match_around_it() {
    let scanner = SecretScanner::builtin();
    let text =
        "-1a&Sp::\nm\n\nm\n--pasS:*:T\x03\0\0\0pasS:*:T7n&.pi.s!,+sbS:zp'pass\x7ford=-&.pi.s";
    redact_idempotent(scanner, text);
}

/// Found by the `egress_redaction_roundtrip` fuzz target: a key glued to a
/// value (`~psciſecret=`, no name boundary) stood alone after that value was
/// masked (`****ſecret=`) and was found on a second pass.
#[test]
fn fuzz_a_key_glued_to_a_masked_value_stays_glued() {
    let scanner = SecretScanner::builtin();
    let text = "s-pass:~psci\u{17f}ecret=---6-U\x03\0\0--p&:%:-%";
    redact_idempotent(scanner, text);
}

/// Found by the `egress_redaction_roundtrip` fuzz target: the user name
/// before a URL password was cut one byte after a multi-byte space
/// (U+2006), inside the character, and the scan panicked.
#[test]
fn fuzz_multibyte_space_before_a_url_user_does_not_panic() {
    let scanner = SecretScanner::builtin();
    for text in [
        "postgres://\u{2006}app:app@db:5432/x",
        "mysql://a\u{2006}root:Zq8wLp2mXvR4@db/x",
        "\u{2006}pa\u{4}UUUU:pasS:'7\0sS:'7",
        "\0\0-cr`-sd\0\0\0'7\0\0\0\0\0K\0\0\0\0\0\0\0\0\u{2006}pa\u{4}UUUU\0K\0\0\0\0\0+\0\0\0'7\0\u{1a}\0\0\0\0\0…pasS:'7\0sS:'7\0\0spsk_test_r`-sdsp密钥:Ast(o\0\0-csk_tes",
    ] {
        let once = scanner.redact(text);
        assert_eq!(scanner.redact(&once.text).text, once.text);
    }
}

/// Found by the `egress_redaction_roundtrip` fuzz target: in a soup of
/// `pass:` keys with a run of literal asterisks, a credential appeared only
/// once its neighbours were masked. The settle pass finds it on the first
/// redaction.
#[test]
fn fuzz_a_credential_that_appears_only_after_masking_is_found_by_the_settle_pass() {
    let scanner = SecretScanner::builtin();
    let text = format!(
        "-aa$:`pasS:2$9mp\0paqt:`pmary--secret=r-pass:`a#ss:esrs:k\"ass:k-ks{{pass:s{{pass:k-qss:k-k{{pass:{}`",
        "*".repeat(69)
    );
    let once = redact_idempotent(scanner, &text);
    assert!(!once.findings.is_empty());
}

#[test]
fn masked_offsets_map_both_ways() {
    let scanner = SecretScanner::builtin();
    let text = "a AKIAZ7QPMX3RWB5TLN2K b password=Xk9mP2vL c";
    let found = scanner.scan(text);
    assert_eq!(found.len(), 2, "{found:?}");
    let masked = Masked::new(text, &found);
    assert_eq!(masked.text, "a AKIA…**** b password=**** c");
    // Outside the masks, offsets move by what the masks saved.
    let c = text.rfind('c').unwrap_or(0);
    assert_eq!(masked.to_masked(c), masked.text.rfind('c').unwrap_or(0));
    let b = masked.text.find(" b ").unwrap_or(0);
    assert_eq!(masked.to_original(Span::new(b, b + 3)), Span::new(22, 25));
    // A span that reaches into a preview widens to the whole masked value.
    let star = masked.text.find('*').unwrap_or(0);
    assert_eq!(
        masked.to_original(Span::new(0, star + 1)),
        Span::new(0, found[0].span.end)
    );
    assert_eq!(
        masked.to_original(Span::new(star, star + 7)),
        Span::new(found[0].span.start, 25)
    );
    // A new finding over a masked value absorbs it and is masked from the
    // original bytes.
    let more = SecretFinding {
        span: Span::new(0, star + 1),
        ..found[0].clone()
    };
    let merged = masked.merge(text, found.clone(), &[more]);
    assert_eq!(merged.len(), 2);
    assert_eq!(merged[0].span, Span::new(0, found[0].span.end));
    assert_eq!(
        merged[0].preview,
        mask_secret(&text[merged[0].span.range()])
    );
    assert!(!merged[0].verified);
    assert_eq!(merged[1], found[1]);
}

#[test]
fn only_keywords_a_mask_cannot_spell_are_derived() {
    assert!(keyword_survives_masks("password"));
    assert!(keyword_survives_masks(":*:"));
    assert!(!keyword_survives_masks("*:"));
    assert!(!keyword_survives_masks(":**"));
    assert!(!keyword_survives_masks("…"));
    assert!(SecretScanner::builtin().keywords_survive_masks);
}

/// Credential-name rules leap from keyword to keyword (`GENERIC_LEAD`): a
/// long name before its keyword must still be found.
#[test]
fn long_names_before_the_keyword_are_found() {
    let scanner = SecretScanner::builtin();
    for (text, secret) in [
        (
            "        - name: ACME_PRODUCTION_PRIMARY_DATABASE_MASTER_PASSWORD\n          value: Xk9mP2vL7qTzR4\n",
            "Xk9mP2vL7qTzR4",
        ),
        (
            "settings[\"acme_production_primary_database_api_token\"] = \"Zq8Wm3Lp9Rt2Yv6BxQ\"",
            "Zq8Wm3Lp9Rt2Yv6BxQ",
        ),
        (
            "--acme-production-main-database-replica-readonly-service-account-token=Zq8Wm3Lp9Rt2Yv6BxQ",
            "Zq8Wm3Lp9Rt2Yv6BxQ",
        ),
    ] {
        let found = scanner.scan(text);
        assert!(
            found.iter().any(|f| &text[f.span.range()] == secret),
            "{text:?}: {found:?}"
        );
    }
}

/// Found by the `egress_redaction_roundtrip` fuzz target: a 2 KB soup of
/// nested `pass`/`secret` keys with literal masks needed more than the
/// eight settle passes the first version allowed. The passes are now bounded
/// by the bytes they scan, so a short text takes as many as it needs.
#[test]
fn fuzz_a_soup_needing_many_settle_passes_settles() {
    let scanner = SecretScanner::builtin();
    let text = include_str!("../testdata/fuzz_settle_soup.txt");
    let once = redact_idempotent(scanner, text);
    assert!(once.findings.len() > 8, "{}", once.findings.len());
}

#[test]
fn quoted_reading_masks_every_example_after_a_lead_in() {
    let s = SecretScanner::builtin();
    let mut failures = Vec::new();
    for rule in s.rules() {
        for ex in &rule.spec().examples {
            let secrets: Vec<&str> = s.scan(ex).iter().map(|f| &ex[f.span.range()]).collect();
            for lead in [
                "From now on, always use this for deploys: ",
                "以后请一直用这个配置：",
            ] {
                let text = format!("{lead}{ex}");
                let out = s.redact_quoted(&text);
                for secret in &secrets {
                    if out.text.contains(secret) {
                        failures.push(format!(
                            "{}: {secret:?} survives in {:?}",
                            rule.spec().id,
                            out.text
                        ));
                    }
                }
                let mut end = 0;
                for f in &out.findings {
                    assert!(f.span.start >= end, "{}: findings overlap", rule.spec().id);
                    assert!(
                        text.is_char_boundary(f.span.start) && text.is_char_boundary(f.span.end)
                    );
                    end = f.span.end;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn quoted_reading_finds_nothing_in_negatives() {
    let s = SecretScanner::builtin();
    let mut flagged = Vec::new();
    let negatives = include_str!("../testdata/secrets_negative.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<Case>(l)
                .expect("negative case parses")
                .input
        });
    let examples = s
        .rules()
        .iter()
        .flat_map(|r| r.spec().negative_examples.iter().cloned());
    for neg in negatives.chain(examples) {
        for text in [neg.clone(), format!("Please keep this in mind: {neg}")] {
            if s.scan(&text).is_empty() && !s.scan_quoted(&text).is_empty() {
                flagged.push(text);
            }
        }
    }
    assert!(
        flagged.is_empty(),
        "{} flagged:\n{}",
        flagged.len(),
        flagged.join("\n")
    );
}

#[test]
fn quoted_reading_is_a_superset_of_scan() {
    let s = SecretScanner::builtin();
    for line in include_str!("../testdata/secrets.jsonl").lines() {
        let case: Case = serde_json::from_str(line).expect("case parses");
        let plain = s.scan(&case.input);
        let quoted = s.scan_quoted(&case.input);
        for f in &plain {
            assert!(
                quoted
                    .iter()
                    .any(|q| q.span.start <= f.span.start && f.span.end <= q.span.end),
                "{}: {:?} lost",
                case.name,
                f.span
            );
        }
    }
}

/// Every rule's examples and negative examples, and the corpora texts, joined:
/// text with keyword hits of every rule.
fn keyword_rich_text() -> String {
    let mut text = String::new();
    for rule in SecretScanner::builtin().rules() {
        for t in rule
            .spec()
            .examples
            .iter()
            .chain(&rule.spec().negative_examples)
        {
            text.push_str(t);
            text.push('\n');
        }
    }
    text.push_str(include_str!("../testdata/secrets.jsonl"));
    text.push_str(include_str!("../testdata/secrets_negative.jsonl"));
    text
}

#[test]
fn the_nfa_and_the_dfa_report_the_same_keyword_hits() {
    let scanner = SecretScanner::new(builtin_specs().expect("built-in rules parse"))
        .expect("built-in rules compile");
    let dfa = dfa::Builder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&scanner.prefilter.keywords)
        .expect("the DFA builds");
    let text = keyword_rich_text();
    // Whole, and cut into pieces of assorted lengths (short texts take the
    // one-stream walk, longer ones four streams).
    let mut pieces: Vec<&str> = vec![&text];
    let mut at = 0;
    for len in [1usize, 7, 40, 255, 256, 300, 1000, 5000].iter().cycle() {
        let mut end = (at + len).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[at..end]);
        at = end;
        if at >= text.len() {
            break;
        }
    }
    let mut triggered = 0;
    for piece in pieces {
        let blank = || KeywordHits {
            triggered: vec![false; scanner.rules.len()],
            positions: vec![Vec::new(); scanner.rules.len()],
            overflow: vec![false; scanner.rules.len()],
            touched: Vec::new(),
        };
        let (mut by_nfa, mut by_dfa) = (blank(), blank());
        scanner
            .collect_hits(&scanner.prefilter.nfa, piece, &mut by_nfa)
            .expect("the NFA walks");
        scanner
            .collect_hits(&dfa, piece, &mut by_dfa)
            .expect("the DFA walks");
        assert_eq!(by_nfa.triggered, by_dfa.triggered, "{piece:?}");
        assert_eq!(by_nfa.positions, by_dfa.positions, "{piece:?}");
        assert_eq!(by_nfa.overflow, by_dfa.overflow, "{piece:?}");
        assert_eq!(by_nfa.touched, by_dfa.touched, "{piece:?}");
        triggered += by_nfa.triggered.iter().filter(|&&t| t).count();
    }
    assert!(
        triggered > scanner.rules.len(),
        "the fixture hits too few keywords"
    );
}

#[test]
fn the_dfa_is_built_only_after_enough_text_and_findings_do_not_change() {
    let scanner = SecretScanner::new(builtin_specs().expect("built-in rules parse"))
        .expect("built-in rules compile");
    let text = keyword_rich_text();
    assert!(
        text.len() < DFA_AFTER_BYTES,
        "the fixture must stay under the threshold"
    );
    let before = scanner.scan(&text);
    assert!(
        scanner.prefilter.dfa.get().is_none(),
        "built the DFA too early"
    );
    assert!(!before.is_empty());
    let mut scanned = text.len();
    while scanned < DFA_AFTER_BYTES {
        scanner.scan("plain words with no keywords at all, said twice over");
        scanned += text.len();
        scanner.scan(&text);
    }
    assert!(scanner.prefilter.dfa.get().is_some_and(Option::is_some));
    assert_eq!(scanner.scan(&text), before);
}

#[test]
fn clean_text_compiles_no_regex_and_a_keyword_compiles_only_its_rules() {
    let scanner = SecretScanner::build(builtin_specs().expect("built-in rules parse"), false)
        .expect("built-in rules build");
    assert!(scanner
        .scan("The export finished in 42 seconds.\n数据已经保存")
        .is_empty());
    assert!(scanner.rules.iter().all(|r| r.regex.get().is_none()));
    let found = scanner.scan("id AKIAZ7QPMX3RWB5TLN2K");
    assert_eq!(found.len(), 1);
    let compiled: Vec<&str> = scanner
        .rules
        .iter()
        .filter(|r| r.regex.get().is_some())
        .map(|r| r.spec.id.as_str())
        .collect();
    assert!(compiled.contains(&"egress.secret.aws.1"), "{compiled:?}");
    assert!(compiled.len() < scanner.rules.len() / 4, "{compiled:?}");
    // The same text scanned by an eagerly compiled scanner finds the same.
    let eager = SecretScanner::new(builtin_specs().expect("built-in rules parse"))
        .expect("built-in rules compile");
    assert_eq!(eager.scan("id AKIAZ7QPMX3RWB5TLN2K"), found);
}

#[test]
fn windows_merge_as_if_each_were_measured_in_full() {
    let scanner = SecretScanner::builtin();
    let texts = [keyword_rich_text(), every_test_text().join("\n")];
    let mut merged_any = false;
    for text in &texts {
        let hits = scanner.keyword_hits(text);
        for (index, rule) in scanner.rules.iter().enumerate() {
            let tier = rule.spec.tier;
            let mut got = Vec::new();
            if tier == Tier::Specific
                || hits.overflow[index]
                || !hits.regions(index, tier, text, &mut got)
            {
                continue;
            }
            let after = if tier == Tier::Generic {
                GENERIC_WINDOW_BYTES_AFTER
            } else {
                WINDOW_BYTES_AFTER
            };
            let mut want: Vec<Span> = Vec::new();
            for p in &hits.positions[index] {
                let w = line_window(text, p.start, after);
                match want.last_mut() {
                    Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                    _ => want.push(w),
                }
            }
            merged_any |= want.len() < hits.positions[index].len();
            assert_eq!(got, want, "{}", rule.spec.id);
        }
    }
    assert!(merged_any, "no windows merged: the test reads nothing");
}

#[test]
fn reused_hit_tables_carry_nothing_from_the_last_text() {
    let scanner = SecretScanner::builtin();
    let texts = every_test_text();
    // Each text scanned on a fresh thread (new tables) and right after
    // every other text on this one (reused tables).
    let fresh: Vec<Vec<SecretFinding>> = std::thread::scope(|s| {
        texts
            .iter()
            .map(|t| s.spawn(|| scanner.scan(t)).join().expect("scan"))
            .collect()
    });
    scanner.scan(&keyword_rich_text());
    for (i, (t, want)) in texts.iter().zip(&fresh).enumerate() {
        scanner.scan(&texts[(i + 1) % texts.len()]);
        assert_eq!(&scanner.scan(t), want, "{t:?}");
    }
}
