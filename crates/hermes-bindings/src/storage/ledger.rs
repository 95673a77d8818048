//! The SHA-256 hash-chained decision ledger (SQLite).
//!
//! Every guard decision is one row. Row `n` stores
//! `hash = SHA-256(prev_hash ‖ "\n" ‖ n ‖ "\n" ‖ ts ‖ "\n" ‖ session ‖ "\n" ‖ decision ‖ "\n" ‖ payload)`
//! and the `prev_hash` of row `n-1` (64 zeros for row 1). A `head` row in a
//! separate table holds the count and the last hash, updated in the same
//! transaction as each append. [`Ledger::verify`] walks the chain and
//! reports the first break:
//!
//! * an edited field → that row's hash no longer matches;
//! * a deleted row → a gap in the sequence numbers (and a broken link);
//! * reordered rows (ids swapped) → broken links;
//! * truncation of the newest rows → the head's count/hash no longer match.
//!
//! What it does not defend against: someone who rewrites every row *and*
//! the head with a recomputed chain (the chain has no external anchor).

use crate::storage::paths::sha256_hex;
use crate::time::Timestamp;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use std::path::Path;

/// The genesis `prev_hash`.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The ledger's file name inside the injection guard's data folder
/// (`$HERMES_HOME/plugin-data/hermes-guard/`).
///
/// ```
/// assert_eq!(palisade_hermes::storage::ledger::FILE_NAME, "ledger.sqlite3");
/// ```
pub const FILE_NAME: &str = "ledger.sqlite3";

/// A decision ledger in one SQLite file.
///
/// ```
/// use palisade_hermes::{storage::ledger::Ledger, Timestamp};
/// let dir = tempfile::tempdir().unwrap();
/// let ledger = Ledger::open(&dir.path().join("ledger.sqlite3")).unwrap();
/// ledger.append(Timestamp::from_unix(0), "s1", "block", r#"{"rule":"x"}"#).unwrap();
/// assert!(ledger.verify().unwrap().ok);
/// ```
pub struct Ledger {
    conn: Connection,
}

/// The result of [`Ledger::verify`].
#[derive(Clone, Debug, Eq, PartialEq, Serialize)]
pub struct Verification {
    /// The whole chain checks out (an empty ledger is verified).
    pub ok: bool,
    /// Rows checked.
    pub rows: u64,
    /// The first problem found, if any.
    pub problem: Option<String>,
    /// The sequence number where it was found.
    pub at: Option<i64>,
}

/// One decision to append (see [`Ledger::append_batch`]).
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct LedgerEntry {
    /// When the decision was made (not when it was written).
    pub ts: Timestamp,
    /// Session id.
    pub session: String,
    /// The decision (`pass`, `flag`, `quarantine`, `block`, …).
    pub decision: String,
    /// JSON details (already redacted by the caller).
    pub payload: String,
}

/// One ledger row as stored.
#[derive(Clone, Debug, Eq, PartialEq, Serialize)]
pub struct LedgerRow {
    /// Sequence number, from 1.
    pub seq: i64,
    /// RFC 3339 time.
    pub ts: String,
    /// Session id.
    pub session: String,
    /// The decision (`pass`, `flag`, `quarantine`, `block`, `release`, …).
    pub decision: String,
    /// JSON details (already redacted by the caller).
    pub payload: String,
    /// The previous row's hash.
    pub prev_hash: String,
    /// This row's hash.
    pub hash: String,
}

fn row_hash(
    prev: &str,
    seq: i64,
    ts: &str,
    session: &str,
    decision: &str,
    payload: &str,
) -> String {
    let text = format!("{prev}\n{seq}\n{ts}\n{session}\n{decision}\n{payload}");
    sha256_hex(text.as_bytes())
}

impl Ledger {
    /// Open (creating if needed, mode 0600) the ledger at `path`.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// assert!(palisade_hermes::storage::ledger::Ledger::open(&dir.path().join("l.db")).is_ok());
    /// ```
    pub fn open(path: &Path) -> rusqlite::Result<Ledger> {
        let conn = super::open_sqlite(path)?;
        Ledger::from_connection(conn)
    }

    /// A ledger in memory (for simulations and tests).
    ///
    /// ```
    /// assert!(palisade_hermes::storage::ledger::Ledger::in_memory().unwrap().verify().unwrap().ok);
    /// ```
    pub fn in_memory() -> rusqlite::Result<Ledger> {
        Ledger::from_connection(Connection::open_in_memory()?)
    }

    fn from_connection(conn: Connection) -> rusqlite::Result<Ledger> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS ledger (
                seq INTEGER PRIMARY KEY,
                ts TEXT NOT NULL,
                session TEXT NOT NULL,
                decision TEXT NOT NULL,
                payload TEXT NOT NULL,
                prev_hash TEXT NOT NULL,
                hash TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS ledger_head (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                count INTEGER NOT NULL,
                hash TEXT NOT NULL
            );",
        )?;
        Ok(Ledger { conn })
    }

    /// Append one decision; returns its sequence number.
    ///
    /// ```
    /// use palisade_hermes::{storage::ledger::Ledger, Timestamp};
    /// let l = Ledger::in_memory().unwrap();
    /// assert_eq!(l.append(Timestamp::from_unix(0), "s", "pass", "{}").unwrap(), 1);
    /// assert_eq!(l.append(Timestamp::from_unix(1), "s", "block", "{}").unwrap(), 2);
    /// ```
    pub fn append(
        &self,
        ts: Timestamp,
        session: &str,
        decision: &str,
        payload: &str,
    ) -> rusqlite::Result<i64> {
        self.append_batch(&[LedgerEntry {
            ts,
            session: session.to_owned(),
            decision: decision.to_owned(),
            payload: payload.to_owned(),
        }])
    }

    /// Append several decisions, in order, in one transaction (one commit
    /// for the batch); returns the sequence number of the last one (the
    /// current count when `entries` is empty).
    ///
    /// ```
    /// use palisade_hermes::{storage::ledger::{Ledger, LedgerEntry}, Timestamp};
    /// let l = Ledger::in_memory().unwrap();
    /// let row = |d: &str| LedgerEntry { ts: Timestamp::from_unix(0), session: "s".into(),
    ///     decision: d.into(), payload: "{}".into() };
    /// assert_eq!(l.append_batch(&[row("pass"), row("pass"), row("block")]).unwrap(), 3);
    /// assert_eq!(l.recent(1).unwrap()[0].decision, "block");
    /// assert!(l.verify().unwrap().ok);
    /// ```
    pub fn append_batch(&self, entries: &[LedgerEntry]) -> rusqlite::Result<i64> {
        // IMMEDIATE: take the write lock before reading the head, so two
        // processes appending at once serialize instead of forking the chain.
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        let head: Option<(i64, String)> = tx
            .prepare_cached("SELECT count, hash FROM ledger_head WHERE id = 1")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let (mut seq, mut prev) = head.unwrap_or((0, GENESIS.to_owned()));
        if entries.is_empty() {
            return Ok(seq);
        }
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO ledger (seq, ts, session, decision, payload, prev_hash, hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for e in entries {
                seq += 1;
                let ts = e.ts.to_string();
                let hash = row_hash(&prev, seq, &ts, &e.session, &e.decision, &e.payload);
                insert.execute(params![
                    seq, ts, e.session, e.decision, e.payload, prev, hash
                ])?;
                prev = hash;
            }
            tx.prepare_cached(
                "INSERT INTO ledger_head (id, count, hash) VALUES (1, ?1, ?2)
                 ON CONFLICT(id) DO UPDATE SET count = excluded.count, hash = excluded.hash",
            )?
            .execute(params![seq, prev])?;
        }
        tx.commit()?;
        Ok(seq)
    }

    /// The newest `limit` rows, newest first.
    ///
    /// ```
    /// use palisade_hermes::{storage::ledger::Ledger, Timestamp};
    /// let l = Ledger::in_memory().unwrap();
    /// l.append(Timestamp::from_unix(0), "s", "pass", "{}").unwrap();
    /// assert_eq!(l.recent(10).unwrap()[0].decision, "pass");
    /// ```
    pub fn recent(&self, limit: usize) -> rusqlite::Result<Vec<LedgerRow>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.conn.prepare(
            "SELECT seq, ts, session, decision, payload, prev_hash, hash
             FROM ledger ORDER BY seq DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit], read_row)?;
        rows.collect()
    }

    /// Walk the chain; see the module docs for what is detected.
    ///
    /// ```
    /// use palisade_hermes::{storage::ledger::Ledger, Timestamp};
    /// let l = Ledger::in_memory().unwrap();
    /// for i in 0..3 { l.append(Timestamp::from_unix(i), "s", "pass", "{}").unwrap(); }
    /// let v = l.verify().unwrap();
    /// assert!(v.ok);
    /// assert_eq!(v.rows, 3);
    /// ```
    pub fn verify(&self) -> rusqlite::Result<Verification> {
        let mut stmt = self.conn.prepare(
            "SELECT seq, ts, session, decision, payload, prev_hash, hash FROM ledger ORDER BY seq",
        )?;
        let mut rows = stmt.query([])?;
        let mut expected_seq = 1i64;
        let mut prev = GENESIS.to_owned();
        let mut checked = 0u64;
        let fail = |rows: u64, at: i64, problem: String| Verification {
            ok: false,
            rows,
            problem: Some(problem),
            at: Some(at),
        };
        while let Some(r) = rows.next()? {
            let row = read_row(r)?;
            if row.seq != expected_seq {
                return Ok(fail(
                    checked,
                    row.seq,
                    format!("row {expected_seq} is missing (found {} next)", row.seq),
                ));
            }
            if row.prev_hash != prev {
                return Ok(fail(
                    checked,
                    row.seq,
                    format!("row {} does not link to the row before it", row.seq),
                ));
            }
            let want = row_hash(
                &prev,
                row.seq,
                &row.ts,
                &row.session,
                &row.decision,
                &row.payload,
            );
            if row.hash != want {
                return Ok(fail(
                    checked,
                    row.seq,
                    format!("row {} was changed after it was written", row.seq),
                ));
            }
            prev = row.hash;
            expected_seq += 1;
            checked += 1;
        }
        drop(rows);
        let head: Option<(i64, String)> = self
            .conn
            .query_row(
                "SELECT count, hash FROM ledger_head WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let count = i64::try_from(checked).unwrap_or(i64::MAX);
        match head {
            None if checked == 0 => {}
            None => {
                return Ok(fail(
                    checked,
                    count,
                    "the ledger head is missing".to_owned(),
                ));
            }
            Some((head_count, head_hash)) => {
                if head_count != count || head_hash != prev {
                    return Ok(fail(
                        checked,
                        count,
                        format!(
                            "the ledger ends at row {count} but its head records {head_count} rows (truncated or rolled back)"
                        ),
                    ));
                }
            }
        }
        Ok(Verification {
            ok: true,
            rows: checked,
            problem: None,
            at: None,
        })
    }

    /// The underlying connection (tests use it to tamper).
    #[doc(hidden)]
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<LedgerRow> {
    Ok(LedgerRow {
        seq: r.get(0)?,
        ts: r.get(1)?,
        session: r.get(2)?,
        decision: r.get(3)?,
        payload: r.get(4)?,
        prev_hash: r.get(5)?,
        hash: r.get(6)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled() -> Ledger {
        let l = Ledger::in_memory().unwrap();
        for i in 0..5 {
            l.append(
                Timestamp::from_unix(i),
                "s",
                if i % 2 == 0 { "pass" } else { "block" },
                &format!("{{\"i\":{i}}}"),
            )
            .unwrap();
        }
        assert!(l.verify().unwrap().ok);
        l
    }

    #[test]
    fn edit_detected() {
        let l = filled();
        l.connection()
            .execute("UPDATE ledger SET decision = 'pass' WHERE seq = 2", [])
            .unwrap();
        let v = l.verify().unwrap();
        assert!(!v.ok);
        assert_eq!(v.at, Some(2));
    }

    #[test]
    fn delete_detected() {
        let l = filled();
        l.connection()
            .execute("DELETE FROM ledger WHERE seq = 3", [])
            .unwrap();
        assert_eq!(l.verify().unwrap().at, Some(4));
    }

    #[test]
    fn reorder_detected() {
        let l = filled();
        let c = l.connection();
        c.execute("UPDATE ledger SET seq = 100 WHERE seq = 2", [])
            .unwrap();
        c.execute("UPDATE ledger SET seq = 2 WHERE seq = 3", [])
            .unwrap();
        c.execute("UPDATE ledger SET seq = 3 WHERE seq = 100", [])
            .unwrap();
        assert!(!l.verify().unwrap().ok);
    }

    #[test]
    fn truncate_detected() {
        let l = filled();
        l.connection()
            .execute("DELETE FROM ledger WHERE seq >= 4", [])
            .unwrap();
        let v = l.verify().unwrap();
        assert!(!v.ok);
        assert!(v.problem.unwrap().contains("truncated"));
        // Truncating everything is detected too.
        l.connection().execute("DELETE FROM ledger", []).unwrap();
        assert!(!l.verify().unwrap().ok);
    }

    #[test]
    fn payload_edit_detected_and_append_continues_chain() {
        let l = filled();
        l.connection()
            .execute("UPDATE ledger SET payload = '{}' WHERE seq = 5", [])
            .unwrap();
        assert_eq!(l.verify().unwrap().at, Some(5));
    }
}
