//! Built-in patterns that cost little to compile on the text a process meets.
//!
//! A guard's rules are regexes written for every language, and compiling
//! their Unicode classes (`\w`, `\p{L}`, case folding of non-ASCII letters,
//! bounded repeats of either) is most of what a one-line process spends.
//! Most texts an agent handles are plain ASCII, and on ASCII text every
//! such pattern has an exact, far smaller equivalent: its **ASCII twin**
//! ([`ascii_twin`]), the same pattern with every class cut down to its
//! ASCII members, every non-ASCII literal made impossible and Unicode word
//! boundaries made ASCII ones. A match of the original on ASCII text only
//! ever uses the ASCII members of its classes and literals, and on ASCII
//! text a Unicode word character is an ASCII one, so the two find the same
//! matches with the same leftmost-first preference and the same groups.
//!
//! A [`Pattern`] keeps its source and builds, on first use, the form the
//! text needs: the twin for ASCII text up to [`TWIN_MAX`] bytes, the
//! original for everything else (a long text pays the original's compile
//! once, which its search cost dwarfs anyway). Both are built with the
//! engine the `regex` crate wraps (`regex-automata`'s meta regex, same
//! syntax, same leftmost-first matches), and the API is the subset of
//! `regex::Regex` the guards use.
//!
//! ```
//! use palisade_common::pattern::Pattern;
//! let p = Pattern::lazy(r"(?i)\b(?P<who>user|用户)\s+(?:approved|同意)");
//! let m = p.find("Yes: the USER approved it").map(|m| m.as_str());
//! assert_eq!(m, Some("USER approved"));
//! let c = p.captures("用户 同意").and_then(|c| c.name("who").map(|m| m.as_str()));
//! assert_eq!(c, Some("用户"));
//! ```

pub mod gate;
pub mod packed;
pub mod table;

use regex_automata::meta::{self, Regex};
use regex_automata::util::captures::Captures as MetaCaptures;
use regex_automata::Input;
use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look, Repetition,
};
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// The longest text a form's literal groups ([`gate`]) are checked on
/// before it is compiled. Past it the form is compiled: a long text pays
/// for that in search time anyway, and one that skipped it would be read
/// once per literal on every search.
pub const GATE_TEXT_MAX: usize = 4096;

/// The longest ASCII text searched with the twin. Above it the original is
/// built: checking a long text for ASCII on every search would cost more
/// than the original's compile saves.
pub const TWIN_MAX: usize = 64 * 1024;

/// How a [`Pattern`] is compiled (the `regex` crate's limits by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Cap on the compiled NFA, bytes.
    pub size_limit: usize,
    /// Cap on the lazy DFA's cache, bytes.
    pub dfa_size_limit: usize,
    /// Unicode mode (`false`: classes and `(?i)` are ASCII, `\b` is ASCII).
    pub unicode: bool,
}

impl Default for Options {
    /// The `regex` crate's defaults.
    ///
    /// ```
    /// let o = palisade_common::pattern::Options::default();
    /// assert!(o.unicode);
    /// ```
    fn default() -> Self {
        Options {
            size_limit: 10 << 20,
            dfa_size_limit: 2 << 20,
            unicode: true,
        }
    }
}

/// A pattern compiled on first use, in the form each text needs.
///
/// A source that does not parse or exceeds its size limit never matches;
/// callers that must know build it with [`Pattern::new`], and the crates'
/// tests compile every built-in one.
///
/// ```
/// use palisade_common::pattern::Pattern;
/// let p = Pattern::lazy(r"\w+");
/// assert!(!p.is_built());
/// let words: Vec<&str> = p.find_iter("héllo wörld").map(|m| m.as_str()).collect();
/// assert_eq!(words, ["héllo", "wörld"]);
/// assert!(p.is_built());
/// ```
#[derive(Clone)]
pub struct Pattern {
    source: Box<str>,
    options: Options,
    /// The parsed pattern and its twin, packed at build time.
    packed: Option<Packed>,
    hir: OnceLock<Option<Hir>>,
    twin: OnceLock<Option<Regex>>,
    full: OnceLock<Option<Regex>>,
}

/// A pattern's parse and twin, packed by a build script, and the
/// literal groups of each ([`gate`]; empty: none).
#[derive(Clone, Copy)]
struct Packed {
    hir: &'static [u8],
    twin: &'static [u8],
    gate: &'static [u8],
    twin_gate: &'static [u8],
}

/// Why [`Pattern::new`] refused a source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pattern {pattern:?} does not compile: {message}")]
pub struct Error {
    /// The pattern.
    pub pattern: String,
    /// What the regex parser or compiler said.
    pub message: String,
}

impl Pattern {
    /// `source`, compiled when a text first reaches it.
    ///
    /// ```
    /// let p = palisade_common::pattern::Pattern::lazy("a+");
    /// assert_eq!(p.source(), "a+");
    /// ```
    pub fn lazy(source: impl Into<Box<str>>) -> Pattern {
        Pattern::lazy_with(source, Options::default())
    }

    /// `source` with `options`, compiled on first use.
    ///
    /// ```
    /// use palisade_common::pattern::{Options, Pattern};
    /// let ascii = Options { unicode: false, ..Options::default() };
    /// assert!(!Pattern::lazy_with(r"\w", ascii).is_match("é"));
    /// ```
    pub fn lazy_with(source: impl Into<Box<str>>, options: Options) -> Pattern {
        Pattern {
            source: source.into(),
            options,
            packed: None,
            hir: OnceLock::new(),
            twin: OnceLock::new(),
            full: OnceLock::new(),
        }
    }

    /// `source` with its parse and its ASCII twin done at build time:
    /// `hir` is [`packed::pack`] of the parsed `source` (parsed with
    /// `options`), `twin` the same of its [`ascii_twin`]. First use then
    /// compiles without parsing. Bytes that do not unpack are not trusted:
    /// the pattern is parsed from `source` as [`Pattern::lazy_with`] would,
    /// so a stale or damaged table costs time, never matches. The crates'
    /// tests check that their tables equal a fresh parse.
    ///
    /// ```
    /// use palisade_common::pattern::{ascii_twin, packed, Options, Pattern};
    /// let source = r"(?i)\bg\w*";
    /// let hir = regex_syntax::parse(source).unwrap();
    /// // A build script would write these bytes into OUT_DIR.
    /// let bytes: &'static [u8] = Box::leak(packed::pack(&hir).into_boxed_slice());
    /// let twin: &'static [u8] = Box::leak(packed::pack(&ascii_twin(&hir)).into_boxed_slice());
    /// let p = Pattern::prepacked(source, Options::default(), bytes, twin);
    /// assert_eq!(p.find("Let's GOne").map(|m| m.as_str()), Some("GOne"));
    /// assert!(p.is_packed());
    /// // Damaged bytes fall back to the source.
    /// let q = Pattern::prepacked(source, Options::default(), &[0xff], &[0xff]);
    /// assert_eq!(q.find("a göt").map(|m| m.as_str()), Some("göt"));
    /// assert_eq!(q.find("a got").map(|m| m.as_str()), Some("got"));
    /// ```
    pub fn prepacked(
        source: impl Into<Box<str>>,
        options: Options,
        hir: &'static [u8],
        twin: &'static [u8],
    ) -> Pattern {
        Pattern {
            packed: Some(Packed {
                hir,
                twin,
                gate: &[],
                twin_gate: &[],
            }),
            ..Pattern::lazy_with(source, options)
        }
    }

    /// [`Pattern::prepacked`] with the literal groups of the parse and of
    /// the twin ([`gate::encode`] of [`gate::requirements`], written by
    /// the build script too): a text that misses a group of the form it
    /// needs is answered "no match" without compiling that form. Groups
    /// that do not decode hold for every text.
    ///
    /// ```
    /// use palisade_common::pattern::{ascii_twin, gate, packed, Options, Pattern};
    /// let hir = regex_syntax::parse(r"(?i)\buser\s+said").unwrap();
    /// let twin = ascii_twin(&hir);
    /// let leak = |v: Vec<u8>| -> &'static [u8] { Box::leak(v.into_boxed_slice()) };
    /// let p = Pattern::prepacked_gated(
    ///     r"(?i)\buser\s+said",
    ///     Options::default(),
    ///     [leak(packed::pack(&hir)), leak(packed::pack(&twin))],
    ///     [leak(gate::encode(&gate::requirements(&hir))), leak(gate::encode(&gate::requirements(&twin)))],
    /// );
    /// assert!(!p.is_match("the user left"));
    /// assert!(!p.is_built());
    /// assert!(p.is_match("the USER said"));
    /// ```
    pub fn prepacked_gated(
        source: impl Into<Box<str>>,
        options: Options,
        [hir, twin]: [&'static [u8]; 2],
        [gate, twin_gate]: [&'static [u8]; 2],
    ) -> Pattern {
        Pattern {
            packed: Some(Packed {
                hir,
                twin,
                gate,
                twin_gate,
            }),
            ..Pattern::lazy_with(source, options)
        }
    }

    /// Whether the pattern was given its parse at build time
    /// ([`Pattern::prepacked`]).
    ///
    /// ```
    /// assert!(!palisade_common::pattern::Pattern::lazy("x").is_packed());
    /// ```
    pub fn is_packed(&self) -> bool {
        self.packed.is_some()
    }

    /// `source`, checked now: an error names the pattern and the problem.
    /// Both forms are compiled, so nothing can fail later.
    ///
    /// ```
    /// use palisade_common::pattern::{Options, Pattern};
    /// assert!(Pattern::new("(a", Options::default()).is_err());
    /// assert!(Pattern::new("a|b", Options::default()).is_ok());
    /// ```
    pub fn new(source: &str, options: Options) -> Result<Pattern, Error> {
        let error = |message: String| Error {
            pattern: source.to_owned(),
            message,
        };
        let hir = parse(source, options).map_err(error)?;
        let full = compile(&hir, options).map_err(error)?;
        let twin = compile_twin(&ascii_twin(&hir), options).map_err(error)?;
        Ok(Pattern {
            source: source.into(),
            options,
            packed: None,
            hir: OnceLock::from(Some(hir)),
            twin: OnceLock::from(Some(twin)),
            full: OnceLock::from(Some(full)),
        })
    }

    /// The source text.
    ///
    /// ```
    /// assert_eq!(palisade_common::pattern::Pattern::lazy("x").source(), "x");
    /// ```
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether either form has been compiled yet.
    ///
    /// ```
    /// let p = palisade_common::pattern::Pattern::lazy("x");
    /// assert!(!p.is_built());
    /// p.is_match("x");
    /// assert!(p.is_built());
    /// ```
    pub fn is_built(&self) -> bool {
        self.twin.get().is_some() || self.full.get().is_some()
    }

    /// Whether both forms compile (for tests of built-in rule tables).
    ///
    /// ```
    /// assert!(palisade_common::pattern::Pattern::lazy("(?i)é").compiles());
    /// assert!(!palisade_common::pattern::Pattern::lazy("(").compiles());
    /// ```
    pub fn compiles(&self) -> bool {
        self.form(true).is_some() && self.form(false).is_some()
    }

    fn hir(&self) -> Option<&Hir> {
        self.hir
            .get_or_init(|| {
                self.packed
                    .and_then(|p| packed::unpack(p.hir))
                    .or_else(|| parse(&self.source, self.options).ok())
            })
            .as_ref()
    }

    /// The twin's pattern: unpacked when it was packed, else derived.
    fn twin_hir(&self) -> Option<Hir> {
        match self.packed.and_then(|p| packed::unpack(p.twin)) {
            Some(twin) => Some(twin),
            None => Some(ascii_twin(self.hir()?)),
        }
    }

    /// The compiled form for ASCII (`twin`) or other text.
    fn form(&self, twin: bool) -> Option<&Regex> {
        if twin {
            self.twin
                .get_or_init(|| compile_twin(&self.twin_hir()?, self.options).ok())
                .as_ref()
        } else {
            self.full
                .get_or_init(|| compile(self.hir()?, self.options).ok())
                .as_ref()
        }
    }

    /// The form to search `text` with.
    fn for_text(&self, text: &str) -> Option<&Regex> {
        let twin = text.len() <= TWIN_MAX && text.is_ascii();
        if !self.may_match(text, twin) {
            return None;
        }
        self.form(twin)
    }

    /// Whether `text` may hold a match of the form `twin` picks: always
    /// once that form is compiled (or without packed literal groups, or
    /// past [`GATE_TEXT_MAX`]), else when the text holds a literal of each
    /// of the form's groups ([`gate`]). A text that does not holds no
    /// match, and the form stays uncompiled.
    fn may_match(&self, text: &str, twin: bool) -> bool {
        let Some(p) = self.packed else {
            return true;
        };
        let (built, gate) = if twin {
            (self.twin.get().is_some(), p.twin_gate)
        } else {
            (self.full.get().is_some(), p.gate)
        };
        if built || gate.is_empty() || text.len() > GATE_TEXT_MAX {
            return true;
        }
        gate::holds(gate, &text.as_bytes().to_ascii_lowercase())
    }

    /// Whether the pattern matches anywhere in `text`.
    ///
    /// ```
    /// assert!(palisade_common::pattern::Pattern::lazy(r"\d").is_match("a1"));
    /// ```
    pub fn is_match(&self, text: &str) -> bool {
        self.for_text(text).is_some_and(|re| re.is_match(text))
    }

    /// The leftmost-first match in `text`.
    ///
    /// ```
    /// let p = palisade_common::pattern::Pattern::lazy(r"b+");
    /// assert_eq!(p.find("abbc").map(|m| m.range()), Some(1..3));
    /// ```
    pub fn find<'t>(&self, text: &'t str) -> Option<Match<'t>> {
        let m = self.for_text(text)?.find(text)?;
        Some(Match::new(text, m.start(), m.end()))
    }

    /// Every successive non-overlapping match in `text`.
    ///
    /// ```
    /// let p = palisade_common::pattern::Pattern::lazy(r"\d+");
    /// let all: Vec<&str> = p.find_iter("1 22 333").map(|m| m.as_str()).collect();
    /// assert_eq!(all, ["1", "22", "333"]);
    /// ```
    pub fn find_iter<'r, 't>(&'r self, text: &'t str) -> impl Iterator<Item = Match<'t>> + 'r
    where
        't: 'r,
    {
        self.for_text(text)
            .into_iter()
            .flat_map(move |re| re.find_iter(text))
            .map(move |m| Match::new(text, m.start(), m.end()))
    }

    /// The leftmost-first match starting at or after `start`, with look-
    /// arounds seeing the text before `start` (as `regex::Regex::find_at`).
    ///
    /// ```
    /// let p = palisade_common::pattern::Pattern::lazy(r"\ba");
    /// assert_eq!(p.find_at("ba a", 1).map(|m| m.start()), Some(3));
    /// ```
    pub fn find_at<'t>(&self, text: &'t str, start: usize) -> Option<Match<'t>> {
        let re = self.for_text(text)?;
        let m = re.search(&Input::new(text).range(start..))?;
        Some(Match::new(text, m.start(), m.end()))
    }

    /// The groups of the leftmost-first match in `text`.
    ///
    /// ```
    /// let p = palisade_common::pattern::Pattern::lazy(r"(?P<k>\w+)=(\d+)");
    /// let c = p.captures("x a=12").unwrap();
    /// assert_eq!(c.name("k").unwrap().as_str(), "a");
    /// assert_eq!(c.get(2).unwrap().as_str(), "12");
    /// ```
    pub fn captures<'t>(&self, text: &'t str) -> Option<Captures<'t>> {
        let re = self.for_text(text)?;
        let mut caps = re.create_captures();
        re.captures(text, &mut caps);
        caps.is_match().then_some(Captures { text, caps })
    }

    /// The groups of every successive non-overlapping match in `text`.
    ///
    /// ```
    /// let p = palisade_common::pattern::Pattern::lazy(r"(\w)=");
    /// let keys: Vec<&str> = p
    ///     .captures_iter("a= b=")
    ///     .filter_map(|c| c.get(1).map(|m| m.as_str()))
    ///     .collect();
    /// assert_eq!(keys, ["a", "b"]);
    /// ```
    pub fn captures_iter<'r, 't>(&'r self, text: &'t str) -> impl Iterator<Item = Captures<'t>> + 'r
    where
        't: 'r,
    {
        self.for_text(text)
            .into_iter()
            .flat_map(move |re| re.captures_iter(text))
            .map(move |caps| Captures { text, caps })
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

/// One match in a text (as `regex::Match`).
///
/// ```
/// let p = palisade_common::pattern::Pattern::lazy("b");
/// let m = p.find("abc").unwrap();
/// assert_eq!((m.start(), m.end(), m.as_str(), m.len()), (1, 2, "b", 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match<'t> {
    text: &'t str,
    start: usize,
    end: usize,
}

impl<'t> Match<'t> {
    fn new(text: &'t str, start: usize, end: usize) -> Match<'t> {
        Match { text, start, end }
    }

    /// Byte offset of the start.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Byte offset just past the end.
    pub fn end(&self) -> usize {
        self.end
    }

    /// `start..end`.
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the match is empty.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The matched text.
    pub fn as_str(&self) -> &'t str {
        self.text.get(self.start..self.end).unwrap_or("")
    }
}

/// The groups of one match (as `regex::Captures`).
///
/// ```
/// let p = palisade_common::pattern::Pattern::lazy(r"(a)(x)?");
/// let c = p.captures("a").unwrap();
/// assert_eq!(c.get(0).unwrap().as_str(), "a");
/// assert!(c.get(2).is_none());
/// ```
pub struct Captures<'t> {
    text: &'t str,
    caps: MetaCaptures,
}

impl<'t> Captures<'t> {
    /// Group `i` (0 is the whole match), if it took part.
    pub fn get(&self, i: usize) -> Option<Match<'t>> {
        let s = self.caps.get_group(i)?;
        Some(Match::new(self.text, s.start, s.end))
    }

    /// The group named `name`, if it took part.
    pub fn name(&self, name: &str) -> Option<Match<'t>> {
        let s = self.caps.get_group_by_name(name)?;
        Some(Match::new(self.text, s.start, s.end))
    }
}

impl fmt::Debug for Captures<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Captures")
            .field(&self.get(0).map(|m| m.as_str()))
            .finish()
    }
}

fn parse(source: &str, options: Options) -> Result<Hir, String> {
    regex_syntax::ParserBuilder::new()
        .unicode(options.unicode)
        .utf8(true)
        .build()
        .parse(source)
        .map_err(|e| e.to_string())
}

fn config(options: Options) -> meta::Config {
    meta::Config::new()
        .nfa_size_limit(Some(options.size_limit))
        .hybrid_cache_capacity(options.dfa_size_limit)
}

fn compile(hir: &Hir, options: Options) -> Result<Regex, String> {
    Regex::builder()
        .configure(config(options))
        .build_from_hir(hir)
        .map_err(|e| e.to_string())
}

/// The twin searches short texts only ([`TWIN_MAX`]), where a literal
/// prefilter saves less than extracting its literals costs (for a long
/// alternation, most of the compile): it is built without one. Matches
/// are the same; only the search strategy differs.
fn compile_twin(hir: &Hir, options: Options) -> Result<Regex, String> {
    Regex::builder()
        .configure(config(options).auto_prefilter(false))
        .build_from_hir(hir)
        .map_err(|e| e.to_string())
}

/// The ASCII twin of `hir`: the same pattern on ASCII text (see the
/// [module docs](self)), with every class cut to its ASCII members (an
/// empty class, like a non-ASCII literal, can never match), Unicode word
/// boundaries made ASCII ones, and groups, repeats and alternatives kept
/// in order.
///
/// ```
/// use palisade_common::pattern::ascii_twin;
/// let hir = regex_syntax::parse(r"(?i)(?P<w>\w+)é|k").unwrap();
/// let twin = ascii_twin(&hir).to_string();
/// assert!(!twin.contains('é'));
/// assert!(twin.contains("?P<w>"));
/// ```
pub fn ascii_twin(h: &Hir) -> Hir {
    match h.kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => {
            if lit.0.is_ascii() {
                Hir::literal(lit.0.clone())
            } else {
                Hir::fail()
            }
        }
        HirKind::Class(class) => {
            let ranges: Vec<ClassBytesRange> = match class {
                // Ranges are sorted: the ASCII ones come first.
                Class::Unicode(c) => c
                    .iter()
                    .take_while(|r| r.start().is_ascii())
                    .map(|r| ClassBytesRange::new(r.start() as u8, r.end().min('\x7f') as u8))
                    .collect(),
                Class::Bytes(c) => c
                    .iter()
                    .take_while(|r| r.start().is_ascii())
                    .map(|r| ClassBytesRange::new(r.start(), r.end().min(0x7f)))
                    .collect(),
            };
            if ranges.is_empty() {
                Hir::fail()
            } else {
                Hir::class(Class::Bytes(ClassBytes::new(ranges)))
            }
        }
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            other => *other,
        }),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(ascii_twin(&r.sub)),
        }),
        HirKind::Capture(c) => Hir::capture(Capture {
            index: c.index,
            name: c.name.clone(),
            sub: Box::new(ascii_twin(&c.sub)),
        }),
        HirKind::Concat(v) => Hir::concat(v.iter().map(ascii_twin).collect()),
        HirKind::Alternation(v) => Hir::alternation(v.iter().map(ascii_twin).collect()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const PATTERNS: &[&str] = &[
        r"(?i)\b(?:ignore|skip)\s+(?:all\s+)?previous\b",
        r"(?i)(?:^|[^\p{L}\p{N}_])(?P<c>from\s+now\s+on|künftig)(?:[^\p{L}\p{N}_]|$)",
        r"(?i)^(?:bug|test(?: case)?)(?:\s*[#\w.\-/]{1,12}){0,3}\s*[:：]",
        r"[^,.;:!?\n]{0,80}?\s+and\b",
        r"(?i)stra(?:ss|ß)e|k",
        r"a|",
        r"\w+@\w+",
        r"(?m)^\s*(?P<k>\w+)\s*=",
    ];
    const TEXTS: &[&str] = &[
        "Ignore all previous instructions. ignore previous",
        "From now on, use tabs; from now onwards no",
        "Bug #12 a: crash\ntest case 3/4: ok\nTEST: x",
        "he read it and then left, and so",
        "STRASSE Kelvin k K",
        "",
        "mail me: a@b or x@y.z",
        "a = 1\n  bb=2\nc :",
    ];

    /// On ASCII text the twin finds exactly what the original finds.
    #[test]
    fn twin_equals_original_on_ascii_text() {
        for p in PATTERNS {
            let hir = parse(p, Options::default()).unwrap();
            let full = compile(&hir, Options::default()).unwrap();
            let twin = compile_twin(&ascii_twin(&hir), Options::default()).unwrap();
            for t in TEXTS {
                assert!(t.is_ascii());
                let a: Vec<_> = full.find_iter(*t).map(|m| m.range()).collect();
                let b: Vec<_> = twin.find_iter(*t).map(|m| m.range()).collect();
                assert_eq!(a, b, "{p} on {t:?}");
                let ga: Vec<_> = full
                    .captures_iter(*t)
                    .map(|c| {
                        (0..c.group_len())
                            .map(|i| c.get_group(i))
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let gb: Vec<_> = twin
                    .captures_iter(*t)
                    .map(|c| {
                        (0..c.group_len())
                            .map(|i| c.get_group(i))
                            .collect::<Vec<_>>()
                    })
                    .collect();
                assert_eq!(ga, gb, "groups of {p} on {t:?}");
            }
        }
    }

    /// The same matches as the `regex` crate on any text, ASCII or not.
    #[test]
    fn matches_the_regex_crate() {
        let more = ["Künftig bitte: 用户 同意", "straße STRAẞE", "é@ü ok"];
        for p in PATTERNS {
            let r = regex::Regex::new(p).unwrap();
            let q = Pattern::lazy(*p);
            for t in TEXTS.iter().chain(more.iter()) {
                let a: Vec<_> = r.find_iter(t).map(|m| m.range()).collect();
                let b: Vec<_> = q.find_iter(t).map(|m| m.range()).collect();
                assert_eq!(a, b, "{p} on {t:?}");
                assert_eq!(r.is_match(t), q.is_match(t));
                let ca = r.captures(t).map(|c| c.get(1).map(|m| m.range()));
                let cb = q.captures(t).map(|c| c.get(1).map(|m| m.range()));
                assert_eq!(ca, cb, "{p} on {t:?}");
            }
        }
    }

    #[test]
    fn a_bad_pattern_never_matches_and_new_says_why() {
        let p = Pattern::lazy("(unclosed");
        assert!(!p.is_match("unclosed"));
        assert!(p.find("(unclosed").is_none());
        let e = Pattern::new("(unclosed", Options::default()).unwrap_err();
        assert!(e.to_string().contains("(unclosed"), "{e}");
    }

    #[test]
    fn long_ascii_text_uses_the_original() {
        let p = Pattern::lazy(r"\bz\b");
        let long = format!("{} z", "a".repeat(TWIN_MAX));
        assert!(p.is_match(&long));
        assert!(p.full.get().is_some() && p.twin.get().is_none());
        assert!(p.is_match("a z"));
        assert!(p.twin.get().is_some());
    }
}
