//! The injection guard's SQLite store: quarantine, pattern store, telemetry.
//!
//! Text is stored as given: the caller redacts secrets first (the injection
//! dispatcher runs every text through the egress secret scanner before it
//! calls [`GuardDb::hold`]).

use crate::storage::paths::sha256_hex;
use crate::time::Timestamp;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Preview length of held messages, as in the seed.
pub const PREVIEW_CHARS: usize = 160;

/// The quarantine, pattern store and telemetry in one SQLite file.
///
/// ```
/// use palisade_hermes::{storage::quarantine::{GuardDb, NewHold}, Timestamp};
/// let db = GuardDb::in_memory().unwrap();
/// let id = db.hold(&NewHold {
///     ts: Timestamp::from_unix(0), session: "s".into(), tier: "quarantine".into(),
///     rules: vec!["hermes-guard:L2".into()], phrases: vec!["ignore previous instructions".into()],
///     text: "please ignore previous instructions".into(),
/// }).unwrap();
/// assert_eq!(db.list(10).unwrap()[0].id, id);
/// assert!(db.release(&id, Timestamp::from_unix(1)).unwrap());
/// assert!(db.is_suppressed("ignore previous instructions").unwrap());
/// ```
pub struct GuardDb {
    conn: Connection,
}

/// A message to hold.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct NewHold {
    /// When it was held.
    pub ts: Timestamp,
    /// Session id.
    pub session: String,
    /// `quarantine` or `block`.
    pub tier: String,
    /// The rule keys that fired.
    pub rules: Vec<String>,
    /// Hidden-instruction phrases that caused the hold (for the pattern store).
    pub phrases: Vec<String>,
    /// The (redacted) message text.
    pub text: String,
}

/// A held message as listed.
#[derive(Clone, Debug, Eq, PartialEq, Serialize)]
pub struct HeldEntry {
    /// Short id (12 hex digits).
    pub id: String,
    /// When it was held.
    pub ts: String,
    /// Session id.
    pub session: String,
    /// Tier.
    pub tier: String,
    /// Rule keys.
    pub rules: Vec<String>,
    /// Phrases recorded for the pattern store.
    pub phrases: Vec<String>,
    /// At most [`PREVIEW_CHARS`] characters of the (redacted) text.
    pub preview: String,
    /// `held` or `released`.
    pub status: String,
}

/// One decision for the live telemetry (see [`GuardDb::record_batch`]).
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct TelemetryEvent {
    /// When the decision was made.
    pub ts: Timestamp,
    /// Session id.
    pub session: String,
    /// The hook (`pre_llm_call`, `pre_tool_call`).
    pub hook: String,
    /// The tier (`pass`, `flag`, `quarantine`, `block`).
    pub tier: String,
    /// Layers that ran degraded.
    pub degraded: Vec<String>,
}

/// Live telemetry counts.
#[derive(Clone, Debug, Default, Eq, PartialEq, Serialize)]
pub struct Telemetry {
    /// Events recorded.
    pub events: u64,
    /// Events by tier (`pass`, `flag`, `quarantine`, `block`).
    pub by_tier: BTreeMap<String, u64>,
    /// Events by hook.
    pub by_hook: BTreeMap<String, u64>,
    /// Distinct layers that ever ran degraded.
    pub degraded_layers: Vec<String>,
    /// Held entries not yet released.
    pub pending: u64,
    /// Entries released by the owner.
    pub released: u64,
    /// Interceptions (flag + quarantine + block).
    pub interceptions: u64,
}

impl GuardDb {
    /// Open (creating if needed, mode 0600) the store at `path`.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// assert!(palisade_hermes::storage::quarantine::GuardDb::open(&dir.path().join("q.db")).is_ok());
    /// ```
    pub fn open(path: &Path) -> rusqlite::Result<GuardDb> {
        let conn = super::open_sqlite(path)?;
        GuardDb::init(conn)
    }

    /// A store in memory (the simulation arena uses this).
    ///
    /// ```
    /// assert!(palisade_hermes::storage::quarantine::GuardDb::in_memory().is_ok());
    /// ```
    pub fn in_memory() -> rusqlite::Result<GuardDb> {
        GuardDb::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> rusqlite::Result<GuardDb> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // A deleted entry's text is overwritten with zeros, not left in the
        // file's free pages.
        conn.pragma_update(None, "secure_delete", "ON")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS quarantine (
                id TEXT PRIMARY KEY,
                ts TEXT NOT NULL,
                session TEXT NOT NULL,
                tier TEXT NOT NULL,
                rules TEXT NOT NULL,
                phrases TEXT NOT NULL,
                text TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'held',
                decided_ts TEXT
            );
            CREATE TABLE IF NOT EXISTS patterns (
                phrase TEXT PRIMARY KEY,
                holds INTEGER NOT NULL DEFAULT 0,
                suppressed INTEGER NOT NULL DEFAULT 0,
                updated TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS ledger_anchor (
                seq INTEGER PRIMARY KEY,
                hash TEXT NOT NULL,
                ts TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS telemetry (
                id INTEGER PRIMARY KEY,
                ts TEXT NOT NULL,
                session TEXT NOT NULL,
                hook TEXT NOT NULL,
                tier TEXT NOT NULL,
                degraded TEXT NOT NULL
            );",
        )?;
        Ok(GuardDb { conn })
    }

    /// Record the decision ledger's head `(seq, hash)` as of `now`, outside
    /// the ledger's own file (see [`crate::storage::ledger`]); keeps the
    /// newest [`crate::storage::ledger::KEEP_ANCHORS`].
    ///
    /// ```
    /// use palisade_hermes::{storage::quarantine::GuardDb, Timestamp};
    /// let db = GuardDb::in_memory().unwrap();
    /// db.anchor(3, "ab", Timestamp::from_unix(0)).unwrap();
    /// db.anchor(0, "00", Timestamp::from_unix(0)).unwrap(); // an empty ledger: nothing to anchor
    /// ```
    pub fn anchor(&self, seq: i64, hash: &str, now: Timestamp) -> rusqlite::Result<()> {
        if seq <= 0 {
            return Ok(());
        }
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "INSERT OR REPLACE INTO ledger_anchor (seq, hash, ts) VALUES (?1, ?2, ?3)",
            params![seq, hash, now.to_string()],
        )?;
        tx.execute(
            "DELETE FROM ledger_anchor WHERE seq <= (SELECT seq FROM ledger_anchor ORDER BY seq DESC LIMIT 1 OFFSET ?1)",
            [crate::storage::ledger::KEEP_ANCHORS],
        )?;
        tx.commit()
    }

    /// Hold a message; returns its id. Phrases are counted in the pattern store.
    ///
    /// ```
    /// use palisade_hermes::storage::quarantine::{GuardDb, NewHold};
    /// let db = GuardDb::in_memory().unwrap();
    /// let id = db.hold(&NewHold { text: "x".into(), ..Default::default() }).unwrap();
    /// assert_eq!(id.len(), 12);
    /// ```
    pub fn hold(&self, hold: &NewHold) -> rusqlite::Result<String> {
        let ts = hold.ts.to_string();
        let mut seed = format!("{ts}\n{}\n{}", hold.session, hold.text);
        let tx = self.conn.unchecked_transaction()?;
        let mut id = sha256_hex(seed.as_bytes())[..12].to_owned();
        // Ids are content hashes; on the (rare) collision with a different
        // entry, rehash with a counter. Bounded: 16 tries.
        for n in 0..16 {
            let exists: bool = tx
                .query_row("SELECT 1 FROM quarantine WHERE id = ?1", [&id], |_| {
                    Ok(true)
                })
                .optional()?
                .unwrap_or(false);
            if !exists {
                break;
            }
            seed.push_str(&n.to_string());
            id = sha256_hex(seed.as_bytes())[..12].to_owned();
        }
        tx.execute(
            "INSERT OR REPLACE INTO quarantine (id, ts, session, tier, rules, phrases, text, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'held')",
            params![
                id,
                ts,
                hold.session,
                hold.tier,
                serde_json::to_string(&hold.rules).unwrap_or_default(),
                serde_json::to_string(&hold.phrases).unwrap_or_default(),
                hold.text
            ],
        )?;
        for phrase in &hold.phrases {
            tx.execute(
                "INSERT INTO patterns (phrase, holds, suppressed, updated) VALUES (?1, 1, 0, ?2)
                 ON CONFLICT(phrase) DO UPDATE SET holds = holds + 1, updated = excluded.updated",
                params![normalize_phrase(phrase), ts],
            )?;
        }
        tx.commit()?;
        Ok(id)
    }

    /// Held and released entries, newest first.
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert!(db.list(5).unwrap().is_empty());
    /// ```
    pub fn list(&self, limit: usize) -> rusqlite::Result<Vec<HeldEntry>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.conn.prepare(
            "SELECT id, ts, session, tier, rules, phrases, text, status FROM quarantine
             ORDER BY ts DESC, rowid DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit], read_entry)?;
        rows.collect()
    }

    /// One entry by id (preview only).
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert!(db.show("nope").unwrap().is_none());
    /// ```
    pub fn show(&self, id: &str) -> rusqlite::Result<Option<HeldEntry>> {
        self.conn
            .query_row(
                "SELECT id, ts, session, tier, rules, phrases, text, status FROM quarantine WHERE id = ?1",
                [id],
                read_entry,
            )
            .optional()
    }

    /// The full stored (redacted) text of an entry, for `clean_copy`.
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert!(db.full_text("nope").unwrap().is_none());
    /// ```
    pub fn full_text(&self, id: &str) -> rusqlite::Result<Option<String>> {
        self.conn
            .query_row("SELECT text FROM quarantine WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
    }

    /// Owner-only: mark an entry released and suppress its phrases. Returns
    /// false when no held entry has that id.
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert!(!db.release("nope", palisade_hermes::Timestamp::from_unix(0)).unwrap());
    /// ```
    pub fn release(&self, id: &str, now: Timestamp) -> rusqlite::Result<bool> {
        let Some(entry) = self.show(id)? else {
            return Ok(false);
        };
        if entry.status != "held" {
            return Ok(false);
        }
        let tx = self.conn.unchecked_transaction()?;
        let ts = now.to_string();
        tx.execute(
            "UPDATE quarantine SET status = 'released', decided_ts = ?2 WHERE id = ?1",
            params![id, ts],
        )?;
        for phrase in &entry.phrases {
            tx.execute(
                "INSERT INTO patterns (phrase, holds, suppressed, updated) VALUES (?1, 0, 1, ?2)
                 ON CONFLICT(phrase) DO UPDATE SET suppressed = 1, updated = excluded.updated",
                params![normalize_phrase(phrase), ts],
            )?;
        }
        tx.commit()?;
        Ok(true)
    }

    /// Owner-only: delete an entry and its text. Returns false when absent.
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert!(!db.delete("nope").unwrap());
    /// ```
    pub fn delete(&self, id: &str) -> rusqlite::Result<bool> {
        let deleted = self
            .conn
            .execute("DELETE FROM quarantine WHERE id = ?1", [id])?
            > 0;
        if deleted {
            // Delete means gone: secure_delete zeroes the freed pages, and a
            // checkpoint writes them back and truncates the WAL, which still
            // holds the old pages. Best effort: a reader holding the WAL open
            // defers the truncation to the next checkpoint.
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
        Ok(deleted)
    }

    /// Whether a released phrase is suppressed (compared case- and space-insensitively).
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert!(!db.is_suppressed("x").unwrap());
    /// ```
    pub fn is_suppressed(&self, phrase: &str) -> rusqlite::Result<bool> {
        Ok(self
            .conn
            .query_row(
                "SELECT suppressed FROM patterns WHERE phrase = ?1",
                [normalize_phrase(phrase)],
                |r| r.get::<_, i64>(0),
            )
            .optional()?
            .unwrap_or(0)
            != 0)
    }

    /// Every suppressed phrase.
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert!(db.suppressed_phrases().unwrap().is_empty());
    /// ```
    pub fn suppressed_phrases(&self) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT phrase FROM patterns WHERE suppressed = 1 ORDER BY phrase")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect()
    }

    /// Record one guard decision in the live telemetry.
    ///
    /// ```
    /// use palisade_hermes::{storage::quarantine::GuardDb, Timestamp};
    /// let db = GuardDb::in_memory().unwrap();
    /// db.record(Timestamp::from_unix(0), "s", "pre_llm_call", "flag", &[]).unwrap();
    /// assert_eq!(db.telemetry().unwrap().interceptions, 1);
    /// ```
    pub fn record(
        &self,
        ts: Timestamp,
        session: &str,
        hook: &str,
        tier: &str,
        degraded: &[String],
    ) -> rusqlite::Result<()> {
        self.record_batch(&[TelemetryEvent {
            ts,
            session: session.to_owned(),
            hook: hook.to_owned(),
            tier: tier.to_owned(),
            degraded: degraded.to_vec(),
        }])
    }

    /// Record several decisions in one transaction (one commit).
    ///
    /// ```
    /// use palisade_hermes::{storage::quarantine::{GuardDb, TelemetryEvent}, Timestamp};
    /// let db = GuardDb::in_memory().unwrap();
    /// let ev = |tier: &str| TelemetryEvent { ts: Timestamp::from_unix(0), session: "s".into(),
    ///     hook: "pre_llm_call".into(), tier: tier.into(), degraded: vec![] };
    /// db.record_batch(&[ev("pass"), ev("pass"), ev("block")]).unwrap();
    /// let t = db.telemetry().unwrap();
    /// assert_eq!((t.events, t.interceptions), (3, 1));
    /// ```
    pub fn record_batch(&self, events: &[TelemetryEvent]) -> rusqlite::Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO telemetry (ts, session, hook, tier, degraded) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for e in events {
                insert.execute(params![
                    e.ts.to_string(),
                    e.session,
                    e.hook,
                    e.tier,
                    serde_json::to_string(&e.degraded).unwrap_or_default()
                ])?;
            }
        }
        tx.commit()
    }

    /// SQLite's `data_version` of this connection: it changes whenever
    /// another connection (another process, or a command's own connection)
    /// commits to the store, so a caller can cache what it read (the
    /// suppressed phrases) until it changes.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("g.db");
    /// let a = palisade_hermes::storage::quarantine::GuardDb::open(&path).unwrap();
    /// let before = a.data_version().unwrap();
    /// let b = palisade_hermes::storage::quarantine::GuardDb::open(&path).unwrap();
    /// b.record(palisade_hermes::Timestamp::from_unix(0), "s", "pre_llm_call", "pass", &[]).unwrap();
    /// assert_ne!(a.data_version().unwrap(), before);
    /// ```
    pub fn data_version(&self) -> rusqlite::Result<i64> {
        self.conn
            .prepare_cached("PRAGMA data_version")?
            .query_row([], |r| r.get(0))
    }

    /// Counts over the live telemetry and quarantine.
    ///
    /// ```
    /// let db = palisade_hermes::storage::quarantine::GuardDb::in_memory().unwrap();
    /// assert_eq!(db.telemetry().unwrap().events, 0);
    /// ```
    pub fn telemetry(&self) -> rusqlite::Result<Telemetry> {
        let mut t = Telemetry::default();
        {
            let mut stmt = self
                .conn
                .prepare("SELECT tier, hook, COUNT(*) FROM telemetry GROUP BY tier, hook")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let tier: String = r.get(0)?;
                let hook: String = r.get(1)?;
                let n = u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0);
                t.events += n;
                *t.by_tier.entry(tier.clone()).or_default() += n;
                *t.by_hook.entry(hook).or_default() += n;
                if matches!(tier.as_str(), "flag" | "quarantine" | "block") {
                    t.interceptions += n;
                }
            }
        }
        {
            let mut stmt = self
                .conn
                .prepare("SELECT DISTINCT degraded FROM telemetry WHERE degraded != '[]'")?;
            let mut rows = stmt.query([])?;
            let mut layers = std::collections::BTreeSet::new();
            while let Some(r) = rows.next()? {
                let text: String = r.get(0)?;
                let list: Vec<String> = serde_json::from_str(&text).unwrap_or_default();
                layers.extend(list);
            }
            t.degraded_layers = layers.into_iter().collect();
        }
        let count = |status: &str| -> rusqlite::Result<u64> {
            let n: i64 = self.conn.query_row(
                "SELECT COUNT(*) FROM quarantine WHERE status = ?1",
                [status],
                |r| r.get(0),
            )?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        t.pending = count("held")?;
        t.released = count("released")?;
        Ok(t)
    }
}

fn normalize_phrase(phrase: &str) -> String {
    phrase
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn read_entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<HeldEntry> {
    let rules: String = r.get(4)?;
    let phrases: String = r.get(5)?;
    let text: String = r.get(6)?;
    Ok(HeldEntry {
        id: r.get(0)?,
        ts: r.get(1)?,
        session: r.get(2)?,
        tier: r.get(3)?,
        rules: serde_json::from_str(&rules).unwrap_or_default(),
        phrases: serde_json::from_str(&phrases).unwrap_or_default(),
        preview: palisade_common::mask::preview_line(&text, PREVIEW_CHARS),
        status: r.get(7)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_suppresses_and_delete_removes() {
        let db = GuardDb::in_memory().unwrap();
        let hold = NewHold {
            ts: Timestamp::from_unix(5),
            session: "s".into(),
            tier: "quarantine".into(),
            rules: vec!["hermes-guard:instruction".into()],
            phrases: vec!["Ignore  ALL previous".into()],
            text: "x".repeat(500),
        };
        let id = db.hold(&hold).unwrap();
        let again = db.hold(&hold).unwrap();
        assert_ne!(id, again, "same content twice gets two ids");
        assert_eq!(
            db.show(&id).unwrap().unwrap().preview.chars().count(),
            PREVIEW_CHARS
        );
        assert!(!db.is_suppressed("ignore all previous").unwrap());
        assert!(db.release(&id, Timestamp::from_unix(6)).unwrap());
        assert!(
            !db.release(&id, Timestamp::from_unix(6)).unwrap(),
            "only once"
        );
        assert!(db.is_suppressed("ignore all previous").unwrap());
        let t = db.telemetry().unwrap();
        assert_eq!((t.pending, t.released), (1, 1));
        assert!(db.delete(&again).unwrap());
        assert_eq!(db.telemetry().unwrap().pending, 0);
    }
}
