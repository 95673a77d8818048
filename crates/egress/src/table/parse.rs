//! Finding tables in text: Markdown pipe tables, CSV/TSV blocks (quoted
//! fields may hold the delimiter), `cat -n` / read_file line-number prefixes.
//!
//! Every cell keeps the byte span of its content in the original text, so the
//! rewrite replaces exactly that content and leaves the rest of the line (the
//! pipes, the delimiters, the padding, the line-number prefix) as it was.

use super::TableKind;

/// One cell: its trimmed text and the span to replace. The text borrows
/// from the input (a quoted CSV field keeps its doubled quotes `""`; a
/// JSON cell borrows its decoded string). How the span is replaced follows
/// from the table's kind: in a JSON table the span is a whole JSON token.
///
/// A [`Grid`] does not store these: it keeps two 32-bit offsets a cell and
/// makes the view on demand.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cell<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

/// Longest span a table may cover, in bytes: cells are stored as 32-bit
/// offsets from the table's start. A longer block is cut there and the
/// rest is read as a table of its own, as at [`MAX_ROWS`].
pub(crate) const MAX_TABLE_BYTES: usize = u32::MAX as usize;

/// Data rows of equal width, stored as one run of compact cells (one
/// allocation per table, eight bytes a cell): each cell is its span as
/// offsets from the table's start, and its text is that span of the input
/// (a JSON table keeps the decoded texts beside it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid<'a> {
    src: &'a str,
    base: usize,
    spans: Vec<(u32, u32)>,
    /// Decoded texts of a JSON table, one a cell; empty for text tables.
    texts: Vec<&'a str>,
    decoded: bool,
    width: usize,
}

impl<'a> Grid<'a> {
    /// An empty grid over `src` whose cells all lie in
    /// `base..base + MAX_TABLE_BYTES`.
    pub fn new(src: &'a str, base: usize) -> Self {
        Grid {
            src,
            base,
            ..Grid::default()
        }
    }

    /// An empty grid for a JSON table: the cells' texts are decoded
    /// strings, kept beside their spans.
    pub fn decoded(src: &'a str, base: usize) -> Self {
        Grid {
            decoded: true,
            ..Grid::new(src, base)
        }
    }

    /// Append a row; it must have the grid's width (the callers pad or cut)
    /// and lie within the table's byte range, else it is not added and
    /// `false` is returned. In a text table each cell's text must be its
    /// span of the input.
    pub fn push_row(&mut self, row: &[Cell<'a>]) -> bool {
        if self.spans.is_empty() {
            self.width = row.len();
        }
        let fits = |c: &Cell<'_>| {
            c.start >= self.base && c.end >= c.start && c.end - self.base <= MAX_TABLE_BYTES
        };
        if row.len() != self.width || !row.iter().all(fits) {
            return false;
        }
        for c in row {
            debug_assert!(self.decoded || self.src.get(c.start..c.end) == Some(c.text));
            // Both fit in 32 bits: checked above.
            let start = u32::try_from(c.start - self.base).unwrap_or(u32::MAX);
            let end = u32::try_from(c.end - self.base).unwrap_or(u32::MAX);
            self.spans.push((start, end));
            if self.decoded {
                self.texts.push(c.text);
            }
        }
        true
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.spans.len().checked_div(self.width).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.width
    }

    fn at(&self, k: usize) -> Cell<'a> {
        let Some(&(a, b)) = self.spans.get(k) else {
            return Cell::default();
        };
        let (start, end) = (self.base + a as usize, self.base + b as usize);
        let text = if self.decoded {
            self.texts.get(k).copied().unwrap_or("")
        } else {
            self.src.get(start..end).unwrap_or("")
        };
        Cell { text, start, end }
    }

    /// The cell at row `r`, column `c` (an empty cell out of range).
    pub fn cell(&self, r: usize, c: usize) -> Cell<'a> {
        if c >= self.width {
            return Cell::default();
        }
        self.at(r * self.width + c)
    }

    /// The text of a cell.
    pub fn text(&self, r: usize, c: usize) -> &'a str {
        self.cell(r, c).text
    }

    /// The rows in order.
    pub fn iter(&self) -> impl Iterator<Item = Row<'_, 'a>> {
        (0..self.len()).map(|r| Row { grid: self, r })
    }

    /// Row `r`.
    pub fn row(&self, r: usize) -> Row<'_, 'a> {
        Row { grid: self, r }
    }

    /// Remove the first row and return it.
    pub fn take_first(&mut self) -> Vec<Cell<'a>> {
        let n = self.width.min(self.spans.len());
        let first: Vec<Cell<'a>> = (0..n).map(|k| self.at(k)).collect();
        self.spans.drain(..n);
        if self.decoded {
            self.texts.drain(..n);
        }
        first
    }

    /// Give back the room the growth left over.
    pub fn shrink_to_fit(&mut self) {
        self.spans.shrink_to_fit();
        self.texts.shrink_to_fit();
    }
}

/// One row of a [`Grid`].
#[derive(Clone, Copy)]
pub(crate) struct Row<'g, 'a> {
    grid: &'g Grid<'a>,
    r: usize,
}

impl<'g, 'a> Row<'g, 'a> {
    /// The cell in column `c` (an empty cell out of range).
    pub fn cell(&self, c: usize) -> Cell<'a> {
        self.grid.cell(self.r, c)
    }

    /// The text in column `c`.
    pub fn text(&self, c: usize) -> &'a str {
        self.cell(c).text
    }

    /// The row's cells in order.
    pub fn iter(self) -> impl Iterator<Item = Cell<'a>> + 'g {
        (0..self.grid.width).map(move |c| self.cell(c))
    }
}

/// A table as found: a header (possibly absent) and data rows of equal width.
#[derive(Clone, Debug)]
pub(crate) struct RawTable<'a> {
    pub kind: TableKind,
    pub header: Option<Vec<Cell<'a>>>,
    pub rows: Grid<'a>,
    pub start: usize,
    pub end: usize,
    /// For Markdown: the line spans (start, end) of every table line, header
    /// and separator included, used to keep column alignment on rewrite
    /// (one more than the re-padding limit at most: longer tables are not
    /// re-padded).
    pub lines: Vec<(usize, usize)>,
}

impl RawTable<'_> {
    pub fn columns(&self) -> usize {
        self.header
            .as_ref()
            .map(Vec::len)
            .or_else(|| (!self.rows.is_empty()).then(|| self.rows.width()))
            .unwrap_or(0)
    }
}

/// A line of the input: where it starts, where its content starts (after a
/// line-number prefix, if any) and where it ends (before `\r\n` / `\n`).
#[derive(Clone, Copy, Debug)]
struct Line {
    start: usize,
    content: usize,
    end: usize,
}

/// Longest table scanned per text, in rows; a cap, not an accident.
pub(crate) const MAX_ROWS: usize = 1_000_000;

/// Every table in `text`, in document order, not overlapping.
pub(crate) fn find_tables(text: &str) -> Vec<RawTable<'_>> {
    let lines = split_lines(text);
    let mut tables = Vec::new();
    let mut i = 0;
    // A block of lines that is no fixed-width table is tried from its
    // first few lines only (a title line above the columns), not from
    // every line: the search stays linear.
    let mut fixed_block: (usize, usize) = (0, 0); // (end, tries)
    while i < lines.len() {
        if let Some((table, next)) = markdown_at(text, &lines, i) {
            tables.push(table);
            i = next;
            continue;
        }
        if let Some((table, next)) = delimited_at(text, &lines, i) {
            tables.push(table);
            i = next;
            continue;
        }
        if i >= fixed_block.0 || fixed_block.1 < FIXED_TRIES {
            match fixed_width_at(text, &lines, i) {
                Ok((table, next)) => {
                    tables.push(table);
                    i = next;
                    continue;
                }
                Err(end) if end > i => {
                    if i >= fixed_block.0 {
                        fixed_block = (end, 0);
                    }
                    fixed_block.1 += 1;
                }
                Err(_) => {}
            }
        }
        i += 1;
    }
    tables
}

fn split_lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    while start <= bytes.len() {
        let nl = memchr(b'\n', &bytes[start..]).map(|p| start + p);
        let raw_end = nl.unwrap_or(bytes.len());
        let end = if raw_end > start && bytes[raw_end - 1] == b'\r' {
            raw_end - 1
        } else {
            raw_end
        };
        let content = start + line_number_prefix(&text[start..end]);
        lines.push(Line {
            start,
            content,
            end,
        });
        match nl {
            Some(p) => start = p + 1,
            None => break,
        }
    }
    lines
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == needle)
}

/// Length of a `cat -n` (`     1\t`) or read_file (`     1|`, `     1→`)
/// prefix. Both tools pad the number to six columns, which is what tells
/// the prefix from a TSV whose first column is a number.
fn line_number_prefix(line: &str) -> usize {
    let bytes = line.as_bytes();
    let spaces = bytes.iter().take_while(|&&b| b == b' ').count();
    let digits = bytes[spaces..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 9 || spaces + digits < 6 {
        return 0;
    }
    let rest = &line[spaces + digits..];
    for sep in ["\t", "|", "→", " → "] {
        if rest.starts_with(sep) {
            return spaces + digits + sep.len();
        }
    }
    0
}

fn content<'a>(text: &'a str, line: &Line) -> &'a str {
    &text[line.content..line.end]
}

fn is_blank(text: &str, line: &Line) -> bool {
    content(text, line).trim().is_empty()
}

// ---------------------------------------------------------------- markdown

/// Column separators of pipe tables: ASCII pipes and the vertical rules of
/// box-drawing renderers (`│ ┃ ║`).
const PIPES: [char; 4] = ['|', '│', '┃', '║'];

fn has_pipe(s: &str) -> bool {
    s.contains(PIPES)
}

/// A rule line of a box-drawing table (`┡━━━╇━━━┩`, `├───┼───┤`, `└──┴──┘`):
/// box-drawing characters and spaces only, with a horizontal rule.
fn is_box_rule(t: &str) -> bool {
    !t.is_empty()
        && t.chars().any(|c| matches!(c, '─' | '━' | '═'))
        && t.chars()
            .all(|c| c == ' ' || ('\u{2500}'..='\u{257F}').contains(&c))
}

fn is_separator(s: &str) -> bool {
    let t = s.trim();
    if is_box_rule(t) {
        return true;
    }
    // psql and ASCII grids join the rules with `+` (`----+----`, `+---+---+`).
    let joined;
    let t = if t.contains('+')
        && t.bytes()
            .all(|b| matches!(b, b'-' | b'+' | b':' | b'|' | b' '))
    {
        joined = t.replace('+', "|");
        joined.as_str()
    } else {
        t
    };
    if !t.contains('-') || !t.contains('|') && !t.starts_with(':') && !t.starts_with('-') {
        return false;
    }
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').all(|part| {
        let p = part.trim();
        let p = p.strip_prefix(':').unwrap_or(p);
        let p = p.strip_suffix(':').unwrap_or(p);
        !p.is_empty() && p.bytes().all(|b| b == b'-')
    })
}

fn markdown_at<'a>(text: &'a str, lines: &[Line], i: usize) -> Option<(RawTable<'a>, usize)> {
    let head = content(text, &lines[i]);
    if !has_pipe(head) {
        return None;
    }
    let header_cells = split_pipes(text, &lines[i]);
    if header_cells.len() < 2 {
        return None;
    }
    let has_sep = lines
        .get(i + 1)
        .is_some_and(|l| is_separator(content(text, l)));
    let pipe_edged = |l: &Line| {
        let c = content(text, l).trim();
        c.starts_with(PIPES) && c.ends_with(PIPES) && c.chars().count() > 1
    };
    if !has_sep && !pipe_edged(&lines[i]) {
        return None;
    }
    let first_data = if has_sep { i + 2 } else { i + 1 };
    let mut rows = Grid::new(text, lines[i].start);
    let mut spans = vec![(lines[i].start, lines[i].end)];
    if has_sep {
        spans.push((lines[i + 1].start, lines[i + 1].end));
    }
    let mut j = first_data;
    while j < lines.len() && rows.len() < MAX_ROWS {
        let l = &lines[j];
        let c = content(text, l);
        if c.trim().is_empty() || !has_pipe(c) || is_separator(c) {
            break;
        }
        if !has_sep && !pipe_edged(l) {
            break;
        }
        let mut cells = split_pipes(text, l);
        // Ragged rows are padded or cut to the header's width, as renderers do.
        if cells.len() > header_cells.len() {
            cells.truncate(header_cells.len());
        }
        while cells.len() < header_cells.len() {
            cells.push(Cell {
                text: "",
                start: l.end,
                end: l.end,
            });
        }
        if !rows.push_row(&cells) {
            break;
        }
        // Only a table short enough to be re-padded needs its lines.
        if spans.len() <= super::REALIGN_MAX_LINES {
            spans.push((l.start, l.end));
        }
        j += 1;
    }
    if rows.is_empty() {
        return None;
    }
    rows.shrink_to_fit();
    let end = lines[j - 1].end;
    Some((
        RawTable {
            kind: TableKind::Markdown,
            header: Some(header_cells),
            rows,
            start: lines[i].start,
            end,
            lines: spans,
        },
        j,
    ))
}

/// Cells of a pipe-table line; `\|` does not split.
fn split_pipes<'a>(text: &'a str, line: &Line) -> Vec<Cell<'a>> {
    let c = content(text, line);
    let base = line.content;
    // Splitting pipes: (byte position, byte length).
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    let mut chars = c.char_indices();
    while let Some((k, ch)) = chars.next() {
        if ch == '\\' {
            chars.next();
        } else if PIPES.contains(&ch) {
            bounds.push((k, ch.len_utf8()));
        }
    }
    let trimmed_start = c.len() - c.trim_start().len();
    let trimmed_end = c.trim_end().len();
    let mut pieces = Vec::new();
    let mut prev = 0usize;
    for &(b, len) in &bounds {
        pieces.push((prev, b));
        prev = b + len;
    }
    pieces.push((prev, c.len()));
    // Drop the empty piece before a leading pipe and after a trailing pipe.
    if bounds.first().map(|b| b.0) == Some(trimmed_start) && !pieces.is_empty() {
        pieces.remove(0);
    }
    if trimmed_end > 0
        && bounds.last().map(|b| b.0 + b.1) == Some(trimmed_end)
        && !pieces.is_empty()
    {
        pieces.pop();
    }
    pieces
        .into_iter()
        .map(|(a, b)| trimmed_cell(c, base, a, b))
        .collect()
}

fn trimmed_cell(c: &str, base: usize, a: usize, b: usize) -> Cell<'_> {
    let piece = &c[a..b];
    let lead = piece.len() - piece.trim_start().len();
    let inner = piece.trim();
    let start = base + a + lead;
    Cell {
        text: inner,
        start,
        end: start + inner.len(),
    }
}

// ---------------------------------------------------------------- delimited

fn delimited_at<'a>(text: &'a str, lines: &[Line], i: usize) -> Option<(RawTable<'a>, usize)> {
    if is_blank(text, &lines[i]) {
        return None;
    }
    for delim in [b'\t', b',', b';', b'|'] {
        let first = split_delimited(text, &lines[i], delim)?;
        let width = first.len();
        if width < 2 {
            continue;
        }
        let mut rows = Grid::new(text, lines[i].start);
        if !rows.push_row(&first) {
            continue;
        }
        let mut j = i + 1;
        while j < lines.len() && rows.len() < MAX_ROWS {
            if is_blank(text, &lines[j]) || content(text, &lines[j]).trim_start().starts_with('|') {
                break;
            }
            match split_delimited(text, &lines[j], delim) {
                Some(cells) if cells.len() == width && rows.push_row(&cells) => {}
                _ => break,
            }
            j += 1;
        }
        if rows.len() < 2 {
            continue;
        }
        let kind = match delim {
            b'\t' => TableKind::Tsv,
            _ => TableKind::Csv,
        };
        let header = if looks_like_header(&rows) {
            Some(rows.take_first())
        } else {
            None
        };
        rows.shrink_to_fit();
        return Some((
            RawTable {
                kind,
                header,
                rows,
                start: lines[i].start,
                end: lines[j - 1].end,
                lines: Vec::new(),
            },
            j,
        ));
    }
    None
}

/// Lines that open with a shell or REPL prompt end a fixed-width block:
/// they are the commands around the output, not rows of it.
const PROMPTS: &[&str] = &[">>> ", "... ", "$ ", "# ", "> ", "In [", "Out["];

/// Lines of a log or of prose dropped from the end of a space-aligned block.
const FIXED_TRAILING_LINES: usize = 3;

/// Start lines tried in one block of lines that is no fixed-width table.
const FIXED_TRIES: usize = 3;

/// Longest line of a fixed-width block, in characters.
const FIXED_MAX_LINE: usize = 400;

/// Most lines of a fixed-width block (its gutters are found over all of
/// them at once).
const FIXED_MAX_LINES: usize = 20_000;

/// A dashed rule under a fixed-width header (`----  -----`, `====`).
pub(crate) fn is_dash_rule(t: &str) -> bool {
    let t = t.trim();
    t.len() >= 3
        && (t.contains("---") || t.contains("==="))
        && t.bytes().all(|b| matches!(b, b'-' | b'=' | b' ' | b'+'))
}

/// A block of space-aligned columns (`column -t`, a printed data frame, R's
/// `addmargins`, a report tool's listing): at least three lines, no tab or
/// pipe, every character narrow (a wide CJK character would shift the
/// columns), and columns split where every line has a space (a gutter of
/// two spaces, or one in blocks of four lines or more). At least two
/// columns, and one of them after the first holds counts in two thirds of
/// its rows. A dashed rule under the header is kept as a line, not a row.
///
/// Which of these tables are protected is decided later from their
/// numbers (see `process`): a listing of things has no totals.
///
/// `Err(end)`: no table starts at line `i`; the block of usable lines runs
/// to `end` (`i` when line `i` itself is not usable).
fn fixed_width_at<'a>(
    text: &'a str,
    lines: &[Line],
    i: usize,
) -> Result<(RawTable<'a>, usize), usize> {
    let narrow = |s: &str| s.chars().all(|c| (c as u32) < 0x1100 && !c.is_control());
    let usable = |l: &Line| {
        let c = content(text, l);
        !c.trim().is_empty()
            && !c.contains(['\t', '|'])
            && !PROMPTS.iter().any(|p| c.trim_start().starts_with(p))
            && c.len() <= FIXED_MAX_LINE * 4
            && c.chars().count() <= FIXED_MAX_LINE
            && narrow(c)
    };
    if !usable(&lines[i]) {
        return Err(i);
    }
    let mut j = i;
    while j < lines.len() && j - i < FIXED_MAX_LINES && usable(&lines[j]) {
        j += 1;
    }
    if !content(text, &lines[i]).trim().contains("  ") {
        return Err(j);
    }
    let block_end = j;
    // A line of a tool's log after its table (`[info] done in 0.82s`) runs
    // across the columns: it is no row (a few such lines, so that a long
    // block costs no more than a few passes).
    let mut dropped = 0;
    while j - i > 3 && dropped < FIXED_TRAILING_LINES {
        let rest: Vec<&str> = lines[i..j - 1]
            .iter()
            .map(|l| content(text, l))
            .filter(|c| !is_dash_rule(c))
            .collect();
        if rest.len() < 3 || !crosses_columns(content(text, &lines[j - 1]), &rest) {
            break;
        }
        j -= 1;
        dropped += 1;
    }
    let block = &lines[i..j];
    let rule: Vec<bool> = block
        .iter()
        .map(|l| is_dash_rule(content(text, l)))
        .collect();
    let body = rule.iter().filter(|&&r| !r).count();
    if body < 3 {
        return Err(block_end);
    }
    let gutter = gutter_of(
        block
            .iter()
            .zip(&rule)
            .filter(|(_, r)| !**r)
            .map(|(l, _)| content(text, l)),
    );
    let width = gutter.len();
    let min_gap = if body >= 4 { 1 } else { 2 };
    // Segments: runs of non-gutter columns, split at gutters wide enough.
    let mut segments: Vec<(usize, usize)> = Vec::new();
    let mut p = 0;
    while p < width {
        if gutter[p] {
            p += 1;
            continue;
        }
        let start = p;
        let mut end = p;
        loop {
            while end < width && !gutter[end] {
                end += 1;
            }
            let gap = gutter[end..].iter().take_while(|&&g| g).count();
            if end + gap >= width || gap >= min_gap {
                break;
            }
            end += gap;
        }
        segments.push((start, end));
        p = end;
    }
    if segments.len() < 2 {
        return Err(block_end);
    }
    let mut grid = Grid::new(text, lines[i].start);
    let mut spans = Vec::with_capacity(block.len());
    let mut bounds = Vec::with_capacity(2 * segments.len());
    for (l, is_rule) in block.iter().zip(&rule) {
        spans.push((l.content, l.end));
        if *is_rule {
            continue;
        }
        let line = content(text, l);
        // The byte offset of every segment bound on this line.
        bounds.clear();
        let mut chars = line.char_indices().map(|(b, _)| b).enumerate();
        for &(a, b) in &segments {
            for col in [a, b] {
                let at = chars
                    .by_ref()
                    .find(|&(k, _)| k == col)
                    .map_or(line.len(), |(_, byte)| byte);
                bounds.push(at);
            }
        }
        let byte_at = |k: usize| bounds.get(k).copied().unwrap_or(line.len());
        let cells: Vec<Cell<'a>> = (0..segments.len())
            .map(|k| trimmed_cell(line, l.content, byte_at(2 * k), byte_at(2 * k + 1)))
            .collect();
        if !grid.push_row(&cells) {
            return Err(block_end);
        }
    }
    let header = if looks_like_header(&grid) {
        Some(grid.take_first())
    } else {
        None
    };
    let counted = (1..segments.len()).any(|c| {
        let filled = grid.iter().filter(|r| !r.text(c).is_empty()).count();
        let counts = grid
            .iter()
            .filter(|r| {
                super::model::parse_count(r.text(c)).is_some() || r.text(c) == super::MARKER
            })
            .count();
        filled >= 2 && counts * 3 >= grid.len() * 2
    });
    if !counted {
        return Err(block_end);
    }
    grid.shrink_to_fit();
    Ok((
        RawTable {
            kind: TableKind::FixedWidth,
            header,
            rows: grid,
            start: lines[i].start,
            end: lines[j - 1].end,
            lines: spans,
        },
        j,
    ))
}

/// Columns of spaces (or past a line's end) on every line: the gutters.
fn gutter_of<'l>(lines: impl Iterator<Item = &'l str>) -> Vec<bool> {
    let mut gutter: Vec<bool> = Vec::new();
    for line in lines {
        for (k, ch) in line.chars().enumerate() {
            if k >= gutter.len() {
                gutter.push(true);
            }
            if ch != ' ' {
                gutter[k] = false;
            }
        }
    }
    gutter
}

/// Whether `line` writes into a gutter of `rest` (at least two spaces wide,
/// between two columns of text) and holds no whole number: a line of prose
/// or of a log (`[info] done in 0.82s`) beside an aligned table, not a row
/// of it, whose cells keep to the columns (a padded label never reaches
/// the next column, and a row of counts holds numbers).
///
/// ```text
/// "[info] done in 0.82s" under "Cottis Hill   26   4" → true
/// "all sites            66" under the same             → false
/// ```
pub(crate) fn crosses_columns(line: &str, rest: &[&str]) -> bool {
    if line
        .split_whitespace()
        .any(|w| super::model::parse_count(w).is_some())
    {
        return false;
    }
    let gutter = gutter_of(rest.iter().copied());
    let Some(first) = gutter.iter().position(|g| !g) else {
        return false;
    };
    let last = gutter.iter().rposition(|g| !g).unwrap_or(first);
    let mut k = first;
    while k < last {
        if !gutter[k] {
            k += 1;
            continue;
        }
        let run = gutter[k..last].iter().take_while(|&&g| g).count();
        if run >= 2 && line.chars().skip(k).take(run).any(|c| c != ' ') {
            return true;
        }
        k += run;
    }
    false
}

/// The first row is a header when some column holds numbers below it but not
/// in it, or when every cell of it is non-numeric.
///
/// A cell this guard hid (the default marker) counts as a number wherever it
/// stands, so a rewritten table keeps the header it had (or had none):
/// suppression stays idempotent.
fn looks_like_header(rows: &Grid<'_>) -> bool {
    let count = |s: &str| super::model::parse_number(s).is_some() || s.trim() == super::MARKER;
    if rows.is_empty() {
        return false;
    }
    let first = rows.row(0);
    if first.iter().all(|c| !count(c.text)) {
        return true;
    }
    (0..rows.width())
        .any(|c| !count(first.text(c)) && rows.iter().skip(1).all(|r| count(r.text(c))))
}

/// Split one line on `delim`, honouring `"…"` quoting (`""` is a quote).
/// `None` when a quote is left open.
fn split_delimited<'a>(text: &'a str, line: &Line, delim: u8) -> Option<Vec<Cell<'a>>> {
    let c = content(text, line);
    let base = line.content;
    let bytes = c.as_bytes();
    if !bytes.contains(&delim) {
        return Some(vec![trimmed_cell(c, base, 0, c.len())]);
    }
    let mut cells = Vec::new();
    let mut k = 0;
    loop {
        // Leading spaces before an opening quote are allowed.
        let field_start = k;
        let mut q = k;
        while q < bytes.len() && bytes[q] == b' ' {
            q += 1;
        }
        if q < bytes.len() && bytes[q] == b'"' {
            let inner_start = q + 1;
            let mut p = inner_start;
            loop {
                if p >= bytes.len() {
                    return None;
                }
                if bytes[p] == b'"' {
                    if bytes.get(p + 1) == Some(&b'"') {
                        p += 2;
                        continue;
                    }
                    break;
                }
                p += 1;
            }
            let inner_end = p;
            p += 1;
            while p < bytes.len() && bytes[p] == b' ' {
                p += 1;
            }
            if p < bytes.len() && bytes[p] != delim {
                return None;
            }
            let inner = &c[inner_start..inner_end];
            let lead = inner.len() - inner.trim_start().len();
            let trimmed = inner.trim();
            let start = base + inner_start + lead;
            let end = start + trimmed.len();
            cells.push(Cell {
                text: trimmed,
                start,
                end,
            });
            if p >= bytes.len() {
                break;
            }
            k = p + 1;
        } else {
            let mut p = field_start;
            while p < bytes.len() && bytes[p] != delim {
                p += 1;
            }
            cells.push(trimmed_cell(c, base, field_start, p));
            if p >= bytes.len() {
                break;
            }
            k = p + 1;
        }
    }
    Some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &RawTable<'_>) -> Vec<Vec<String>> {
        t.rows
            .iter()
            .map(|r| r.iter().map(|c| c.text.to_string()).collect())
            .collect()
    }

    #[test]
    fn lines_that_cross_the_columns() {
        let rest = [
            "site          remission    partial",
            "Aldermoor            31         12",
            "Cottis Hill          26          4",
        ];
        for line in ["[info] done in 0.82s", "Ç = çeyrek, İY = ilk yarıyıl."] {
            assert!(crosses_columns(line, &rest), "{line}");
        }
        for line in [
            "all sites            66         31",
            "Unknown",
            "Drumlin Ferry  in 2026  9",
            "(3 rows)",
        ] {
            assert!(!crosses_columns(line, &rest), "{line}");
        }
    }

    #[test]
    fn markdown_with_and_without_edges() {
        let text = "intro\n| Region | A | B |\n|---|:-:|--:|\n| North | 3 | 12 |\n| South | 7 | 9 |\n\nafter";
        let t = find_tables(text);
        assert_eq!(t.len(), 1);
        assert_eq!(
            texts(&t[0]),
            vec![vec!["North", "3", "12"], vec!["South", "7", "9"]]
        );
        let c = t[0].rows.cell(0, 1);
        assert_eq!(&text[c.start..c.end], "3");
        let bare = "Region | A\n--- | ---\nNorth | 3\n";
        assert_eq!(texts(&find_tables(bare)[0]), vec![vec!["North", "3"]]);
    }

    #[test]
    fn csv_quoted_delimiters_and_cat_n() {
        let text = "     1\tregion,count,total\n     2\tNorth,\"1,232\",3\n     3\tSouth,4,\"5\"\n";
        let t = find_tables(text);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].kind, TableKind::Csv);
        assert_eq!(t[0].header.as_ref().unwrap()[0].text, "region");
        assert_eq!(
            texts(&t[0]),
            vec![vec!["North", "1,232", "3"], vec!["South", "4", "5"]]
        );
        let c = t[0].rows.cell(1, 2);
        assert_eq!(&text[c.start..c.end], "5");
    }

    /// `sqlite3` list mode and `psql -A`: pipes between fields, none at the
    /// edges, no separator line.
    #[test]
    fn pipe_separated_lines_are_a_table() {
        let text =
            "$ sqlite3 auth.db 'select user, failures from lockouts'\nuser|failures\nmh|7\nak|3\n";
        let t = find_tables(text);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].header.as_ref().unwrap()[1].text, "failures");
        assert_eq!(texts(&t[0]), vec![vec!["mh", "7"], vec!["ak", "3"]]);
        // A pipeline is a line, not a table.
        assert!(find_tables("$ ps aux | grep node\n").is_empty());
    }

    #[test]
    fn tsv_is_not_mistaken_for_cat_n() {
        let text = "id\tn\n1\t3\n2\t4\n";
        let t = find_tables(text);
        assert_eq!(t[0].kind, TableKind::Tsv);
        assert_eq!(texts(&t[0]), vec![vec!["1", "3"], vec!["2", "4"]]);
    }

    #[test]
    fn prose_with_one_comma_per_line_is_a_block_without_numbers() {
        let t = find_tables("Hello, world\nGoodbye, moon\n");
        // Found as a block, but the model layer finds no count column in it.
        assert!(t.len() <= 1);
    }

    /// Found by the `egress_table_audit` fuzz target: the header was lost
    /// once the cell under it was hidden, so a second pass hid the header.
    #[test]
    fn fuzz_header_flip_is_idempotent() {
        use super::super::{scan, TableOptions};
        let options = TableOptions::default();
        let once = scan(";2\n3;", &options);
        let twice = scan(&once.text, &options);
        assert_eq!(once.text, twice.text);
        assert_eq!(once.text, ";2\n[suppressed];");
    }

    /// Found by the same target: a hidden cell in a headerless table's first
    /// row made that row look like a header on the second pass, which then
    /// read the label column below it as counts.
    #[test]
    fn fuzz_hidden_first_row_cell_is_not_a_header() {
        use super::super::{scan, TableOptions};
        let options = TableOptions::default();
        let once = scan(";;\n0!;01\n;00\n02;", &options);
        let twice = scan(&once.text, &options);
        assert_eq!(once.text, twice.text);
        assert_eq!(once.text, ";;\n0!;[suppressed]\n;00\n02;");
    }

    /// Found by the same target: hiding a `;`-table cell that held tabs
    /// changed how the line split on tabs, so a second pass found a
    /// different (tab) table above it.
    #[test]
    fn fuzz_cell_with_tabs_is_not_replaced() {
        use super::super::{scan, TableOptions};
        let options = TableOptions::default();
        let text = "[ ;\n1\t!\0;\n2\t\x006\t\n<\0 ]<\0\t\t\0\0\0\t\0[\t[\t%\0\t\t%\t;4\t\n\r\0\0\t\0[\t[\t%\0\t\t%\t;4\t\n\r";
        let once = scan(text, &options);
        let twice = scan(&once.text, &options);
        assert_eq!(once.text, twice.text);
    }
}
