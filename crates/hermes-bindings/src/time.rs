//! Timestamps for evidence rows: UTC, second resolution, RFC 3339 text.
//!
//! The clock is read in one place ([`Timestamp::now`]); everything else takes
//! a [`Timestamp`] argument so tests can pin time.

use std::fmt;

/// Seconds since the Unix epoch, UTC.
///
/// ```
/// use palisade_hermes::Timestamp;
/// let t = Timestamp::from_unix(1_780_000_000);
/// assert_eq!(t.to_string(), "2026-05-28T20:26:40Z");
/// assert_eq!(Timestamp::parse("2026-05-28T20:26:40Z"), Some(t));
/// assert_eq!(Timestamp::parse("2026-05-28T20:26:40.123+00:00"), Some(t));
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The current time from the system clock (0 if the clock is before 1970).
    ///
    /// ```
    /// assert!(palisade_hermes::Timestamp::now().unix() > 1_700_000_000);
    /// ```
    pub fn now() -> Timestamp {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Timestamp(i64::try_from(secs).unwrap_or(i64::MAX))
    }

    /// A timestamp from Unix seconds.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Timestamp::from_unix(0).to_string(), "1970-01-01T00:00:00Z");
    /// ```
    pub fn from_unix(secs: i64) -> Timestamp {
        Timestamp(secs)
    }

    /// Unix seconds.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Timestamp::from_unix(5).unix(), 5);
    /// ```
    pub fn unix(self) -> i64 {
        self.0
    }

    /// This time minus `days` whole days (saturating).
    ///
    /// ```
    /// use palisade_hermes::Timestamp;
    /// assert_eq!(Timestamp::from_unix(86_400).minus_days(1).unix(), 0);
    /// ```
    pub fn minus_days(self, days: u64) -> Timestamp {
        let secs = i64::try_from(days.saturating_mul(86_400)).unwrap_or(i64::MAX);
        Timestamp(self.0.saturating_sub(secs))
    }

    /// The UTC date as `YYYY-MM-DD`.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Timestamp::from_unix(0).date(), "1970-01-01");
    /// ```
    pub fn date(self) -> String {
        let (y, m, d) = civil_from_days(self.0.div_euclid(86_400));
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// Parse RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`), also with a
    /// space instead of `T`. Returns `None` for anything else.
    ///
    /// ```
    /// use palisade_hermes::Timestamp;
    /// assert_eq!(Timestamp::parse("1970-01-01T01:00:00+01:00").map(Timestamp::unix), Some(0));
    /// assert_eq!(Timestamp::parse("yesterday"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Timestamp> {
        let b = text.trim().as_bytes();
        if b.len() < 19 {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let s = std::str::from_utf8(b.get(r)?).ok()?;
            if !s.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            s.parse().ok()
        };
        if b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b' ' || b[10] == b't') {
            return None;
        }
        if b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
            return None;
        }
        let mut rest = &b[19..];
        if rest.first() == Some(&b'.') {
            let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            rest = &rest[1 + digits..];
        }
        let offset = match rest {
            [] | [b'Z'] | [b'z'] => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let digit = |c: &u8| c.is_ascii_digit().then(|| i64::from(c - b'0'));
                let oh = digit(h1)? * 10 + digit(h2)?;
                let om = digit(m1)? * 10 + digit(m2)?;
                let off = oh * 3600 + om * 60;
                if *sign == b'+' {
                    off
                } else {
                    -off
                }
            }
            _ => return None,
        };
        let days = days_from_civil(y, mo, d);
        Some(Timestamp(days * 86_400 + h * 3600 + mi * 60 + s - offset))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            (secs / 60) % 60,
            secs % 60
        )
    }
}

// Howard Hinnant's civil-calendar algorithms (public domain description).
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
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn display_parse_roundtrip(secs in -10_000_000_000i64..100_000_000_000i64) {
            let t = Timestamp::from_unix(secs);
            if secs >= -62_135_596_800 {
                prop_assert_eq!(Timestamp::parse(&t.to_string()), Some(t));
            }
        }
    }

    #[test]
    fn leap_day() {
        assert_eq!(
            Timestamp::parse("2024-02-29T12:00:00Z").unwrap().date(),
            "2024-02-29"
        );
    }
}
