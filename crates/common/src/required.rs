//! Bytes every match of a rule must contain: a run of byte classes of fixed
//! width, read off the pattern's syntax tree, and a fast test for it.
//!
//! A rule runs its regex over a whole text (format rules) or over the
//! windows around its keywords (context rules) once a keyword occurs. Many
//! keywords are everyday words (`bot`, `token`, `pat`, `key`), so most of
//! those texts hold no match, and the lazy DFA reads every byte to say so.
//! When the pattern implies a fixed-width run that any match contains (a
//! Discord bot token's `.` + six token characters + `.`, a credential
//! assignment's `=` or `:`), a `memchr` for the run's rarest byte, checked
//! at each hit, proves most of those texts match-free much faster. A text
//! that holds the run still gets the regex, so findings are exactly those of
//! the regex alone.
//!
//! The run is derived, never written by hand: literals, ASCII classes,
//! repetitions of them (`{n,m}` gives its first and last `n` bytes) and
//! alternations (the union of the branches' first and last bytes) are
//! followed; anything else (a class with non-ASCII members, an optional
//! part) ends a run. Look-around assertions consume nothing and are skipped.
//!
//! The same test lets a rule that is compiled on first use stay uncompiled
//! on a text that cannot hold a match (the tool-call rules).
//!
//! ```
//! use palisade_common::required::Required;
//! let r = Required::of_pattern(r"\bsk-[A-Za-z0-9]{20}").unwrap();
//! assert!(r.occurs_in(b"key sk-abcdefghijklmnopqrst"));
//! assert!(!r.occurs_in(b"no key here"));
//! ```

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// A set of bytes.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn insert(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    fn union(&self, other: &ByteSet) -> ByteSet {
        let mut out = *self;
        for (w, o) in out.0.iter_mut().zip(other.0) {
            *w |= o;
        }
        out
    }

    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=255u8).filter(|&b| self.contains(b))
    }
}

/// One step of a pattern read as bytes: a byte from a set, or a point where
/// what follows is not at a fixed distance from what precedes.
#[derive(Clone, Copy, Debug)]
enum Piece {
    Byte(ByteSet),
    Break,
}

/// Copies of a repeated class kept on each side of a variable repetition:
/// more adds nothing to how selective a run is.
const MAX_REPEAT: u32 = 64;

/// The set of bytes a class matches when every member is one byte (ASCII,
/// or a byte class); `None` when a member can take more than one byte.
fn byte_set(class: &Class) -> Option<ByteSet> {
    let mut set = ByteSet::default();
    match class {
        Class::Bytes(c) => {
            for r in c.iter() {
                for b in r.start()..=r.end() {
                    set.insert(b);
                }
            }
        }
        Class::Unicode(c) => {
            for r in c.iter() {
                let (start, end) = (u8::try_from(r.start()).ok()?, u8::try_from(r.end()).ok()?);
                if end > 0x7f {
                    return None;
                }
                for b in start..=end {
                    set.insert(b);
                }
            }
        }
    }
    Some(set)
}

/// The one byte set a sub-pattern of exactly one byte matches.
fn single_byte(hir: &Hir) -> Option<ByteSet> {
    match hir.kind() {
        HirKind::Class(c) => byte_set(c),
        HirKind::Literal(l) if l.0.len() == 1 => {
            let mut set = ByteSet::default();
            set.insert(l.0[0]);
            Some(set)
        }
        HirKind::Capture(c) => single_byte(&c.sub),
        _ => None,
    }
}

/// Append the pieces of `hir` to `out`.
fn pieces(hir: &Hir, out: &mut Vec<Piece>) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(l) => {
            for &b in l.0.iter() {
                let mut set = ByteSet::default();
                set.insert(b);
                out.push(Piece::Byte(set));
            }
        }
        HirKind::Class(c) => out.push(byte_set(c).map_or(Piece::Break, Piece::Byte)),
        HirKind::Capture(c) => pieces(&c.sub, out),
        HirKind::Concat(subs) => {
            for sub in subs {
                pieces(sub, out);
            }
        }
        HirKind::Repetition(r) => match single_byte(&r.sub) {
            Some(set) => {
                let kept = r.min.min(MAX_REPEAT);
                out.extend((0..kept).map(|_| Piece::Byte(set)));
                if r.max != Some(r.min) || r.min > MAX_REPEAT {
                    out.push(Piece::Break);
                    out.extend((0..kept).map(|_| Piece::Byte(set)));
                }
            }
            None => out.push(Piece::Break),
        },
        HirKind::Alternation(alts) => {
            // Every branch consumes a first and a last byte: the byte after
            // what precedes is one of the first bytes, the byte before what
            // follows one of the last (the same byte for a one-byte branch).
            let mut first = Some(ByteSet::default());
            let mut last = Some(ByteSet::default());
            for alt in alts {
                let mut p = Vec::new();
                pieces(alt, &mut p);
                let nonempty = alt.properties().minimum_len().is_some_and(|n| n > 0);
                first = match (first, p.first()) {
                    (Some(f), Some(Piece::Byte(s))) if nonempty => Some(f.union(s)),
                    _ => None,
                };
                last = match (last, p.last()) {
                    (Some(l), Some(Piece::Byte(s))) if nonempty => Some(l.union(s)),
                    _ => None,
                };
            }
            out.extend(first.map(Piece::Byte));
            out.push(Piece::Break);
            out.extend(last.map(Piece::Byte));
        }
    }
}

/// How common a byte is in ordinary text, higher for more common: English
/// letter order, then digits and the usual punctuation.
fn commonness(b: u8) -> u32 {
    const LETTERS: &[u8] = b"etaoinsrhldcumfpgwybvkxjqz";
    match b {
        b' ' => 60,
        b'a'..=b'z' => 50 - LETTERS.iter().position(|&c| c == b).unwrap_or(25) as u32,
        b'0'..=b'9' | b'\n' | b'.' | b',' | b'-' | b'_' | b'/' | b'"' | b':' | b'=' => 20,
        b'A'..=b'Z' => 12,
        _ => 4,
    }
}

/// Where a run is looked for: each occurrence of a literal part of it
/// (`memmem`), or of a position of at most three bytes (`memchr`).
#[derive(Clone, Debug)]
enum Anchor {
    Literal(Box<memchr::memmem::Finder<'static>>),
    Bytes(Vec<u8>),
}

/// A fixed-width run of byte classes that every match contains.
///
/// The run is tested at each occurrence of its anchor, `anchor` bytes into
/// the run.
#[derive(Clone, Debug)]
struct Run {
    classes: Vec<ByteSet>,
    anchor: usize,
    find: Anchor,
}

/// At most this many runs are tested (the cheapest): each further one
/// costs a pass over the text and rejects less.
const MAX_RUNS: usize = 3;

/// Branches of one alternation followed when a pattern has no run of its
/// own: more are not worth a pass over the text each.
const MAX_BRANCHES: usize = 16;

/// Alternations inside alternations followed (`(?:a(?:b|c)|d)`).
const MAX_DEPTH: usize = 3;

/// What every match of a pattern contains: runs of bytes, or, when the
/// pattern has none, an alternation every match passes through whose every
/// branch has its own; and, when no match can hold a line break, that a
/// match lies within one line.
#[derive(Clone, Debug)]
pub struct Required {
    /// Cheapest first.
    runs: Vec<Run>,
    /// What one of the branches of an alternation contains (empty when
    /// `runs` decides).
    any: Vec<Required>,
    single_line: bool,
}

/// The cheapest anchor of a run, with its cost (lower is better): a
/// literal part of two bytes or more costs its rarest byte's commonness
/// divided by its length; a position of one to three bytes the sum of
/// theirs.
fn anchor_of(classes: &[ByteSet]) -> Option<(u32, usize, Anchor)> {
    let mut best: Option<(u32, usize, Anchor)> = None;
    let mut consider = |cost: u32, at: usize, make: &dyn Fn() -> Anchor| {
        if best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
            best = Some((cost, at, make()));
        }
    };
    let mut i = 0;
    while i < classes.len() {
        let mut j = i;
        while j < classes.len() && classes[j].len() == 1 {
            j += 1;
        }
        if j - i >= 2 {
            let literal: Vec<u8> = classes[i..j].iter().flat_map(ByteSet::bytes).collect();
            let rarest = literal.iter().map(|&b| commonness(b)).min().unwrap_or(0);
            let cost = rarest / (j - i) as u32;
            consider(cost, i, &|| {
                Anchor::Literal(Box::new(memchr::memmem::Finder::new(&literal).into_owned()))
            });
        }
        i = j.max(i + 1);
    }
    for (at, set) in classes.iter().enumerate() {
        if (1..=3).contains(&set.len()) {
            let cost = set.bytes().map(commonness).sum::<u32>();
            consider(cost, at, &|| Anchor::Bytes(set.bytes().collect()));
        }
    }
    best
}

/// Whether some match of `hir` may contain the byte `b` (an ASCII byte:
/// the bytes of a multi-byte character are all 0x80 or above).
fn may_contain(hir: &Hir, b: u8) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(l) => l.0.contains(&b),
        HirKind::Class(Class::Bytes(c)) => c.iter().any(|r| (r.start()..=r.end()).contains(&b)),
        HirKind::Class(Class::Unicode(c)) => c
            .iter()
            .any(|r| (r.start()..=r.end()).contains(&char::from(b))),
        HirKind::Capture(c) => may_contain(&c.sub, b),
        HirKind::Repetition(r) => r.max != Some(0) && may_contain(&r.sub, b),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().any(|s| may_contain(s, b))
        }
    }
}

/// The cheapest runs of fixed width that every match of `hir` contains.
fn runs_of(hir: &Hir) -> Vec<Run> {
    let mut all = Vec::new();
    pieces(hir, &mut all);
    let mut runs: Vec<((u32, usize), Run)> = Vec::new();
    for run in all.split(|p| matches!(p, Piece::Break)) {
        let classes: Vec<ByteSet> = run
            .iter()
            .filter_map(|p| match p {
                Piece::Byte(s) => Some(*s),
                Piece::Break => None,
            })
            .collect();
        let Some((cost, anchor, find)) = anchor_of(&classes) else {
            continue;
        };
        if runs.iter().any(|(_, r)| r.classes == classes) {
            continue;
        }
        // The cheapest anchor, then the longer run.
        let key = (cost, usize::MAX - classes.len());
        runs.push((
            key,
            Run {
                classes,
                anchor,
                find,
            },
        ));
    }
    runs.sort_by_key(|(k, _)| *k);
    runs.truncate(MAX_RUNS);
    runs.into_iter().map(|(_, r)| r).collect()
}

/// The alternations every match of `hir` passes through: `hir` itself, or
/// the parts of its top concatenation (through groups).
fn spine_alternations(hir: &Hir) -> Vec<&Hir> {
    match hir.kind() {
        HirKind::Capture(c) => spine_alternations(&c.sub),
        HirKind::Alternation(_) => vec![hir],
        HirKind::Concat(subs) => subs
            .iter()
            .filter_map(|sub| {
                let mut h = sub;
                while let HirKind::Capture(c) = h.kind() {
                    h = &c.sub;
                }
                matches!(h.kind(), HirKind::Alternation(_)).then_some(h)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The runs every match of `hir` contains, or else the requirements of the
/// branches of an alternation every match passes through (the one with the
/// fewest branches, each with a requirement of its own).
fn needs(hir: &Hir, depth: usize) -> Option<(Vec<Run>, Vec<Required>)> {
    let runs = runs_of(hir);
    if !runs.is_empty() {
        return Some((runs, Vec::new()));
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    let mut best: Option<Vec<Required>> = None;
    for alt in spine_alternations(hir) {
        let HirKind::Alternation(branches) = alt.kind() else {
            continue;
        };
        if branches.len() > MAX_BRANCHES || best.as_ref().is_some_and(|b| b.len() <= branches.len())
        {
            continue;
        }
        let each: Option<Vec<Required>> = branches
            .iter()
            .map(|b| {
                needs(b, depth + 1).map(|(runs, any)| Required {
                    runs,
                    any,
                    single_line: false,
                })
            })
            .collect();
        if let Some(each) = each {
            best = Some(each);
        }
    }
    best.map(|any| (Vec::new(), any))
}

impl Required {
    /// What every match of `hir` contains: its cheapest runs with a
    /// position of at most three bytes (or a literal part), and whether a
    /// match lies within one line (no match can hold `\n`, and the pattern
    /// does not test for the end of the text, which a line's end is not);
    /// `None` when it has no such run.
    ///
    /// ```
    /// let hir = regex_syntax::parse("(?i)rm +-rf").unwrap();
    /// let r = palisade_common::required::Required::of(&hir).unwrap();
    /// assert!(r.occurs_in(b"sudo RM -rf /") && !r.occurs_in(b"ls -la"));
    /// ```
    ///
    /// A pattern with no run of its own, such as a list of commands
    /// (`(?i)\b(?:remove-item|rd)\b.*[a-z]:\\|\$env:`), is taken branch
    /// by branch: it needs what one of its branches needs.
    ///
    /// ```
    /// let r = palisade_common::required::Required::of_pattern(r"(?i)\bcurl\b|/dev/tcp/").unwrap();
    /// assert!(r.occurs_in(b"CURL x | sh") && r.occurs_in(b"> /dev/tcp/1.2.3.4/9"));
    /// assert!(!r.occurs_in(b"ls -la"));
    /// ```
    pub fn of(hir: &Hir) -> Option<Required> {
        let looks = hir.properties().look_set();
        let single_line = !may_contain(hir, b'\n')
            && !looks.contains(Look::End)
            && !looks.contains(Look::EndCRLF);
        let (runs, any) = needs(hir, 0)?;
        Some(Required {
            runs,
            any,
            single_line,
        })
    }

    /// Whether every match lies within one line.
    ///
    /// ```
    /// use palisade_common::required::Required;
    /// assert!(Required::of_pattern("ab[0-9]").unwrap().single_line());
    /// assert!(!Required::of_pattern(r"ab\s+cd").unwrap().single_line());
    /// ```
    pub fn single_line(&self) -> bool {
        self.single_line
    }

    /// Whether every run occurs in `hay` (when one does not, no match of
    /// the pattern lies inside `hay`).
    ///
    /// ```
    /// let r = palisade_common::required::Required::of_pattern("x=[0-9]").unwrap();
    /// assert!(r.occurs_in(b"a x=1") && !r.occurs_in(b"x = 1"));
    /// ```
    pub fn occurs_in(&self, hay: &[u8]) -> bool {
        self.runs.iter().all(|r| r.occurs_in(hay))
            && (self.any.is_empty() || self.any.iter().any(|r| r.occurs_in(hay)))
    }

    /// The run of `pattern`, parsed as the scanner compiles it; `None` when
    /// it has none or does not parse.
    ///
    /// ```
    /// use palisade_common::required::Required;
    /// assert!(Required::of_pattern("a?").is_none());
    /// assert!(Required::of_pattern("(").is_none());
    /// ```
    pub fn of_pattern(pattern: &str) -> Option<Required> {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(pattern)
            .ok()?;
        Required::of(&hir)
    }
}

impl Run {
    /// Whether the run occurs in `hay`.
    fn occurs_in(&self, hay: &[u8]) -> bool {
        let n = self.classes.len();
        if hay.len() < n {
            return false;
        }
        let fits = |p: usize| {
            p >= self.anchor && p - self.anchor + n <= hay.len() && {
                let start = p - self.anchor;
                self.classes
                    .iter()
                    .zip(&hay[start..start + n])
                    .all(|(c, &b)| c.contains(b))
            }
        };
        match &self.find {
            Anchor::Literal(finder) => finder.find_iter(hay).any(fits),
            Anchor::Bytes(bytes) => match bytes[..] {
                [a] => memchr::memchr_iter(a, hay).any(fits),
                [a, b] => memchr::memchr2_iter(a, b, hay).any(fits),
                [a, b, c] => memchr::memchr3_iter(a, b, c, hay).any(fits),
                // `anchor_of` keeps positions of one to three bytes.
                _ => true,
            },
        }
    }
}

impl Required {
    /// The cheapest run's width in bytes.
    ///
    /// ```
    /// let r = palisade_common::required::Required::of_pattern("abc").unwrap();
    /// assert_eq!(r.width(), 3);
    /// ```
    pub fn width(&self) -> usize {
        match self.runs.first() {
            Some(r) => r.classes.len(),
            None => self.any.iter().map(Required::width).min().unwrap_or(0),
        }
    }
}

#[cfg(test)]
impl Required {
    /// Whether the cheapest run is found by these bytes.
    fn anchored_by(&self, bytes: &[u8]) -> bool {
        matches!(&self.runs[0].find, Anchor::Bytes(b) if b == bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_discord_token_needs_its_dotted_middle() {
        let r = Required::of_pattern(
            r"(?:^|[^A-Za-z0-9_.-])([MNO][A-Za-z0-9]{22,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})(?:[^A-Za-z0-9_.-]|$)",
        )
        .expect("a run");
        // 22 characters, a dot, six, a dot, 27.
        assert_eq!(r.width(), 22 + 1 + 6 + 1 + 27);
        assert!(r.anchored_by(b"."));
        assert!(
            !r.single_line(),
            "the token's right edge may be a line break"
        );
        let token = format!("M{}.{}.{}", "a".repeat(22), "b".repeat(6), "c".repeat(27));
        assert!(r.occurs_in(token.as_bytes()));
        assert!(!r.occurs_in(b"the bot token is read from config.toml. done."));
        assert!(!r.occurs_in(&token.as_bytes()[2..]));
    }

    #[test]
    fn alternations_give_their_first_and_last_bytes() {
        let r = Required::of_pattern(r"(?i:token|pass)[ \t]{0,16}(?::=|=>|=|:)\s*").expect("a run");
        assert!(r.anchored_by(b":="));
        assert!(r.occurs_in(b"a: b"));
        assert!(!r.occurs_in(b"the token count is 42"));
    }

    #[test]
    fn every_run_must_occur() {
        let r = Required::of_pattern(r"[A-Za-z0-9]{2,30}[_.-]key\s*=\s*([a-z]{16})").expect("runs");
        assert!(r.runs.len() >= 2);
        assert!(r.occurs_in(b"api_key = abcdefghijklmnop"));
        assert!(!r.occurs_in(b"api key = abcdefghijklmnop"));
        assert!(!r.occurs_in(b"api_key abcdefghijklmnop"));
    }

    #[test]
    fn a_match_without_line_breaks_or_end_tests_lies_in_one_line() {
        let one = |p: &str| Required::of_pattern(p).expect("a run").single_line();
        assert!(one(r"(?i:token)[ \t]{0,4}=[^\r\n]{4,}"));
        assert!(one(r"(?m)token=[a-z]+$"));
        assert!(one(r"\btoken=[a-z]+\b"));
        assert!(!one(r"token\s*=[a-z]+"));
        assert!(!one(r"token=[^a-z]"));
        assert!(!one(r"token=[a-z]+$"));
        assert!(!one(r"token=(?:\n|x)"));
    }

    #[test]
    fn patterns_without_a_narrow_position_have_none() {
        // Every position is wide, or a class with multi-byte members.
        assert!(Required::of_pattern(r"[a-f0-9]{32}").is_none());
        assert!(Required::of_pattern(r"(?i)ſ").is_none());
        assert!(Required::of_pattern(r"\w+").is_none());
        assert!(Required::of_pattern(r"(?:ab)?").is_none());
        assert!(Required::of_pattern(r"(").is_none());
    }

    #[test]
    fn a_list_of_commands_needs_one_of_its_branches() {
        let r = Required::of_pattern(
            r"(?i)\b(?:remove-item|rd)\b[^\n]{0,40}?[a-z]:\\|\b(?:del|erase)\b[^\n]{0,40}?\$env:[a-z]+",
        )
        .expect("branch by branch");
        assert!(r.runs.is_empty() && r.any.len() == 2);
        assert!(r.occurs_in(br"Remove-Item C:\ -Recurse"));
        assert!(r.occurs_in(b"del /s $env:USERPROFILE"));
        assert!(!r.occurs_in(b"ls -la"));
        assert!(!r.occurs_in(b"rd build"), "neither a drive nor $env:");
    }

    #[test]
    fn nested_alternations_and_empty_branches() {
        // `\b(?:curl|wget)\b` inside a concatenation, itself a branch.
        let r = Required::of_pattern(r"(?i)\b(?:curl|wget)\b|/dev/tcp/").expect("branches");
        assert!(r.occurs_in(b"WGET -qO- x") && r.occurs_in(b"/dev/tcp/h/1"));
        assert!(!r.occurs_in(b"git status"));
        // An empty branch needs nothing, so neither does the pattern.
        assert!(Required::of_pattern(r"(?:\w+ab|\w+cd|)").is_none());
        // Too many branches are not followed.
        let many = |n: u8| {
            (0..n)
                .map(|i| format!("{}q{}", char::from(b'a' + i), i % 10))
                .collect::<Vec<_>>()
                .join("|")
        };
        assert!(Required::of_pattern(&format!("[a-z]*(?:{})", many(16))).is_some());
        assert!(Required::of_pattern(&format!("[a-z]*(?:{})", many(17))).is_none());
    }

    #[test]
    fn optional_parts_and_case_folds_end_runs() {
        // `k` folds to the Kelvin sign under Unicode case-insensitivity, so
        // it is no byte; `ey` is.
        let r = Required::of_pattern(r"(?i)key").expect("a run");
        assert_eq!(r.width(), 2);
        assert!(r.occurs_in("\u{212a}EY".as_bytes()));
        let r = Required::of_pattern(r"SK(?:x)?[0-9a-f]{32}").expect("a run");
        assert_eq!(r.width(), 2);
    }
}
