//! Timezone-aware timestamps: RFC 3339 parsing into an instant.
//!
//! The ledger orders events by the instant a timestamp denotes, never by its
//! string: `2026-05-18T10:00:00+08:00` sorts before `2026-05-18T03:00:00Z`.
//! A timestamp without a UTC offset is refused, because its instant is unknown.

use std::cmp::Ordering;
use std::fmt;

/// A point in time parsed from an RFC 3339 timestamp, kept with its original
/// text. Ordering and equality use the instant only.
///
/// ```
/// use palisade_closure::time::Timestamp;
/// let a = Timestamp::parse("2026-05-18T10:00:00+08:00").unwrap();
/// let b = Timestamp::parse("2026-05-18T03:00:00Z").unwrap();
/// assert!(a < b);
/// assert_eq!(a.to_utc_string(), "2026-05-18T02:00:00Z");
/// assert!(Timestamp::parse("2026-05-18T10:00:00").is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Timestamp {
    /// Seconds since the Unix epoch, UTC.
    secs: i64,
    /// Nanoseconds within the second.
    nanos: u32,
    /// The offset the timestamp was written with, in seconds east of UTC.
    offset: i32,
}

/// Why a timestamp was refused.
#[derive(Clone, Debug, Eq, PartialEq, thiserror::Error)]
#[error("invalid timestamp {text:?}: {why}")]
pub struct TimestampError {
    text: String,
    why: &'static str,
}

impl Timestamp {
    /// Parse `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. A space may stand for
    /// `T`, and `z`/`t` are accepted in lower case. The offset is required.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// assert!(Timestamp::parse("2026-05-16T00:00:00.250Z").is_ok());
    /// assert!(Timestamp::parse("2026-02-30T00:00:00Z").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Timestamp, TimestampError> {
        let err = |why| TimestampError {
            text: text.chars().take(64).collect(),
            why,
        };
        let b = text.trim().as_bytes();
        if b.len() < 20 || b.len() > 40 {
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
            return Err(err("missing 'T'"));
        }
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 60
        {
            return Err(err("field out of range"));
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
                    return Err(err("bad offset"));
                }
                // Bounded by the checks above: at most 23*3600+59*60.
                let total = (oh * 3600 + om * 60) as i32;
                if sign == b'-' {
                    -total
                } else {
                    total
                }
            }
            None => return Err(err("missing UTC offset")),
            _ => return Err(err("bad offset")),
        };
        let days = days_from_civil(year, month, day);
        let local = days * 86_400 + hour * 3600 + minute * 60 + second.min(59);
        Ok(Timestamp {
            secs: local - i64::from(offset),
            nanos,
            offset,
        })
    }

    /// A timestamp from Unix seconds (UTC).
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// assert_eq!(Timestamp::from_unix(0).to_utc_string(), "1970-01-01T00:00:00Z");
    /// ```
    pub fn from_unix(secs: i64) -> Timestamp {
        Timestamp {
            secs,
            nanos: 0,
            offset: 0,
        }
    }

    /// Seconds since the Unix epoch.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// assert_eq!(Timestamp::parse("1970-01-01T08:00:01+08:00").unwrap().unix_seconds(), 1);
    /// ```
    pub fn unix_seconds(&self) -> i64 {
        self.secs
    }

    /// Nanoseconds within the second.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// assert_eq!(Timestamp::parse("2026-01-01T00:00:00.5Z").unwrap().subsec_nanos(), 500_000_000);
    /// ```
    pub fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// The UTC offset the timestamp was written with, in seconds east of UTC.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// assert_eq!(Timestamp::parse("2026-05-18T01:00:00+08:00").unwrap().offset_seconds(), 28_800);
    /// ```
    pub fn offset_seconds(&self) -> i32 {
        self.offset
    }

    /// The calendar day number (days since 1970-01-01) of this instant as
    /// seen at `offset_seconds` east of UTC.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-17T20:00:00Z").unwrap();
    /// assert_eq!(t.day_at_offset(8 * 3600), t.day_at_offset(0) + 1);
    /// ```
    pub fn day_at_offset(&self, offset_seconds: i32) -> i64 {
        (self.secs + i64::from(offset_seconds)).div_euclid(86_400)
    }

    /// The same instant shifted by `secs` seconds.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-16T00:00:00Z").unwrap().add_seconds(86_400);
    /// assert_eq!(t.to_utc_string(), "2026-05-17T00:00:00Z");
    /// ```
    pub fn add_seconds(&self, secs: i64) -> Timestamp {
        Timestamp {
            secs: self.secs.saturating_add(secs),
            nanos: self.nanos,
            offset: self.offset,
        }
    }

    /// The local calendar day (`YYYY-MM-DD`) in the timestamp's own offset.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// assert_eq!(Timestamp::parse("2026-05-18T01:00:00+08:00").unwrap().local_day(), "2026-05-18");
    /// ```
    pub fn local_day(&self) -> String {
        let (y, m, d) = civil_from_days((self.secs + i64::from(self.offset)).div_euclid(86_400));
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// The instant in canonical UTC form, with a fraction only when non-zero.
    /// This is the form hashed into event ids, so equal instants give equal ids
    /// however they were written.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// let t = Timestamp::parse("2026-05-18T10:29:48.120+08:00").unwrap();
    /// assert_eq!(t.to_utc_string(), "2026-05-18T02:29:48.12Z");
    /// ```
    pub fn to_utc_string(&self) -> String {
        let mut out = String::with_capacity(32);
        self.write_utc(&mut out);
        out
    }

    /// Replace the contents of `out` with [`Timestamp::to_utc_string`],
    /// reusing its buffer.
    ///
    /// ```
    /// use palisade_closure::time::Timestamp;
    /// let mut s = String::from("old");
    /// Timestamp::from_unix(86_400).write_utc(&mut s);
    /// assert_eq!(s, "1970-01-02T00:00:00Z");
    /// ```
    pub fn write_utc(&self, out: &mut String) {
        // Hand-rolled: this runs once per ledger event, and `format!` is
        // several times slower.
        out.clear();
        let days = self.secs.div_euclid(86_400);
        let rem = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        if (0..=9999).contains(&y) {
            push_digits(out, y, 4);
        } else {
            out.push_str(&y.to_string());
        }
        out.push('-');
        push_digits(out, m, 2);
        out.push('-');
        push_digits(out, d, 2);
        out.push('T');
        push_digits(out, rem / 3600, 2);
        out.push(':');
        push_digits(out, (rem / 60) % 60, 2);
        out.push(':');
        push_digits(out, rem % 60, 2);
        if self.nanos != 0 {
            let mut frac = self.nanos;
            let mut width = 9;
            while frac % 10 == 0 {
                frac /= 10;
                width -= 1;
            }
            out.push('.');
            push_digits(out, i64::from(frac), width);
        }
        out.push('Z');
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_utc_string())
    }
}

/// Append `v` zero-padded to `width` digits (`v` is non-negative here).
fn push_digits(out: &mut String, v: i64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut v = v.unsigned_abs();
    let mut i = buf.len();
    while v > 0 && i > 0 {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    let start = (buf.len() - width.min(buf.len())).min(i);
    for &b in &buf[start..] {
        out.push(char::from(b));
    }
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

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

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

    #[test]
    fn offsets_order_by_instant() {
        let a = Timestamp::parse("2026-05-18T10:29:48+08:00").unwrap();
        let b = Timestamp::parse("2026-05-18T02:29:48Z").unwrap();
        assert_eq!(a, b);
        let c = Timestamp::parse("2026-05-17T23:00:00-05:00").unwrap();
        assert!(c > a);
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        for s in [
            "",
            "x",
            "2026-13-01T00:00:00Z",
            "2026-05-18T24:00:00Z",
            "2026-05-18T00:00:00+0800",
            "2026-05-18T00:00:00.Z",
            "２０２６-05-18T00:00:00Z",
            "2026-05-18T00:00:00+08:00trailing",
        ] {
            assert!(Timestamp::parse(s).is_err(), "{s}");
        }
    }

    #[test]
    fn civil_roundtrip() {
        for days in [-800_000i64, -1, 0, 1, 19_000, 20_590, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
