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
//!
//! Every rule below lists examples it must match and negatives it must
//! not; the tests check both.

use regex::Regex;
use std::sync::OnceLock;

use super::model::{clean, is_grand_total_label, is_percent_header, parse_count};

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
) -> bool {
    let e = evidence(headers, nrows, ncols, cell);
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

/// Medium signs that are axes people are counted along as well (cases by
/// date, arrivals by hour): they never decide alone.
const AXIS_RULES: &[&str] = &["clock time in a cell", "date in a cell"];

/// The evidence of a table's columns, total rows left out.
pub(crate) fn evidence<'a>(
    headers: &[String],
    nrows: usize,
    ncols: usize,
    cell: impl Fn(usize, usize) -> &'a str,
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
        if !header.is_empty()
            && (is_percent_header(header) || average_re().is_none_or(|r| r.is_match(header)))
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
        // Unsigned percentages beside counts: shares of people.
        if half(
            filled
                .iter()
                .filter(|t| t.ends_with('%') && !t.starts_with(['-', '+', '−']))
                .count(),
        ) {
            veto = true;
        }
        let mut col_medium = false;
        let mut col_object = false;
        for (k, rule) in RULES.iter().enumerate() {
            let hit = match rule.scope {
                Scope::Header => !header.is_empty() && rule_matches(k, header),
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
        medium_cols += usize::from(col_medium);
        object_cols += usize::from(col_object);
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
        evidence(&headers, body.len(), headers.len(), |r, c| body[r][c])
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
        entity_table(&headers, body.len(), headers.len(), |r, c| body[r][c])
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
