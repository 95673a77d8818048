//! Derives, once at build time, what the scanner would otherwise compute
//! from the built-in rule data at every start-up: each phrase rule's final
//! pattern (NFKC, shorthands expanded), its prefix-literal gate and its
//! ASCII twin, and each structural signal's pattern and ASCII twin
//! (`src/derive.rs`, shared with the crate, says what those are), and both
//! patterns parsed and packed (`palisade_common::pattern::packed`), so a
//! process compiles a rule without parsing it. The data
//! files stay the only source; the generated tables in `OUT_DIR` are
//! rebuilt whenever they change.

#![forbid(unsafe_code)]
// A build script reads the data files and writes its tables into OUT_DIR;
// the crate itself stays pure.
#![allow(clippy::disallowed_methods)]

#[path = "src/derive.rs"]
#[allow(dead_code)]
mod derive;

use regex_automata::dfa::dense;
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::{dfa::StartKind, MatchKind};
use regex_syntax::hir::Hir;
use serde_json::Value;
use std::fmt::Write as _;
use unicode_normalization::UnicodeNormalization;

fn main() {
    for f in [
        "data/instructions.json",
        "data/signals.json",
        "src/derive.rs",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let little = std::env::var("CARGO_CFG_TARGET_ENDIAN").map_or(true, |e| e != "big");
    let mut dfas = Dfas {
        blob: Vec::new(),
        little,
    };
    let (table, packed) = instructions(&mut dfas);
    std::fs::write(out.join("instructions.rs"), table).expect("write instructions.rs");
    std::fs::write(out.join("instructions.bin"), packed).expect("write instructions.bin");
    let (table, packed) = signals(&mut dfas);
    std::fs::write(out.join("signals.rs"), table).expect("write signals.rs");
    std::fs::write(out.join("signals.bin"), packed).expect("write signals.bin");
    std::fs::write(out.join("dfas.bin"), dfas.blob).expect("write dfas.bin");
}

/// Largest transition table a prebuilt DFA may have; a pattern whose DFA
/// is larger is compiled at run time as before.
const DFA_LIMIT: usize = 256 << 10;
/// Most memory determinization may use for one DFA.
const DETERMINIZE_LIMIT: usize = 4 << 20;

/// Dense DFAs built here and serialized into one blob (`dfas.bin`), which
/// the crate deserializes without copying (`src/prebuilt.rs`). Dense, not
/// sparse: a sparse DFA is a fifth of the size, but checking it on load
/// (`from_bytes` decodes every state) costs more than compiling it.
struct Dfas {
    blob: Vec<u8>,
    little: bool,
}

/// A serialized DFA's byte range in the blob, as Rust source.
type Range = (usize, usize);

impl Dfas {
    /// Append `dfa` at an 8-byte aligned offset (a dense DFA is read in
    /// place as `u32`s).
    fn push(&mut self, dfa: &dense::DFA<Vec<u32>>) -> Option<Range> {
        while self.blob.len() % 8 != 0 {
            self.blob.push(0);
        }
        let (bytes, pad) = if self.little {
            dfa.to_bytes_little_endian()
        } else {
            dfa.to_bytes_big_endian()
        };
        let start = self.blob.len();
        self.blob.extend_from_slice(bytes.get(pad..)?);
        Some((start, self.blob.len()))
    }

    fn build(hir: &Hir, reverse: bool) -> Option<dense::DFA<Vec<u32>>> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .reverse(reverse),
            )
            .build_from_hir(hir)
            .ok()?;
        let mut config = dense::Config::new()
            .dfa_size_limit(Some(DFA_LIMIT))
            .determinize_size_limit(Some(DETERMINIZE_LIMIT));
        if reverse {
            config = config
                .prefilter(None)
                .specialize_start_states(false)
                .start_kind(StartKind::Anchored)
                .match_kind(MatchKind::All);
        }
        dense::Builder::new()
            .configure(config)
            .build_from_nfa(&nfa)
            .ok()
    }

    /// The forward DFA of `hir` (it answers whether and where a match
    /// ends), or `None` if it is over the limits.
    fn forward(&mut self, hir: &Hir) -> Option<Range> {
        Self::build(hir, false).and_then(|d| self.push(&d))
    }

    /// The forward and reverse DFAs of `hir` (a regex that finds every
    /// leftmost-first match, as the meta regex does), or `None`.
    fn regex(&mut self, hir: &Hir) -> Option<(Range, Range)> {
        let fwd = Self::build(hir, false)?;
        let rev = Self::build(hir, true)?;
        Some((self.push(&fwd)?, self.push(&rev)?))
    }
}

/// Prebuilt DFAs of one pattern, as Rust source of a `prebuilt::Dfas`:
/// the exact regex of the pattern when it has no Unicode word boundary
/// and its DFAs are small enough; else that of its ASCII twin (exact on
/// all-ASCII text) if it has one and that is, and the forward DFA of the
/// pattern loosened (it rules a text out, [`derive::loosened`]).
fn prebuilt(dfas: &mut Dfas, hir: &Hir, twin: &Hir) -> String {
    let opt = |r: Option<(Range, Range)>| r.map_or("None".to_owned(), |r| format!("Some({r:?})"));
    let unicode = derive::has_unicode_word(hir);
    let exact = if unicode { None } else { dfas.regex(hir) };
    if exact.is_some() {
        return format!("Dfas {{ exact: {}, twin: None, wide: None }}", opt(exact));
    }
    let twin = if unicode { dfas.regex(twin) } else { None };
    let wide = dfas.forward(&derive::loosened(hir));
    format!(
        "Dfas {{ exact: None, twin: {}, wide: {} }}",
        opt(twin),
        wide.map_or("None".to_owned(), |r| format!("Some({r:?})"))
    )
}

fn read(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn parse(id: &str, pattern: &str) -> Hir {
    regex_syntax::Parser::new()
        .parse(pattern)
        .unwrap_or_else(|e| panic!("built-in rule {id:?}: pattern does not compile: {e}"))
}

fn list(items: &[String]) -> String {
    let mut s = String::from("&[");
    for i in items {
        let _ = write!(s, "{i:?},");
    }
    s.push(']');
    s
}

/// Append the packed form of `hir` to `blob`; its byte range there.
fn pack_into(hir: &Hir, blob: &mut Vec<u8>) -> (usize, usize) {
    let start = blob.len();
    blob.extend(palisade_common::pattern::packed::pack(hir));
    (start, blob.len())
}

fn instructions(dfas: &mut Dfas) -> (String, Vec<u8>) {
    let mut blob = Vec::new();
    let mut s = String::from("&[\n");
    for rule in read("data/instructions.json") {
        let id = str_field(&rule, "id");
        let nfkc: String = str_field(&rule, "pattern").nfkc().collect();
        let pattern = derive::expand(&nfkc);
        let hir = parse(id, &pattern);
        let keywords: Vec<String> = rule
            .get("keywords")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|k| k.nfkc().collect::<String>().to_lowercase())
            .collect();
        let gate = derive::prefix_gate_of(&hir)
            .map_or("None".to_owned(), |g| format!("Some({})", list(&g)));
        let tier = rule
            .get("tier")
            .and_then(Value::as_str)
            .map_or("None".to_owned(), |t| format!("Some({t:?})"));
        let twin = derive::ascii(&hir);
        let packed = pack_into(&hir, &mut blob);
        let packed_twin = pack_into(&twin, &mut blob);
        let dfa = prebuilt(dfas, &hir, &twin);
        let _ = writeln!(
            s,
            "BuiltinRule {{ id: {id:?}, category: {:?}, signal: {:?}, tier: {tier}, keywords: {}, pattern: {pattern:?}, gate: {gate}, twin: {:?}, packed: {packed:?}, packed_twin: {packed_twin:?}, dfa: {dfa} }},",
            str_field(&rule, "category"),
            str_field(&rule, "signal"),
            list(&keywords),
            derive::ascii_twin_of(&hir),
        );
    }
    s.push(']');
    (s, blob)
}

fn signals(dfas: &mut Dfas) -> (String, Vec<u8>) {
    let mut blob = Vec::new();
    let mut s = String::from("&[\n");
    for entry in read("data/signals.json") {
        let id = str_field(&entry, "id");
        let pattern = derive::signal_pattern(str_field(&entry, "pattern"));
        let hir = parse(id, &pattern);
        let twin = derive::ascii(&hir);
        let packed = pack_into(&hir, &mut blob);
        let packed_twin = pack_into(&twin, &mut blob);
        let dfa = prebuilt(dfas, &hir, &twin);
        let _ = writeln!(
            s,
            "BuiltinSignal {{ id: {id:?}, signal: {:?}, pattern: {pattern:?}, twin: {:?}, packed: {packed:?}, packed_twin: {packed_twin:?}, dfa: {dfa} }},",
            str_field(&entry, "signal"),
            derive::ascii_twin_of(&hir),
        );
    }
    s.push(']');
    (s, blob)
}
