//! Timezone-aware timestamps, shared with the other Palisade crates.
//!
//! This is [`palisade_common::time`], re-exported so the ledger's public
//! signatures read `palisade_closure::time::Timestamp`. The ledger orders
//! events by the instant a timestamp denotes, never by its string:
//! `2026-05-18T10:00:00+08:00` sorts before `2026-05-18T03:00:00Z`. A
//! timestamp without a UTC offset is refused, because its instant is unknown.
//!
//! ```
//! use palisade_closure::time::Timestamp;
//! let a = Timestamp::parse("2026-05-18T10:00:00+08:00").unwrap();
//! let b = Timestamp::parse("2026-05-18T03:00:00Z").unwrap();
//! assert!(a < b);
//! assert_eq!(a.to_utc_string(), "2026-05-18T02:00:00Z");
//! assert!(Timestamp::parse("2026-05-18T10:00:00").is_err());
//! ```

pub use palisade_common::time::{Timestamp, TimestampError};
