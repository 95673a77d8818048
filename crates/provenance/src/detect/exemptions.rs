//! The not-claim rules: who may stand before a subject, what may follow a
//! predicate, and which lines are not prose at all.

use super::*;

/// The not-claim rules kept as data (`data/claim_exemptions.json`), one
/// alternation per kind.
#[derive(Clone, Debug)]
pub(super) struct DataExemptions {
    pub(super) en_before_subject: Re,
    pub(super) zh_before_subject: Re,
    pub(super) sentence_tail: Re,
    pub(super) we_needs_user: Re,
    pub(super) after_phrase: Re,
    pub(super) kv_scalar_value: Re,
    pub(super) quoted_field: Re,
    pub(super) after_predicate: Re,
    pub(super) other_before_clause: Re,
    pub(super) retracted_next: Re,
    pub(super) mention_lead: Re,
}

impl DataExemptions {
    pub(super) fn new() -> DataExemptions {
        let rules = lexicon::builtin_exemptions();
        let alt = |kind| lexicon::exemption_alternation(&rules, kind).unwrap_or_else(never);
        DataExemptions {
            en_before_subject: lazy(&format!("(?i){}", alt(ExemptionKind::EnBeforeSubject))),
            zh_before_subject: lazy(&alt(ExemptionKind::ZhBeforeSubject)),
            sentence_tail: lazy(&alt(ExemptionKind::SentenceTail)),
            we_needs_user: lazy(&alt(ExemptionKind::WeNeedsUser)),
            after_phrase: lazy(&alt(ExemptionKind::AfterPhrase)),
            kv_scalar_value: lazy(&alt(ExemptionKind::KvScalarValue)),
            quoted_field: lazy(&alt(ExemptionKind::QuotedField)),
            after_predicate: lazy(&format!("(?i)^(?:{})", alt(ExemptionKind::AfterPredicate))),
            other_before_clause: lazy(&format!(
                "(?i)(?:{})",
                alt(ExemptionKind::OtherBeforeClause)
            )),
            retracted_next: lazy(&format!(
                "(?i)^[ \\t]*(?:{})",
                alt(ExemptionKind::RetractedNext)
            )),
            mention_lead: lazy(&format!("(?i)(?:{})", alt(ExemptionKind::MentionLead))),
        }
    }
}

/// How far back (bytes) the data rules look for a hedge or a report: the
/// words that make a claim hearsay stand close to its subject.
pub(super) const HEDGE_WINDOW: usize = 120;

/// The last `n` bytes of `s` (on a char boundary).
/// The first `n` bytes of `s` (or fewer, at a character boundary).
pub(super) fn near_start(s: &str, n: usize) -> &str {
    let mut i = n.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

pub(super) fn near_end(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

/// Words of feeling or perception after 让我 that make it a causative
/// ("made me …"), not an instruction (用户让我印象最深, 老板让我很意外).
const ZH_FEELING_AFTER_CAUSATIVE: &[&str] = &[
    "印象",
    "觉得",
    "覺得",
    "感到",
    "感觉",
    "感覺",
    "想起",
    "意识到",
    "意識到",
    "明白",
    "很",
    "非常",
    "挺",
    "特别",
    "特別",
    "有点",
    "有點",
    "惊讶",
    "驚訝",
    "意外",
    "失望",
    "佩服",
    "头疼",
    "頭疼",
];

/// How far (bytes) the rules after a predicate read.
const LOOKAHEAD: usize = 256;

/// The text around `at` that a clause-level rule reads: [`LOOKBACK`] bytes
/// before it and [`LOOKAHEAD`] after, so a rule costs the same on a clause
/// of any length.
fn window_around(clause: &str, at: usize) -> &str {
    let start = floor_boundary(clause, at.saturating_sub(LOOKBACK));
    let end = floor_boundary(clause, at.saturating_add(LOOKAHEAD));
    &clause[start..end.max(start)]
}

/// Opening quote marks a field name may stand in.
const OPEN_QUOTES: &[char] = &['“', '"', '「', '『', '\'', '`', '‘'];

/// A `key: value` line as the key/value rule reads it: the trimmed key,
/// the separator and the trimmed value, or `None` when the value runs onto
/// another line. The separator is the last character of the match and the
/// key the (trimmed) rest, so a plain search does what a capture pass did.
pub(super) fn split_key_value<'t>(
    key_value: &Re,
    body: &'t str,
) -> Option<(&'t str, &'t str, &'t str)> {
    let m = key_value.find(body)?;
    let value = &body[m.end()..];
    let head = m.as_str();
    let sep_len = head.chars().next_back()?.len_utf8();
    let (key, sep) = head.split_at(head.len() - sep_len);
    (!value.contains('\n')).then(|| (key.trim(), sep, value.trim()))
}

/// Whether the text before a Chinese subject ends in a time clause of an
/// action already done (讨论了好几轮之后用户…): a fact, like the English
/// "after" with a verb in the past, not a condition.
fn zh_done_before(window: &str) -> bool {
    let Some(head) = ["之后", "之後", "以后", "以後"]
        .iter()
        .find_map(|w| window.strip_suffix(w))
    else {
        return false;
    };
    let seg = head
        .rfind([',', '，', '。', ';', '；', ':', '：', '\n'])
        .map_or(head, |i| &head[i + 1..]);
    seg.contains('了') && !seg.contains(['如', '若', '等'])
}

/// Whether a copula (是, 就是, 正是) stands in the few characters before the
/// subject that ends right before `pred_start` (这是用户确认的方案).
fn zh_copula_before(clause: &str, pred_start: usize) -> bool {
    let head = &clause[..pred_start.min(clause.len())];
    let head = &head[floor_boundary(head, head.len().saturating_sub(60))..];
    let seg = head
        .rfind([',', '，', '。', ';', '；', ':', '：', '\n'])
        .map_or(head, |i| &head[i + 1..]);
    seg.contains('是') && !seg.contains("是否") && !seg.contains("不是")
}

/// Whether a table row is an entry of a dated log: its first cell is an
/// ISO date and a later cell is a sentence (five words or more, or twelve
/// CJK characters), as in `| 2025-04-07 | the user vetoed the rebrand |
/// email |`. Such a row is prose, like a dated log line; a row of short
/// cells (`| 2025-04-01 | Owner approved | PR #233 |`) stays a record.
pub(super) fn dated_log_row(row: &str) -> bool {
    let body = row.trim().trim_start_matches('|').trim_start();
    let mut cells = body.trim_end_matches('|').split('|');
    let dated = cells.next().is_some_and(|c| c.trim().len() == 10)
        && strip_date_stamp(body).len() < body.len();
    dated
        && cells.any(|c| {
            c.split_whitespace().count() >= 5 || c.chars().filter(|&ch| is_cjk(ch)).count() >= 12
        })
}

/// Whether an ASCII trigger is a whole word (`we` in `were` or `user` in
/// `users` is not); CJK triggers always count.
pub(super) fn whole_word_trigger(text: &str, start: usize, end: usize) -> bool {
    if !text.as_bytes()[start].is_ascii() {
        return true;
    }
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(|c| c.is_ascii_alphanumeric())
        && !after.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The hand-written regexes of the not-claim rules.
#[derive(Clone, Debug)]
pub(super) struct Fixed {
    /// A heading that names the user's decisions ("## What the user
    /// decided", "## 用户的决定"): its list items are the user's decisions.
    pub(super) decided_heading: Re,
    /// The header cell of a decision-log table's "decided by" column.
    pub(super) decided_column: Re,
    /// A cell of that column that names the user.
    pub(super) decided_cell: Re,
    /// The participant label of a research-notes title (`customer #7`,
    /// `participant P7`, 第 4 位): see [`grammar::is_participant_notes`].
    pub(super) participant_label: Re,
    pub(super) label: Re,
    pub(super) ticket: Re,
    pub(super) key_value: Re,
    pub(super) ident_key: Re,
    pub(super) decision_word: Re,
    pub(super) scalar: Re,
    pub(super) script_zh: Re,
    pub(super) code_like: Re,
    pub(super) cond_any: Re,
    pub(super) cond_near: Re,
    pub(super) fact_time: Re,
    pub(super) zh_after_fact: Re,
    pub(super) zh_process_clause: Re,
    pub(super) zh_future: Re,
    pub(super) generic: Re,
    pub(super) reported: Re,
    pub(super) question_aux: Re,
    pub(super) field_after: Re,
    pub(super) pending_object: Re,
    pub(super) want_know: Re,
    pub(super) noun_after_user: Re,
    pub(super) asked_for_help: Re,
    pub(super) tag_question: Re,
    pub(super) aux_before: Re,
    pub(super) zh_prefix_block: Re,
    pub(super) zh_noun_after: Re,
    pub(super) zh_cond_after: Re,
    pub(super) zh_de_noun: Re,
    pub(super) zh_kv_key: Re,
    pub(super) artifact_noun: Re,
}

impl ClaimDetector {
    /// The English subject rule: who may stand before the subject.
    ///
    /// With a predicate in the simple past, "after"/"once" before the
    /// subject open a clause that states a fact ("after the user approved
    /// it, …"), not a condition.
    pub(super) fn en_subject_ok(
        &self,
        clause: &str,
        subj_start: usize,
        subj: &str,
        past: bool,
    ) -> bool {
        if self.quoted_field(clause, subj_start) {
            return false;
        }
        let lower = subj.trim_start().to_ascii_lowercase();
        let determined = lower.starts_with("the")
            || lower.starts_with("my")
            || lower.starts_with("our")
            || subj.contains('(')
            || subj.contains(',');
        let prev = previous_word(clause, subj_start);
        if prev.as_deref() == Some("that") {
            // "verify that the user …", "make sure that the user …"
            let that_at = clause[..subj_start].trim_end().len().saturating_sub(4);
            if previous_word(clause, that_at)
                .is_some_and(|w| OBJECT_CLAUSE_VERBS.contains(&w.as_str()))
            {
                return false;
            }
        }
        let fact_time = past && matches!(prev.as_deref(), Some("after" | "once"));
        if let Some(word) = prev.as_deref().filter(|_| !fact_time) {
            if determined {
                if PREPOSITIONS.contains(&word) || OBJECT_CLAUSE_VERBS.contains(&word) {
                    return false;
                }
            } else if !BARE_OK.contains(&word) && !word.chars().all(|c| c.is_ascii_digit()) {
                return false;
            }
        }
        self.prefix_ok(clause, subj_start, past)
    }

    /// The subject rule for "we" / "the user and I": only a clause start or
    /// a function word may stand before it ("why we chose" is no claim).
    pub(super) fn we_subject_ok(&self, clause: &str, subj_start: usize, past: bool) -> bool {
        if !self.we_names_user(clause, subj_start) {
            return false;
        }
        let prev = previous_word(clause, subj_start);
        let fact_time = past && matches!(prev.as_deref(), Some("after" | "once"));
        if let Some(word) = prev.filter(|_| !fact_time) {
            if !BARE_OK.contains(&word.as_str()) || word == "that" {
                return false;
            }
        }
        self.prefix_ok(clause, subj_start, past)
    }

    /// Whether a we-subject counts: "the user and I" names the user; a
    /// bare "we" / 我们 is the team unless the clause names the user as a
    /// deciding party (`prov.exempt.en.we_team.1`).
    pub(super) fn we_names_user(&self, clause: &str, subj_start: usize) -> bool {
        let subj = &clause[subj_start..];
        let head = subj.trim_start();
        let bare = head.get(..2).is_some_and(|w| w.eq_ignore_ascii_case("we"))
            || ["我们", "我們", "咱们"].iter().any(|w| head.starts_with(w))
                && !["我们和", "我们跟", "我們和"]
                    .iter()
                    .any(|w| head.starts_with(w));
        !bare
            || self
                .grammar
                .data
                .we_needs_user
                .is_match(window_around(clause, subj_start))
    }

    /// Whether the subject at `subj_start` sits in a short quoted span (a
    /// field or column name: “用户批准人”字段).
    pub(super) fn quoted_field(&self, clause: &str, subj_start: usize) -> bool {
        clause[..subj_start]
            .trim_end_matches(' ')
            .ends_with(OPEN_QUOTES)
            && self
                .grammar
                .data
                .quoted_field
                .is_match(&clause[subj_start..floor_boundary(clause, subj_start + 64)])
    }

    /// The subject rule of a code-switched form ("owner 同意了"): the
    /// English rules after Latin text, the Chinese rules after Chinese.
    pub(super) fn cs_subject_ok(
        &self,
        clause: &str,
        subj_start: usize,
        subj: &str,
        past: bool,
    ) -> bool {
        let after_cjk = clause[..subj_start]
            .trim_end()
            .chars()
            .next_back()
            .is_some_and(is_cjk);
        if after_cjk {
            self.zh_prefix_ok(clause, subj_start)
        } else {
            let start = floor_boundary(clause, subj_start.saturating_sub(LOOKBACK));
            self.en_subject_ok(clause, subj_start, subj, past)
                && !self
                    .grammar
                    .data
                    .zh_before_subject
                    .is_match(&clause[start..subj_start])
        }
    }

    /// Whether `lower` (English clause text before a subject) holds a
    /// study, flow or example word that sets the scene. A flow word that
    /// only names the kind of an artifact the agent worked on ("rewrote the
    /// onboarding email, as the user asked") sets no scene.
    fn generic_context(&self, lower: &str) -> bool {
        self.grammar.fixed.generic.find_iter(lower).any(|m| {
            !(FLOW_MODIFIERS.contains(&m.as_str())
                && self.grammar.fixed.artifact_noun.is_match(&lower[m.end()..]))
        })
    }

    /// The prefix rules shared by every English form: conditionals,
    /// hypotheticals, study/flow/example words, reported sources and
    /// question inversion between the clause start and `at`.
    ///
    /// `past`: the predicate is in the simple past, so the last "after" /
    /// "once" / "as soon as" before the subject marks a fact, not a condition.
    pub(super) fn prefix_ok(&self, clause: &str, at: usize, past: bool) -> bool {
        let start = floor_boundary(clause, at.saturating_sub(LOOKBACK));
        let window = &clause[start..at];
        let mut lower = window.to_lowercase().replace("once again", "again");
        if past {
            if let Some(m) = self.grammar.fixed.fact_time.find_iter(&lower).last() {
                lower.replace_range(m.range(), " ");
            }
        }
        if self.grammar.fixed.cond_any.is_match(&lower)
            || self.generic_context(&lower)
            || self
                .grammar
                .data
                .en_before_subject
                .is_match(near_end(&lower, HEDGE_WINDOW))
        {
            return false;
        }
        // A Chinese hedge or source before an English subject (日志：`… user
        // declined …`, 据说 the owner approved …).
        let near = near_end(window, HEDGE_WINDOW);
        if !near.is_ascii() && self.grammar.data.zh_before_subject.is_match(near) {
            return false;
        }
        if let Some(m) = self.grammar.fixed.cond_near.find_iter(&lower).last() {
            if !lower[m.end()..].contains([',', ':', ';', '—']) {
                return false;
            }
        }
        if self.grammar.fixed.reported.is_match(&lower) {
            let t = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
            if !(t.starts_with("i ") || t.starts_with("we ") || t.starts_with("noted")) {
                return false;
            }
        }
        if start == 0 && self.grammar.fixed.question_aux.is_match(&lower) {
            return false;
        }
        true
    }

    /// What may follow an English predicate.
    pub(super) fn en_after_ok(&self, clause: &str, pred: &str, end: usize) -> bool {
        if next_is_word_char(clause, end) && !pred.ends_with(' ') {
            return false;
        }
        let after = &clause[end..];
        let lp = pred.to_ascii_lowercase();
        if lp.trim_end().ends_with("picked")
            && after.trim_start().to_ascii_lowercase().starts_with("up")
            && !next_is_word_char(after.trim_start(), 2)
        {
            // "picked up the ticket" is no choice.
            return false;
        }
        if lp.trim_end().ends_with("signed off")
            && after.trim_start().to_ascii_lowercase().starts_with("with")
        {
            return false;
        }
        if self.grammar.fixed.field_after.is_match(after)
            || self.grammar.fixed.pending_object.is_match(after)
        {
            return false;
        }
        if (lp.contains("want") || lp.contains("like"))
            && self.grammar.fixed.want_know.is_match(after)
        {
            return false;
        }
        if lp.ends_with("asked for") && self.grammar.fixed.asked_for_help.is_match(after) {
            return false;
        }
        // A verb that reports a fact ("confirmed the bug reproduces"): the
        // rule reads the predicate and a bounded window after it.
        let window = &after[..floor_boundary(after, LOOKAHEAD)];
        !self.grammar.data.after_predicate.is_match(&format!(
            "{} {}",
            lp.trim(),
            window.trim_start()
        ))
    }

    /// Passive voice: who may stand before the participle.
    pub(super) fn passive_ok(&self, clause: &str, verb_start: usize, verb: &str) -> bool {
        let before = &clause[floor_boundary(clause, verb_start.saturating_sub(60))..verb_start];
        let lower = before.to_ascii_lowercase();
        if let Some(c) = self.grammar.fixed.aux_before.captures(&lower) {
            let aux = c.get(1).map_or("", |m| m.as_str());
            return !matches!(aux, "is" | "are" | "be" | "get");
        }
        let t = before.trim_end();
        if t.is_empty() || t.ends_with(|c: char| !c.is_alphanumeric()) {
            return true;
        }
        let weak = [
            "chosen",
            "picked",
            "selected",
            "confirmed",
            "specified",
            "decided",
            "agreed",
            "asked for",
        ];
        !weak.contains(&verb.to_ascii_lowercase().as_str())
    }

    /// The Chinese subject rule: third parties, populations, conditions,
    /// study words and reported sources before the subject.
    pub(super) fn zh_prefix_ok(&self, clause: &str, subj_start: usize) -> bool {
        self.zh_prefix_rules(clause, subj_start, false)
    }

    /// The Chinese rules before an agentless frame (由老板定在, 经老板批示,
    /// 已获用户认可): those of [`ClaimDetector::zh_prefix_ok`], but the frame
    /// word itself opens the phrase, so any topic may stand before it
    /// (上线时间由老板定…) except a negation or a need in the last three
    /// characters before it (未经老板批准, 都要先征得用户同意).
    pub(super) fn zh_frame_prefix_ok(&self, clause: &str, at: usize) -> bool {
        const NOT_BEFORE_FRAME: &[char] = &[
            '未', '不', '没', '沒', '无', '無', '非', '须', '須', '需', '应', '應', '要', '若',
            '得',
        ];
        let negated = clause[..at]
            .trim_end()
            .chars()
            .rev()
            .take_while(|&c| is_cjk(c))
            .take(3)
            .any(|c| NOT_BEFORE_FRAME.contains(&c));
        !negated && self.zh_prefix_rules(clause, at, true)
    }

    /// Whether a word before a Chinese subject makes it no claim (由, 待,
    /// 供, 需, 说, 规则 …: the `zh_prefix_block` words). 供 and 需 offer or
    /// require (供用户选择, 需用户确认), but not in 供应商 (a supplier) or 需求
    /// (a request), which name a topic (供应商的事用户定了, 这个需求老板 OK
    /// 过了). The matches are read only when the regex finds one.
    fn zh_prefix_blocked(&self, window: &str) -> bool {
        let block = &self.grammar.fixed.zh_prefix_block;
        block.is_match(window)
            && block.find_iter(window).any(|m| {
                let after = &window[m.end()..];
                !match m.as_str() {
                    "供" => after.starts_with(['应', '應']),
                    "需" => after.starts_with('求'),
                    _ => false,
                }
            })
    }

    /// The Chinese prefix rules; `frame`: the phrase starts with a frame word,
    /// so the word before it is not read as part of the subject.
    fn zh_prefix_rules(&self, clause: &str, subj_start: usize, frame: bool) -> bool {
        let start = floor_boundary(clause, subj_start.saturating_sub(LOOKBACK));
        let window = &clause[start..subj_start];
        // `user_confirmed_at = 用户确认收货时间`: a data-dictionary line
        // describes the field its identifier names.
        if field_definition(window) {
            return false;
        }
        let near = near_end(window, HEDGE_WINDOW);
        if self.zh_prefix_blocked(window)
            || self.grammar.data.zh_before_subject.is_match(near)
            || near.bytes().any(|b| b.is_ascii_alphabetic())
                && self
                    .grammar
                    .data
                    .en_before_subject
                    .is_match(&near.to_lowercase())
            || self.quoted_field(clause, subj_start)
        {
            return false;
        }
        // A cleft (是用户决定的) names the user; its negation does not.
        if ["不是", "并非", "並非", "未必是"]
            .iter()
            .any(|w| window.ends_with(w))
        {
            return false;
        }
        let lower = window.to_lowercase();
        if self.grammar.fixed.cond_any.is_match(&lower)
            || self.grammar.fixed.generic.is_match(&lower)
        {
            return false;
        }
        // A cleft at the start of a clause: 是用户决定把仓库改成私有的.
        if matches!(strip_markers(window).trim(), "是" | "正是" | "就是") {
            return true;
        }
        // A cleft frame (这家律所是老板亲自选的) starts at its copula and may
        // follow any topic but a negation (不是, 并非 are refused above).
        let cleft = ["是", "正是", "就是"]
            .iter()
            .any(|w| clause[subj_start..].starts_with(w));
        match window.chars().next_back() {
            Some(c) if is_cjk(c) && !frame => {
                (cleft && !window.ends_with(['不', '非']))
                    || ZH_PREV_OK.iter().any(|w| window.ends_with(w))
                    || (window.ends_with("的时候") || window.ends_with('时'))
                        && ZH_PAST_TIME.iter().any(|w| window.contains(w))
                    || zh_done_before(window)
            }
            _ => true,
        }
    }

    /// What may follow a Chinese predicate.
    pub(super) fn zh_after_ok(&self, clause: &str, pred: &str, end: usize) -> bool {
        // The rules read a bounded window after the predicate (a segment
        // runs to the next punctuation mark; a text without any would cost
        // a scan to its end per candidate).
        let rest_all = &clause[end..];
        let rest_all = &rest_all[..floor_boundary(rest_all, LOOKAHEAD)];
        let seg_end = rest_all
            .find(['，', ',', '。', '；', ';', '！', '？', '!', '?', '\n'])
            .unwrap_or(rest_all.len());
        let rest = &rest_all[..seg_end];
        // user 说要再看看 pricing 再定: the decision is put off
        // (`prov.exempt.zh.deferral.1`), read like an English predicate.
        if self.grammar.data.after_predicate.is_match(&format!(
            "{} {}",
            pred.trim(),
            rest_all.trim_start()
        )) {
            return false;
        }
        // 用户批准人, 用户同意书, 用户批准率: the verb is the head of a noun
        // (the approver, the consent form, the approval rate), a field name.
        if !pred.ends_with(['了', '过', '過']) && noun_head(rest) {
            return false;
        }
        // 用户同意了吗?需要再确认: the segment that holds the predicate is a
        // question (NFKC makes "？" a "?" with no space after it, so the
        // sentence split does not end there).
        if rest_all[seg_end..].starts_with(['?', '？']) {
            return false;
        }
        // 用户同意后，我们已经合并了: a time clause whose main clause is past.
        if self.grammar.fixed.zh_after_fact.is_match(rest) {
            let tail = &rest_all[seg_end..];
            let tail = &tail[..tail
                .find(['。', '！', '!', '；', ';', '\n'])
                .unwrap_or(tail.len())];
            return (tail.contains('了') || tail.contains('已'))
                && !self.grammar.fixed.zh_future.is_match(tail);
        }
        // 用户确认收货后订单完成, 用户选择了兑换但支付失败时，积分退回,
        // 用户确认收货前不要推荐退货: the
        // decision verb heads a time or condition clause of a process; it
        // records a decision only when the main clause is past (用户确认方案后
        // 我们就开工了).
        // A prohibition or an order holds its content as a clause (主人不许我
        // 在晚上十点以后发通知), as does a colon (用户已确认：回滚时只回滚镜像):
        // the time clause is what was ordered or confirmed.
        let orders = pred.contains([
            '不', '别', '別', '禁', '许', '許', '让', '讓', '叫', '要', '说', '說',
        ]);
        let orders = orders || rest.starts_with([':', '：']);
        if let Some(m) = (!orders)
            .then(|| self.grammar.fixed.zh_process_clause.find(rest))
            .flatten()
        {
            let after = &rest_all[m.end()..];
            // 后端, 后续, 后天, 时间, 时刻: the marker begins a word. After a 经
            // frame (经 owner sign off 之后今天上线) the approval is done.
            let word = after.starts_with([
                '端', '台', '续', '續', '面', '来', '來', '期', '果', '候', '间', '間', '刻', '段',
                '区', '區', '长', '長', '代', '效', '机', '機', '钟', '鐘', '尚', '髦', '天', '年',
                '者', '景', '提', '缀', '綴', '置', '进', '進', '往', '任', '身', '途', '列', '沿',
                '锋', '鋒', '夕', '方', '排', '半', '科', '辈', '輩', '奏', '言', '后', '後', '驱',
                '驅', '程', '门', '門',
            ]);
            // 用户同意了之前的报价: 之前的 / 前面 name an earlier thing.
            let word = word || (m.as_str().ends_with('前') && after.starts_with('的'));
            let frame = clause[..end].contains(['经', '經']);
            let tail = &after[..after
                .find(['。', '！', '!', '；', ';', '\n'])
                .unwrap_or(after.len())];
            let past = tail.contains('了') || tail.contains('已');
            if !word && !frame && (!past || self.grammar.fixed.zh_future.is_match(tail)) {
                return false;
            }
        }
        if self.grammar.fixed.zh_noun_after.is_match(rest) {
            return false;
        }
        // 这是用户最终确认的方案: after a copula, a relative clause on a
        // decision noun names what the user decided.
        let copula = zh_copula_before(clause, end.saturating_sub(pred.len()));
        if rest.starts_with('的')
            && !rest[3..].starts_with('是')
            && !(copula && ZH_DECISION_NOUNS.iter().any(|n| rest[3..].starts_with(n)))
        {
            return false;
        }
        // 用户同意部分退款的，按协商金额退: a clause that ends in 的 before a
        // comma is a case of a rule ("where the user agreed …"), unless a
        // copula makes it a cleft (这个方案是用户确认过的，别改).
        if rest.ends_with('的') && rest_all[seg_end..].starts_with([',', '，']) && !copula {
            return false;
        }
        // 让我把 Q2 的数据重新跑一遍: a 把/将 object is the object of the
        // instruction's own verb, not a noun the decision qualifies.
        // 不让我再替他回复房东的消息: after a causative (让, 叫, 要, 准, 许)
        // the agent as object starts the instruction's own verb phrase too.
        let causative = ["让", "讓", "叫", "要", "准", "许", "許"]
            .iter()
            .any(|c| pred.ends_with(c))
            && rest.starts_with('我');
        let disposal = rest.starts_with('把') || rest.starts_with('将') || causative;
        // 用户指示：备份必须加密后再上传: after a colon the segment is the
        // instruction's content, so its own 后再 is no condition on the claim.
        // So is what a causative with the agent as object orders (用户让我每次
        // 改完配置之前，都先备份): its 之前 is part of the order, not a time
        // clause of the claim.
        let ordered = ["让我", "讓我", "叫我", "要我", "请我"]
            .iter()
            .any(|c| pred.ends_with(c));
        let content = rest.starts_with([':', '：']) || ordered;
        if (!disposal && self.grammar.fixed.zh_de_noun.is_match(rest))
            || (!content && self.grammar.fixed.zh_cond_after.is_match(rest))
        {
            return false;
        }
        if pred.starts_with("要求")
            && ["较", "很", "比较", "高", "低", "严格", "越来越"]
                .iter()
                .any(|w| rest.starts_with(w))
        {
            return false;
        }
        // 用户让我印象最深的是…: 让我 before a feeling is a causative
        // ("made me feel"), not an instruction.
        if (pred.ends_with("让我") || pred.ends_with("讓我"))
            && ZH_FEELING_AFTER_CAUSATIVE
                .iter()
                .any(|w| rest.starts_with(w))
        {
            return false;
        }
        if pred.starts_with("希望") && (rest.starts_with("能") || rest.starts_with("可以")) {
            return false;
        }
        // Whether-questions after the predicate: 用户确认是否…
        !rest.starts_with("是否")
    }

    /// Whether what follows a Chinese frame makes it a relative clause of a
    /// rule (由用户定为管理员的成员可以删除仓库, 经老板批准的报销单可以直接打款):
    /// a 的 within a few characters, then a modal or a need.
    pub(super) fn zh_relative_rule(&self, clause: &str, end: usize) -> bool {
        const MODALS: &[&str] = &[
            "可以", "可", "能", "才", "需要", "需", "须", "必须", "不得", "不能",
        ];
        let rest = &clause[end..];
        let rest = &rest[..floor_boundary(rest, 96)];
        let seg = &rest[..rest
            .find(['，', ',', '。', '；', ';', '！', '？', '!', '?', '\n'])
            .unwrap_or(rest.len())];
        let Some(de) = seg.find('的').filter(|&i| i <= 36) else {
            return false;
        };
        let after = &seg[de + '的'.len_utf8()..];
        let after = &after[..floor_boundary(after, 36)];
        MODALS.iter().any(|m| after.contains(m))
    }

    /// Line-level not-claim rules (the generic-actor rule for non-prose).
    pub(super) fn line_exempt(&self, line: &str) -> bool {
        let indent_spaces = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            return true;
        }
        if (indent_spaces >= 4 || line.starts_with('\t') || line[indent_spaces..].starts_with('\t'))
            && !starts_list_item(trimmed)
        {
            return true;
        }
        let table_row = trimmed.starts_with('|')
            || memchr::memmem::find_iter(trimmed.as_bytes(), b" | ")
                .nth(1)
                .is_some();
        if (table_row && !dated_log_row(trimmed))
            || trimmed.starts_with("//")
            || trimmed.starts_with("/*")
        {
            return true;
        }
        let body = strip_markers(trimmed);
        // The unanchored rules read the head of a long line (bounded work;
        // a line of many kilobytes is a paragraph, not a script or code).
        let head = &body[..floor_boundary(body, LINE_HEAD)];
        if self.grammar.fixed.label.is_match(body)
            || self.grammar.fixed.ticket.is_match(body)
            || self.grammar.fixed.script_zh.is_match(head)
            || self.grammar.fixed.code_like.is_match(head)
        {
            return true;
        }
        self.key_value_record(body)
    }

    /// Whether a continuation line of a logical line (the physical line
    /// holding a claim's predicate, after the first) is a record line by
    /// the key/value rules of [`ClaimDetector::line_exempt`]: a YAML
    /// mapping's `  on_confirm: user confirmed the dialog, emit event`
    /// under a list item (`    - security`), or `  user chose: blue` under
    /// `deploy:`, is joined to the line above as a hard wrap, yet it is a
    /// field of the config, as it is on its own. `anchor` and `pred` are
    /// byte offsets in `line` of the claim's start and of its predicate;
    /// the first physical line is read by [`ClaimDetector::line_exempt`]
    /// itself. A claim whose subject stands on an earlier line ("- The
    /// user\n  chose: dark") is a wrapped sentence unless its predicate is
    /// in the record's value.
    pub(super) fn continuation_record(&self, line: &str, anchor: usize, pred: usize) -> bool {
        let pred = floor_boundary(line, pred);
        let Some(nl) = line[..pred].rfind('\n') else {
            return false;
        };
        let rest = &line[nl + 1..];
        let physical = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let stripped = strip_markers(physical);
        let body = stripped.trim_end();
        let body_start = nl + 1 + (physical.len() - stripped.len());
        let on_line = anchor > nl;
        let in_value = || {
            self.grammar
                .fixed
                .key_value
                .find(body)
                .is_some_and(|m| pred >= body_start + m.end())
        };
        (on_line || in_value()) && self.key_value_record(body)
    }

    /// The key/value rules of a line's body (markers stripped).
    fn key_value_record(&self, body: &str) -> bool {
        // Only the key and separator are captured (no capture pass over a
        // long value); a value running onto another line is no record.
        let kv = split_key_value(&self.grammar.fixed.key_value, body);
        if let Some((key, sep, value)) = kv {
            if sep == "=" || sep == "＝" {
                return true;
            }
            if self.grammar.fixed.ident_key.is_match(key)
                && (key.contains(['_', '.']) || has_inner_upper(key))
            {
                return true;
            }
            if self.grammar.fixed.zh_kv_key.is_match(key) {
                return true;
            }
            if self.grammar.fixed.decision_word.is_match(key)
                && self.grammar.data.kv_scalar_value.is_match(value)
            {
                return true;
            }
            // A note whose value is itself such a field: 备注：用户同意：是/否
            // 这一列在旧表里叫 agree_flag.
            if let Some((key2, _, value2)) =
                split_key_value(&self.grammar.fixed.key_value, value.trim_start())
            {
                if self.grammar.fixed.decision_word.is_match(key2)
                    && self.grammar.data.kv_scalar_value.is_match(value2)
                {
                    return true;
                }
            }
            // A lower-case key with a one-word value is a record, not prose
            // ("user: approved", "user chose: dark").
            if key.starts_with(|c: char| c.is_lowercase())
                && self.grammar.fixed.scalar.is_match(value)
            {
                return true;
            }
            if self.grammar.fixed.decision_word.is_match(key)
                && self.grammar.fixed.scalar.is_match(value)
            {
                let v = value.trim_end_matches(['.', ',', ';']).to_ascii_lowercase();
                let literal = matches!(
                    v.as_str(),
                    "true" | "false" | "yes" | "no" | "null" | "none" | "nil" | "n/a" | "na"
                ) || v.chars().next().is_some_and(|c| c.is_ascii_digit());
                if literal || key.starts_with(|c: char| c.is_lowercase()) {
                    return true;
                }
            }
        }
        false
    }
}

impl Fixed {
    pub(super) fn new() -> Fixed {
        Fixed {
            // The short label words (Q, A, AC, TC, FR) end at a word
            // boundary or a number: "Approved-by:" is no "A" label.
            decided_heading: lazy(
                r"(?i)^#{1,6}\s*(?:what\s+(?:the\s+|my\s+|our\s+)?(?:user|owner|boss)\s+(?:has\s+)?(?:decided|chose|approved|signed\s+off\s+on|ruled)|(?:the\s+|my\s+)?(?:user|owner|boss)(?:'s)?\s+(?:decisions|decided|rulings|choices)|decisions\s+(?:made\s+)?(?:by|from)\s+(?:the\s+|my\s+)?(?:user|owner|boss))\s*(?:\([^()\n]{0,30}\))?\s*[:：]?\s*$|^#{1,6}\s*(?:用户|用戶|老板|老闆|主人|负责人|負責人|甲方)(?:的|已|已经)?(?:决定|決定|拍板|定下)(?:的事|的事项|事项|了)?\s*[:：]?\s*$",
            ),
            decided_column: lazy(
                r"(?i)^(?:\*\*)?(?:decided\s+by|decision\s+by|approved\s+by|signed\s+off\s+by|decider|who\s+decided|决定人|決定人|决策人|拍板人|批准人|审批人|决定者)(?:\*\*)?$",
            ),
            decided_cell: lazy(
                r"(?i)^(?:\*\*)?(?:(?:the\s+)?(?:user|owner|boss)|用户|用戶|老板|老闆|主人|负责人|負責人)(?:\s*\([^()|]{0,30}\))?(?:\*\*)?$",
            ),
            participant_label: lazy(
                r"(?i)\b(?:participant|interviewee|respondent|customer|client|user|subject)\s*(?:#\s*|no\.\s*)?[a-z]?\d{1,4}\b|\bp\d{1,3}\b|第\s*[\d一二三四五六七八九十]{1,3}\s*(?:位|个|個|号|號|名)|(?:受访者|受訪者|被访者|被訪者|参与者|參與者|参加者|協力者)\s*[a-z]?\d{1,3}",
            ),
            label: lazy(
                r"(?i)^(?:bug|issue|defect|incident|steps?|expected(?: result| behaviou?r| outcome)?|actual(?: result| behaviou?r)?|scenario|test(?: case| plan| step| scenario)?|tc(?:\b|\d)|case|examples?|e\.g\.|acceptance criteria|ac(?:\b|\d)|repro|steps to reproduce|ticket|changelog|release notes?|interview(?: notes?)?|policy|user story|story|fixture|mock|sample|persona|use case|flow|qa|spec|requirement|req|feature|edge case|assert(?:ion)?|input|output|prompt|transcript|log|fr(?:\b|\d)|nfr(?:\b|\d)|jira|(?:q|a)(?:\b|\d)|given|when|then|precondition|postcondition|gherkin|测试|测试用例|用例|示例|例如|例子|比如|场景|步骤|预期|预期结果|实际结果|需求|工单|规则|话术|政策|更新日志|访谈)(?:\s*[#\w.\-/]{1,12}){0,3}\s*[:：]|^(?i:given)\s",
            ),
            ticket: lazy(
                r"^(?:[A-Z][A-Z0-9]{1,9}-\d+\b|#\d+\s*[:：]|v?\d+(?:\.\d+)+\s*[:：]|(?i:changelog)\b|(?i:release)(?:\s*[:：]?\s*(?:v?\d|notes?\b)|s?\b\s*$))",
            ),
            // A key holds no clause punctuation (NFKC has made a full-width
            // comma ASCII): in "用户否决了 X，改用 y=z" the '=' is inside a
            // later clause, not a record's separator.
            key_value: lazy(
                r"^(?P<key>(?:[^:=：＝\n,;，。；！？(（]|[(（][^()（）\n]{0,30}[)）]){1,60}?)\s*(?P<sep>:|：|=|＝)",
            ),
            ident_key: lazy(r"^[A-Za-z_][A-Za-z0-9_.\-]*$"),
            decision_word: lazy(
                r"(?i)decided|chose|chosen|picked|selected|approved|agreed|confirmed|signed off|rejected|vetoed|决定|同意|确认|批准|选择|拒绝",
            ),
            scalar: lazy(r"(?i)^[\w\-./%]+\s*[.,;]?$"),
            script_zh: lazy(r"话术|剧本|台词|这是.{0,30}的记录|记录如下|对话记录|聊天记录|范例"),
            code_like: lazy(
                r#"^\s*[{\[].*["”]\s*:|==|=>|&&|\|\||::|\(\)\s*[;{]|\{\s*$|^\s*(?:if|elif|else|return|def|fn|function|const|let|var|assert|expect)\b.*[(){};=]"#,
            ),
            cond_any: lazy(
                r"(?i)\b(?:if|unless|whether|until|till|once|suppose|supposing|assuming|imagine|hypothetically|lest|whenever|in case|provided that|what if|let's say|should|would|could|might)\b|如果|若是|假如|假设|要是|一旦|除非|是否|每当",
            ),
            cond_near: lazy(r"(?i)\b(?:when|before|after|while|as soon as|by the time)\b"),
            fact_time: lazy(r"(?i)\b(?:after|once|as soon as)\b"),
            zh_after_fact: lazy(r"^了?(?:之后|以后|后)$"),
            // The predicate's object, then 后 / 时 inside the same segment
            // (用户确认收货后订单完成, 用户选择了兑换但支付失败时): a time or
            // condition clause of a process. Not a duration (三小时后), not
            // 暂时 / 当时, not 后端 / 后台 / 后续.
            zh_process_clause: lazy(
                r"^了?(?:[^，,。；;的]{0,9}[^，,。；;的\d一二三四五六七八九十两几个天日周月年分秒钟時时点點小暂暫当當同及临臨按准实實届屆平随隨那此彼以提目向往跟眼面空事从從](?:之后|之後|以后|以後|后|後|时|時|的时候)|[^，,。；;的:：每次]{0,3}[^，,。；;的底初末\d一二三四五六七八九十两几个天日周月年分秒钟時时点點小暂暫当當同及临臨按准实實届屆平随隨那此彼以提目向往跟眼面空事从從](?:之前|前)|(?:之后|之後|后|後|时|時|的时候|之前|前))",
            ),
            zh_future: lazy(r"才|即可|则|就会|就能|将|会|可以|可|自动|便可|再"),
            generic: lazy(
                r"(?i)\be\.g\.|\b(?:eg|for example|for instance|examples?|study|studies|scenarios?|flows?|personas?|simulation|simulated|stor(?:y|ies)|mock-?ups?|mocks?|prototypes?|wireframes?|demos?|walkthrough|usability|surveys?|experiments?|journey|use cases?|happy path|edge cases?|tutorials?|fixtures?|samples?|templates?|role-?play|game|hypothetical|tests?|testing|specs?|specification|requirements?|onboarding|checkout|wizard|dialog|modal|screens?|ui|ux|qa|a/b|interviews?|transcripts?|sandbox|staging users?)\b|测试中|测试|例如|比如|示例|场景|流程|用例|假定|模拟|演示",
            ),
            artifact_noun: lazy(
                r"^\s+(?:emails?|e-mails?|newsletters?|messages?|copy|texts?|docs?|documents?|pages?|calls?|meetings?|checklists?|invoices?|slides?|deck|videos?)\b",
            ),
            reported: lazy(
                r"(?i)\b(?:says|said|say|claims?|claimed|states|stated|mentions?|mentioned|reports?|reported|writes|wrote|suggests|suggested|argues|argued|told|tells|heard|hears|allegedly|supposedly|apparently|reportedly|rumou?rs?|according to)\b",
            ),
            question_aux: lazy(
                r"(?i)^\W*(?:did|does|do|has|have|had|is|was|were|should|can|could|would|will|may|might|must|shall|why|how|what|which|who)\b",
            ),
            // A field name: "the user approved column", "user approved=true",
            // "the user decided-at timestamp", "owner approved-by".
            field_after: lazy(
                r#"(?i)^["'”’]?\s*=|^-(?:at|by|time|date|ts|flag|count)\b|^["'”’]?(?:-[a-z]+)?\s+(?:labels?|tags?|toggles?|columns?|fields?|flags?|attributes?|property|properties|events?|states?|status|timestamps?|booleans?|bits?|enums?|values?|keys?|params?|parameters?|metrics?|counts?|rates?|badges?|checkbox(?:es)?|tables?|rows?)\b"#,
            ),
            // "agreed to nothing yet", "has chosen none so far", "confirmed
            // receipt of the email": nothing was decided.
            pending_object: lazy(
                r"(?i)^\s+(?:(?:to|on|upon)\s+)?(?:nothing|none|anything)(?:\s+of\s+(?:it|them|these|those|the\s+\w+))?\s*(?:,\s*)?(?:yet|so\s+far|for\s+now|at\s+this\s+point)\b|^\s+(?:the\s+)?receipt\b",
            ),
            want_know: lazy(
                r"(?i)^\s+to\s+(?:know|understand|learn|see (?:if|whether|how|why|what)|check (?:if|whether)|find out|ask|discuss|talk|explore|hear|clarify|compare|investigate|get a sense)\b",
            ),
            asked_for_help: lazy(
                r"(?i)^\s+(?:some\s+|more\s+)?(?:help|advice|clarification|an? explanation|explanations|details|info|information|examples?|ideas|suggestions|feedback|options|alternatives|a recommendation|recommendations|an? opinion|pointers|tips)\b",
            ),
            noun_after_user: lazy(
                r"(?i)^\s*(?:guide|manual|docs?|documentation|story|stories|agreement|interface|profile|settings|table|model|record|id|account|count|basis|limits?|quota|level|group|role|data|session|name|list|input|experience|research|base|segment|types?|object|class|page|menu|testing)\b",
            ),
            tag_question: lazy(
                r"(?i)[,，]\s*(?:ok|okay|right|yes|yeah|correct|got it|fine|agreed|ja|对吧|好吗|对吗)\s*[?？]$|\([^()]*[?？][^()]*\)\s*[?？]?$",
            ),
            aux_before: lazy(
                r"(?i)\b(was|were|been|got|gotten|is|are|be|get)\s+(?:(?:already|explicitly|personally|formally|officially|also|just|finally|later|eventually)\s+)?$",
            ),
            zh_prefix_block: lazy(
                r"由|待|让|請|请|提示|引导|供|允许|需要|需|须|必须|文档|据说|听说|说|称|提到|写道|表示|报告|规则|政策|条款|当|等到|只有|所有|每个|每位|部分|很多|大多数|一些|其他|各",
            ),
            zh_noun_after: lazy(
                r"^(?:码|碼|率|灯|燈|书|書|函|页|頁|框|按钮|弹窗|状态|字段|列|事件|回调|接口|流程|环节|机制|逻辑|时间戳|次数|人数|比例|模块|功能|协议|条款|单|数|量|因素|模型|路径|過程|过程|树|樹)",
            ),
            zh_cond_after: lazy(
                r"才|即可|则|就会|就能|就可以|(?:后|之后|以后|前|之前|时|的时候)\s*(?:[\d一二三四五六七八九十两]+\s*(?:个)?(?:天|日|小时|分钟|秒|周|月|工作日)(?:内|后|之后)?\s*)?(?:$|[再才就则便即]|进入|跳转|进行|开始|会|将|系统|自动|显示|表示|可以|可|方可|生成|触发|发送|通知)|(?:^|[^暂暫当當同及临臨按准实實届屆平随隨那此彼])(?:时|時|的时候)\s*(?:保持|变为|變為|变成|改为|回滚|返回|提示|弹出|报错|应|需要|仍)",
            ),
            zh_de_noun: lazy(
                r"^.{0,8}?的(?:回调|请求|事件|消息|通知|记录|数据|接口|日志|报销单|订单|单据|页面|按钮|状态|字段|比例|人数)",
            ),
            zh_kv_key: lazy(r"状态|字段|说明|含义|定义|类型|取值|枚举"),
        }
    }
}

/// Characters that, right after a Chinese decision verb, make it the head
/// of a noun: 批准人 (approver), 同意书 (consent form), 批准率 (approval
/// rate), 确认单, 审批者, 同意栏, 确认键.
const ZH_NOUN_HEADS: &[char] = &[
    '人', '者', '书', '書', '率', '单', '單', '函', '栏', '欄', '框', '键', '鍵', '码', '碼',
];

/// Whether `rest` (the text right after a decision verb) opens with a noun
/// head (批准人, 同意书, 批准率), not a word that starts with the same
/// character (人员, 人数, 单独, 书面: 老板批准人员调整 is a decision).
///
/// ```text
/// "人：张伟" → true; "书 PDF" → true; "人员调整" → false; "单独部署" → false
/// ```
fn noun_head(rest: &str) -> bool {
    let mut chars = rest.chars();
    let Some(head) = chars.next() else {
        return false;
    };
    let next = chars.next();
    ZH_NOUN_HEADS.contains(&head)
        && !matches!(
            (head, next),
            ('人', Some('员' | '員' | '数' | '數' | '手' | '力' | '才'))
                | ('单' | '單', Some('独' | '獨' | '个' | '個'))
                | ('书' | '書', Some('面'))
                | ('码' | '碼', Some('头' | '頭'))
        )
}

/// Whether the line before a subject is a field identifier and `=` or a
/// colon (`user_confirmed_at = `, `approver: `): the rest of the line is
/// that field's description, not a record of a decision.
///
/// ```text
/// "user_confirmed_at = " → true;  "- 备注：" → false (no identifier)
/// "user_id = 下单用户\nuser_agreed_terms = " → true (the last line counts)
/// ```
fn field_definition(window: &str) -> bool {
    let line = window.rsplit('\n').next().unwrap_or(window).trim();
    let Some(key) = line
        .strip_suffix('=')
        .or_else(|| line.strip_suffix(':'))
        .or_else(|| line.strip_suffix('：'))
    else {
        return false;
    };
    let key = key.trim_end();
    key.len() >= 2
        && key.contains('_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && key.as_bytes()[0].is_ascii_alphabetic()
}

#[cfg(test)]
mod tests {
    use super::{field_definition, noun_head};

    #[test]
    fn noun_heads_are_not_words_that_share_their_first_character() {
        assert!(noun_head("人：张伟") && noun_head("书 PDF 存在") && noun_head("率指标"));
        assert!(!noun_head("人员调整") && !noun_head("单独部署") && !noun_head("书面申请"));
        assert!(!noun_head("") && !noun_head("周五发版"));
    }

    #[test]
    fn field_definitions_are_identifier_lines() {
        assert!(field_definition("user_confirmed_at = "));
        assert!(field_definition("user_id = 下单用户\nuser_agreed_terms = "));
        assert!(field_definition("  approver_id: "));
        assert!(!field_definition("- 备注："));
        assert!(!field_definition("Note: "));
        assert!(!field_definition("会上 "));
    }
}
