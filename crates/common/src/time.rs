//! Timezone-aware timestamps: RFC 3339 in, canonical UTC out, no clock.
//!
//! [`Timestamp`] is an instant (Unix seconds plus nanoseconds) together with
//! the UTC offset it was written with. Ordering, equality and hashing use the
//! instant only, so `2026-05-18T10:00:00+08:00` sorts before
//! `2026-05-18T03:00:00Z`, and two spellings of one instant are equal.
//!
//! This module never reads the clock: the caller passes "now" in (the
//! bindings crate is the one place that reads the system time).
//!
//! Calendar arithmetic is proleptic Gregorian with Howard Hinnant's
//! `days_from_civil` / `civil_from_days` algorithms; a leap second (`:60`)
//! is accepted and read as `:59`, as most timestamp libraries do.
//!
//! ```
//! use palisade_common::time::Timestamp;
//!
//! let a = Timestamp::parse("2026-05-18T10:00:00+08:00").unwrap();
//! let b = Timestamp::parse("2026-05-18T03:00:00Z").unwrap();
//! assert!(a < b);
//! assert_eq!(a.to_utc_string(), "2026-05-18T02:00:00Z");
//! assert_eq!(b.seconds_since(&a), 3600);
//! // Without an offset the instant is unknown: refused by `parse`.
//! assert!(Timestamp::parse("2026-05-18T10:00:00").is_err());
//! ```

use std::cmp::Ordering;
use std::fmt;

/// Seconds in a day.
pub const SECS_PER_DAY: i64 = 86_400;

/// A point in time: Unix seconds, nanoseconds within the second, and the UTC
/// offset it was written with. Ordering, equality and hashing use the
/// instant only (the offset is presentation).
///
/// `Default` is the Unix epoch.
///
/// ```
/// use palisade_common::time::Timestamp;
/// let a = Timestamp::parse("2026-05-18T10:29:48.5+08:00").unwrap();
/// let b = Timestamp::parse("2026-05-18T02:29:48.500Z").unwrap();
/// assert_eq!(a, b);
/// assert_eq!(a.offset_seconds(), 8 * 3600);
/// assert_eq!(Timestamp::default().unix_seconds(), 0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Timestamp {
    /// Seconds since the Unix epoch, UTC.
    secs: i64,
    /// Nanoseconds within the second, `< 1_000_000_000`.
    nanos: u32,
    /// The offset the timestamp was written with, in seconds east of UTC.
    offset: i32,
}

/// Why a timestamp was refused: the (truncated) text and the reason.
///
/// ```
/// use palisade_common::time::Timestamp;
/// let e = Timestamp::parse("2026-02-30T00:00:00Z").unwrap_err();
/// assert_eq!(e.reason(), "day out of range");
/// assert!(e.to_string().contains("2026-02-30"));
/// ```
#[derive(Clone, Debug, Eq, PartialEq, thiserror::Error)]
#[error("invalid timestamp {text:?}: {why}")]
pub struct TimestampError {
    text: String,
    why: &'static str,
}

impl TimestampError {
    /// The reason, in a few lowercase words (for example `"missing utc offset"`).
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::parse("yesterday").unwrap_err().reason(), "wrong length");
    /// ```
    pub fn reason(&self) -> &'static str {
        self.why
    }
}

/// Whether a missing UTC offset is an error or means UTC.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OffsetRule {
    Required,
    DefaultUtc,
}

impl Timestamp {
    /// Parse RFC 3339: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. A space may
    /// stand for `T`, and `z`/`t` are accepted in lower case; surrounding
    /// whitespace is ignored. The offset is required, because without it the
    /// instant is unknown. Fractions beyond nanoseconds are truncated.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::parse("2026-05-16T00:00:00.25Z").unwrap().subsec_nanos(), 250_000_000);
    /// assert_eq!(Timestamp::parse("2024-02-29 12:00:00-05:00").unwrap().to_utc_string(), "2024-02-29T17:00:00Z");
    /// assert!(Timestamp::parse("2026-02-29T00:00:00Z").is_err()); // not a leap year
    /// assert!(Timestamp::parse("2026-05-18T00:00:00+0800").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Timestamp, TimestampError> {
        parse_with(text, OffsetRule::Required)
    }

    /// Like [`Timestamp::parse`], but a timestamp without an offset is read
    /// as UTC (for logs written by tools that omit it, e.g. Python's
    /// `datetime.utcnow().isoformat()`). Everything else is as strict.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let t = Timestamp::parse_assume_utc("2026-05-18T10:00:00.123456").unwrap();
    /// assert_eq!(t.to_utc_string(), "2026-05-18T10:00:00.123456Z");
    /// assert!(Timestamp::parse_assume_utc("2026-05-18T25:00:00").is_err());
    /// ```
    pub fn parse_assume_utc(text: &str) -> Result<Timestamp, TimestampError> {
        parse_with(text, OffsetRule::DefaultUtc)
    }

    /// A timestamp from Unix seconds (UTC).
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::from_unix(0).to_utc_string(), "1970-01-01T00:00:00Z");
    /// assert_eq!(Timestamp::from_unix(-1).to_utc_string(), "1969-12-31T23:59:59Z");
    /// ```
    pub fn from_unix(secs: i64) -> Timestamp {
        Timestamp {
            secs,
            nanos: 0,
            offset: 0,
        }
    }

    /// A timestamp from Unix milliseconds (UTC); negative values count back
    /// from the epoch.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::from_unix_millis(1_500).to_utc_string(), "1970-01-01T00:00:01.5Z");
    /// assert_eq!(Timestamp::from_unix_millis(-1).to_utc_string(), "1969-12-31T23:59:59.999Z");
    /// ```
    pub fn from_unix_millis(millis: i64) -> Timestamp {
        Timestamp {
            secs: millis.div_euclid(1000),
            // In 0..1000 by rem_euclid, so the product is < 1e9 and fits.
            nanos: (millis.rem_euclid(1000) as u32) * 1_000_000,
            offset: 0,
        }
    }

    /// Seconds since the Unix epoch (rounded down).
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::parse("1970-01-01T08:00:01.9+08:00").unwrap().unix_seconds(), 1);
    /// ```
    pub fn unix_seconds(&self) -> i64 {
        self.secs
    }

    /// Milliseconds since the Unix epoch (rounded down, saturating).
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::parse("1970-01-01T00:00:02.0459Z").unwrap().unix_millis(), 2045);
    /// ```
    pub fn unix_millis(&self) -> i64 {
        self.secs
            .saturating_mul(1000)
            .saturating_add(i64::from(self.nanos / 1_000_000))
    }

    /// Nanoseconds within the second.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::parse("2026-01-01T00:00:00.5Z").unwrap().subsec_nanos(), 500_000_000);
    /// ```
    pub fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// The UTC offset the timestamp was written with, in seconds east of UTC.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::parse("2026-05-18T01:00:00-03:30").unwrap().offset_seconds(), -12_600);
    /// ```
    pub fn offset_seconds(&self) -> i32 {
        self.offset
    }

    /// The same instant, whole seconds only, written in UTC (fraction and
    /// offset dropped). Useful where storage keeps second resolution.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-18T10:00:00.75+08:00").unwrap().whole_seconds();
    /// assert_eq!(t, Timestamp::parse("2026-05-18T02:00:00Z").unwrap());
    /// assert_eq!(t.offset_seconds(), 0);
    /// ```
    pub fn whole_seconds(&self) -> Timestamp {
        Timestamp::from_unix(self.secs)
    }

    /// The same instant shifted by `secs` seconds (saturating).
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-16T00:00:00Z").unwrap().add_seconds(86_400);
    /// assert_eq!(t.to_utc_string(), "2026-05-17T00:00:00Z");
    /// ```
    pub fn add_seconds(&self, secs: i64) -> Timestamp {
        Timestamp {
            secs: self.secs.saturating_add(secs),
            ..*self
        }
    }

    /// The same instant shifted by `days` whole days of 86 400 s (saturating;
    /// negative goes back).
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let t = Timestamp::parse("2024-02-28T12:00:00Z").unwrap();
    /// assert_eq!(t.add_days(1).utc_date(), "2024-02-29");
    /// assert_eq!(t.add_days(2).utc_date(), "2024-03-01");
    /// assert_eq!(t.add_days(-59).utc_date(), "2023-12-31");
    /// ```
    pub fn add_days(&self, days: i64) -> Timestamp {
        self.add_seconds(days.saturating_mul(SECS_PER_DAY))
    }

    /// Whole seconds from `earlier` to `self` (negative when `self` is
    /// earlier; saturating). Fractions are compared too, so the result is
    /// rounded toward negative infinity.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let a = Timestamp::parse("2026-05-16T00:00:00Z").unwrap();
    /// let b = Timestamp::parse("2026-05-16T09:00:01+08:00").unwrap();
    /// assert_eq!(b.seconds_since(&a), 3601);
    /// assert_eq!(a.seconds_since(&b), -3601);
    /// ```
    pub fn seconds_since(&self, earlier: &Timestamp) -> i64 {
        let d = self.secs.saturating_sub(earlier.secs);
        if self.nanos < earlier.nanos {
            d.saturating_sub(1)
        } else {
            d
        }
    }

    /// The calendar day number (days since 1970-01-01) of this instant as
    /// seen at `offset_seconds` east of UTC.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-17T20:00:00Z").unwrap();
    /// assert_eq!(t.day_at_offset(8 * 3600), t.day_at_offset(0) + 1);
    /// ```
    pub fn day_at_offset(&self, offset_seconds: i32) -> i64 {
        self.secs
            .saturating_add(i64::from(offset_seconds))
            .div_euclid(SECS_PER_DAY)
    }

    /// The calendar day (`YYYY-MM-DD`) in the timestamp's own offset.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-18T01:00:00+08:00").unwrap();
    /// assert_eq!(t.local_day(), "2026-05-18");
    /// assert_eq!(t.utc_date(), "2026-05-17");
    /// ```
    pub fn local_day(&self) -> String {
        format_date(self.day_at_offset(self.offset))
    }

    /// The UTC calendar day as `YYYY-MM-DD`.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// assert_eq!(Timestamp::from_unix(0).utc_date(), "1970-01-01");
    /// assert_eq!(Timestamp::from_unix(951_782_400).utc_date(), "2000-02-29");
    /// ```
    pub fn utc_date(&self) -> String {
        format_date(self.day_at_offset(0))
    }

    /// The instant in canonical UTC RFC 3339 form, with a fraction only when
    /// it is non-zero (trailing zeros dropped). Equal instants give equal
    /// strings however they were written, so this is the form to hash.
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-18T10:29:48.120+08:00").unwrap();
    /// assert_eq!(t.to_utc_string(), "2026-05-18T02:29:48.12Z");
    /// ```
    pub fn to_utc_string(&self) -> String {
        let mut out = String::with_capacity(32);
        self.write_utc(&mut out);
        out
    }

    /// Replace the contents of `out` with [`Timestamp::to_utc_string`],
    /// reusing its buffer (no allocation once it has grown).
    ///
    /// ```
    /// use palisade_common::time::Timestamp;
    /// let mut s = String::from("old");
    /// Timestamp::from_unix(86_400).write_utc(&mut s);
    /// assert_eq!(s, "1970-01-02T00:00:00Z");
    /// ```
    pub fn write_utc(&self, out: &mut String) {
        out.clear();
        let mut buf = [0u8; 48];
        let n = self.utc_bytes(&mut buf);
        match std::str::from_utf8(&buf[..n]) {
            Ok(text) => out.push_str(text),
            // Unreachable: `utc_bytes` writes ASCII digits and punctuation only.
            Err(_) => out.push_str("invalid"),
        }
    }

    /// Write the canonical UTC form into `buf` as ASCII, returning its
    /// length. Hand-rolled into a stack buffer rather than `format!`: this
    /// runs once per ledger event. 48 bytes hold every `i64` instant.
    fn utc_bytes(&self, buf: &mut [u8; 48]) -> usize {
        let days = self.secs.div_euclid(SECS_PER_DAY);
        // In 0..86_400 by rem_euclid, so it fits a u32.
        let rem = self.secs.rem_euclid(SECS_PER_DAY) as u32;
        let (y, m, d) = civil_from_days(days);
        let mut w = ByteWriter { buf, len: 0 };
        match u32::try_from(y) {
            Ok(y) if y <= 9999 => {
                w.two((y / 100) as u8);
                w.two((y % 100) as u8);
            }
            _ => {
                if y < 0 {
                    w.byte(b'-');
                }
                w.digits(y.unsigned_abs(), 4);
            }
        }
        // Month, day, hour, minute and second are all below 100.
        w.byte(b'-');
        w.two(m as u8);
        w.byte(b'-');
        w.two(d as u8);
        w.byte(b'T');
        w.two((rem / 3600) as u8);
        w.byte(b':');
        w.two(((rem / 60) % 60) as u8);
        w.byte(b':');
        w.two((rem % 60) as u8);
        if self.nanos != 0 {
            let mut frac = self.nanos;
            let mut width = 9;
            while frac % 10 == 0 && width > 1 {
                frac /= 10;
                width -= 1;
            }
            w.byte(b'.');
            w.digits(u64::from(frac), width);
        }
        w.byte(b'Z');
        w.len
    }
}

/// Appends ASCII to a fixed buffer, dropping what does not fit (never
/// reached: the longest form is `-292277026596-12-04T15:30:08.999999999Z`).
struct ByteWriter<'a> {
    buf: &'a mut [u8; 48],
    len: usize,
}

impl ByteWriter<'_> {
    /// Two decimal digits of `v` (`v < 100`).
    fn two(&mut self, v: u8) {
        self.byte(b'0' + (v / 10) % 10);
        self.byte(b'0' + v % 10);
    }

    fn byte(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// `v` in decimal, zero-padded to at least `width` digits.
    fn digits(&mut self, mut v: u64, width: usize) {
        let mut tmp = [b'0'; 20];
        let mut i = tmp.len();
        while v > 0 && i > 0 {
            i -= 1;
            // A single decimal digit: `v % 10 < 10`.
            tmp[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
        let start = i.min(tmp.len() - width.min(tmp.len()));
        for &b in &tmp[start..] {
            self.byte(b);
        }
    }
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Timestamp {}
impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.secs, self.nanos).cmp(&(other.secs, other.nanos))
    }
}
impl std::hash::Hash for Timestamp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.secs, self.nanos).hash(state);
    }
}

impl fmt::Display for Timestamp {
    /// The canonical UTC form ([`Timestamp::to_utc_string`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(32);
        self.write_utc(&mut s);
        f.write_str(&s)
    }
}

impl std::str::FromStr for Timestamp {
    type Err = TimestampError;

    /// Same as [`Timestamp::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Timestamp::parse(s)
    }
}

fn parse_with(text: &str, rule: OffsetRule) -> Result<Timestamp, TimestampError> {
    let err = |why| TimestampError {
        text: text.chars().take(64).collect(),
        why,
    };
    let b = text.trim().as_bytes();
    if b.len() < 19 || b.len() > 48 {
        return Err(err("wrong length"));
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = b.get(r)?;
        if s.iter().all(u8::is_ascii_digit) {
            Some(s.iter().fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')))
        } else {
            None
        }
    };
    let year = num(0..4).ok_or_else(|| err("bad year"))?;
    let month = num(5..7).ok_or_else(|| err("bad month"))?;
    let day = num(8..10).ok_or_else(|| err("bad day"))?;
    let hour = num(11..13).ok_or_else(|| err("bad hour"))?;
    let minute = num(14..16).ok_or_else(|| err("bad minute"))?;
    let second = num(17..19).ok_or_else(|| err("bad second"))?;
    if b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return Err(err("bad separators"));
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return Err(err("missing 't' between date and time"));
    }
    if !(1..=12).contains(&month) {
        return Err(err("month out of range"));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(err("day out of range"));
    }
    if hour > 23 || minute > 59 || second > 60 {
        return Err(err("time of day out of range"));
    }
    let mut i = 19;
    let mut nanos: u32 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 9 {
                nanos = nanos * 10 + u32::from(b[i] - b'0');
            }
            i += 1;
        }
        let digits = i - start;
        if digits == 0 {
            return Err(err("empty fraction"));
        }
        for _ in digits..9 {
            nanos *= 10;
        }
    }
    let offset: i32 = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let oh = num(i + 1..i + 3).ok_or_else(|| err("bad offset"))?;
            let om = num(i + 4..i + 6).ok_or_else(|| err("bad offset"))?;
            if oh > 23 || om > 59 {
                return Err(err("offset out of range"));
            }
            // Bounded by the check above: at most 23*3600 + 59*60.
            let total = (oh * 3600 + om * 60) as i32;
            if sign == b'-' {
                -total
            } else {
                total
            }
        }
        None if rule == OffsetRule::DefaultUtc => 0,
        None => return Err(err("missing utc offset")),
        _ => return Err(err("bad offset")),
    };
    let days = days_from_civil(year, month, day);
    let local = days * SECS_PER_DAY + hour * 3600 + minute * 60 + second.min(59);
    Ok(Timestamp {
        secs: local - i64::from(offset),
        nanos,
        offset,
    })
}

fn format_date(days: i64) -> String {
    let mut s = String::with_capacity(10);
    push_date(&mut s, days);
    s
}

/// Append `YYYY-MM-DD` for a day number (years outside 0..=9999 unpadded).
fn push_date(out: &mut String, days: i64) {
    let mut buf = [0u8; 48];
    let t = Timestamp::from_unix(days.saturating_mul(SECS_PER_DAY));
    let n = t.utc_bytes(&mut buf);
    // The date is everything before the 'T'.
    let date = buf[..n].split(|&b| b == b'T').next().unwrap_or_default();
    out.push_str(std::str::from_utf8(date).unwrap_or("invalid"));
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Hinnant).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day number (Hinnant). Total for every
/// day number an `i64` of seconds can produce.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ts(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn offsets_order_by_instant() {
        let a = ts("2026-05-18T10:29:48+08:00");
        let b = ts("2026-05-18T02:29:48Z");
        assert_eq!(a, b);
        assert!(ts("2026-05-17T23:00:00-05:00") > a);
        assert_eq!(ts("2026-05-18T00:00:00-00:00"), ts("2026-05-18T00:00:00Z"));
        assert_eq!(ts("2026-05-18T05:45:00+05:45"), ts("2026-05-18T00:00:00Z"));
        assert_eq!(
            ts("2026-05-17T23:59:59-23:59").unix_seconds(),
            ts("2026-05-18T23:58:59Z").unix_seconds()
        );
    }

    #[test]
    fn leap_years() {
        for ok in [
            "2024-02-29T00:00:00Z",
            "2000-02-29T00:00:00Z",
            "1600-02-29T00:00:00Z",
            "2400-02-29T23:59:59Z",
        ] {
            assert_eq!(ts(ok).utc_date(), ok[..10], "{ok}");
        }
        for bad in [
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z",
        ] {
            assert_eq!(
                Timestamp::parse(bad).unwrap_err().reason(),
                "day out of range",
                "{bad}"
            );
        }
        assert_eq!(
            ts("2024-12-31T00:00:00Z").seconds_since(&ts("2024-01-01T00:00:00Z")),
            365 * SECS_PER_DAY
        );
        assert_eq!(
            ts("2023-12-31T00:00:00Z").seconds_since(&ts("2023-01-01T00:00:00Z")),
            364 * SECS_PER_DAY
        );
    }

    #[test]
    fn fractions() {
        assert_eq!(ts("2026-01-01T00:00:00.1Z").subsec_nanos(), 100_000_000);
        assert_eq!(ts("2026-01-01T00:00:00.000000001Z").subsec_nanos(), 1);
        // Beyond nanoseconds: truncated, not rounded.
        assert_eq!(
            ts("2026-01-01T00:00:00.1234567899Z").subsec_nanos(),
            123_456_789
        );
        assert_eq!(ts("2026-01-01T00:00:00.000Z"), ts("2026-01-01T00:00:00Z"));
        assert_eq!(
            ts("2026-01-01T00:00:00.000Z").to_utc_string(),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(
            ts("2026-01-01T00:00:00.000000001Z").to_utc_string(),
            "2026-01-01T00:00:00.000000001Z"
        );
        assert!(ts("2026-01-01T00:00:00.5Z") > ts("2026-01-01T00:00:00.49Z"));
        assert_eq!(
            ts("2026-01-01T00:00:01.2Z").seconds_since(&ts("2026-01-01T00:00:00.5Z")),
            0
        );
        assert_eq!(
            ts("2026-01-01T00:00:00.5Z").seconds_since(&ts("2026-01-01T00:00:01.2Z")),
            -1
        );
    }

    #[test]
    fn leap_second_reads_as_59() {
        assert_eq!(ts("2016-12-31T23:59:60Z"), ts("2016-12-31T23:59:59Z"));
    }

    #[test]
    fn invalid_input_errors_name_the_reason() {
        for (s, why) in [
            ("", "wrong length"),
            ("x", "wrong length"),
            ("2026-05-18", "wrong length"),
            ("2026-13-01T00:00:00Z", "month out of range"),
            ("2026-00-01T00:00:00Z", "month out of range"),
            ("2026-04-31T00:00:00Z", "day out of range"),
            ("2026-05-00T00:00:00Z", "day out of range"),
            ("2026-05-18T24:00:00Z", "time of day out of range"),
            ("2026-05-18T23:60:00Z", "time of day out of range"),
            ("2026-05-18T00:00:00+0800", "bad offset"),
            ("2026-05-18T00:00:00+24:00", "offset out of range"),
            ("2026-05-18T00:00:00+08:60", "offset out of range"),
            ("2026-05-18T00:00:00.Z", "empty fraction"),
            ("２０２６-05-18T00:00:00Z", "bad year"),
            ("2026/05/18T00:00:00Z", "bad separators"),
            ("2026-05-18X00:00:00Z", "missing 't' between date and time"),
            ("2026-05-18T00:00:00+08:00trailing", "bad offset"),
            ("2026-05-18T00:00:00", "missing utc offset"),
            ("-026-05-18T00:00:00Z", "bad year"),
        ] {
            let e = Timestamp::parse(s).expect_err(s);
            assert_eq!(e.reason(), why, "{s:?}");
            assert!(e.to_string().starts_with("invalid timestamp"), "{e}");
        }
    }

    #[test]
    fn error_text_is_bounded() {
        let long = "9".repeat(10_000);
        let e = Timestamp::parse(&long).unwrap_err();
        assert!(e.to_string().len() < 120);
    }

    #[test]
    fn assume_utc_only_relaxes_the_offset() {
        assert_eq!(
            Timestamp::parse_assume_utc("2026-05-18T10:00:00").unwrap(),
            ts("2026-05-18T10:00:00Z")
        );
        assert_eq!(
            Timestamp::parse_assume_utc("2026-05-18T10:00:00+02:00").unwrap(),
            ts("2026-05-18T08:00:00Z")
        );
        assert!(Timestamp::parse_assume_utc("2026-02-30T10:00:00").is_err());
        assert!(Timestamp::parse_assume_utc("2026-05-18T10:00:00.").is_err());
    }

    #[test]
    fn millis_and_extremes_do_not_panic() {
        let t = Timestamp::from_unix_millis(1_780_000_000_123);
        assert_eq!(t.unix_millis(), 1_780_000_000_123);
        for secs in [i64::MIN, i64::MIN + 1, -1, 0, i64::MAX] {
            let t = Timestamp::from_unix(secs);
            let _ = t.to_utc_string();
            let _ = t.local_day();
            let _ = t.unix_millis();
            let _ = t.add_days(i64::MAX).add_days(i64::MIN);
            let _ = t.seconds_since(&Timestamp::from_unix(-secs.saturating_add(1)));
        }
    }

    #[test]
    fn civil_roundtrip() {
        for days in [-800_000i64, -1, 0, 1, 19_000, 20_590, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Formatting then parsing gives the same instant (years 0000..=9999).
        #[test]
        fn utc_string_roundtrips(secs in -62_167_219_200i64..253_402_300_799i64, nanos in 0u32..1_000_000_000) {
            let t = Timestamp { secs, nanos, offset: 0 };
            let back = Timestamp::parse(&t.to_utc_string()).unwrap();
            prop_assert_eq!(back, t);
            prop_assert_eq!(back.subsec_nanos(), nanos);
        }

        /// Writing the same instant in any offset parses to the same instant.
        #[test]
        fn any_offset_same_instant(secs in 0i64..4_000_000_000i64, off_min in -1439i32..=1439i32) {
            let off = off_min * 60;
            let local = secs + i64::from(off);
            let (y, m, d) = civil_from_days(local.div_euclid(SECS_PER_DAY));
            let r = local.rem_euclid(SECS_PER_DAY);
            let sign = if off < 0 { '-' } else { '+' };
            let a = off.abs();
            let s = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
                r / 3600, (r / 60) % 60, r % 60, a / 3600, (a / 60) % 60
            );
            let t = Timestamp::parse(&s).unwrap();
            prop_assert_eq!(t.unix_seconds(), secs);
            prop_assert_eq!(t.offset_seconds(), off);
            prop_assert_eq!(t.local_day(), format!("{y:04}-{m:02}-{d:02}"));
        }

        /// Parsing never panics on arbitrary text.
        #[test]
        fn parse_is_total(s in "\\PC{0,48}") {
            let _ = Timestamp::parse(&s);
            let _ = Timestamp::parse_assume_utc(&s);
        }
    }
}
