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

#[path = "src/duals.rs"]
#[allow(dead_code)]
mod duals;

use serde_json::Value;
use std::fmt::Write as _;
use unicode_normalization::UnicodeNormalization;

fn main() {
    for f in [
        "data/instructions.json",
        "data/signals.json",
        "data/tool_rules.json",
        "data/tool_context.json",
        "src/derive.rs",
        "src/duals.rs",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let (table, packed, keywords) = instructions();
    std::fs::write(out.join("instructions.rs"), table).expect("write instructions.rs");
    std::fs::write(out.join("keywords.rs"), keywords).expect("write keywords.rs");
    std::fs::write(out.join("instructions.bin"), packed).expect("write instructions.bin");
    let (table, packed) = tool_patterns();
    std::fs::write(out.join("tool_patterns.rs"), table).expect("write tool_patterns.rs");
    std::fs::write(out.join("tool_patterns.bin"), packed).expect("write tool_patterns.bin");
    let (table, packed) = dual_patterns();
    std::fs::write(out.join("duals.rs"), table).expect("write duals.rs");
    std::fs::write(out.join("duals.bin"), packed).expect("write duals.bin");
    let (table, packed, forms) = signals();
    std::fs::write(out.join("signals.rs"), table).expect("write signals.rs");
    std::fs::write(out.join("signal_forms.rs"), forms).expect("write signal_forms.rs");
    std::fs::write(out.join("signals.bin"), packed).expect("write signals.bin");
}

fn read(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn parse(id: &str, pattern: &str) -> regex_syntax::hir::Hir {
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
fn pack_into(hir: &regex_syntax::hir::Hir, blob: &mut Vec<u8>) -> (usize, usize) {
    let start = blob.len();
    blob.extend(palisade_common::pattern::packed::pack(hir));
    (start, blob.len())
}

fn instructions() -> (String, Vec<u8>, String) {
    let mut blob = Vec::new();
    let mut s = String::from("&[\n");
    let mut rule_keywords = Vec::new();
    let mut ids = std::collections::HashSet::new();
    for rule in read("data/instructions.json") {
        let id = str_field(&rule, "id");
        assert!(
            ids.insert(id.to_owned()),
            "rule data: duplicate rule id {id:?}"
        );
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
        let gate_literals = derive::prefix_gate_of(&hir);
        let gate = gate_literals
            .as_ref()
            .map_or("None".to_owned(), |g| format!("Some({})", list(g)));
        let tier = rule
            .get("tier")
            .and_then(Value::as_str)
            .map_or("None".to_owned(), |t| format!("Some({t:?})"));
        let packed = pack_into(&hir, &mut blob);
        let twin = derive::ascii(&hir);
        let packed_twin = pack_into(&twin, &mut blob);
        let requires = groups(&derive::requirements(&hir));
        let _ = writeln!(
            s,
            "BuiltinRule {{ id: {id:?}, category: {:?}, signal: {:?}, tier: {tier}, keywords: {}, pattern: {pattern:?}, gate: {gate}, twin: {:?}, packed: {packed:?}, packed_twin: {packed_twin:?}, requires: {requires} }},",
            str_field(&rule, "category"),
            str_field(&rule, "signal"),
            list(&keywords),
            derive::ascii_twin_of(&hir),
        );
        rule_keywords.push((keywords, gate_literals));
    }
    s.push(']');
    (s, blob, keyword_tables(&rule_keywords))
}

/// The phrase rules' keyword tables as `Instructions::from_prepared`
/// builds them at run time (the crate's test compares the two): every
/// keyword once, in order of first use (the rules' keywords, then their
/// prefix-gate literals), the rules each turns on (a gate literal turns
/// on slot `rules + rule`), the rules without keywords, and the ASCII and
/// non-ASCII keyword sets with their pair tables. A `BuiltinKeywords`
/// expression.
fn keyword_tables<'a>(rules: &'a [(Vec<String>, Option<Vec<String>>)]) -> String {
    let mut keywords: Vec<&str> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
    let mut unconditional = Vec::new();
    let n = rules.len();
    let mut push = |kw: &'a str, slot: usize| {
        if let Some(&k) = at.get(kw) {
            keyword_rules[k].push(slot);
        } else {
            at.insert(kw, keywords.len());
            keywords.push(kw);
            keyword_rules.push(vec![slot]);
        }
    };
    for (idx, (kws, _)) in rules.iter().enumerate() {
        if kws.is_empty() {
            unconditional.push(idx);
        }
        for kw in kws {
            push(kw, idx);
        }
    }
    for (idx, (_, gate)) in rules.iter().enumerate() {
        for lit in gate.iter().flatten() {
            push(lit, n + idx);
        }
    }
    let mut s = String::from("BuiltinKeywords { keyword_rules: &[");
    for r in &keyword_rules {
        let _ = write!(s, "::std::borrow::Cow::Borrowed(&{r:?}),");
    }
    let _ = write!(s, "], unconditional: &{unconditional:?}, ");
    let (narrow, wide): (Vec<usize>, Vec<usize>) =
        (0..keywords.len()).partition(|&k| keywords[k].is_ascii());
    for (name, which) in [("narrow", narrow), ("wide", wide)] {
        if which.is_empty() {
            let _ = write!(s, "{name}: None, ");
            continue;
        }
        let pats: Vec<&str> = which.iter().map(|&k| keywords[k]).collect();
        let mut chars: Vec<char> = pats
            .iter()
            .flat_map(|p| p.chars())
            .filter(|c| !c.is_ascii())
            .collect();
        chars.sort_unstable();
        chars.dedup();
        let _ = write!(
            s,
            "{name}: Some(BuiltinKeywordSet {{ table: {}, index: &{which:?}, max_len: {}, min_len: {}, chars: &{chars:?}, pats: &[",
            palisade_common::literals::PairTable::new(&pats, false).to_rust(),
            pats.iter().map(|p| p.len()).max().unwrap_or(0),
            pats.iter().map(|p| p.len()).min().unwrap_or(0).max(1),
        );
        for p in &pats {
            let _ = write!(s, "::std::borrow::Cow::Borrowed({p:?}),");
        }
        s.push_str("] }), ");
    }
    s.push('}');
    s
}

/// Literal groups ([`derive::requirements`]) as a `&[&[&[u8]]]` expression.
fn groups(groups: &[Vec<Vec<u8>>]) -> String {
    let mut l = String::from("&[");
    for g in groups {
        l.push_str("&[");
        for lit in g {
            let _ = write!(l, "&{lit:?},");
        }
        l.push_str("],");
    }
    l.push(']');
    l
}

/// The branches of `hir` ([`derive::branches_of`]) packed into `blob`, as
/// a `&[BuiltinBranch]` expression; each branch's gate is also pushed
/// onto `gates`.
fn branch_table(
    hir: &regex_syntax::hir::Hir,
    blob: &mut Vec<u8>,
    gates: &mut Vec<Vec<Vec<Vec<u8>>>>,
) -> String {
    let mut s = String::from("&[");
    for (branch, gate) in derive::branches_of(hir) {
        let packed = pack_into(&branch, blob);
        let _ = write!(
            s,
            "BuiltinBranch {{ packed: {packed:?}, gate: {} }},",
            groups(&gate)
        );
        gates.push(gate);
    }
    s.push(']');
    s
}

/// One form's gate tables as `signals::Form::derive` builds them at run
/// time (a test compares): every gate literal once, in order of first
/// use, in a pair table (ASCII case ignored), and each branch's groups as
/// literal indices. A `BuiltinForm` expression.
fn form_table(gates: &[Vec<Vec<Vec<u8>>>]) -> String {
    let mut lits: Vec<&[u8]> = Vec::new();
    let mut at: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    let mut s = String::from("BuiltinForm { gates: &[");
    for gate in gates {
        s.push_str("::std::borrow::Cow::Borrowed(&[");
        for group in gate {
            s.push_str("::std::borrow::Cow::Borrowed(&[");
            for lit in group {
                let k = *at.entry(lit.as_slice()).or_insert_with(|| {
                    lits.push(lit.as_slice());
                    lits.len() - 1
                });
                let _ = write!(s, "{k},");
            }
            s.push_str("]),");
        }
        s.push_str("]),");
    }
    let _ = write!(
        s,
        "], table: {} }}",
        palisade_common::literals::PairTable::new(&lits, true).to_rust()
    );
    s
}

/// The tool rules' patterns (`pattern` and `with` of every rule of
/// `data/tool_rules.json` and `data/tool_context.json`), each parsed as
/// `src/bytere.rs` parses (Unicode off, bytes) and packed: a sorted
/// `&[(source, start, end)]` expression into the blob.
fn tool_patterns() -> (String, Vec<u8>) {
    let mut sources: Vec<String> = Vec::new();
    for file in ["data/tool_rules.json", "data/tool_context.json"] {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let table: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        for rule in table
            .get("rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for key in ["pattern", "with"] {
                if let Some(p) = rule.get(key).and_then(Value::as_str) {
                    sources.push(p.to_owned());
                }
            }
        }
    }
    sources.sort_unstable();
    sources.dedup();
    let mut blob = Vec::new();
    let mut s = String::from("&[\n");
    for source in &sources {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(source)
            .unwrap_or_else(|e| panic!("tool rule pattern {source:?} does not parse: {e}"));
        let (start, end) = pack_into(&hir, &mut blob);
        let _ = writeln!(s, "({source:?}, {start}, {end}),");
    }
    s.push(']');
    (s, blob)
}

/// The context patterns (`src/duals.rs`), each parsed as `lean::Dual`
/// parses it and packed with its ASCII twin: a `&[(source, (start, end),
/// (start, end))]` expression into the blob.
fn dual_patterns() -> (String, Vec<u8>) {
    let mut blob = Vec::new();
    let mut s = String::from("&[\n");
    for source in duals::ALL {
        let hir = parse("context pattern", source);
        let full = pack_into(&hir, &mut blob);
        let twin = pack_into(&derive::ascii(&hir), &mut blob);
        let _ = writeln!(s, "({source:?}, {full:?}, {twin:?}),");
    }
    s.push(']');
    (s, blob)
}

fn signals() -> (String, Vec<u8>, String) {
    let mut blob = Vec::new();
    let mut s = String::from("&[\n");
    let (mut full_gates, mut twin_gates) = (Vec::new(), Vec::new());
    for entry in read("data/signals.json") {
        let id = str_field(&entry, "id");
        let pattern = derive::signal_pattern(str_field(&entry, "pattern"));
        let hir = parse(id, &pattern);
        let packed = pack_into(&hir, &mut blob);
        let twin = derive::ascii(&hir);
        let packed_twin = pack_into(&twin, &mut blob);
        let branches = branch_table(&hir, &mut blob, &mut full_gates);
        let twin_branches = branch_table(&twin, &mut blob, &mut twin_gates);
        let _ = writeln!(
            s,
            "BuiltinSignal {{ id: {id:?}, signal: {:?}, pattern: {pattern:?}, twin: {:?}, packed: {packed:?}, packed_twin: {packed_twin:?}, branches: {branches}, twin_branches: {twin_branches} }},",
            str_field(&entry, "signal"),
            derive::ascii_twin_of(&hir),
        );
    }
    s.push(']');
    let forms = format!("[{}, {}]", form_table(&full_gates), form_table(&twin_gates));
    (s, blob, forms)
}
