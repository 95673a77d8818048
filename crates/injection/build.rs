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
    let (table, packed) = instructions();
    std::fs::write(out.join("instructions.rs"), table).expect("write instructions.rs");
    std::fs::write(out.join("instructions.bin"), packed).expect("write instructions.bin");
    let (table, packed) = signals();
    std::fs::write(out.join("signals.rs"), table).expect("write signals.rs");
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

fn instructions() -> (String, Vec<u8>) {
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
    }
    s.push(']');
    (s, blob)
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
/// a `&[BuiltinBranch]` expression.
fn branch_table(hir: &regex_syntax::hir::Hir, blob: &mut Vec<u8>) -> String {
    let mut s = String::from("&[");
    for (branch, gate) in derive::branches_of(hir) {
        let packed = pack_into(&branch, blob);
        let gate = groups(&gate);
        let _ = write!(s, "BuiltinBranch {{ packed: {packed:?}, gate: {gate} }},");
    }
    s.push(']');
    s
}

fn signals() -> (String, Vec<u8>) {
    let mut blob = Vec::new();
    let mut s = String::from("&[\n");
    for entry in read("data/signals.json") {
        let id = str_field(&entry, "id");
        let pattern = derive::signal_pattern(str_field(&entry, "pattern"));
        let hir = parse(id, &pattern);
        let packed = pack_into(&hir, &mut blob);
        let twin = derive::ascii(&hir);
        let packed_twin = pack_into(&twin, &mut blob);
        let branches = branch_table(&hir, &mut blob);
        let twin_branches = branch_table(&twin, &mut blob);
        let _ = writeln!(
            s,
            "BuiltinSignal {{ id: {id:?}, signal: {:?}, pattern: {pattern:?}, twin: {:?}, packed: {packed:?}, packed_twin: {packed_twin:?}, branches: {branches}, twin_branches: {twin_branches} }},",
            str_field(&entry, "signal"),
            derive::ascii_twin_of(&hir),
        );
    }
    s.push(']');
    (s, blob)
}
