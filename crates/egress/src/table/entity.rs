//! Tables of things, read by structure: a row that is an entity with
//! attributes (a server and its cores, an image and its size, a release and
//! its fixes) is no cross-tab cell of people, whatever language its headers
//! are in.
//!
//! The policy (docs/tables-entities.md): a table counts things when its
//! columns other than the counts carry measures of another kind.
//!
//! - **Strong** evidence decides alone: machine units in cells (`24 GB`,
//!   `212MB`, `212 ns`, `1.9 µs`, `3.2 GHz`) or hex object ids
//!   (`9f3c2a1b7e44`).
//! - **Medium** evidence decides from two columns: a data-size unit in a
//!   header in any script (`内存(GB)`, `ОЗУ, ГБ`, `Size [MiB]`), a row-label column of
//!   identifier-shaped tokens (`g7.xlarge`, `web-sh-01`, `CF-101`,
//!   `2.4.0`, `registry.local/api`), a column of clock times (`07:42`), of
//!   dates (`2026-09-02`), of versions (`1.18.2`, `3.13-slim`), of money
//!   (`$1.21`, `74 990 ₽`), or a header with a currency or a unit of time
//!   (`Preis (EUR)`, `単価（円）`, `Цена, ₽`, `$/h`, `Ritardo (min)`).
//!   One medium sign does not decide when the table's numbers hold a total:
//!   people are counted by hostname, by fiscal year (`FY2023-24`) or by
//!   diagnosis code (`J45.0`). In a table with no total (a listing) one
//!   medium sign decides ([`Evidence::things_without_totals`]).
//! - **People** veto every sign: a header naming people (`Customers`,
//!   `Attendees`, `Patienten`, `患者数`) makes the table one of people.
//! - **Vetoes** on medium evidence: a percentage, share or rate column
//!   (counts beside their shares are people tables) and a header naming an
//!   average (`Mean cost (£)` beside patients is an aggregate of people).
//! - **Context** (round 12n), each one medium sign naming an object, and
//!   none of them counts when the text above the table names people: a
//!   caption that names what is counted (`Merged PRs per repo`, `Images
//!   per class`), the headers of a dataset's splits (`Train | Val | Test`),
//!   and, in the cells, ranges that cross one another (`6–9`, `9–14`,
//!   `5–11`: an attribute's spread per row, not bands of a partition), and
//!   in a label column kebab-case names of one namespace (`kite-core`,
//!   `kite-cli`, `kite-docs`: the repositories of one project).
//! - **Measures and slugs** (round 12o), medium: a physical unit in a
//!   header over numbers (`Gaz (MWh)`, `Surface (m²)`: no count of people
//!   has a unit) and a column of lowercase kebab-case slugs
//!   (`line-too-long`, `function-call-in-default-argument`: lint rules,
//!   not groups of people, whose labels are spaced or capitalised).
//! - **A machine, a store and a change** (round 12p), medium: a percentage
//!   of a machine's resource (`cpu%`, `%MEM`: the load of a host, and no
//!   share veto), a label column of items named with their sizes (`Dübel
//!   8mm`, `Schrauben M6x30`), the headers of a diff stat (`insertions |
//!   deletions`) and one measure done and left (`Points done | Points
//!   left`: the progress of work).
//! - **Other languages and code** (round 12q): a machine's load named in
//!   Chinese, Japanese, Korean, German, the Romance languages or Russian
//!   (`磁盘使用率`, `CPU-Auslastung`, `Uso de CPU`) is that percentage too,
//!   written with its percent marks (`63%`) or not; a header of markers
//!   left in code (`TODOs`, `FIXMEs`, `HACK`, in capitals: `Todos` is
//!   Spanish for all) over numbers is a medium sign.
//!
//! Every rule below lists examples it must match and negatives it must
//! not; the tests check both.

use regex::Regex;
use std::sync::OnceLock;

use super::model::{clean, is_grand_total_label, is_percent_header, parse_count, parse_number};

/// How much one sign weighs.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Strength {
    /// Decides alone.
    Strong,
    /// Decides with a second medium sign in another column.
    Medium,
}

/// Where a rule looks.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Scope {
    /// A whole data cell (at least half the filled cells of a column).
    Cell,
    /// A column header.
    Header,
    /// A column header over a column of numbers (at least half its filled
    /// cells): the unit of what its cells measure, not of a label's bands
    /// (`Distance (km)` over `0-5`, `5-10` is an axis people are counted
    /// along).
    MeasureHeader,
}

/// One rule as data: a pattern, its weight, and what it must and must not
/// match.
pub(crate) struct Rule {
    pub name: &'static str,
    pub scope: Scope,
    pub strength: Strength,
    pub pattern: &'static str,
    /// What the rule must match (checked by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub examples: &'static [&'static str],
    /// What the rule must not match (checked by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub negatives: &'static [&'static str],
}

/// The rules of measures of another kind.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        name: "machine unit in a cell",
        scope: Scope::Cell,
        strength: Strength::Strong,
        pattern: r"(?i)^[-+~≈]?\d[\d.,\u{a0} ]*\s?(?:[kmgtp]i?b|bytes|ns|µs|μs|us|ms|[kmg]hz|[kmg]b/s|ops/s|req/s)$",
        examples: &[
            "24 GB", "1,440 GB", "212MB", "212 ns", "1.9 µs", "2.41 ms", "3.2 GHz", "64 KiB",
        ],
        negatives: &["12", "3 (7.5%)", "45 patients", "12.5%", "24 kg", "0-17"],
    },
    Rule {
        name: "hex object id in a cell",
        scope: Scope::Cell,
        strength: Strength::Strong,
        pattern: r"(?i)^(?:sha256:)?[0-9a-f]{7,64}$",
        examples: &["9f3c2a1b7e44", "0a7d51c3e9f2", "c1e0b8d34a77"],
        // Pure digits and pure letters are excluded in code (`hex_id`).
        negatives: &["1234567", "deadbeef", "face", "12"],
    },
    Rule {
        name: "data-size unit in a header",
        scope: Scope::Header,
        strength: Strength::Medium,
        pattern: r"(?i)(?:^|[\s(\[（,/_])(?:[kmgtp]i?b|bytes|гб|мб|тб|кб)(?:$|[\s)\]）,/])",
        examples: &[
            "内存(GB)",
            "磁盘(TB)",
            "ОЗУ, ГБ",
            "SSD, ГБ",
            "Size [MiB]",
            "RAM GB",
            "mem_used_gb",
        ],
        negatives: &["Patients", "GBR", "Gebiet", "Pupils", "Abbey"],
    },
    Rule {
        name: "clock time in a cell",
        scope: Scope::Cell,
        strength: Strength::Medium,
        pattern: r"^\d{1,2}:\d{2}(?::\d{2})?$",
        examples: &["07:42", "9:05", "23:59:59"],
        negatives: &["1:1000", "12", "0-17", "2019/20"],
    },
    Rule {
        name: "date in a cell",
        scope: Scope::Cell,
        strength: Strength::Medium,
        pattern: r"^(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}|\d{4}/\d{2}/\d{2})$",
        examples: &["2026-09-02", "02.09.2026", "9/2/26", "2026/09/02"],
        negatives: &["2019/20", "2019-20", "0-17", "18-24", "2026"],
    },
    Rule {
        name: "version in a cell",
        scope: Scope::Cell,
        strength: Strength::Medium,
        pattern: r"(?i)^v?\d+\.\d+\.\d+(?:[-+.][0-9a-z.]+)?$|^v?\d+\.\d+-[a-z][0-9a-z.-]*$",
        examples: &["2.4.0", "3.0.0-rc1", "1.18.2", "3.13-slim", "v1.2.3"],
        negatives: &["2.4", "12.5", "0-17", "2019-20", "1,280"],
    },
    Rule {
        name: "duration in a cell",
        scope: Scope::Cell,
        strength: Strength::Medium,
        pattern: r"(?i)^(?:\d+(?:\.\d+)?\s?(?:d|h|m|min|s|sec)\s?){1,3}(?:\(.*\))?$",
        examples: &["4m 12s", "3d4h", "14m", "1h 05m", "12.3s", "11d"],
        negatives: &["12", "4 m²", "3 (7.5%)", "0-17", "5 km", "65+", "2 men"],
    },
    Rule {
        name: "money in a cell",
        scope: Scope::Cell,
        strength: Strength::Medium,
        pattern: r"(?i)^[$€£¥₽]\s?\d|\d\s?(?:[$€£¥₽円元]|eur|usd|gbp|chf|руб\.?)$",
        examples: &["$1.21", "€ 8,90", "74 990 ₽", "1,280円", "12 EUR"],
        negatives: &["12", "74 990", "12%", "3 (7.5%)"],
    },
    Rule {
        name: "currency or unit of time in a header",
        scope: Scope::Header,
        strength: Strength::Medium,
        pattern: r"(?i)[$€£¥₽円元]|(?:^|[\s(\[（,/_])(?:eur|usd|gbp|chf|jpy|cny|rub|руб)(?:$|[\s)\]）,.])|/h$|[(\[（](?:min|h|s|ms|sec|мин|分)[)\]）]|每(?:秒|分钟|分鐘|小时|小時)|毎(?:秒|分)|(?:^|\s)(?:per|/)\s?(?:second|sec|minute|min)(?:$|[\s)])",
        examples: &[
            "Preis (EUR)",
            "単価（円）",
            "Цена, ₽",
            "On-demand $/h",
            "Spot $/h",
            "Ritardo (min)",
            "Price USD",
            "每分钟请求上限",
            "Requests per minute",
        ],
        negatives: &[
            "Patients",
            "Europe",
            "Minors",
            "Euro area",
            "Staff (n)",
            "Admissions",
        ],
    },
    Rule {
        name: "physical unit in a header",
        scope: Scope::MeasureHeader,
        strength: Strength::Medium,
        pattern: r"(?i)(?:^|[\s(\[（,/_])(?:[kmgt]?wh|[kmgt]w|kwc|m²|m³|km²|m2|m3|km|ha|kg|tonnes?|tco2e?|kgco2e?|°c|l/100\s?km|kwh/m²)(?:$|[\s)\]）,/])",
        examples: &[
            "Surface (m²)",
            "Électricité (MWh)",
            "Gaz (MWh)",
            "Verbrauch [kWh]",
            "Fläche, m²",
            "Masse (kg)",
            "Émissions (tCO2e)",
            "Leistung (kW)",
            "Temperatur (°C)",
        ],
        negatives: &[
            "Patients", "Kunden", "Whitby", "Kgs Lynn", "Hamlet", "Ward (n)", "Week",
        ],
    },
    Rule {
        // Round 12q: the markers left in source code (`TODO`, `FIXME`,
        // `HACK`), counted per module, file or crate. Written in capitals,
        // as in the code: the Spanish and Portuguese `Todos` (all) is no
        // marker.
        name: "code marker in a header",
        scope: Scope::MeasureHeader,
        strength: Strength::Medium,
        pattern: r"^(?:#\s*|(?i:open|n|num|count)\s+)?(?:TODO|FIXME|HACK)(?:s|'s)?(?:\s*/\s*(?:TODO|FIXME|HACK)s?)?(?i:[\s_]*(?:count|comments?|markers?|\(n\)))?$",
        examples: &[
            "TODOs",
            "FIXMEs",
            "TODO",
            "HACKs",
            "# TODO",
            "Open TODOs",
            "TODO/FIXME",
            "TODO count",
            "FIXME comments",
            "TODO_count",
        ],
        negatives: &[
            "Todos", "todos", "Todas", "TODOS", "Tasks", "Issues", "To do", "Hackney", "Fixed",
        ],
    },
];

/// Headers that veto every sign: a column that names people
/// (`Customers`, `Attendees`, `Patienten`, `Abonnés`, `Сотрудники`,
/// `患者数`, `利用者`, `인원`). A table with such a column counts people,
/// whatever its other columns measure. Examples and negatives in the tests.
const PEOPLE_HEADER: &str = concat!(
    r"(?i)(?-u:\b)(?:patients?|clients?|customers?|users?|attendees?|participants?|respondents?|pupils?|students?|learners?|staff|employees?|members?|residents?|people|persons?|individuals?|children|adults?|men|women|males?|females?|boys|girls|visitors?|callers?|applicants?|claimants?|beneficiar(?:y|ies)|subscribers?|enrol(?:l)?ed|households?|families|carers?|volunteers?)(?-u:\b)",
    r"|patienten|kunden|teilnehmer|schüler|mitarbeiter|einwohner|personen|élèves|abonnés|habitants|bénéficiaires|pacientes|alumnos|usuarios|personas|pazienti|clienti|studenti|iscritti|utenti|пациент|клиент|ученик|сотрудник|участник|человек|жител|患者|人数|利用者|顧客|生徒|職員|参加者|客户|用户|员工|学生|居民|환자|인원|학생|고객",
);

/// Headers that veto medium evidence: an average over a group.
const AVERAGE_HEADER: &str = r"(?i)(?-u:\b)(?:mean|average|avg|median)(?-u:\b)|平均|中位|durchschnitt|moyenne|médiane|media|mediana|средн|медиан";

/// The rules' patterns, compiled once; a pattern that failed to compile
/// (the tests rule it out) is `None` and never matches, so its evidence is
/// missing and the table stays protected (fails closed).
fn compiled() -> &'static [Option<Regex>] {
    static R: OnceLock<Vec<Option<Regex>>> = OnceLock::new();
    R.get_or_init(|| RULES.iter().map(|r| Regex::new(r.pattern).ok()).collect())
}

fn people_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    R.get_or_init(|| Regex::new(PEOPLE_HEADER).ok()).as_ref()
}

/// Whether a header names people (if the pattern could not be built,
/// every header does: the table stays protected).
pub(crate) fn names_people(header: &str) -> bool {
    people_re().is_none_or(|r| r.is_match(clean(header)))
}

fn average_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    R.get_or_init(|| Regex::new(AVERAGE_HEADER).ok()).as_ref()
}

/// Whether `text` (a cell or a header, by `scope`) matches rule `k`.
fn rule_matches(k: usize, text: &str) -> bool {
    let t = clean(text).trim_matches('"').trim();
    if !compiled()
        .get(k)
        .and_then(Option::as_ref)
        .is_some_and(|r| r.is_match(t))
    {
        return false;
    }
    if RULES[k].name.starts_with("hex") {
        return hex_id(t);
    }
    true
}

/// A hex object id holds both digits and letters.
fn hex_id(t: &str) -> bool {
    let t = t.strip_prefix("sha256:").unwrap_or(t);
    t.bytes().any(|b| b.is_ascii_digit()) && t.bytes().any(|b| b.is_ascii_alphabetic())
}

/// An identifier-shaped token: a separator (`.`, `/`, `-`, `_`, `:`)
/// inside it and both letters and digits (`g7.xlarge`, `CF-101`,
/// `web-sh-01`, `parse_small/64B`), a version (`2.4.0`), or a path of
/// words (`registry.local/api`). Age bands (`0-17`), years (`2019/20`) and
/// words (`Ward 3`, `Q1`) are not.
pub(crate) fn id_token(tok: &str) -> bool {
    let t = tok.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '"' | '\'' | '`'));
    // An issue or pull request reference (`#1204`) and an API route
    // (`/v1/ocr`) name objects, not groups of people.
    if t.len() >= 3 && t.starts_with('#') && t[1..].bytes().all(|c| c.is_ascii_digit()) {
        return true;
    }
    let t = match t.strip_prefix('/') {
        Some(route) if route.contains('/') => route,
        _ => t,
    };
    let b = t.as_bytes();
    if b.len() < 3 || !t.is_ascii() {
        return false;
    }
    let sep = |c: u8| matches!(c, b'.' | b'/' | b'-' | b'_' | b':');
    let inner = b[1..b.len() - 1].iter().any(|&c| sep(c)) && !sep(b[0]) && !sep(b[b.len() - 1]);
    if !inner || !b.iter().all(|&c| c.is_ascii_alphanumeric() || sep(c)) {
        return false;
    }
    let letters = b.iter().any(|c| c.is_ascii_alphabetic());
    let digits = b.iter().any(|c| c.is_ascii_digit());
    let version = {
        let parts: Vec<&str> = t.split('.').collect();
        parts.len() >= 3
            && parts[..2]
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
    };
    let path = t.contains('/') && letters && {
        let (l, r) = t.split_once('/').unwrap_or(("", ""));
        l.bytes().any(|c| c.is_ascii_alphabetic()) && r.bytes().any(|c| c.is_ascii_alphabetic())
    };
    // snake_case: an identifier in code or configuration (`max_rows`,
    // `min_value`); words of a label are spaced or capitalised.
    let snake = t.contains('_')
        && t.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        && t.split('_').all(|p| !p.is_empty());
    (letters && digits) || version || path || snake
}

/// A lowercase kebab-case name (`kite-core`, `kite-sdk-go`, `web-ui`):
/// its first segment, when it has one of at least two letters or digits.
fn kebab_prefix(label: &str) -> Option<&str> {
    let t = clean(label);
    let ok = t.contains('-')
        && t.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && t.bytes().any(|c| c.is_ascii_lowercase())
        && t.split('-').all(|p| !p.is_empty());
    let first = t.split('-').next()?;
    (ok && first.len() >= 2).then_some(first)
}

/// A label column of names in one namespace: at least three lowercase
/// kebab-case names, half the column or more, sharing their first segment
/// (`kite-core`, `kite-cli`, `kite-docs`: the repositories, packages or
/// services of one project). Group labels are spaced or capitalised
/// (`North East`, `In person`); `in-person`, `e-mail` share nothing, and
/// `north-east`, `north-west`, `south-east`, `south-west` two apiece.
pub(crate) fn namespaced_labels(cells: &[&str]) -> bool {
    let prefixes: Vec<&str> = cells.iter().filter_map(|c| kebab_prefix(c)).collect();
    prefixes.iter().any(|p| {
        let n = prefixes.iter().filter(|q| *q == p).count();
        n >= 3 && n * 2 >= cells.len()
    })
}

/// The words of a lowercase kebab-case name (`line-too-long` → 3), or 0.
fn kebab_words(cell: &str) -> usize {
    let t = clean(cell);
    let ok = t.contains('-')
        && t.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && t.bytes().any(|c| c.is_ascii_lowercase())
        && t.split('-').all(|p| !p.is_empty());
    if ok {
        t.split('-').count()
    } else {
        0
    }
}

/// A column of slugs: every filled cell (three or more) a lowercase
/// kebab-case name, half of them of three words or more and one of four or
/// more (`line-too-long`, `unused-import`, `function-call-in-default-argument`:
/// the names of lint rules, CSS classes, CLI commands, services). Labels of
/// groups of people are spaced or capitalised, and the few that are
/// hyphenated are short compounds (`in-person`, `e-mail`, `full-time`,
/// `face-to-face`).
pub(crate) fn slug_column(cells: &[&str]) -> bool {
    let words: Vec<usize> = cells.iter().map(|c| kebab_words(c)).collect();
    cells.len() >= 3
        && words.iter().all(|&w| w >= 2)
        && words.iter().filter(|&&w| w >= 3).count() * 2 >= words.len()
        && words.iter().any(|&w| w >= 4)
}

/// Whether a label cell names an entity by an identifier-shaped token.
pub(crate) fn id_label(cell: &str) -> bool {
    clean(cell).split_whitespace().any(id_token)
}

/// Whether the table's rows are entities with attributes of another kind
/// than counts of people (see the module policy). `cell(r, c)` is the text
/// of a data cell.
pub(crate) fn entity_table<'a>(
    headers: &[String],
    nrows: usize,
    ncols: usize,
    cell: impl Fn(usize, usize) -> &'a str,
    ctx: &Context<'_>,
) -> bool {
    let e = evidence(headers, nrows, ncols, cell, ctx);
    e.strong || (e.medium_cols >= 2 && !e.veto)
}

/// What a table's columns say about its rows (see the module policy).
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub(crate) struct Evidence {
    /// A sign that decides alone.
    pub strong: bool,
    /// Columns with a medium sign.
    pub medium_cols: usize,
    /// Columns with a medium sign that names an object (not a date or a
    /// clock time: those are the axes people are counted along too).
    pub object_cols: usize,
    /// A share, rate or average column.
    pub veto: bool,
    /// A header naming people: no sign counts.
    pub people: bool,
}

impl Evidence {
    /// One medium sign decides when the numbers hold no total (no row or
    /// column is the sum of others): a listing of entities with attributes
    /// (`ubuntu-24.04 | 3.11 | 4m 12s | 0 failed`), not a tabulation of
    /// people, whose small cells come with their totals.
    ///
    /// ```text
    /// an identifier, a duration, money … and no total, no veto → things
    /// the same with a total row                              → people (protected)
    /// only a date or clock-time column and no total          → people (protected)
    /// ```
    pub(crate) fn things_without_totals(&self) -> bool {
        !self.people && !self.veto && (self.strong || self.object_cols >= 1)
    }
}

/// What the text above a table says about it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Context<'a> {
    /// The nearest non-empty line above the table (a heading or a caption),
    /// at most two blank lines up; empty when there is none or it is a
    /// paragraph.
    pub caption: &'a str,
    /// The text above the table, at most [`CONTEXT_BYTES`] of it: read for
    /// words naming people, which keep the context signs from counting.
    pub before: &'a str,
}

/// How far above a table the context reaches.
pub(crate) const CONTEXT_BYTES: usize = 2000;

/// The longest line read as a caption (a longer one is a paragraph).
const CAPTION_BYTES: usize = 200;

impl<'a> Context<'a> {
    /// The context of a table that starts at byte `start` of `text`.
    pub(crate) fn before(text: &'a str, start: usize) -> Self {
        let mut from = start.min(text.len()).saturating_sub(CONTEXT_BYTES);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let end = start.min(text.len());
        let before = text.get(from..end).unwrap_or("");
        let mut caption = "";
        let mut blanks = 0;
        // The last line of `before` is the table's own line start (empty).
        for line in before.lines().rev() {
            let l = line.trim();
            if l.is_empty() {
                blanks += 1;
                if blanks > 2 {
                    break;
                }
                continue;
            }
            if l.len() <= CAPTION_BYTES {
                caption = l.trim_start_matches('#').trim();
            }
            break;
        }
        Context { caption, before }
    }
}

/// A caption that names what the table counts: an object of software or of
/// data, then `per`, `by` or `for each` (or `number of …`). Examples and
/// negatives in [`CAPTION_THINGS_EXAMPLES`] and [`CAPTION_THINGS_NEGATIVES`].
const CAPTION_THINGS: &str = concat!(
    r"(?i)(?:^|[\s(\[,;:])(?:merged\s+|open\s+|closed\s+)?(?:prs|pull[\s-]requests|merge[\s-]requests|mrs|commits|builds|deploy(?:ment)?s|releases|images|frames|files|packages|crates|repos|repositories|stars|annotations|bounding[\s-]boxes|objects|lines\s+of\s+code)",
    r"(?:\s+(?:per|by|pro|par|por|je|for\s+each|in\s+each|across)(?:$|[\s,:]))",
    r"|(?:^|\s)(?:number|count|#)\s+of\s+(?:\w+\s+)?(?:prs|pull[\s-]requests|merge[\s-]requests|commits|builds|deploy(?:ment)?s|images|frames|files|packages|annotations|bounding[\s-]boxes|objects)(?:$|[\s,:)])",
);

/// What [`CAPTION_THINGS`] must match.
#[cfg_attr(not(test), allow(dead_code))]
const CAPTION_THINGS_EXAMPLES: &[&str] = &[
    "Merged PRs per repo, Q1 2026 (bots excluded):",
    "Pull requests by team",
    "Images per class and split",
    "Commits pro Repository",
    "Number of annotated frames by route",
    "Deployments by service, March",
];

/// What [`CAPTION_THINGS`] must not match.
#[cfg_attr(not(test), allow(dead_code))]
const CAPTION_THINGS_NEGATIVES: &[&str] = &[
    "Patients per ward",
    "Pupils by year group",
    "Class distribution",
    "Release notes",
    "Images",
    "Files (see below)",
    "Referrals by GP practice",
    "Issues by school",
    "Members by repo",
    "Samples by ward",
    "Tests by region",
];

fn caption_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    R.get_or_init(|| Regex::new(CAPTION_THINGS).ok()).as_ref()
}

/// Whether a caption names objects as what the table counts (a pattern that
/// failed to compile names none: the table stays protected).
pub(crate) fn caption_counts_things(caption: &str) -> bool {
    !caption.is_empty() && caption_re().is_some_and(|r| r.is_match(caption))
}

/// The headers of a dataset's splits: a training, a validation and a test
/// column (`Train | Val | Test`, `train | validation | test`, `Training |
/// Dev | Test`). Its cells count examples of the dataset, not people.
pub(crate) fn dataset_splits(headers: &[String]) -> bool {
    let has = |words: &[&str]| {
        headers
            .iter()
            .any(|h| words.iter().any(|w| clean(h).eq_ignore_ascii_case(w)))
    };
    has(&["train", "training", "train set"])
        && has(&["val", "valid", "validation", "dev", "eval"])
        && has(&["test", "testing", "test set"])
}

/// A range of a measure in a cell: `6–9`, `9 – 14`, `1.5—2.0`, `5 - 11`
/// (an en or em dash, or a hyphen between spaces: `1-5` is a date or a
/// band), at most three digits before a point (years are no attributes'
/// spreads), low below high.
pub(crate) fn range_of(cell: &str) -> Option<(f64, f64)> {
    let t = clean(cell);
    let (a, b) = t
        .split_once('–')
        .or_else(|| t.split_once('—'))
        .or_else(|| t.split_once(" - "))?;
    let num = |s: &str| -> Option<f64> {
        let s = s.trim();
        let int = s.split('.').next().unwrap_or("");
        let ok = !int.is_empty()
            && int.len() <= 3
            && !(int.len() > 1 && int.starts_with('0'))
            && s.bytes().all(|c| c.is_ascii_digit() || c == b'.')
            && s.matches('.').count() <= 1
            && !s.ends_with('.');
        if ok {
            s.parse().ok()
        } else {
            None
        }
    };
    let (lo, hi) = (num(a)?, num(b)?);
    (lo < hi).then_some((lo, hi))
}

/// A column of ranges that cross one another (`5–11` and `9–14`: each
/// starts inside the other's span and ends past it): the spread of one
/// attribute per row (damage, a size range), not the bands of a partition
/// (`0–17`, `18–24` never cross; nested bands contain one another; a band
/// repeated in a long table is the same range).
pub(crate) fn crossing_ranges(cells: &[&str]) -> bool {
    let ranges: Vec<(f64, f64)> = cells.iter().filter_map(|c| range_of(c)).collect();
    if ranges.len() < 2 || ranges.len() * 2 < cells.len() {
        return false;
    }
    ranges.iter().enumerate().any(|(i, &(a, b))| {
        ranges[i + 1..]
            .iter()
            .any(|&(c, d)| (a < c && c < b && b < d) || (c < a && a < d && d < b))
    })
}

/// A percentage of a machine's resource (`cpu%`, `%MEM`, `GPU util %`,
/// `disk_used_pct`): the load of a host, not a share of people. It is no
/// veto, and over numbers it is a medium sign. The header holds the resource
/// and the percent mark and nothing else: `Memory clinic referrals %` is a
/// share of people. Examples and negatives in
/// [`MACHINE_PERCENT_EXAMPLES`] and [`MACHINE_PERCENT_NEGATIVES`].
const MACHINE_PERCENT: &str = concat!(
    r"(?i)^(?:%\s*(?:cpu|mem)|(?:cpu|mem|memory|ram|vram|swap|heap|disk|gpu)(?:[\s_-]?(?:util|utilisation|utilization|usage|used|load|busy))?[\s_-]?(?:%|\(%\)|\[%\]|pct|percent)",
    // The same in other languages (round 12q): a resource, then its use or
    // load, in Chinese, Japanese and Korean (`磁盘使用率`, `CPU使用率`,
    // `メモリ使用率`, `디스크 사용률`) and as German compounds
    // (`CPU-Auslastung`, `Speicherauslastung`); or the use first, in the
    // Romance languages and Russian (`Uso de CPU`, `Utilisation disque`,
    // `Загрузка CPU`). A percent mark may follow.
    r"|(?:cpu|gpu|内存|記憶體|磁盘|磁碟|硬盘|硬碟|显存|交换分区|メモリ|ディスク|디스크|메모리)\s*(?:使用率|利用率|占用率|负载|負荷|사용률)",
    r"|(?:cpu|gpu|ram|disk|speicher|arbeitsspeicher|festplatten?|datenträger)-?(?:auslastung|nutzung|belegung)",
    r"|(?:uso|utilizzo|utilización|ocupación|utilisation|occupation|использование|загрузка)\s+(?:(?:de|del|de\s+la|du|della|dello)\s+)?(?:cpu|gpu|ram|disco|disque|memoria|mémoire|диска|памяти|процессора)",
    r")(?:\s*,?\s*(?:%|\(%\)|（%）|\[%\]))?$",
);

/// What [`MACHINE_PERCENT`] must match.
#[cfg_attr(not(test), allow(dead_code))]
const MACHINE_PERCENT_EXAMPLES: &[&str] = &[
    "cpu%",
    "CPU %",
    "%CPU",
    "%MEM",
    "GPU util %",
    "disk_used_pct",
    "Memory (%)",
    "mem_used%",
    "磁盘使用率",
    "CPU使用率",
    "内存占用率(%)",
    "メモリ使用率",
    "디스크 사용률",
    "CPU-Auslastung",
    "Speicherauslastung (%)",
    "Uso de CPU (%)",
    "Utilisation disque",
    "Загрузка CPU, %",
];

/// What [`MACHINE_PERCENT`] must not match.
#[cfg_attr(not(test), allow(dead_code))]
const MACHINE_PERCENT_NEGATIVES: &[&str] = &[
    "%",
    "Share (%)",
    "% female",
    "Memory clinic referrals %",
    "Use%",
    "Rate %",
    "CPU",
    "Uptake %",
    "使用率",
    "就诊率",
    "CPU核数",
    "床位使用率",
    "Auslastung",
    "Bettenauslastung",
    "Uso de servicios (%)",
    "Загрузка",
];

fn machine_percent_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    R.get_or_init(|| Regex::new(MACHINE_PERCENT).ok()).as_ref()
}

/// Whether a header is a percentage of a machine's resource (a pattern that
/// failed to compile matches none: the share veto stands).
pub(crate) fn machine_percent_header(header: &str) -> bool {
    machine_percent_re().is_some_and(|r| r.is_match(clean(header)))
}

/// An item named with its size: a name, then a size in millimetres,
/// centimetres, millilitres or milliampere-hours (`Dübel 8mm`,
/// `Kabelbinder 200 mm (100er)`, `Akku 2000 mAh`), or a metric thread
/// (`Schrauben M6x30`). No band: a range, a bound or a comparison
/// (`0–5 mm`, `Under 150 cm`, `150 cm and over`, `≥ 50 mm`) is an axis
/// people are counted along. Returns the name's first word.
fn sized_item(cell: &str) -> Option<&str> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    let size = R
        .get_or_init(|| {
            Regex::new(
                r"(?:^|\s)(?:\d+(?:[.,]\d+)?\s?(?:mm|cm|ml|mAh)|M\d{1,2}x\d{1,3})(?:$|[\s,;)])",
            )
            .ok()
        })
        .as_ref()?;
    let t = clean(cell);
    let band = t.contains(['–', '—', '<', '>', '≤', '≥', '+'])
        || t.split_whitespace().any(|w| {
            w.starts_with('-')
                || w.ends_with('-')
                || w.contains('-') && w.bytes().any(|b| b.is_ascii_digit())
                || [
                    "under", "over", "below", "above", "to", "and", "or", "up", "bis", "unter",
                    "über", "ab", "moins", "plus", "à", "hasta", "desde",
                ]
                .iter()
                .any(|b| w.eq_ignore_ascii_case(b))
        });
    let first = t.split_whitespace().next()?;
    let named = first.chars().count() >= 3 && first.chars().all(char::is_alphabetic);
    (!band && named && size.is_match(t)).then_some(first)
}

/// A label column of items named with their sizes (at least three cells,
/// half of them or more, not all of one name): `Schrauben M6x30`, `Dübel
/// 8mm`, `Kabelbinder 200mm` — the stock of a store. A column of one name
/// in steps (`Height 140 cm`, `Height 145 cm`) is an axis, and bands
/// (`0–5 mm`, `Under 150 cm`) are no sizes of an item.
pub(crate) fn sized_items(cells: &[&str]) -> bool {
    let names: Vec<&str> = cells.iter().filter_map(|c| sized_item(c)).collect();
    cells.len() >= 3
        && names.len() >= 2
        && names.len() * 2 >= cells.len()
        && names.iter().any(|n| !n.eq_ignore_ascii_case(names[0]))
}

/// The words that say a measure is done, and that it is left to do.
const DONE_WORDS: &[&str] = &[
    "done",
    "completed",
    "complete",
    "finished",
    "burned",
    "erledigt",
    "fertig",
    "faits",
    "terminés",
    "hechos",
    "completados",
];
const LEFT_WORDS: &[&str] = &[
    "left",
    "remaining",
    "to do",
    "todo",
    "offen",
    "übrig",
    "restants",
    "restantes",
    "pendientes",
];

/// A header split into a measure and a word from `words`, at its end or at
/// its start: `Points done` → `points`.
fn progress_stem(header: &str, words: &[&str]) -> Option<String> {
    let h = clean(header).to_lowercase();
    words.iter().find_map(|w| {
        let stem = h
            .strip_suffix(w)
            .filter(|s| s.ends_with([' ', '_', '-']))
            .or_else(|| h.strip_prefix(w).filter(|s| s.starts_with([' ', '_', '-'])))?
            .trim_matches([' ', '_', '-']);
        (!stem.is_empty()).then(|| stem.to_string())
    })
}

/// The progress of work in two headers: one measure done and left
/// (`Points done | Points left`, `Tasks completed | Tasks remaining`,
/// `remaining_hours | done_hours`): a burn-down of a sprint or a project,
/// whose numbers are amounts of work, not people. The measure is the same
/// in both; `Joined | Left`, `Nurses joined | Nurses left` (people who
/// left), `Cases open | Cases closed` (a caseload) and `Points for | Points
/// against` are no progress.
pub(crate) fn progress_pair(headers: &[String]) -> bool {
    let done: Vec<String> = headers
        .iter()
        .filter_map(|h| progress_stem(h, DONE_WORDS))
        .collect();
    headers
        .iter()
        .filter_map(|h| progress_stem(h, LEFT_WORDS))
        .any(|l| done.contains(&l))
}

/// The headers of a diff stat: lines inserted and deleted (`insertions |
/// deletions`, git's words; `lines added | lines removed`). Its numbers
/// count lines of a change per path, not people; `Additions | Removals`
/// (to a register) and `Admissions | Discharges` are not it.
pub(crate) fn diffstat_headers(headers: &[String]) -> bool {
    let has = |words: &[&str]| {
        headers
            .iter()
            .any(|h| words.iter().any(|w| clean(h).eq_ignore_ascii_case(w)))
    };
    has(&["insertions", "insertions(+)", "lines added", "added lines"])
        && has(&[
            "deletions",
            "deletions(-)",
            "lines deleted",
            "lines removed",
            "removed lines",
        ])
}

/// Medium signs that are axes people are counted along as well (cases by
/// date, arrivals by hour): they never decide alone.
const AXIS_RULES: &[&str] = &["clock time in a cell", "date in a cell"];

/// The evidence of a table's columns, total rows left out, and of the
/// text above it (`ctx`).
pub(crate) fn evidence<'a>(
    headers: &[String],
    nrows: usize,
    ncols: usize,
    cell: impl Fn(usize, usize) -> &'a str,
    ctx: &Context<'_>,
) -> Evidence {
    if headers.iter().any(|h| names_people(h)) {
        return Evidence {
            people: true,
            ..Evidence::default()
        };
    }
    if nrows == 0 || ncols < 2 {
        return Evidence::default();
    }
    let mut strong = false;
    let mut medium_cols = 0usize;
    let mut object_cols = 0usize;
    let mut veto = false;
    let rows: Vec<usize> = (0..nrows)
        .filter(|&r| !(0..ncols).any(|c| is_grand_total_label(cell(r, c))))
        .collect();
    for c in 0..ncols {
        let header = headers.get(c).map_or("", |h| h.as_str());
        let machine_percent = !header.is_empty() && machine_percent_header(header);
        if !header.is_empty()
            && ((is_percent_header(header) && !machine_percent)
                || average_re().is_none_or(|r| r.is_match(header)))
        {
            veto = true;
        }
        let filled: Vec<&str> = rows
            .iter()
            .map(|&r| clean(cell(r, c)))
            .filter(|t| !t.is_empty())
            .collect();
        if filled.is_empty() {
            continue;
        }
        let half = |n: usize| n * 2 >= filled.len() && n > 0;
        // Unsigned percentages beside counts: shares of people (a
        // machine's load written with its percent mark, `63%` under
        // `磁盘使用率`, is none).
        if !machine_percent
            && half(
                filled
                    .iter()
                    .filter(|t| t.ends_with('%') && !t.starts_with(['-', '+', '−']))
                    .count(),
            )
        {
            veto = true;
        }
        let mut col_medium = false;
        let mut col_object = false;
        for (k, rule) in RULES.iter().enumerate() {
            let hit = match rule.scope {
                Scope::Header => !header.is_empty() && rule_matches(k, header),
                Scope::MeasureHeader => {
                    !header.is_empty()
                        && rule_matches(k, header)
                        && half(filled.iter().filter(|t| parse_number(t).is_some()).count())
                }
                Scope::Cell => half(filled.iter().filter(|t| rule_matches(k, t)).count()),
            };
            if hit {
                match rule.strength {
                    Strength::Strong => strong = true,
                    Strength::Medium => {
                        col_medium = true;
                        col_object |= !AXIS_RULES.contains(&rule.name);
                    }
                }
            }
        }
        let counts = filled.iter().filter(|t| parse_count(t).is_some()).count();
        if !col_medium
            && counts * 2 < filled.len()
            && filled.len() >= 2
            && half(filled.iter().filter(|t| id_label(t)).count())
        {
            col_medium = true;
            col_object = true;
        }
        if !col_medium && counts * 2 < filled.len() && namespaced_labels(&filled) {
            col_medium = true;
            col_object = true;
        }
        if !col_medium && counts * 2 < filled.len() && slug_column(&filled) {
            col_medium = true;
            col_object = true;
        }
        if !col_medium && counts * 2 < filled.len() && sized_items(&filled) {
            col_medium = true;
            col_object = true;
        }
        if !col_medium
            && machine_percent
            && half(filled.iter().filter(|t| parse_number(t).is_some()).count())
        {
            col_medium = true;
            col_object = true;
        }
        if !col_medium && crossing_ranges(&filled) {
            col_medium = true;
            col_object = true;
        }
        medium_cols += usize::from(col_medium);
        object_cols += usize::from(col_object);
    }
    // Signs of the headers together (round 12p): the progress of work and a
    // diff stat, each one more sign naming an object.
    let pairs = usize::from(progress_pair(headers)) + usize::from(diffstat_headers(headers));
    medium_cols += pairs;
    object_cols += pairs;
    // Signs of the context: each one more column naming an object, none
    // when the text above the table names people.
    if !names_people(ctx.before) {
        let signs =
            usize::from(caption_counts_things(ctx.caption)) + usize::from(dataset_splits(headers));
        medium_cols += signs;
        object_cols += signs;
    }
    Evidence {
        strong,
        medium_cols,
        object_cols,
        veto,
        people: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_match_their_examples_and_not_their_negatives() {
        for (k, rule) in RULES.iter().enumerate() {
            for e in rule.examples {
                assert!(rule_matches(k, e), "{}: {e}", rule.name);
            }
            for n in rule.negatives {
                assert!(!rule_matches(k, n), "{}: {n}", rule.name);
            }
        }
    }

    #[test]
    fn people_headers() {
        for h in [
            "Customers",
            "Attendees",
            "Patients (n)",
            "Users logged in",
            "Patienten",
            "Abonnés",
            "Сотрудники",
            "患者数",
            "利用者",
            "인원",
            "Female",
        ] {
            assert!(names_people(h), "{h}");
        }
        for h in [
            "GPUs",
            "Instance",
            "Bestand",
            "在庫",
            "副本数",
            "Ядер",
            "Binario",
            "LAYERS",
            "iterations",
            "Fixes",
            "Username length",
        ] {
            assert!(!names_people(h), "{h}");
        }
    }

    #[test]
    fn identifier_tokens() {
        for t in [
            "g7.xlarge",
            "a3-highgpu-2g",
            "parse_small/64B",
            "CF-101",
            "R1-03",
            "web-sh-01",
            "2.4.0",
            "3.0.0-rc1",
            "registry.local/api",
            "#1204",
            "/v1/ocr",
            "max_scan_bytes",
        ] {
            assert!(id_token(t), "{t}");
        }
        for t in [
            "0-17",
            "18-24",
            "65+",
            "2019/20",
            "2019-20",
            "Q1",
            "Ward",
            "3",
            "North",
            "M6x20",
            "4B",
            "SW1A",
            "#1",
            "/",
            "North_West",
            "Вектор",
        ] {
            assert!(!id_token(t), "{t}");
        }
    }

    fn evidence_of(rows: &[&[&str]]) -> Evidence {
        let headers: Vec<String> = rows[0].iter().map(|s| s.to_string()).collect();
        let body = &rows[1..];
        evidence(
            &headers,
            body.len(),
            headers.len(),
            |r, c| body[r][c],
            &Context::default(),
        )
    }

    #[test]
    fn one_object_sign_decides_a_table_without_totals_and_an_axis_does_not() {
        let ci = evidence_of(&[
            &["OS", "Python", "Duration", "Failed"],
            &["ubuntu-24.04", "3.11", "4m 12s", "0"],
            &["macos-14", "3.12", "7m 03s", "2"],
        ]);
        assert!(ci.things_without_totals(), "{ci:?}");
        let daily = evidence_of(&[
            &["Date", "Cases"],
            &["2026-09-01", "3"],
            &["2026-09-02", "7"],
        ]);
        assert!(!daily.things_without_totals(), "{daily:?}");
        let shares = evidence_of(&[
            &["Region", "Price", "Share"],
            &["North", "$12", "40%"],
            &["South", "$9", "60%"],
        ]);
        assert!(!shares.things_without_totals(), "{shares:?}");
    }

    fn table(rows: &[&[&str]]) -> bool {
        let headers: Vec<String> = rows[0].iter().map(|s| s.to_string()).collect();
        let body = &rows[1..];
        entity_table(
            &headers,
            body.len(),
            headers.len(),
            |r, c| body[r][c],
            &Context::default(),
        )
    }

    fn table_in(ctx: &Context<'_>, rows: &[&[&str]]) -> bool {
        let headers: Vec<String> = rows[0].iter().map(|s| s.to_string()).collect();
        let body = &rows[1..];
        entity_table(&headers, body.len(), headers.len(), |r, c| body[r][c], ctx)
    }

    fn evidence_in(ctx: &Context<'_>, rows: &[&[&str]]) -> Evidence {
        let headers: Vec<String> = rows[0].iter().map(|s| s.to_string()).collect();
        let body = &rows[1..];
        evidence(&headers, body.len(), headers.len(), |r, c| body[r][c], ctx)
    }

    fn caption(text: &str) -> Context<'_> {
        Context {
            caption: text,
            before: text,
        }
    }

    #[test]
    fn captions_that_name_what_is_counted() {
        for c in CAPTION_THINGS_EXAMPLES {
            assert!(caption_counts_things(c), "{c}");
        }
        for c in CAPTION_THINGS_NEGATIVES {
            assert!(!caption_counts_things(c), "{c}");
        }
    }

    #[test]
    fn the_caption_is_the_nearest_line_above() {
        let text = "Intro.\n\nMerged PRs per repo, Q1 2026:\n\n| Repository | Jan |\n";
        let at = text.find('|').unwrap_or(0);
        let ctx = Context::before(text, at);
        assert_eq!(ctx.caption, "Merged PRs per repo, Q1 2026:");
        let text = "# Data\n\n## Class distribution\n\n| Class | Train |\n";
        let ctx = Context::before(text, text.find('|').unwrap_or(0));
        assert_eq!(ctx.caption, "Class distribution");
        // Three blank lines up, or a paragraph: no caption.
        let text = "Merged PRs per repo\n\n\n\n| Repository | Jan |\n";
        assert_eq!(
            Context::before(text, text.find('|').unwrap_or(0)).caption,
            ""
        );
        let long = format!("{}\n| a | b |\n", "word ".repeat(60));
        assert_eq!(
            Context::before(&long, long.find('|').unwrap_or(0)).caption,
            ""
        );
        // Multi-byte text before a table: the window starts on a boundary.
        let text = format!("{}\n| a | b |\n", "żółw ".repeat(600));
        let ctx = Context::before(&text, text.find('|').unwrap_or(0));
        assert!(ctx.before.len() <= CONTEXT_BYTES);
    }

    #[test]
    fn headers_of_dataset_splits() {
        let hs = |h: &[&str]| -> Vec<String> { h.iter().map(|s| s.to_string()).collect() };
        for h in [
            &["Class", "Train", "Val", "Test", "Total"][..],
            &["label", "train", "validation", "test"],
            &["Category", "Training", "Dev", "Test"],
        ] {
            assert!(dataset_splits(&hs(h)), "{h:?}");
        }
        for h in [
            &["Train", "Departure", "Platform"][..],
            &["Suite", "Test", "Passed", "Failed"],
            &["Group", "Pre-test", "Post-test"],
            &["Class", "Train", "Test"],
        ] {
            assert!(!dataset_splits(&hs(h)), "{h:?}");
        }
    }

    #[test]
    fn ranges_that_cross_are_attributes_and_bands_are_not() {
        for c in ["6–9", "9 – 14", "1.5—2.0", "5 - 11"] {
            assert!(range_of(c).is_some(), "{c}");
        }
        for c in ["0-17", "1-5", "2019–2021", "9–6", "01–05", "65+", "3"] {
            assert!(range_of(c).is_none(), "{c}");
        }
        for col in [
            &["6–9", "9–14", "5–11", "4–7", "3–5"][..],
            &["1.5–2.0", "1.8–2.6"],
        ] {
            assert!(crossing_ranges(col), "{col:?}");
        }
        for col in [
            // A partition into bands, with en dashes, and with shared ends.
            &["0–17", "18–24", "25–34", "35–64"][..],
            &["0–5", "5–10", "10–15"],
            // Nested bands and a band repeated in a long table.
            &["0–17", "0–4", "5–17"],
            &["0–17", "0–17", "18–64", "18–64"],
            // Rolling windows of years are no ranges of an attribute.
            &["2019–2021", "2020–2022", "2021–2023"],
            // Dates written with hyphens are no ranges.
            &["1-5", "2-8", "3-12"],
            // Ranges in one cell of a column of counts.
            &["3", "12", "5–11", "9–14", "40"],
        ] {
            assert!(!crossing_ranges(col), "{col:?}");
        }
    }

    #[test]
    fn names_in_one_namespace() {
        for col in [
            &[
                "kite-core",
                "kite-cli",
                "kite-docs",
                "kite-helm",
                "kite-sdk-go",
            ][..],
            &["web-ui", "web-api", "web-auth", "db"],
        ] {
            assert!(namespaced_labels(col), "{col:?}");
        }
        for col in [
            &["in-person", "e-mail", "phone"][..],
            &["north-east", "north-west", "south-east", "south-west"],
            &["North-East", "North-West", "North-Central"],
            &["0-17", "0-4", "0-64"],
            &["kite-core", "kite-cli", "a", "b", "c", "d", "e"],
        ] {
            assert!(!namespaced_labels(col), "{col:?}");
        }
    }

    #[test]
    fn columns_of_slugs() {
        for col in [
            &[
                "line-too-long",
                "unused-import",
                "function-call-in-default-argument",
                "non-pep604-annotation",
                "if-else-block-instead-of-if-exp",
            ][..],
            &[
                "no-unused-vars",
                "prefer-const",
                "no-explicit-any",
                "no-non-null-assertion",
            ],
        ] {
            assert!(slug_column(col), "{col:?}");
        }
        for col in [
            &["in-person", "e-mail", "phone"][..],
            &["full-time", "part-time", "self-employed"],
            &["face-to-face", "out-of-hours", "in-person"],
            &["north-east", "north-west", "south-east", "south-west"],
            &["Line-too-long", "Unused-import", "Function-call-in-default"],
            &["0-17", "18-24", "25-64"],
            &["no-unused-vars", "prefer-const-and-more"],
        ] {
            assert!(!slug_column(col), "{col:?}");
        }
    }

    #[test]
    fn measures_of_things_under_physical_units() {
        let buildings = evidence_of(&[
            &["Bâtiment", "Surface (m²)", "Électricité (MWh)", "Gaz (MWh)"],
            &["Mairie", "1 240", "96", "181"],
            &["Médiathèque", "640", "38", "0"],
            &["Local technique", "210", "6", "9"],
        ]);
        assert!(buildings.things_without_totals(), "{buildings:?}");
        assert!(buildings.medium_cols >= 2, "{buildings:?}");
        // A unit over bands is an axis: no sign.
        let commuters = evidence_of(&[
            &["Distance (km)", "Cyclists", "Walkers"],
            &["0-5", "3", "12"],
            &["5-10", "7", "2"],
            &["10-20", "4", "1"],
        ]);
        assert!(!commuters.things_without_totals(), "{commuters:?}");
        // People beside a measure stay people.
        assert!(!table(&[
            &["Ward", "Patients", "Weight (kg)", "Height (m²)"],
            &["North", "3", "81", "2"],
            &["South", "12", "77", "2"],
        ]));
        let lint = evidence_of(&[
            &["Rule", "Count", "Fixable", "Description"],
            &["E501", "27", "no", "line-too-long"],
            &["F401", "9", "yes", "unused-import"],
            &["B008", "4", "no", "function-call-in-default-argument"],
            &["SIM108", "1", "yes", "if-else-block-instead-of-if-exp"],
        ]);
        assert!(lint.things_without_totals(), "{lint:?}");
        let modes = evidence_of(&[
            &["Mode", "Count"],
            &["face-to-face", "3"],
            &["out-of-hours", "12"],
            &["in-person", "5"],
        ]);
        assert!(!modes.things_without_totals(), "{modes:?}");
    }

    #[test]
    fn percentages_of_a_machine_are_no_shares() {
        for h in MACHINE_PERCENT_EXAMPLES {
            assert!(machine_percent_header(h), "{h}");
        }
        for h in MACHINE_PERCENT_NEGATIVES {
            assert!(!machine_percent_header(h), "{h}");
        }
        let hosts = evidence_of(&[
            &[
                "host",
                "cpu%",
                "load1",
                "mem_used_gb",
                "disk_free_gb",
                "uptime_d",
            ],
            &["web-01", "37", "1.22", "5.8", "41", "3"],
            &["web-02", "41", "1.40", "6.1", "39", "3"],
            &["db-01", "68", "4.07", "58.2", "212", "27"],
        ]);
        assert!(!hosts.veto && hosts.medium_cols >= 2, "{hosts:?}");
        // A share of people still vetoes, and a machine's percentage beside
        // a header naming people stays people.
        assert!(!table(&[
            &["Host", "Cost (€)", "Sessions", "Share (%)"],
            &["web-01", "1200", "3", "5.0"],
            &["web-02", "1300", "57", "95.0"],
        ]));
        assert!(!table(&[
            &["Host", "Users", "cpu%", "mem_used_gb"],
            &["web-01", "3", "37", "5.8"],
            &["web-02", "12", "41", "6.1"],
        ]));
    }

    #[test]
    fn a_machines_load_in_other_languages_and_markers_of_code() {
        for h in MACHINE_PERCENT_EXAMPLES {
            assert!(machine_percent_header(h), "{h}");
        }
        for h in MACHINE_PERCENT_NEGATIVES {
            assert!(!machine_percent_header(h), "{h}");
        }
        // A host listing in Chinese: its disk use is written with percent
        // marks, and is no share of people.
        let hosts = evidence_of(&[
            &["主机", "CPU核数", "负载", "磁盘使用率", "告警数"],
            &["web-01", "8", "2.1", "63%", "0"],
            &["web-02", "8", "5.7", "71%", "2"],
            &["db-01", "16", "3.3", "88%", "4"],
        ]);
        assert!(!hosts.veto && hosts.things_without_totals(), "{hosts:?}");
        // A ward's bed occupancy is a share of beds of people: it vetoes.
        let wards = evidence_of(&[
            &["病区", "出院数", "床位使用率"],
            &["内科-01", "3", "63%"],
            &["外科-02", "12", "71%"],
        ]);
        assert!(!wards.things_without_totals(), "{wards:?}");
        let shares = evidence_of(&[
            &["Centro", "Precio (€)", "Uso de servicios (%)"],
            &["Norte", "12", "63%"],
            &["Sur", "9", "37%"],
        ]);
        assert!(shares.veto, "{shares:?}");
        // Open TODOs per module: markers of code, in capitals.
        let todos = evidence_of(&[
            &["Module", "TODOs", "FIXMEs", "Files"],
            &["cache", "4", "1", "12"],
            &["proto", "0", "0", "3"],
            &["server", "9", "2", "17"],
        ]);
        assert!(todos.things_without_totals(), "{todos:?}");
        // `Todos` (all, in Spanish) is a column of people.
        let todos_es = evidence_of(&[
            &["Región", "Hombres", "Mujeres", "Todos"],
            &["Norte", "4", "1", "5"],
            &["Sur", "9", "2", "11"],
        ]);
        assert!(!todos_es.things_without_totals(), "{todos_es:?}");
    }

    #[test]
    fn items_named_with_their_sizes() {
        for col in [
            &[
                "Schrauben M6x30",
                "Dübel 8mm",
                "Kabelbinder 200mm",
                "Akku 18V",
            ][..],
            &[
                "Dichtband 3 mm",
                "Kabelbinder 200 mm (100er)",
                "Schraube M6x20 verzinkt",
                "Scharnier Edelstahl",
            ],
            &["Spritze 5 ml", "Kanüle 0,8 mm", "Pflaster"],
        ] {
            assert!(sized_items(col), "{col:?}");
        }
        for col in [
            // One name in steps: an axis.
            &["Height 140 cm", "Height 145 cm", "Height 150 cm"][..],
            // Bands and bounds.
            &["Rain 0–5 mm", "Rain 5–10 mm", "Rain over 10 mm"],
            &["Under 150 cm", "Between 150-170 cm", "Over 170 cm"],
            &[
                "Children 150 cm and over",
                "Children below 150 cm",
                "Babies",
            ],
            // Sizes without a name, and a road.
            &["140 cm", "145 cm", "150 cm"],
            &["M6", "M25", "A1"],
            &["Dübel 8mm", "Ward 3", "Ward 4", "Ward 5", "Ward 6"],
        ] {
            assert!(!sized_items(col), "{col:?}");
        }
        let stock = evidence_of(&[
            &["Artikel", "Lager", "Bestand", "Mindestbestand"],
            &["Schrauben M6x30", "Halle 2", "3", "20"],
            &["Dübel 8mm", "Halle 2", "7", "50"],
            &["Kabelbinder 200mm", "Halle 1", "140", "100"],
            &["Akku 18V", "Halle 1", "2", "5"],
        ]);
        assert!(stock.things_without_totals(), "{stock:?}");
    }

    #[test]
    fn the_progress_of_work_and_a_diff_stat() {
        let hs = |h: &[&str]| -> Vec<String> { h.iter().map(|s| s.to_string()).collect() };
        for h in [
            &["Epic", "Stories", "Points done", "Points left"][..],
            &["Project", "Tasks completed", "Tasks remaining"],
            &["team", "remaining_hours", "done_hours"],
            &["Epic", "Punkte erledigt", "Punkte offen"],
        ] {
            assert!(progress_pair(&hs(h)), "{h:?}");
        }
        for h in [
            &["Club", "Joined", "Left"][..],
            &["Ward", "Nurses joined", "Nurses left"],
            &["Team", "Cases open", "Cases closed"],
            &["Team", "Points for", "Points against"],
            &["Team", "Done", "Left"],
            &["Team", "Points done", "Tasks left"],
        ] {
            assert!(!progress_pair(&hs(h)), "{h:?}");
        }
        for h in [
            &["directory", "files", "insertions", "deletions"][..],
            &["Path", "Lines added", "Lines removed"],
        ] {
            assert!(diffstat_headers(&hs(h)), "{h:?}");
        }
        for h in [
            &["Month", "Additions", "Removals"][..],
            &["Ward", "Admissions", "Discharges"],
            &["Path", "Insertions"],
        ] {
            assert!(!diffstat_headers(&hs(h)), "{h:?}");
        }
        let board = evidence_of(&[
            &["Epic", "Stories", "Points done", "Points left"],
            &["Checkout v3", "9", "21", "8"],
            &["Search relevance", "4", "13", "5"],
            &["Tech debt", "6", "7", "3"],
        ]);
        assert!(board.things_without_totals(), "{board:?}");
        // A diff stat per path with its total row: two signs decide.
        assert!(table(&[
            &["directory", "files", "insertions", "deletions"],
            &["crates/core", "6", "412", "88"],
            &["crates/cli", "2", "31", "9"],
            &["docs", "3", "57", "4"],
            &["total", "11", "500", "101"],
        ]));
        // The headers alone, beside totals of words: one sign.
        assert!(!table(&[
            &["Region", "insertions", "deletions"],
            &["North", "3", "8"],
            &["South", "12", "9"],
            &["Total", "15", "17"],
        ]));
        // People veto the progress of work, in a listing too.
        let staff = evidence_of(&[
            &["Team", "Staff", "Modules done", "Modules left"],
            &["North", "3", "8", "2"],
            &["South", "12", "9", "1"],
        ]);
        assert!(!staff.things_without_totals(), "{staff:?}");
    }

    #[test]
    fn context_signs_decide_with_a_second_sign_and_people_veto_them() {
        let prs: &[&[&str]] = &[
            &["Repository", "Jan", "Feb", "Q1"],
            &["kite-core", "41", "37", "78"],
            &["kite-cli", "12", "8", "20"],
            &["kite-helm", "2", "0", "2"],
            &["All repos", "55", "45", "100"],
        ];
        assert!(table_in(&caption("Merged PRs per repo, Q1 2026"), prs));
        // No caption: one sign (the namespace) beside totals stays people.
        assert!(!table(prs));
        // A caption naming no object, or naming people.
        assert!(!table_in(&caption("Contributors per repo"), prs));
        assert!(!table_in(
            &caption("Merged PRs per repo by new members"),
            prs
        ));
        // A table of people under a caption of things keeps its labels.
        assert!(!table_in(
            &caption("Deployments by service"),
            &[
                &["Ward", "Jan", "Feb"],
                &["North", "3", "4"],
                &["South", "12", "9"],
            ]
        ));
        let classes: &[&[&str]] = &[
            &["Class", "Train", "Val", "Test", "Total"],
            &["pothole", "1840", "212", "205", "2257"],
            &["crack_longitudinal", "2311", "260", "248", "2819"],
            &["manhole_cover", "388", "41", "9", "438"],
            &["debris", "47", "6", "3", "56"],
            &["all", "4586", "519", "465", "5570"],
        ];
        assert!(table(classes));
        // Splits of a dataset of patients: the text above names them.
        let ctx = Context {
            caption: "## Class distribution",
            before: "Chest X-rays of 3,100 patients.\n\n## Class distribution\n",
        };
        assert!(!table_in(&ctx, classes));
        // Splits beside labels that are words: one sign.
        assert!(!table(&[
            &["Class", "Train", "Val", "Test", "Total"],
            &["Normal", "1840", "212", "205", "2257"],
            &["Pneumonia", "47", "6", "3", "56"],
            &["All", "1887", "218", "208", "2313"],
        ]));
    }

    #[test]
    fn crossing_ranges_decide_a_listing_and_bands_do_not() {
        let items = evidence_of(&[
            &["Przedmiot", "Obrażenia", "Koszt (złoto)", "Waga"],
            &["Miecz krótki", "6–9", "40", "3"],
            &["Topór bojowy", "9–14", "95", "6"],
            &["Łuk refleksyjny", "5–11", "120", "2"],
        ]);
        assert!(items.things_without_totals(), "{items:?}");
        let bands = evidence_of(&[
            &["Group", "Ages", "Count"],
            &["Juniors", "6–9", "3"],
            &["Youth", "10–14", "7"],
            &["Teens", "15–17", "12"],
        ]);
        assert!(!bands.things_without_totals(), "{bands:?}");
        let windows = evidence_in(
            &Context::default(),
            &[
                &["Area", "Period", "Cases"],
                &["North", "2019–2021", "3"],
                &["North", "2020–2022", "5"],
            ],
        );
        assert!(!windows.things_without_totals(), "{windows:?}");
    }

    #[test]
    fn tables_of_things() {
        // Strong: machine units in cells; medium: data-size and currency
        // headers.
        assert!(table(&[
            &["Instance", "GPUs", "GPU memory"],
            &["g7.xlarge", "1", "24 GB"],
            &["p6.48xlarge", "8", "1,440 GB"],
        ]));
        assert!(table(&[
            &["Модель", "Ядер", "ОЗУ, ГБ", "Цена, ₽"],
            &["Вектор 14", "8", "16", "74 990"],
            &["Студент 13", "4", "8", "38 490"],
        ]));
        // Medium twice: clock times in two columns.
        assert!(table(&[
            &["Treno", "Partenza", "Arrivo", "Binario"],
            &["RV 2271", "07:42", "09:05", "3"],
            &["FR 9514", "08:10", "09:58", "1"],
        ]));
        // Medium twice: versions and dates.
        assert!(table(&[
            &["Version", "Datum", "Fixes"],
            &["2.4.0", "2026-09-02", "14"],
            &["2.4.1", "2026-09-19", "4"],
        ]));
        // Medium twice: SKUs and a price header.
        assert!(table(&[
            &["商品名", "SKU", "在庫", "単価（円）"],
            &["ドリップバッグ", "CF-101", "3", "1,280"],
            &["マグカップ", "MG-010", "1", "2,200"],
        ]));
    }

    #[test]
    fn tables_of_people_stay_tables_of_people() {
        // One medium sign: people by host.
        assert!(!table(&[
            &["Host", "Users"],
            &["web-sh-01", "3"],
            &["web-sh-02", "12"],
        ]));
        // Age bands and years as labels.
        assert!(!table(&[
            &["Age", "2019", "2020"],
            &["0-17", "3", "4"],
            &["18-64", "40", "52"],
        ]));
        // Counts beside shares: a veto on medium signs.
        assert!(!table(&[
            &["Clinic", "Cost (€)", "Patients", "%"],
            &["C-01", "1200", "3", "5.0%"],
            &["C-02", "1300", "57", "95.0%"],
        ]));
        // People beside machine units, clock times and money.
        assert!(!table(&[
            &["Plan", "Customers", "Data"],
            &["Basic", "3", "5 GB"],
            &["Plus", "25", "20 GB"],
        ]));
        assert!(!table(&[
            &["Plan", "Subscribers", "Data (GB)", "Price (€)"],
            &["Basic", "3", "5", "4,99"],
            &["Plus", "25", "20", "9,99"],
        ]));
        assert!(!table(&[
            &["Session", "Start", "End", "Attendees"],
            &["Intro", "09:00", "10:00", "3"],
            &["Panel", "13:00", "14:00", "40"],
        ]));
        assert!(!table(&[
            &["Ward", "Patients", "Cost (£)"],
            &["W-01", "3", "1200"],
            &["W-02", "25", "3100"],
        ]));
        // One data-size header alone.
        assert!(!table(&[
            &["Plan", "Lines", "Data (GB)"],
            &["Basic", "3", "5"],
            &["Plus", "25", "20"],
        ]));
        // An average beside counts of patients.
        assert!(!table(&[
            &["Code", "Patients", "Mean cost (£)"],
            &["J45.0", "3", "410"],
            &["E11.9", "12", "388"],
        ]));
        // Diagnosis codes and dates of a report: rows by code, one sign.
        assert!(!table(&[
            &["Diagnosis", "Patients", "Female"],
            &["J45.0", "3", "1"],
            &["COVID-19", "12", "7"],
        ]));
    }
}
