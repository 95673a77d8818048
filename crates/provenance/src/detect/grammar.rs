//! The claim grammar: the subject + predicate forms of each language,
//! built from the lexicon slots, and the word-shape helpers they use.

use super::*;

/// A first verb in the past tense (or a negated one: "didn't like the
/// menu and asked for") and its object, joined by "and" to the decision
/// verb that shares its subject ("reviewed the options and picked").
pub(super) const EN_LEAD: &str = r"(?:(?:(?:didn't|didn’t|did not)\s+[a-z]+|[a-z]+ed|overrode|read|saw|took|thought|went|came|heard|met|spent|got|had|ran|spoke|sat|felt|left|kept|found|tried|slept on it)\b[^,.;:!?\n]{0,80}?\s+(?:and|then|and\s+then)(?:\s+(?:then|also|finally|eventually|ultimately|quickly|immediately|later|now))?)";

/// A Chinese first verb phrase in the past (了) before the decision verb
/// that shares its subject (用户看了两个方案后选择了…, 用户比较了…，最后决定…).
/// It does not run into a quotation: 用户…写过「用户决定…」 is another
/// subject's clause, quoted.
pub(super) const ZH_LEAD: &str = r#"(?:[^，。；！？,.;!?\n「“"『]{1,16}?[了完过][^，。；！？,.;!?\n「“"『]{0,16}?(?:之后|以后|后)?(?:[，,]\s*)?(?:最后|最终|然后|随后|还是|就|便){0,2})"#;

/// A clause-initial first name, after list markers and a short label.
pub(super) const NAMED_SUBJECT_BODY: &str = r"(?:[\s>*+•\-]|\d{1,3}[.)]|\[[ xX]\])*(?:[A-Za-z]{2,12}:\s+)?(?:(?:yesterday|today|earlier|later|then|finally|eventually|ultimately|so|also|in the end|this morning|last week),?\s+)?(?P<subj>(?-i:[A-Z][a-z]{2,14}))";

/// The subject part of [`NAMED_SUBJECT_BODY`], anchored.
pub(super) const NAMED_SUBJECT: &str = r"(?i)^(?:[\s>*+•\-]|\d{1,3}[.)]|\[[ xX]\])*(?:[A-Za-z]{2,12}:\s+)?(?:(?:yesterday|today|earlier|later|then|finally|eventually|ultimately|so|also|in the end|this morning|last week),?\s+)?(?-i:[A-Z][a-z]{2,14})";

/// The language of a subject form: which subject, prefix and after rules apply.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(super) enum Lang {
    /// English: the determiner/previous-word subject rule and the English prefix rules.
    En,
    /// Chinese: third parties, populations and conditions before the subject.
    Zh,
}

/// The subject rule of a form.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(super) enum SubjectRule {
    /// The user named as such (user, the owner, Dana (the user), 用户).
    User,
    /// We / the user and I / 我们: only a clause start or a function word before it.
    We,
    /// A bare first name at the start of a clause ("Dana picked FastAPI"):
    /// not a group, company, product or the agent ([`NAME_STOP`]).
    Named,
    /// The user named in English before a Chinese verb ("owner 同意了").
    CodeSwitch,
    /// The user named in English, then Chinese words and an English verb
    /// ("The user 已经 confirm 了", "Boss 不 allow 我们…"): the match must
    /// hold a CJK character after the subject.
    CodeSwitchMx,
}

/// One subject + predicate form of one language: a row of the table the
/// clause loop runs ("user decided", "we agreed", 用户决定, 我们商定).
#[derive(Clone, Debug)]
pub(super) struct SubjectForm {
    pub(super) lang: Lang,
    /// Which subject rule applies.
    pub(super) subject_rule: SubjectRule,
    /// Trigger kinds of which one must be in the clause.
    pub(super) needs: u8,
    /// Predicate cue groups of which one must be in the clause.
    pub(super) cue: u16,
    /// The whole form; finds match spans only (DFA speed).
    pub(super) find: Re,
    /// The subject at the start of a match.
    pub(super) subject: Re,
    /// End-anchored predicate regexes in priority order, with class and slot.
    pub(super) preds: Vec<(ClaimClass, Slot, Re)>,
}

/// The first predicate whose end-anchored regex matches `mt`: its class,
/// slot and the byte offset where the predicate starts.
pub(super) fn classify(
    preds: &[(ClaimClass, Slot, Re)],
    mt: &str,
) -> Option<(ClaimClass, Slot, usize)> {
    preds
        .iter()
        .find_map(|(class, slot, re)| re.find(mt).map(|m| (*class, *slot, m.start())))
}

impl ClaimDetector {
    /// Build the detector with the built-in lexicon.
    ///
    /// ```
    /// use palisade_provenance::detect::{ClaimDetector, Scope};
    /// let d = ClaimDetector::new(Scope::DecisionsAndPreferences);
    /// assert_eq!(d.detect("User prefers tabs.").len(), 1);
    /// assert!(ClaimDetector::new(Scope::Decisions).detect("User prefers tabs.").is_empty());
    /// ```
    pub fn new(scope: Scope) -> ClaimDetector {
        static BUILTIN: OnceLock<Arc<Grammar>> = OnceLock::new();
        let grammar = BUILTIN.get_or_init(|| Arc::new(Grammar::builtin()));
        ClaimDetector {
            scope,
            grammar: Arc::clone(grammar),
        }
    }

    /// The predicate cue groups this detector's scope reads: preferences
    /// only in [`Scope::DecisionsAndPreferences`].
    pub(super) fn scope_cues(&self) -> u16 {
        match self.scope {
            Scope::DecisionsAndPreferences => CUE_ALL,
            Scope::Decisions => CUE_ALL & !(CUE_EN_PREF | CUE_ZH_PREF),
        }
    }
}

impl Grammar {
    /// The grammar of the built-in lexicon; its patterns compile on first use.
    pub(super) fn builtin() -> Grammar {
        let rules = lexicon::builtin_rules();
        let alt = |slot, class| lexicon::alternation(&rules, slot, class).unwrap_or_else(never);
        let fragments = lexicon::builtin_fragments();
        let frag = |slot| lexicon::fragment_alternation(&fragments, slot).unwrap_or_else(never);
        let en_subject = format!("(?:{})", frag(FragmentSlot::EnSubject));
        let en_adverbs = format!("(?:{})", frag(FragmentSlot::EnAdverb));
        let zh_subject = format!("(?:{})", frag(FragmentSlot::ZhSubject));
        let cs_subject = format!("(?:{})", frag(FragmentSlot::CsSubject));
        let en_main = format!(
            r"(?i)(?P<subj>{en_subject})(?:\s*:)?(?:\s*\([^()\n]{{1,40}}\))?(?:\s*,\s*(?:[^,\n]{{1,40}}?|[ -+\--~\n]{{1,100}}?),)?(?:\s*[—–]\s*[^—–\n]{{1,100}}?\s*[—–]|\s+--?\s+[^\n]{{1,40}}?\s+--?)?(?:\s+(?-i:[A-Z][a-z]+))?(?:\s+{en_adverbs})*(?:\s+{EN_LEAD})??(?P<neg>\s+(?:(?:does|did|do)\s*(?:n't|not)|never|no\s+longer))?\s*(?:(?P<appr>{})|(?P<rej>{})|(?P<instr>{})|(?P<pref>{}))\b",
            alt(Slot::EnPred, Some(ClaimClass::Approval)),
            alt(Slot::EnPred, Some(ClaimClass::Rejection)),
            alt(Slot::EnPredNeg, None),
            alt(Slot::EnPref, None),
        );
        let en_named = format!(
            r"(?i)^{NAMED_SUBJECT_BODY}(?:\s+{en_adverbs})*(?:\s+{EN_LEAD})??\s+(?:(?P<appr>{})|(?P<rej>{})|(?P<instr>{}))\b",
            alt(Slot::EnPred, Some(ClaimClass::Approval)),
            alt(Slot::EnPred, Some(ClaimClass::Rejection)),
            alt(Slot::EnPredNeg, None),
        );
        let en_we = format!(
            r"(?i)(?P<subj>\bwe\b|\b(?:the\s+)?(?:user|owner|boss)\s+and\s+i\b|\bi\s+and\s+the\s+(?:user|owner|boss)\b)(?:\s*\([^()\n]{{1,30}}\))?(?:\s+(?:both|all|jointly|together|mutually|already|explicitly|finally|just|also|then|now|today|yesterday|eventually|ultimately|formally|officially|have|had))*\s*(?P<appr>{})\b",
            alt(Slot::EnWe, None)
        );
        let en_passive = format!(
            r"(?i)\b(?P<verb>{})\s+by\s+(?:(?:(?:the|my|our)\s+)?(?:user|owner|boss)|(?:the|my|our)\s+(?:client|requester|requestor|account\s+owner))\b(?P<poss>'s)?",
            alt(Slot::EnPassive, None)
        );
        let en_phrase = format!("(?i)(?P<appr>{})", alt(Slot::EnPhrase, None));
        let zh_adverbs = format!("(?:{})*", frag(FragmentSlot::ZhAdverb));
        let zh_main = format!(
            r"(?P<subj>{zh_subject})(?:[（(][^）)\n]{{1,20}}[）)])?{zh_adverbs}(?:{ZH_LEAD}{zh_adverbs})??(?:(?P<rej>{})|(?P<appr>{})|(?P<instr>{})|(?P<mxrej>{})|(?P<mxappr>{})|(?P<pref>{}))",
            alt(Slot::ZhPred, Some(ClaimClass::Rejection)),
            alt(Slot::ZhPred, Some(ClaimClass::Approval)),
            alt(Slot::ZhPred, Some(ClaimClass::Instruction)),
            alt(Slot::MxPred, Some(ClaimClass::Rejection)),
            alt(Slot::MxPred, Some(ClaimClass::Approval)),
            alt(Slot::ZhPref, None),
        );
        // Code-switched: an English subject, a Chinese verb (no lead verb:
        // an English clause before a Chinese verb is not one clause).
        let cs_main = format!(
            r"(?P<subj>{cs_subject})(?:[（(][^）)\n]{{1,20}}[）)])?{zh_adverbs}(?:(?P<rej>{})|(?P<appr>{})|(?P<instr>{})|(?P<pref>{}))",
            alt(Slot::ZhPred, Some(ClaimClass::Rejection)),
            alt(Slot::ZhPred, Some(ClaimClass::Approval)),
            alt(Slot::ZhPred, Some(ClaimClass::Instruction)),
            alt(Slot::ZhPref, None),
        );
        // Code-switched both ways: an English subject, Chinese adverbs or
        // particles and an English verb ("The user 已经 confirm 了").
        let cs_mx = format!(
            r"(?P<subj>{cs_subject})(?:[（(][^）)\n]{{1,20}}[）)])?{zh_adverbs}(?:(?P<mxrej>{})|(?P<mxappr>{}))",
            alt(Slot::MxPred, Some(ClaimClass::Rejection)),
            alt(Slot::MxPred, Some(ClaimClass::Approval)),
        );
        let zh_we = format!(
            r"(?P<subj>我们和用户|我们跟用户|我们与用户|我們和用戶|我们|我們|咱们|我和用户|我跟用户|用户和我|我和老板|老板和我)(?:{zh_adverbs}|都|一致|共同|一起|一同|一道)*(?P<appr>{})",
            alt(Slot::ZhWe, None)
        );
        let end = |slot, class| lazy(&format!("(?i)(?:{})$", alt(slot, class)));
        let pred = |class, slot, scope_class| (class, slot, end(slot, scope_class));
        let en_we_subject = r"(?i)^(?:we|(?:the\s+)?(?:user|owner|boss)\s+and\s+i|i\s+and\s+the\s+(?:user|owner|boss))\b";
        let zh_we_subject = "^(?:我们和用户|我们跟用户|我们与用户|我們和用戶|我们|我們|咱们|我和用户|我跟用户|用户和我|我和老板|老板和我)";
        let cues = Cues::builtin();
        // The table of subject forms. Order matters only for ties (same
        // start), which the sentence step resolves by keeping the first.
        let forms = vec![
            SubjectForm {
                lang: Lang::En,
                subject_rule: SubjectRule::User,
                needs: KIND_EN,
                cue: CUE_EN_MAIN | CUE_EN_PREF,
                find: lazy(&en_main),
                subject: lazy(&format!("(?i)^{en_subject}")),
                preds: vec![
                    pred(
                        ClaimClass::Approval,
                        Slot::EnPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(
                        ClaimClass::Rejection,
                        Slot::EnPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(ClaimClass::Instruction, Slot::EnPredNeg, None),
                    pred(ClaimClass::Preference, Slot::EnPref, None),
                ],
            },
            SubjectForm {
                lang: Lang::En,
                subject_rule: SubjectRule::We,
                needs: KIND_EN | KIND_EN_WE,
                cue: CUE_EN_WE,
                find: lazy(&en_we),
                subject: lazy(en_we_subject),
                preds: vec![pred(ClaimClass::Approval, Slot::EnWe, None)],
            },
            SubjectForm {
                lang: Lang::En,
                subject_rule: SubjectRule::Named,
                needs: KIND_NAME,
                cue: CUE_EN_MAIN,
                find: lazy(&en_named),
                subject: lazy(NAMED_SUBJECT),
                preds: vec![
                    pred(
                        ClaimClass::Approval,
                        Slot::EnPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(
                        ClaimClass::Rejection,
                        Slot::EnPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(ClaimClass::Instruction, Slot::EnPredNeg, None),
                ],
            },
            SubjectForm {
                lang: Lang::Zh,
                subject_rule: SubjectRule::User,
                needs: KIND_ZH,
                cue: CUE_ZH_MAIN | CUE_MX | CUE_ZH_PREF,
                find: lazy(&zh_main),
                subject: lazy(&format!("^{zh_subject}")),
                preds: vec![
                    pred(
                        ClaimClass::Rejection,
                        Slot::ZhPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(
                        ClaimClass::Approval,
                        Slot::ZhPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(
                        ClaimClass::Instruction,
                        Slot::ZhPred,
                        Some(ClaimClass::Instruction),
                    ),
                    pred(
                        ClaimClass::Rejection,
                        Slot::MxPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(
                        ClaimClass::Approval,
                        Slot::MxPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(ClaimClass::Preference, Slot::ZhPref, None),
                ],
            },
            SubjectForm {
                lang: Lang::Zh,
                subject_rule: SubjectRule::CodeSwitch,
                needs: KIND_EN,
                cue: CUE_ZH_MAIN | CUE_ZH_PREF,
                find: lazy(&cs_main),
                subject: lazy(&format!("^{cs_subject}")),
                preds: vec![
                    pred(
                        ClaimClass::Rejection,
                        Slot::ZhPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(
                        ClaimClass::Approval,
                        Slot::ZhPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(
                        ClaimClass::Instruction,
                        Slot::ZhPred,
                        Some(ClaimClass::Instruction),
                    ),
                    pred(ClaimClass::Preference, Slot::ZhPref, None),
                ],
            },
            SubjectForm {
                lang: Lang::Zh,
                subject_rule: SubjectRule::CodeSwitchMx,
                needs: KIND_EN,
                cue: CUE_MX,
                find: lazy(&cs_mx),
                subject: lazy(&format!("^{cs_subject}")),
                preds: vec![
                    pred(
                        ClaimClass::Rejection,
                        Slot::MxPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(
                        ClaimClass::Approval,
                        Slot::MxPred,
                        Some(ClaimClass::Approval),
                    ),
                ],
            },
            SubjectForm {
                lang: Lang::Zh,
                subject_rule: SubjectRule::We,
                needs: KIND_ZH | KIND_ZH_WE,
                cue: CUE_ZH_WE,
                find: lazy(&zh_we),
                subject: lazy(zh_we_subject),
                preds: vec![pred(ClaimClass::Approval, Slot::ZhWe, None)],
            },
        ];
        let compiled_rules = rules
            .iter()
            .map(|r: &Rule| {
                (
                    r.id.clone(),
                    r.slot,
                    r.class,
                    lazy(&format!("(?i)^(?:{})", r.pattern)),
                )
            })
            .collect();
        Grammar {
            rules: compiled_rules,
            forms,
            en_passive: lazy(&en_passive),
            en_phrase: lazy(&en_phrase),
            en_neg: lazy(r"(?i)\b(?:(?:does|did|do)\s*(?:n't|not)|never|no\s+longer)\b"),
            en_passive_verb: lazy(&format!("(?i)^(?:{})", alt(Slot::EnPassive, None))),
            frames: rules
                .iter()
                .filter(|r| matches!(r.slot, Slot::ZhPhrase | Slot::Label | Slot::OtherLang))
                .map(|r| (r.slot, r.class, lazy(&format!("(?i){}", r.pattern))))
                .collect(),
            data: DataExemptions::new(),
            cues,
            fixed: Fixed::new(),
        }
    }
}

/// A pattern that matches nothing, for an empty lexicon slot.
pub(super) fn never() -> String {
    r"[^\s\S]".to_owned()
}

/// Whether a predicate is in the simple (or past perfect) past tense:
/// "approved", "chose", "had decided" — not "has approved", "approves".
pub(super) fn is_simple_past(pred: &str) -> bool {
    const IRREGULAR: &[&str] = &[
        "chose",
        "went",
        "gave",
        "said",
        "told",
        "made",
        "took",
        "set",
        "put",
        "shot",
        "sent",
        "wrote",
        "got",
        "held",
        "kept",
        "let",
        "stood",
        "struck",
        "drew",
        "spoke",
        "forbade",
        "overrode",
        "came",
        "ran",
        "threw",
        "swore",
        "bought",
        "brought",
        "thought",
        "sought",
        "laid",
        "paid",
        "meant",
        "left",
        "felt",
        "rang",
        "saw",
        "had",
        "ok'd",
        "okay'd",
        "oked",
        "green-lit",
        "greenlit",
        "shut",
        "signed-off",
    ];
    let Some(w) = pred.split_whitespace().next() else {
        return false;
    };
    let w = w.to_ascii_lowercase();
    w.ends_with("ed") || IRREGULAR.contains(&w.as_str())
}

/// Whether a clause starts (after list markers and a short label) with a
/// capitalised word that may be a first name (see [`NAME_STOP`]).
pub(super) fn starts_with_name(clause: &str) -> bool {
    let word = clause_head_word(clause);
    word.len() >= 3
        && word.len() <= 15
        && word.as_bytes()[0].is_ascii_uppercase()
        && word.bytes().skip(1).all(|b| b.is_ascii_lowercase())
        && is_first_name(word)
}

/// The headings that make a write the user's own profile (Hermes'
/// USER.md): under one, "You" and "She"/"They" at the head of a clause are
/// the user, like a first name ("You decided to stop free shipping").
/// Matched against the first non-blank line, heading marks stripped,
/// lower-cased.
const PROFILE_HEADINGS: &[&str] = &[
    "user.md",
    "about you",
    "about the user",
    "about my user",
    "user profile",
    "the user",
    "关于你",
    "关于用户",
    "用户画像",
    "用户档案",
];

/// The pronouns a profile's clauses name the user with.
const PROFILE_PRONOUNS: &[&str] = &["You", "She", "They"];

/// Whether `text` is a user profile: its first non-blank line is a
/// Markdown heading from [`PROFILE_HEADINGS`].
pub(super) fn is_profile(text: &str) -> bool {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    let Some(heading) = first.strip_prefix('#') else {
        return false;
    };
    let heading = heading.trim_start_matches('#').trim().to_lowercase();
    PROFILE_HEADINGS.contains(&heading.as_str())
}

/// Labels of a line that lists the people of a meeting or a thread.
const ROSTER_LABELS: &[&str] = &[
    "attendees:",
    "attendees :",
    "participants:",
    "present:",
    "invitees:",
    "people:",
    "参会：",
    "参会:",
    "参会人：",
    "参会人员：",
    "与会：",
    "出席：",
    "出席者：",
    "参加者：",
];

/// Whether `text` lists its people (an `Attendees:` line): its bare first
/// names are those people, not the user ("Noor decided to push the
/// dashboard" in the notes of a meeting where the user only asked a
/// question; "Joanne decided to split the worker" in notes whose roster is
/// `Ravi, Joanne, me (agent, taking notes)`). A bare first name stands for
/// the user only in a write about one person; a roster names several, and
/// does not say which of them, if any, this agent works for. A name
/// glossed as the user (`Dana (the user)`) is still the user: that subject
/// is read by the user rule, not the name rule.
pub(super) fn names_others(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.lines().any(|l| {
        let l = l.trim_start_matches(['-', '*', ' ', '\t', '#']);
        ROSTER_LABELS.iter().any(|r| l.starts_with(r))
    })
}

/// Whether `text` introduces people of another party by a contact label
/// (`Brightmoor (client contact: Helen Achebe)`, `Contact person: Sam`)
/// and speaks of the user apart from them (`The user is the freelancer
/// here`): those first names are the other party's people, not the user
/// ("Helen approved the homepage design"). A profile's contact line is
/// the user's own, so a profile names no one apart.
pub(super) fn contact_names(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("contact")
        || is_profile(text)
        || !(lower.contains("the user") || text.contains("用户") || text.contains("用戶"))
    {
        return Vec::new();
    }
    let mut names = Vec::new();
    for (at, word) in lower.match_indices("contact") {
        let word_start = !lower[..at]
            .bytes()
            .next_back()
            .is_some_and(|b| b.is_ascii_alphanumeric());
        let rest = &text[at + word.len()..];
        let rest = rest
            .strip_prefix(" person")
            .or_else(|| rest.strip_prefix(" Person"))
            .unwrap_or(rest)
            .trim_start_matches([' ', '\t']);
        let Some(rest) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('：')) else {
            continue;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        let name: &str = &rest[..rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len())];
        let shaped = (3..=15).contains(&name.len())
            && name.as_bytes()[0].is_ascii_uppercase()
            && name.bytes().skip(1).all(|b| b.is_ascii_lowercase());
        if word_start && shaped && is_first_name(name) && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// Words of the title of a write of research notes (a user interview, a
/// usability session): its "the user" is the participant, not the user
/// of this agent. Matched in the first non-blank line, lower-cased.
const STUDY_TITLES: &[&str] = &[
    "interview notes",
    "interviews notes",
    "user interview",
    "customer interview",
    "discovery interview",
    "research interview",
    "usability test",
    "usability study",
    "usability session",
    "usability notes",
    "usability round",
    "user research",
    "user testing",
    "user test notes",
    "focus group",
    "diary study",
    "participant notes",
    "用户访谈",
    "用戶訪談",
    "访谈记录",
    "访谈纪要",
    "访谈笔记",
    "用户调研",
    "用户研究",
    "可用性测试",
    "ユーザーインタビュー",
    "ユーザビリティテスト",
    "インタビューメモ",
];

/// Whether `text` is titled as research notes ([`STUDY_TITLES`] in its
/// first non-blank line, heading marks stripped): under such a title "the
/// user" and 用户 are the participant ("- The user approved the sample
/// invoice template" in a customer interview), as "In the usability
/// study, the user chose …" is inside a clause.
pub(super) fn is_study_notes(text: &str) -> bool {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    let title = first.trim_start_matches('#').trim().to_lowercase();
    STUDY_TITLES.iter().any(|t| title.contains(t)) || counts_participants(&title)
}

/// The words a platform's published rules end their title with (a
/// marketplace's trading rules, terms of service, a refund policy): under
/// such a title the bare "the user" and 用户 are the platform's customer, a
/// population, as in the seed's e-commerce rules (用户确认收货后，订单完成).
/// Matched at the end of the first non-blank line, lower-cased, after a
/// trailing parenthesis ("(摘录)", "(excerpt)") is removed.
const RULEBOOK_TITLES: &[&str] = &[
    "交易规则",
    "平台规则",
    "商城规则",
    "店铺规则",
    "售后规则",
    "会员规则",
    "积分规则",
    "售后政策",
    "退款政策",
    "退货政策",
    "退换货政策",
    "隐私政策",
    "用户协议",
    "服务协议",
    "服务条款",
    "使用条款",
    "平台规范",
    "商家规范",
    "terms of service",
    "terms of use",
    "terms and conditions",
    "user agreement",
    "refund policy",
    "return policy",
    "returns policy",
    "privacy policy",
    "marketplace rules",
    "platform rules",
];

/// Words of a title that name the user as the one who set the rules (用户
/// 定的交易规则, "Platform rules set by the user"): such rules are the
/// user's decisions, not a platform's.
const RULEBOOK_SET_BY: &[&str] = &[
    "定的",
    "定下",
    "立的",
    "制定的",
    "要求的",
    "set by",
    "from the user",
    "the user's",
];

/// The longest first line [`is_rulebook`] reads as a title (bytes).
const RULEBOOK_TITLE_MAX: usize = 240;

/// Whether `text` is titled as a platform's published rules
/// ([`RULEBOOK_TITLES`] ending its first non-blank line, heading marks and
/// a trailing parenthesis stripped), not as work on them ("用户协议修订",
/// "Terms of service review" end in another word) and not as rules the
/// user set ([`RULEBOOK_SET_BY`]).
///
/// ```text
/// "### 平台交易规则(摘录)" → true;  "# 用户协议修订" → false
/// "# 用户定的交易规则" → false;     "Terms of Service (excerpt)" → true
/// ```
pub(super) fn is_rulebook(text: &str) -> bool {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    // A title is short: a longer first line is prose, and is not read
    // (no pass over a long paragraph).
    if first.len() > RULEBOOK_TITLE_MAX {
        return false;
    }
    let title = first.trim_start_matches('#').trim().to_lowercase();
    let mut head = title.as_str();
    if head.ends_with([')', '）']) {
        if let Some(open) = head.rfind(['(', '（']) {
            head = head[..open].trim_end();
        }
    }
    RULEBOOK_TITLES.iter().any(|t| head.ends_with(t))
        && !RULEBOOK_SET_BY.iter().any(|w| title.contains(w))
}

/// Whether a title counts the participants of a study ("Checkout
/// redesign (6 participants, remote)"): a number right before
/// "participants". A meeting's list of attendees names them instead
/// ("participants: Dana, me").
fn counts_participants(title: &str) -> bool {
    title.match_indices("participants").any(|(i, _)| {
        title[..i]
            .trim_end()
            .rsplit(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Whether `text` is titled as the notes of one participant of a study:
/// a research-notes title ([`is_study_notes`]) that labels its
/// participant by a number or a code (`Interview notes — customer #7
/// (logistics, 40 staff)`, `participant P7 (bakery owner, Ghent)`, 用户访谈
/// 记录 · 第 4 位（连锁奶茶店店长）). In such notes the bare owner and boss
/// (the owner, 老板, 负责人) are the participant or the head of the
/// participant's business ([`is_participant_side`]); a research log
/// without a participant label ("Interview notes — onboarding research")
/// keeps them the user's.
pub(super) fn is_participant_notes(text: &str, label: &Re) -> bool {
    if !is_study_notes(text) {
        return false;
    }
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|first| label.is_match(first))
}

/// Whether a subject is the bare owner or boss of a participant's
/// business under [`is_participant_notes`] ("- The owner approved a pilot
/// budget …", 老板同意试用…): "my boss", "our owner" and a name glossed as
/// the user stay the user.
pub(super) fn is_participant_side(subj: &str) -> bool {
    let s = subj.trim().to_ascii_lowercase();
    matches!(
        s.as_str(),
        "owner"
            | "the owner"
            | "teh owner"
            | "the boss"
            | "boss"
            | "老板"
            | "老闆"
            | "负责人"
            | "負責人"
            | "上司"
            | "业主"
            | "業主"
    )
}

/// Whether a subject is the bare role word of a participant ("the user",
/// 用户) rather than a person the agent works for (my user, the owner, the
/// boss, Dana (the user)).
pub(super) fn is_participant_subject(subj: &str) -> bool {
    let s = subj.trim().to_ascii_lowercase();
    matches!(
        s.as_str(),
        "user" | "the user" | "teh user" | "a user" | "用户" | "用戶" | "ユーザー"
    )
}

/// Whether `text` opens with a Markdown heading (a document: a guide, a
/// skill, a profile), as opposed to a bare memory entry.
pub(super) fn is_headed(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with('#'))
}

/// Whether `word` addresses the user in the second person ("You").
pub(super) fn is_second_person(word: &str) -> bool {
    word == "You"
}

/// Whether `word` is a pronoun that names the user in a profile.
pub(super) fn is_profile_pronoun(word: &str) -> bool {
    PROFILE_PRONOUNS.contains(&word)
}

/// The first word of a clause after list markers, a short label and one
/// leading time word (the word [`starts_with_name`] tests).
pub(super) fn clause_head_word(clause: &str) -> &str {
    let body = strip_markers(clause);
    // A label is at most 12 bytes, so only the head can hold its ": " (the
    // first one in the head is the first one in the body).
    let head = &body[..floor_boundary(body, 14)];
    let body = match head.find(": ") {
        Some(at) if at <= 12 && body[..at].bytes().all(|b| b.is_ascii_alphabetic()) => {
            body[at + 2..].trim_start()
        }
        _ => body,
    };
    let mut words = body.split(|c: char| !c.is_ascii_alphabetic());
    let mut word: &str = words.next().unwrap_or("");
    // One leading time word may stand before the name ("Yesterday Dana …").
    if word.len() <= 10 && NAME_LEAD.contains(&word.to_ascii_lowercase().as_str()) {
        word = words.find(|w| !w.is_empty()).unwrap_or("");
    }
    word
}

/// Whether a capitalised word can be a first name: not a listed group,
/// company, product or common noun, and without a common-noun or bot
/// ending (Deployment, Migration, Dependabot).
pub(super) fn is_first_name(word: &str) -> bool {
    const NOUN_ENDINGS: &[&str] = &[
        "tion", "sion", "ment", "ness", "ity", "ance", "ence", "ing", "ers", "ies", "ure", "ship",
        "ism", "bot", "ware", "base", "hub", "ops", "ics", "ogy", "ages",
        // Plural nouns for groups of people (Students, Tenants, Employees,
        // Visitors, Analysts, Librarians): no first name ends so.
        "ents", "ants", "ees", "ors", "sts", "ians",
    ];
    let lower = word.to_ascii_lowercase();
    NAME_STOP.binary_search(&lower.as_str()).is_err()
        && !NOUN_ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// What follows a named subject's decision verb: an object in the same
/// clause, not "by …" (a reduced passive: "Files selected by the user").
pub(super) fn named_object_follows(after: &str) -> bool {
    let t = after.trim_start();
    let word: String = t
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '"' || c == '“')
        && word != "by"
}
