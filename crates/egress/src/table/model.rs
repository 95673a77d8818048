//! From cells to a table model: which columns are counts, labels,
//! percentages or identifiers; which rows and columns are totals and
//! subtotals; and the additive equations an attacker knows.
//!
//! Totals are found by label (`Total`, `Subtotal`, `North total`, `合计`,
//! `小计` …) and by arithmetic (a last row or column that is the sum of the
//! others). Every labelled relation is checked against the numbers; one that
//! does not add up is not a relation. Finding a relation that is not really
//! there only costs extra suppression; missing one that is would let a
//! hidden cell be recomputed, so arithmetic detection errs on the side of
//! finding relations.

use regex::Regex;
use std::sync::OnceLock;

use super::parse::RawTable;

/// What a column holds.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum ColKind {
    /// Category labels (text).
    Label,
    /// Non-negative integer counts.
    Count,
    /// A count column that is the sum of other count columns.
    Total,
    /// Percentage, rate or share.
    Percent,
    /// Identifiers, codes, years, ages: never treated as counts.
    Id,
    /// Other numbers (means, amounts with decimals).
    Other,
}

/// What a row is.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum RowRole {
    Detail,
    Subtotal,
    Total,
}

/// A table model. Cells are indexed `row * ncols + col` over data rows.
#[derive(Clone, Debug)]
pub(crate) struct Model {
    pub nrows: usize,
    pub ncols: usize,
    pub headers: Vec<String>,
    pub kinds: Vec<ColKind>,
    /// Known count values of count/total cells.
    pub values: Values,
    pub roles: Vec<RowRole>,
    /// Cells that are totals or subtotals (of a row, a column, or both).
    pub total_cell: Vec<bool>,
    /// Row relations (`target row = Σ member rows`), holding in every count column.
    pub row_rel: Vec<(usize, Vec<usize>)>,
    /// Column relations (`target column = Σ member columns`), holding in every row.
    pub col_rel: Vec<(usize, Vec<usize>)>,
}

/// Known count values, one word a cell (`u64::MAX` marks an unknown
/// cell: counts have at most 18 digits, so it is never a value).
#[derive(Clone, Debug)]
pub(crate) struct Values(Vec<u64>);

const UNKNOWN: u64 = u64::MAX;

impl Values {
    pub fn new(n: usize) -> Self {
        Values(vec![UNKNOWN; n])
    }

    pub fn get(&self, cell: usize) -> Option<u64> {
        let v = self.0[cell];
        (v != UNKNOWN).then_some(v)
    }

    pub fn set(&mut self, cell: usize, v: Option<u64>) {
        self.0[cell] = v.unwrap_or(UNKNOWN);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl Model {
    pub fn idx(&self, r: usize, c: usize) -> usize {
        r * self.ncols + c
    }

    /// Whether row `r` is a labelled total or subtotal row.
    pub fn total_row(&self, r: usize) -> bool {
        self.roles[r] != RowRole::Detail
    }

    pub fn is_count_col(&self, c: usize) -> bool {
        matches!(self.kinds[c], ColKind::Count | ColKind::Total)
    }
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    // The patterns are literals in this file, covered by the tests below.
    #[allow(clippy::expect_used)] // invariant: literal pattern, compiled in tests
    cell.get_or_init(|| Regex::new(pattern).expect("built-in pattern compiles"))
}

fn grand_total_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^(?:grand\s+)?totals?(?:\s*\(.*\))?$|^(?:all|overall|sum|all\s+\w+|total\s+all|合计|合計|总计|總計|总数|總數|全部|共计|總和|总和)$",
    )
}

fn subtotal_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)sub-?\s*totals?|(?-u:\b)totals?(?-u:\b)|小计|小計|合计|合計|总计|總計",
    )
}

fn id_like_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^(?:#|no\.|n°|nr\.?|pos\.?|position|num(?:ber)?\s*#|id|ids|uuid|guid|code|key|index|idx|row|line|rank|record|case|person|year|yr|month|day|week|quarter|hour|date|age|grade|level|score|version|编号|序号|年份|年|月|年龄|代码)$|(?:^|[\s_\-.])(?:id|uuid|code|year|age)$|^(?:id|uuid)[\s_\-]",
    )
}

fn measure_header_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        concat!(
            r"(?i)(?-u:\b)(?:average|mean|median|avg|amount|salary|salaries|income|price|cost|costs|spend|spending|revenue|turnover|weight|height|bmi|balance)(?-u:\b)|[£$€¥]|平均|金额|均值",
            // A unit in brackets: time, size, length, mass, temperature, rate.
            r"|[(\[](?:ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|[kmgt]i?b|bytes?|°[cf]|[kc]?m|mm|kg|g|mg|px|rpm|[kmg]?hz|ops/s|req/s|mb/s)[)\]]",
            // Timings and settings: what a benchmark or an options table reports.
            r"|(?-u:\b)(?:latency|duration|elapsed|runtime|timeout|throughput|p50|p90|p95|p99|p99\.9|(?:response|run|wall|cpu|build|load|wait)[\s-]?time|default|port)(?-u:\b)|耗时|延迟|默认",
            // Quantities of things, settings and positions, not of people:
            // stock and lot sizes, limits and retries, database and code
            // operations, sports standings, platforms, gates and delays,
            // weather (with a unit anywhere: `°C`, `km/h`).
            r"|(?-u:\b)(?:qty|quantity|on[\s_]hand|reorder(?:[\s_]at)?|in[\s_]stock|stock[\s_]level|max(?:imum)?[\s_]retries|retries|burst|quota|limit|concurrency|concurrent[\s_]jobs|replicas|workers|threads|staging|production|calls|insertions|deletions|additions|vulnerabilit(?:y|ies)|points|pts|pkt|punkte|goals|tore|played|spiele|platform|gleis|gate|delay|temperature|precipitation|humidity|wind|v?cpus?|cores|ram|memory|disk|replicas)(?-u:\b)",
            // Units of machines, stock and dishes: a snake_case unit suffix
            // (`p50_ms`, `mem_used_gb`), a unit in full-width or CJK
            // brackets (`価格（円）`, `风力(级)`, `Частота (ГГц)`).
            r"|[_\s](?:ms|us|ns|secs?|[kmgt]i?b|bytes|[kmg]?hz|kwh|rpm)$|[(\[（](?:级|級|円|元|分|秒|ггц|мгц|гб|мб|мс|шт)[)\]）]",
            // Quantities of things: server and query metrics, stock on
            // hand, containers and pieces, sales of items, rows of tables,
            // prices, cores and threads, weather.
            r"|(?-u:\b)(?:load(?:_\d+m)?|open_fds|fds|file_descriptors|restarts(?:_\d+d)?|errors(?:_[45]xx)?|[45]xx|reserved|available|allocated|backordered|bottles|bottiglie|botellas|bouteilles|flaschen|pcs|pieces|units[\s_]sold|items[\s_]sold|row_?counts?|n_live_tup|quantity|cantidad|menge)(?-u:\b)|quantit[éà]|stück",
            r"|販売数|販売|売上|在庫|価格|値段|単価|价格|库存|销量|风力|风速|降水|气温|温度|湿度|ядра|ядер|потоки|потоков|частота|баллы|цена",
            r"|°[cf]|km/h|mph|qté|(?-u:\b)(?:req|requests)/s(?:ec)?(?-u:\b)|очки|место|番線|乗換|البوابة|التأخير|न्यूनतम|अधिकतम|बारिश|हवा|취약점",
            // Things of software and machines: bugs, fixes, features and
            // comments of a release or an issue list, uptime, a snake_case
            // unit of time, volume or money (`uptime_days`, `gas_m3`,
            // `kosten_eur`), limits (`Minimum cell size`, `Mínimo`), stock
            // of parts, maintenance of vehicles, pumps of a station.
            r"|(?-u:\b)(?:bugs|defects|fixes|features|comments|commits|uptime|minimum|maximum|threshold|stock|maintenance|dispensers|pumps)(?-u:\b)|_(?:days|hours|hrs|mins|m3|eur|usd|gbp|chf|pln|km|kg)$",
            r"|m[íi]nimo|m[áa]ximo|manuten[çc][õo]es|manuten[çc][ãa]o|mantenimientos?|wartungen|dystrybutor|surtidores|zapfs[äa]ulen|修正|機能|不具合|バグ|コミット|缺陷|功能",
        ),
    )
}

fn test_result_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^(?:skipped|skips|xfail(?:ed)?|xpass(?:ed)?|deselected|flaky|ignored|pending)$",
    )
}

fn standings_points_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^(?:pts\.?|points|punkte|pkt\.?|puntos|ptos\.?|punti|очки|積分|积分|勝点)$",
    )
}

fn standings_short_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^(?:pj|pg|pe|pp|g|e|p|w|d|l|v|n|s|u|gf|ga|gc|gd|dg|dif|diff|mp|gp|sp|j|played|won|drawn|lost|wins|draws|losses|tore|\+/-|[иво]|н|п|м)$",
    )
}

/// Whether the headers together say the table counts things, not people:
/// a test-run summary (a `Skipped` or `xfail` column beside `Passed` and
/// `Failed`), a league table (points and the short headers of played,
/// won, drawn, lost, goals), or a vulnerability severity scale (`Critical`,
/// `High`, `Medium`, `Low`). In such a table every number column is a
/// measure. One header alone never decides: `Passed`/`Failed` of pupils or
/// `High`/`Low` risk of patients stay counts.
pub(crate) fn counts_things(headers: &[String]) -> bool {
    let hs: Vec<&str> = headers.iter().map(|h| clean(h)).collect();
    let has = |w: &str| hs.iter().any(|h| h.eq_ignore_ascii_case(w));
    if hs.iter().any(|h| test_result_re().is_match(h)) && (has("passed") || has("failed")) {
        return true;
    }
    if hs.iter().any(|h| standings_points_re().is_match(h))
        && hs
            .iter()
            .filter(|h| standings_short_re().is_match(h))
            .count()
            >= 3
    {
        return true;
    }
    if hs.iter().any(|h| service_event_re().is_match(h))
        && hs.iter().any(|h| service_metric_re().is_match(h))
    {
        return true;
    }
    // A line-count summary (`cloc`, `tokei`): files, blank, comment and
    // code lines per language.
    if has("blank") && (has("comment") || has("comments")) && has("code") {
        return true;
    }
    severity_scale(&hs)
}

fn service_event_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^(?:incidents?|outages?|alerts?|errors?|failures?|restarts?|störungen|incidentes|incidents?\s+ouverts|障害|障害件数|故障|告警)(?:\s*\(\w+\))?$",
    )
}

fn service_metric_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^(?:p\d{2}(?:\.\d)?\s+)?(?:uptime|availability|sla|mttr|mtbf|latency|response\s+time|verfügbarkeit|disponibilidad|disponibilit[ée]|稼働率|可用性)(?:\s*\(.*\)|\s+p\d{2}(?:\.\d)?)?$",
    )
}

/// A vulnerability severity scale: `Critical`, `High`, `Medium` (or
/// `Moderate`) and `Low` all present, as headers or as the row labels of
/// one column (an `npm audit` or scanner summary).
pub(crate) fn severity_scale(words: &[&str]) -> bool {
    let has = |w: &str| words.iter().any(|h| h.eq_ignore_ascii_case(w));
    has("critical") && has("high") && (has("medium") || has("moderate")) && has("low")
}

/// Whether a header names a measure (a mean, an amount of money, a
/// weight): its integers are not counts, and no relation of counts runs
/// through it.
pub(crate) fn is_measure_header(header: &str) -> bool {
    measure_header_re().is_match(clean(header))
}

fn percent_header_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)%|(?-u:\b)pct(?-u:\b)|percent|(?-u:\b)rates?(?-u:\b)|(?-u:\b)shares?(?-u:\b)|proportion|(?-u:\b)ratio(?-u:\b)|占比|比例|百分比|率$",
    )
}

/// Cheap prefilter: could `s` be a total label at all? Labels are short and
/// hold one of a few words; most cells are rejected without a regex.
fn may_be_total(s: &str) -> bool {
    if s.is_empty() || s.len() > 60 {
        return false;
    }
    if !s.is_ascii() {
        return ["合", "总", "總", "全部", "共计", "小计", "小計"]
            .iter()
            .any(|w| s.contains(w));
    }
    let bytes = s.as_bytes();
    ["total", "all", "sum", "overall"].iter().any(|w| {
        bytes
            .windows(w.len())
            .any(|win| win.eq_ignore_ascii_case(w.as_bytes()))
    })
}

/// Whether `header` names a total (a column header or a row label).
pub(crate) fn is_grand_total_label(s: &str) -> bool {
    let c = clean(s).trim_end_matches(':');
    may_be_total(c) && grand_total_re().is_match(c)
}

fn is_subtotal_label(s: &str) -> bool {
    let c = clean(s);
    may_be_total(c) && subtotal_re().is_match(c)
}

/// Whether a header names an identifier-like column.
pub(crate) fn is_id_like(header: &str) -> bool {
    id_like_re().is_match(clean(header))
}

/// Whether a header names a percentage/rate/share column.
pub(crate) fn is_percent_header(header: &str) -> bool {
    percent_header_re().is_match(clean(header))
}

/// Trim, drop Markdown emphasis and code marks.
pub(crate) fn clean(s: &str) -> &str {
    // Fast path: nothing to strip at either end (most cells).
    let plain =
        |c: u8| !(c.is_ascii_whitespace() || c == b'*' || c == b'_' || c == b'`' || c >= 0x80);
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&f), Some(&l)) if plain(f) && plain(l) => return s,
        _ => {}
    }
    s.trim()
        .trim_matches(|c| c == '*' || c == '_' || c == '`')
        .trim()
}

/// A cell shown as hidden or missing: a marker, a dash, `<5`, empty.
pub(crate) fn is_marker(s: &str, marker: &str) -> bool {
    let t = clean(s);
    if t.is_empty() || t == marker.trim() {
        return true;
    }
    if t.len() > 14 || t.as_bytes()[0].is_ascii_digit() {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "*" | "x"
            | "-"
            | "–"
            | "—"
            | ".."
            | "..."
            | "…"
            | "n/a"
            | "na"
            | "s"
            | "c"
            | "suppressed"
            | "[suppressed]"
            | "[redacted]"
            | "redacted"
            | "[hidden]"
    ) || (lower.starts_with('<') && lower[1..].trim().bytes().all(|b| b.is_ascii_digit()))
}

/// A non-negative integer count: `12`, `1,232`, `1 232`, `**3**`, `"4"`,
/// and the count of an `n (%)` cell such as `3 (7.5%)`.
pub(crate) fn parse_count(s: &str) -> Option<u64> {
    if let Some(n) = count_with_share(s) {
        return Some(n);
    }
    plain_count(s)
}

/// The count of an `n (%)` cell: `3 (7.5%)`, `12 (40)`, and with a
/// decimal comma and a (no-break) space before the sign, `6 (10,0 %)`.
pub(crate) fn count_with_share(s: &str) -> Option<u64> {
    let t = clean(s);
    let (n, rest) = t.split_once('(')?;
    let share = rest.trim().strip_suffix(')')?.trim();
    let share = share.strip_suffix('%').unwrap_or(share).trim();
    if share.is_empty()
        || share.starts_with(',')
        || !share
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b',')
    {
        return None;
    }
    plain_count(n)
}

fn plain_count(s: &str) -> Option<u64> {
    let t = clean(s);
    let t = if t.starts_with('"') {
        t.trim_matches('"').trim()
    } else {
        t
    };
    if t.is_empty() || t.len() > 24 || !t.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return if t.len() <= 18 { t.parse().ok() } else { None };
    }
    // Thousands separators: groups of exactly three digits.
    let sep = [',', ' ', '\u{a0}', '\u{202f}', '\u{2009}', '\'', '_']
        .into_iter()
        .find(|&c| t.contains(c))?;
    let mut value: u64 = 0;
    let mut digits = 0;
    for (k, part) in t.split(sep).enumerate() {
        let ok_len = if k == 0 {
            (1..=3).contains(&part.len())
        } else {
            part.len() == 3
        };
        if !ok_len || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits += part.len();
        if digits > 18 {
            return None;
        }
        for b in part.bytes() {
            value = value * 10 + u64::from(b - b'0');
        }
    }
    Some(value)
}

/// A number with a decimal comma (`62,1`, `100,0`, `4,75 %`): digits, a
/// comma, one or two digits (three would be a thousands group), an
/// optional `%`.
///
/// ```text
/// "62,1" → true; "3,7 %" → true; "1,232" → false (thousands); "a,1" → false
/// ```
pub(crate) fn decimal_comma(s: &str) -> bool {
    let t = clean(s);
    let t = t.strip_suffix('%').unwrap_or(t).trim_end();
    let Some((int, frac)) = t.split_once(',') else {
        return false;
    };
    !int.is_empty()
        && int.len() <= 12
        && int.bytes().all(|b| b.is_ascii_digit())
        && (1..=2).contains(&frac.len())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// Any number, with an optional sign, decimals, thousands separators or a
/// trailing `%`.
pub(crate) fn parse_number(s: &str) -> Option<f64> {
    let t = clean(s);
    let t = t.trim_matches('"').trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim();
    match t.as_bytes().first() {
        Some(b'0'..=b'9' | b'-' | b'.') => {}
        _ => return None,
    }
    if let Some(v) = parse_count(t) {
        return Some(v as f64);
    }
    if t.len() > 32 {
        return None;
    }
    let body = t.strip_prefix('-').unwrap_or(t);
    let mut dots = 0;
    for b in body.bytes() {
        match b {
            b'0'..=b'9' => {}
            b'.' => dots += 1,
            _ => return None,
        }
    }
    if dots > 1 || body.starts_with('.') && body.len() == 1 {
        return None;
    }
    t.parse().ok()
}

/// Build the model of a table with no text around it.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn build(table: &RawTable<'_>, marker: &str) -> Model {
    build_in(table, marker, &super::entity::Context::default())
}

/// Build the model of a table, with what the text above it says (`ctx`).
pub(crate) fn build_in(
    table: &RawTable<'_>,
    marker: &str,
    ctx: &super::entity::Context<'_>,
) -> Model {
    let ncols = table.columns();
    let nrows = table.rows.len();
    let headers: Vec<String> = match &table.header {
        Some(h) => h.iter().map(|c| clean(c.text).to_string()).collect(),
        None => vec![String::new(); ncols],
    };
    let cell_text = |r: usize, c: usize| -> &str { table.rows.text(r, c) };

    // Parse every cell once: its count (if any), and what else it looks like.
    let mut values = Values::new(nrows * ncols);
    let mut kinds = Vec::with_capacity(ncols);
    let mut headed_counts = Vec::new();
    let things = counts_things(&headers)
        || (ncols > 0 && nrows <= 16 && {
            let first: Vec<&str> = (0..nrows).map(|r| clean(cell_text(r, 0))).collect();
            severity_scale(&first)
        })
        || super::entity::entity_table(&headers, nrows, ncols, cell_text, ctx);
    for (c, header) in headers.iter().enumerate() {
        let mut counts = 0usize;
        let mut others = 0usize;
        let mut percent_cells = 0usize;
        let mut numbers = 0usize;
        let mut texts = 0usize;
        let mut combos = 0usize;
        for r in 0..nrows {
            let t = clean(cell_text(r, c));
            if is_marker(t, marker) {
                continue;
            }
            if t.ends_with('%') {
                percent_cells += 1;
            }
            let combo = count_with_share(t);
            let count = combo.or_else(|| plain_count(t));
            combos += usize::from(combo.is_some());
            if count.is_some() {
                counts += 1;
                values.set(r * ncols + c, count);
            } else if parse_number(t).is_some() || decimal_comma(t) {
                numbers += 1;
            } else {
                others += 1;
                texts += 1;
            }
        }
        let filled = counts + numbers + others;
        // A column of plain counts whose header says identifier or measure
        // ("Week", "Cost") may still be the sum of count columns: the
        // arithmetic decides ([`super::relations::discover_columns`]).
        if counts > 0 && numbers == 0 && others == 0 && combos == 0 {
            headed_counts.push(c);
        }
        let kind = if !header.is_empty() && is_id_like(header) {
            ColKind::Id
        } else if !header.is_empty()
            && (things || is_measure_header(header))
            && texts * 2 < filled.max(1)
        {
            ColKind::Other
        } else if combos > 0 && combos == counts && numbers == 0 && others == 0 {
            // `n (%)` cells: counts that carry their share; hiding the cell
            // hides both.
            ColKind::Count
        } else if (!header.is_empty() && is_percent_header(header) && texts * 2 < filled.max(1))
            || (filled > 0 && percent_cells * 2 >= filled)
        {
            ColKind::Percent
        } else if counts > 0 && numbers == 0 && others == 0 {
            ColKind::Count
        } else if counts + numbers > 0 && others == 0 {
            ColKind::Other
        } else {
            ColKind::Label
        };
        kinds.push(kind);
    }

    // Only count columns keep their values (and, until the relations are
    // found, the columns of counts under an identifier or measure header).
    headed_counts.retain(|&c| matches!(kinds[c], ColKind::Id | ColKind::Other));
    for r in 0..nrows {
        for (c, kind) in kinds.iter().enumerate() {
            if *kind != ColKind::Count && !headed_counts.contains(&c) {
                values.set(r * ncols + c, None);
            }
        }
    }

    let mut model = Model {
        nrows,
        ncols,
        headers,
        kinds,
        values,
        roles: vec![RowRole::Detail; nrows],
        total_cell: vec![false; nrows * ncols],
        row_rel: Vec::new(),
        col_rel: Vec::new(),
    };
    let label_cols: Vec<usize> = (0..ncols)
        .filter(|&c| matches!(model.kinds[c], ColKind::Label | ColKind::Id))
        .collect();
    for r in 0..nrows {
        let mut role = RowRole::Detail;
        for &c in &label_cols {
            let t = cell_text(r, c);
            if is_grand_total_label(t) {
                role = RowRole::Total;
                break;
            }
            if is_subtotal_label(t) {
                role = RowRole::Subtotal;
            }
        }
        model.roles[r] = role;
    }
    column_totals(&mut model);
    row_equations(&mut model);
    super::relations::discover_columns(&mut model, &headed_counts);
    for &c in &headed_counts {
        if model.kinds[c] != ColKind::Total {
            for r in 0..nrows {
                model.values.set(r * ncols + c, None);
            }
        }
    }
    column_equations(&mut model);
    let labels: Vec<Vec<&str>> = label_cols
        .iter()
        .filter(|&&c| matches!(model.kinds[c], ColKind::Label | ColKind::Id))
        .map(|&c| (0..nrows).map(|r| clean(cell_text(r, c))).collect())
        .collect();
    super::relations::discover_rows(&mut model, &labels);
    model
}

/// Mark total columns: by header, else a last count column that is the sum
/// of the others in every row.
fn column_totals(m: &mut Model) {
    let count_cols: Vec<usize> = (0..m.ncols)
        .filter(|&c| m.kinds[c] == ColKind::Count)
        .collect();
    let mut named = false;
    for &c in &count_cols {
        if is_grand_total_label(&m.headers[c]) || is_subtotal_label(&m.headers[c]) {
            m.kinds[c] = ColKind::Total;
            named = true;
        }
    }
    if named || count_cols.len() < 3 {
        return;
    }
    let last = count_cols[count_cols.len() - 1];
    let members = &count_cols[..count_cols.len() - 1];
    let mut verified = 0;
    for r in 0..m.nrows {
        match sum_check(m, r, last, members.iter().map(|&c| (r, c))) {
            Check::Fails => return,
            Check::Holds(nonzero) => verified += usize::from(nonzero),
            Check::Unknown => {}
        }
    }
    if verified > 0 {
        m.kinds[last] = ColKind::Total;
    }
}

enum Check {
    /// Adds up; `true` when the total is non-zero.
    Holds(bool),
    Fails,
    Unknown,
}

fn sum_check(
    m: &Model,
    tr: usize,
    tc: usize,
    members: impl Iterator<Item = (usize, usize)>,
) -> Check {
    let Some(total) = m.values.get(m.idx(tr, tc)) else {
        return Check::Unknown;
    };
    let mut sum: u128 = 0;
    for (r, c) in members {
        match m.values.get(m.idx(r, c)) {
            Some(v) => sum += u128::from(v),
            None => return Check::Unknown,
        }
    }
    if sum == u128::from(total) {
        Check::Holds(total > 0)
    } else {
        Check::Fails
    }
}

/// Row equations: each total column is the sum of the count columns it
/// covers (those since the previous total column, else all of them).
fn row_equations(m: &mut Model) {
    let mut totals: Vec<usize> = (0..m.ncols)
        .filter(|&c| m.kinds[c] == ColKind::Total)
        .collect();
    // Each total column is checked against every row: a bounded number.
    for &extra in totals.iter().skip(16) {
        m.kinds[extra] = ColKind::Count;
    }
    totals.truncate(16);
    let mut prev = None;
    for &t in &totals {
        let since: Vec<usize> = (prev.map_or(0, |p| p + 1)..t)
            .filter(|&c| m.kinds[c] == ColKind::Count)
            .collect();
        let all: Vec<usize> = (0..m.ncols)
            .filter(|&c| m.kinds[c] == ColKind::Count)
            .collect();
        let after: Vec<usize> = (t + 1..m.ncols)
            .filter(|&c| m.kinds[c] == ColKind::Count)
            .collect();
        prev = Some(t);
        let mut chosen = None;
        for cand in [since, all, after] {
            if cand.is_empty() {
                continue;
            }
            let ok = (0..m.nrows).all(|r| {
                !matches!(
                    sum_check(m, r, t, cand.iter().map(|&c| (r, c))),
                    Check::Fails
                )
            });
            if ok {
                chosen = Some(cand);
                break;
            }
        }
        let Some(members) = chosen else {
            // A "Total" header over numbers that do not add up is an ordinary count.
            m.kinds[t] = ColKind::Count;
            continue;
        };
        for r in 0..m.nrows {
            let ti = m.idx(r, t);
            m.total_cell[ti] = true;
        }
        m.col_rel.push((t, members));
    }
}

/// Column equations: subtotal rows sum the detail rows of their group, total
/// rows sum the subtotals (or the details). Unlabelled: a last row that is
/// the sum of the rows above it.
fn column_equations(m: &mut Model) {
    let cols: Vec<usize> = (0..m.ncols).filter(|&c| m.is_count_col(c)).collect();
    if cols.is_empty() {
        return;
    }
    // Checking a labelled relation costs its members × columns; a text
    // where every row claims to be a total could make that quadratic, so
    // the checks share a budget linear in the table size. Past it, labels
    // are no longer trusted (no relation), which costs nothing in safety
    // that the budget could have bought: such a table is not a real one.
    let budget = std::cell::Cell::new(32 * (m.nrows + 1) * (cols.len() + 1));
    let holds = |m: &Model, target: usize, members: &[usize]| -> bool {
        let cost = members.len() * cols.len();
        if members.is_empty() || cost > budget.get() {
            return false;
        }
        budget.set(budget.get() - cost);
        cols.iter().all(|&c| {
            !matches!(
                sum_check(m, target, c, members.iter().map(|&r| (r, c))),
                Check::Fails
            )
        })
    };
    if !m.roles.contains(&RowRole::Total) && m.nrows >= 3 {
        let last = m.nrows - 1;
        let members: Vec<usize> = (0..last)
            .filter(|&r| m.roles[r] == RowRole::Detail)
            .collect();
        let nonzero = cols
            .iter()
            .any(|&c| m.values.get(m.idx(last, c)).is_some_and(|v| v > 0));
        let all_known = cols.iter().all(|&c| {
            m.values.get(m.idx(last, c)).is_some()
                && members.iter().all(|&r| m.values.get(m.idx(r, c)).is_some())
        });
        if members.len() >= 2 && nonzero && all_known && holds(m, last, &members) {
            m.roles[last] = RowRole::Total;
        }
    }
    let had_total_row = m.roles.contains(&RowRole::Total);
    let mut details: Vec<usize> = Vec::new(); // since the last subtotal or total
    let mut all_details: Vec<usize> = Vec::new(); // since the last total
    let mut subs: Vec<usize> = Vec::new(); // since the last total
    let mut relations: Vec<(usize, Vec<usize>)> = Vec::new();
    // Labelled totals that did not add up, with the rows they may cover.
    let mut unresolved: Vec<(usize, Vec<usize>)> = Vec::new();
    for r in 0..m.nrows {
        match m.roles[r] {
            RowRole::Detail => {
                details.push(r);
                all_details.push(r);
            }
            RowRole::Subtotal => {
                if holds(m, r, &details) {
                    relations.push((r, std::mem::take(&mut details)));
                    subs.push(r);
                } else {
                    m.roles[r] = RowRole::Detail;
                    details.push(r);
                    all_details.push(r);
                }
            }
            RowRole::Total => {
                let mut via_subs = subs.clone();
                via_subs.extend(details.iter().copied());
                if !subs.is_empty() && holds(m, r, &via_subs) {
                    relations.push((r, via_subs));
                } else if holds(m, r, &all_details) {
                    relations.push((r, all_details.clone()));
                } else {
                    m.roles[r] = RowRole::Detail;
                    if unresolved.len() < 8 {
                        unresolved.push((r, all_details.clone()));
                    }
                    details.push(r);
                    all_details.push(r);
                    continue;
                }
                details.clear();
                all_details.clear();
                subs.clear();
            }
        }
    }
    // A labelled total that failed may add up over the top-level rows
    // (group rows found by arithmetic, plus rows in no group).
    // Only when a labelled total does not add up: group rows are then the
    // likely reason, and otherwise coincidences would add false relations.
    let groups = if unresolved.is_empty() {
        vec![None; m.nrows]
    } else {
        group_rows(m, &cols, had_total_row)
    };
    let grouped: Vec<bool> = {
        let mut g = vec![false; m.nrows];
        for members in groups.iter().flatten() {
            for &r in members {
                g[r] = true;
            }
        }
        g
    };
    for (r, members) in groups.iter().enumerate() {
        if let Some(members) = members {
            relations.push((r, members.clone()));
        }
    }
    for (r, candidates) in unresolved {
        let top: Vec<usize> = candidates.into_iter().filter(|&q| !grouped[q]).collect();
        if top.len() >= 2 && holds(m, r, &top) {
            m.roles[r] = RowRole::Total;
            relations.push((r, top));
        }
    }
    for (target, members) in relations {
        for &c in &cols {
            let ti = m.idx(target, c);
            m.total_cell[ti] = true;
        }
        m.row_rel.push((target, members));
    }
}

/// Unlabelled group rows: a detail row that equals, in every count column,
/// the sum of the two or more detail rows right below it (a group header)
/// or right above it (an unlabelled subtotal). Marked as subtotals; their
/// members returned per row. A coincidental match only adds a relation,
/// which costs suppression, never safety.
fn group_rows(m: &mut Model, cols: &[usize], had_total_row: bool) -> Vec<Option<Vec<usize>>> {
    const MAX_GROUP: usize = 64;
    let mut out = vec![None; m.nrows];
    // Only in tables that already show totals, with two or more count
    // columns: one small column adds up by coincidence far too often.
    let has_totals = had_total_row || m.kinds.contains(&ColKind::Total);
    if m.nrows < 4 || cols.len() < 2 || !has_totals {
        return out;
    }
    let mut sums = vec![0u64; cols.len()];
    for r in 0..m.nrows {
        if m.roles[r] != RowRole::Detail {
            continue;
        }
        let Some(target): Option<Vec<u64>> =
            cols.iter().map(|&c| m.values.get(m.idx(r, c))).collect()
        else {
            continue;
        };
        if target.iter().all(|&v| v == 0) {
            continue;
        }
        'dirs: for below in [true, false] {
            sums.iter_mut().for_each(|x| *x = 0);
            let mut members = Vec::new();
            for step in 1..=MAX_GROUP {
                let q = if below {
                    r + step
                } else if let Some(q) = r.checked_sub(step) {
                    q
                } else {
                    break;
                };
                if q >= m.nrows || m.roles[q] != RowRole::Detail || out[q].is_some() {
                    break;
                }
                let mut over = false;
                for (k, &c) in cols.iter().enumerate() {
                    match m.values.get(m.idx(q, c)) {
                        Some(v) => {
                            sums[k] += v;
                            over |= sums[k] > target[k];
                        }
                        None => continue 'dirs,
                    }
                }
                if over {
                    break;
                }
                members.push(q);
                if members.len() >= 2 && sums == target {
                    members.sort_unstable();
                    out[r] = Some(members);
                    m.roles[r] = RowRole::Subtotal;
                    break 'dirs;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_separators() {
        assert_eq!(parse_count("1,232"), Some(1232));
        assert_eq!(parse_count("**3**"), Some(3));
        assert_eq!(parse_count("12,34"), None);
        assert_eq!(parse_count("1\u{202f}758"), Some(1758));
        assert_eq!(parse_count("9\u{a0}233"), Some(9233));
        assert!(decimal_comma("62,1") && decimal_comma("3,7 %") && decimal_comma("100,0"));
        assert!(!decimal_comma("1,232") && !decimal_comma("a,1") && !decimal_comma("12,"));
        assert_eq!(parse_count("3.5"), None);
        assert_eq!(parse_count("-3"), None);
        assert_eq!(parse_count("3 (7.5%)"), Some(3));
        assert_eq!(parse_count("12 (40)"), Some(12));
        assert_eq!(parse_count("6 (10,0\u{a0}%)"), Some(6));
        assert_eq!(parse_count("38 (36,5 %)"), Some(38));
        assert_eq!(parse_count("3 (,5 %)"), None);
        assert_eq!(parse_count("3 (abc)"), None);
        assert_eq!(parse_number("12.5%"), Some(12.5));
        assert_eq!(parse_number("abc"), None);
    }

    #[test]
    fn labels() {
        for t in ["Total", "**Total**", "Grand total", "All", "合计", "Total:"] {
            assert!(is_grand_total_label(t), "{t}");
        }
        for t in ["North", "Totalitarian", "Allen"] {
            assert!(!is_grand_total_label(t), "{t}");
        }
        for t in ["Subtotal", "North total", "小计"] {
            assert!(is_subtotal_label(t), "{t}");
        }
        for t in [
            "id",
            "record_id",
            "Patient ID",
            "uuid",
            "Year",
            "age",
            "Pos",
            "Pos.",
            "Position",
        ] {
            assert!(is_id_like(t), "{t}");
        }
        for t in ["Cases", "Idaho", "Valid", "Positive", "Posts"] {
            assert!(!is_id_like(t), "{t}");
        }
        for t in [
            "Average award (£)",
            "Mean stay",
            "Median",
            "Cost",
            "Salary band",
            "€",
            "p50 (ms)",
            "Latency",
            "Length of stay (days)",
            "Size [MB]",
            "Default",
            "Timeout",
            "Response time",
            "Port",
            "耗时",
            "Qté par lot",
            "on_hand",
            "reorder_at",
            "max_retries",
            "Burst",
            "Requests/sec",
            "Staging",
            "calls",
            "Pkt.",
            "Очки",
            "番線",
            "न्यूनतम °C",
            "हवा (km/h)",
            "البوابة",
            "취약점 수",
            "vcpus",
            "p50_ms",
            "mem_used_gb",
            "errors_5xx",
            "restarts_7d",
            "open_fds",
            "reserved",
            "available",
            "row_count",
            "Quantité",
            "価格（円）",
            "本日の販売数",
            "在庫",
            "风力(级)",
            "Bottiglie",
            "Ядра",
            "Потоки",
            "Частота (ГГц)",
            "Bugs found",
            "修正件数",
            "新機能",
            "comments",
            "uptime_days",
            "gas_m3",
            "kosten_eur",
            "Minimum cell size",
            "Mínimo",
            "Stock",
            "Manutenções",
            "Dystrybutory",
        ] {
            assert!(is_measure_header(t), "{t}");
        }
        for t in [
            "Applications",
            "Approved",
            "Meant",
            "Costume",
            "Patients",
            "Full-time",
            "Part-time",
            "First-time buyers",
            "Days",
            "Minors",
            "Admins",
            "Defaulters",
            "Runs",
            "Ports of entry",
            "Males (n)",
            "Staff",
            "Players",
            "Pointe-Noire",
            "Gatekeepers",
            "Delayed discharges",
            "Caseload",
            "Workload",
            "Passed",
            "Failed",
            "Critical",
            "High",
            "Low",
            "G",
            "Residents",
            "Respondents",
            "Pupils",
            "Loaders",
            "Reservists",
            "Maintainers",
            "Stockholders",
            "Featured",
            "Commentators",
            "Minimumloon",
            "Uptake",
            "Sick days",
            "Patients (n)",
            "Total incidents",
            "Incidents",
        ] {
            assert!(!is_measure_header(t), "{t}");
        }
        assert!(severity_scale(&["critical", "high", "moderate", "low"]));
        assert!(!severity_scale(&["high", "medium", "low"]));
        assert!(!severity_scale(&["Critical care", "High", "Medium", "Low"]));
        let hs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for t in [
            &["OS", "Python", "Passed", "Failed", "Skipped", "Duration"][..],
            &["Equipo", "PJ", "G", "E", "P", "GF", "GC", "Pts"],
            &["Team", "P", "W", "D", "L", "GD", "Points"],
            &["Month", "Critical", "High", "Medium", "Low", "Total"],
            &[
                "Service",
                "Status",
                "Uptime (90d)",
                "Incidents (30d)",
                "p95 latency",
            ],
            &["Cluster", "Availability", "Outages"],
            &["Language", "files", "blank", "comment", "code"],
        ] {
            assert!(counts_things(&hs(t)), "{t:?}");
        }
        for t in [
            &["School", "Passed", "Failed", "Absent", "Total"][..],
            &["Ward", "High risk", "Medium risk", "Low risk"],
            &["Ward", "High", "Medium", "Low", "Total"],
            &["Region", "Male", "Female", "Total"],
            &["Club", "Members", "Points"],
            &["Ward", "Falls", "Pressure ulcers", "Total incidents"],
            &["Ward", "Incidents", "Patients", "Total"],
            &["Service", "Incidents", "Response time target met"],
            &["Language", "Pupils", "Code"],
        ] {
            assert!(!counts_things(&hs(t)), "{t:?}");
        }
        for t in ["%", "Referred %", "Visit rate", "share", "占比"] {
            assert!(is_percent_header(t), "{t}");
        }
        assert!(!is_percent_header("Corporate"));
        assert!(is_marker("[suppressed]", "[suppressed]"));
        assert!(is_marker("<5", "[suppressed]"));
        assert!(!is_marker("5", "[suppressed]"));
    }
}
