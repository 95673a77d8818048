//! Timestamps for evidence rows: UTC, second resolution, RFC 3339 text.
//!
//! A thin adapter over [`palisade_common::time::Timestamp`], which does all
//! parsing, formatting and calendar arithmetic. What this crate adds is the
//! one clock read ([`Timestamp::now`]) and second resolution: rows here are
//! stamped to the second, so a parsed fraction and offset are dropped.
//! Everything else takes a [`Timestamp`] argument so tests can pin time.

use palisade_common::time::Timestamp as Instant;
use std::fmt;

/// Seconds since the Unix epoch, UTC.
///
/// Converts losslessly into [`palisade_common::time::Timestamp`] (the type
/// the pure guard crates take), and back at second resolution.
///
/// ```
/// use palisade_hermes::Timestamp;
/// let t = Timestamp::from_unix(1_780_000_000);
/// assert_eq!(t.to_string(), "2026-05-28T20:26:40Z");
/// assert_eq!(Timestamp::parse("2026-05-28T20:26:40Z"), Some(t));
/// assert_eq!(Timestamp::parse("2026-05-28T20:26:40.123+00:00"), Some(t));
/// let common: palisade_common::time::Timestamp = t.into();
/// assert_eq!(common.unix_seconds(), t.unix());
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub struct Timestamp(Instant);

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
        Timestamp::from_unix(i64::try_from(secs).unwrap_or(i64::MAX))
    }

    /// A timestamp from Unix seconds.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Timestamp::from_unix(0).to_string(), "1970-01-01T00:00:00Z");
    /// ```
    pub fn from_unix(secs: i64) -> Timestamp {
        Timestamp(Instant::from_unix(secs))
    }

    /// Unix seconds.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Timestamp::from_unix(5).unix(), 5);
    /// ```
    pub fn unix(self) -> i64 {
        self.0.unix_seconds()
    }

    /// This time minus `days` whole days (saturating).
    ///
    /// ```
    /// use palisade_hermes::Timestamp;
    /// assert_eq!(Timestamp::from_unix(86_400).minus_days(1).unix(), 0);
    /// ```
    pub fn minus_days(self, days: u64) -> Timestamp {
        let days = i64::try_from(days).unwrap_or(i64::MAX);
        Timestamp(self.0.add_days(days.saturating_neg()))
    }

    /// The UTC date as `YYYY-MM-DD`.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Timestamp::from_unix(0).date(), "1970-01-01");
    /// ```
    pub fn date(self) -> String {
        self.0.utc_date()
    }

    /// Parse RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`), also with a
    /// space instead of `T`; a timestamp without an offset is read as UTC
    /// (older rows were written that way). Invalid dates (`02-30`) and
    /// anything else return `None`. The fraction is dropped.
    ///
    /// ```
    /// use palisade_hermes::Timestamp;
    /// assert_eq!(Timestamp::parse("1970-01-01T01:00:00+01:00").map(Timestamp::unix), Some(0));
    /// assert_eq!(Timestamp::parse("1970-01-01T00:00:07").map(Timestamp::unix), Some(7));
    /// assert_eq!(Timestamp::parse("2026-02-30T00:00:00Z"), None);
    /// assert_eq!(Timestamp::parse("yesterday"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Timestamp> {
        Instant::parse_assume_utc(text).ok().map(Timestamp::from)
    }

    /// The shared timestamp type, for the pure guard crates.
    ///
    /// ```
    /// let t = palisade_hermes::Timestamp::from_unix(60);
    /// assert_eq!(t.instant().to_utc_string(), "1970-01-01T00:01:00Z");
    /// ```
    pub fn instant(self) -> Instant {
        self.0
    }
}

impl From<Instant> for Timestamp {
    /// Second resolution, UTC: the fraction and offset are dropped.
    fn from(t: Instant) -> Timestamp {
        Timestamp(t.whole_seconds())
    }
}

impl From<Timestamp> for Instant {
    fn from(t: Timestamp) -> Instant {
        t.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Whole seconds in UTC, so this is always `YYYY-MM-DDTHH:MM:SSZ`.
        fmt::Display::fmt(&self.0, f)
    }
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
        assert_eq!(Timestamp::parse("2023-02-29T12:00:00Z"), None);
    }

    #[test]
    fn second_resolution_and_utc() {
        let a = Timestamp::parse("2026-05-18T10:00:00.9+08:00").unwrap();
        assert_eq!(a, Timestamp::parse("2026-05-18T02:00:00Z").unwrap());
        assert_eq!(a.to_string(), "2026-05-18T02:00:00Z");
        assert_eq!(a.instant().offset_seconds(), 0);
        assert_eq!(a.instant().subsec_nanos(), 0);
    }

    #[test]
    fn minus_days_saturates() {
        assert_eq!(
            Timestamp::from_unix(0).minus_days(u64::MAX).unix(),
            i64::MIN
        );
    }
}
