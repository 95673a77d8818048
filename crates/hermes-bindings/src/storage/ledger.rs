//! The SHA-256 hash-chained decision ledger (SQLite).
//!
//! Every guard decision is one row. Row `n` stores the `prev_hash` of row
//! `n-1` (64 zeros for row 1) and
//! `hash = SHA-256("palisade-ledger-v2\0" ‖ field ‖ field …)` over
//! `prev_hash, n, ts, session, decision, payload`, each field prefixed by its
//! length in bytes (8 bytes, big-endian), so no text can move from one field
//! to the next and keep the hash. A `head` row in a separate table holds the
//! count and the last hash, updated in the same transaction as each append.
//!
//! **Anchors outside the table.** After each append the writer records the
//! ledger's `(seq, hash)` at that moment in the *other* store,
//! `guard.sqlite3` (the quarantine's file, table `ledger_anchor`, the newest
//! [`KEEP_ANCHORS`] kept). [`Ledger::verify_anchored`] walks the chain and
//! cross-checks every anchor against it.
//!
//! **Compatibility.** Rows written before this encoding (`v = 1`, fields
//! joined by `\n`) still verify with the old hash; the first append after an
//! upgrade adds the `v` column (existing rows get 1) and writes `v = 2` rows
//! from then on. A `v = 1` row after a `v = 2` row is reported as a
//! downgrade. Old rows keep the weaker encoding: text moved between their
//! fields is not detected. [`Verification::legacy_rows`] says how many.
//!
//! # What `verify` detects, and what it cannot
//!
//! Detected, for an attacker who can edit *one* of the two files
//! (`ledger.sqlite3` or `guard.sqlite3`) or who does not recompute hashes:
//!
//! * an edited field → that row's hash no longer matches;
//! * a deleted row → a gap in the sequence numbers (and a broken link);
//! * reordered rows (ids swapped) → broken links;
//! * truncation of the newest rows, even with `ledger_head` fixed up to the
//!   new last row → an anchor names a row past the end;
//! * a wiped `ledger` table (rows deleted, head deleted, or the table
//!   dropped), or a deleted `ledger.sqlite3` → anchors exist for rows that
//!   are gone (`verify` never creates a missing ledger);
//! * an edited-and-rehashed chain (every row after the edit recomputed, head
//!   fixed up) → the anchored hashes no longer match.
//!
//! Not detected:
//!
//! * an attacker who rewrites **both** stores consistently (recomputes the
//!   chain and the anchors, or deletes both files together): the chain is
//!   not keyed and nothing leaves the machine, so there is nothing the
//!   rewrite cannot reproduce. Only a copy of the head kept elsewhere (a
//!   backup, another machine) can catch that;
//! * truncation of rows written after the newest anchor that survived
//!   (anchors are written right after each append, so this is at most the
//!   rows of one write that was interrupted between the two commits);
//! * text moved between fields of legacy (`v = 1`) rows.
//!
//! A power cut between the two commits can leave the anchor one write
//! behind the ledger (harmless) but never ahead of it, since the anchor is
//! written only after the ledger committed.

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

/// The hash encoding of rows written now (see the module docs).
pub const HASH_VERSION: i64 = 2;

/// Anchors kept in `guard.sqlite3` (the newest ones; the newest alone
/// catches truncation, older ones catch a rewritten chain).
pub const KEEP_ANCHORS: i64 = 256;

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
    /// Anchors (from the other store) checked against the chain.
    pub anchors: u64,
    /// Rows in the legacy (`v = 1`) encoding.
    pub legacy_rows: u64,
}

impl Verification {
    fn passed(rows: u64, anchors: u64, legacy_rows: u64) -> Verification {
        Verification {
            ok: true,
            rows,
            problem: None,
            at: None,
            anchors,
            legacy_rows,
        }
    }

    fn failed(rows: u64, at: i64, problem: String, anchors: u64) -> Verification {
        Verification {
            ok: false,
            rows,
            problem: Some(problem),
            at: Some(at),
            anchors,
            legacy_rows: 0,
        }
    }
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

/// The v2 row hash: every field length-prefixed (unambiguous).
fn row_hash(
    prev: &str,
    seq: i64,
    ts: &str,
    session: &str,
    decision: &str,
    payload: &str,
) -> String {
    let seq = seq.to_string();
    let fields = [prev, &seq, ts, session, decision, payload];
    let mut buf = Vec::with_capacity(32 + fields.iter().map(|f| f.len() + 8).sum::<usize>());
    buf.extend_from_slice(b"palisade-ledger-v2\0");
    for field in fields {
        buf.extend_from_slice(&(field.len() as u64).to_be_bytes());
        buf.extend_from_slice(field.as_bytes());
    }
    sha256_hex(&buf)
}

/// The legacy (v1) row hash: fields joined by `\n`, kept to verify old rows.
fn row_hash_v1(
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

/// Open an existing SQLite file without creating it (or its tables).
fn open_existing(path: &Path) -> rusqlite::Result<Option<Connection>> {
    if !path.is_file() {
        return Ok(None);
    }
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(Some(conn))
}

/// The `(seq, hash)` anchors recorded in `guard.sqlite3` at `path`, oldest
/// first; `None` when the file or its anchor table does not exist. Creates
/// nothing.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// assert_eq!(palisade_hermes::storage::ledger::read_anchors(&dir.path().join("none")).unwrap(), None);
/// ```
pub fn read_anchors(path: &Path) -> rusqlite::Result<Option<Vec<(i64, String)>>> {
    let Some(conn) = open_existing(path)? else {
        return Ok(None);
    };
    let exists: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_anchor')",
        [],
        |r| r.get(0),
    )?;
    if !exists {
        return Ok(None);
    }
    let mut stmt = conn.prepare("SELECT seq, hash FROM ledger_anchor ORDER BY seq")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map(Some)
}

/// Verify the ledger file at `ledger_path` against the anchors in the
/// quarantine store at `anchor_path`, creating neither. A missing ledger
/// is fine only when nothing anchors it.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let v = palisade_hermes::storage::ledger::verify_files(&dir.path().join("l"), &dir.path().join("g")).unwrap();
/// assert!(v.ok && v.rows == 0);
/// assert!(!dir.path().join("l").exists());
/// ```
pub fn verify_files(ledger_path: &Path, anchor_path: &Path) -> rusqlite::Result<Verification> {
    let anchors = read_anchors(anchor_path)?;
    let anchors_slice = anchors.as_deref();
    let Some(conn) = open_existing(ledger_path)? else {
        return Ok(match anchors_slice.and_then(|a| a.last()) {
            Some((seq, _)) => Verification::failed(
                0,
                *seq,
                format!(
                    "{} is missing but {} anchors {seq} rows of it (deleted)",
                    ledger_path.display(),
                    anchor_path.display()
                ),
                anchors_slice.map_or(0, |a| a.len() as u64),
            ),
            None => Verification::passed(0, 0, 0),
        });
    };
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger')",
        [],
        |r| r.get(0),
    )?;
    if !has_table {
        return Ok(Verification::failed(
            0,
            1,
            "the ledger table is missing (dropped)".to_owned(),
            0,
        ));
    }
    Ledger { conn }.verify_anchored(anchors_slice)
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
                hash TEXT NOT NULL,
                v INTEGER NOT NULL DEFAULT 1
            );
            CREATE TABLE IF NOT EXISTS ledger_head (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                count INTEGER NOT NULL,
                hash TEXT NOT NULL
            );",
        )?;
        // Ledgers from before the v2 encoding: add the column, old rows are v1.
        let has_v: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM pragma_table_info('ledger') WHERE name = 'v')",
            [],
            |r| r.get(0),
        )?;
        if !has_v {
            conn.execute_batch("ALTER TABLE ledger ADD COLUMN v INTEGER NOT NULL DEFAULT 1")?;
        }
        Ok(Ledger { conn })
    }

    /// The head: the number of rows and the last hash ([`GENESIS`] when
    /// empty).
    ///
    /// ```
    /// use palisade_hermes::{storage::ledger::{Ledger, GENESIS}, Timestamp};
    /// let l = Ledger::in_memory().unwrap();
    /// assert_eq!(l.head().unwrap(), (0, GENESIS.to_owned()));
    /// l.append(Timestamp::from_unix(0), "s", "pass", "{}").unwrap();
    /// assert_eq!(l.head().unwrap().0, 1);
    /// ```
    pub fn head(&self) -> rusqlite::Result<(i64, String)> {
        let head: Option<(i64, String)> = self
            .conn
            .query_row(
                "SELECT count, hash FROM ledger_head WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(head.unwrap_or((0, GENESIS.to_owned())))
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
                "INSERT INTO ledger (seq, ts, session, decision, payload, prev_hash, hash, v)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for e in entries {
                seq += 1;
                let ts = e.ts.to_string();
                let hash = row_hash(&prev, seq, &ts, &e.session, &e.decision, &e.payload);
                insert.execute(params![
                    seq,
                    ts,
                    e.session,
                    e.decision,
                    e.payload,
                    prev,
                    hash,
                    HASH_VERSION
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

    /// Walk the chain (no anchors); see the module docs for what is
    /// detected.
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
        self.verify_anchored(None)
    }

    /// Walk the chain and cross-check `anchors` (`(seq, hash)` pairs recorded
    /// in the other store; see [`read_anchors`]).
    ///
    /// ```
    /// use palisade_hermes::{storage::ledger::Ledger, Timestamp};
    /// let l = Ledger::in_memory().unwrap();
    /// for i in 0..3 { l.append(Timestamp::from_unix(i), "s", "pass", "{}").unwrap(); }
    /// let head = l.head().unwrap();
    /// assert!(l.verify_anchored(Some(&[head.clone()])).unwrap().ok);
    /// l.connection().execute("DELETE FROM ledger WHERE seq = 3", []).unwrap();
    /// l.connection().execute("UPDATE ledger_head SET count = 2, hash = (SELECT hash FROM ledger WHERE seq = 2)", []).unwrap();
    /// assert!(l.verify().unwrap().ok); // the table alone cannot tell
    /// assert!(!l.verify_anchored(Some(&[head])).unwrap().ok);
    /// ```
    pub fn verify_anchored(
        &self,
        anchors: Option<&[(i64, String)]>,
    ) -> rusqlite::Result<Verification> {
        let anchors = anchors.unwrap_or(&[]);
        let anchor_count = anchors.len() as u64;
        let wanted: std::collections::HashMap<i64, &str> = anchors
            .iter()
            .map(|(seq, hash)| (*seq, hash.as_str()))
            .collect();
        let mut stmt = self.conn.prepare(
            "SELECT seq, ts, session, decision, payload, prev_hash, hash, v FROM ledger ORDER BY seq",
        )?;
        let mut rows = stmt.query([])?;
        let mut expected_seq = 1i64;
        let mut prev = GENESIS.to_owned();
        let mut checked = 0u64;
        let mut legacy = 0u64;
        let mut seen_v2 = false;
        let fail = |rows: u64, at: i64, problem: String| {
            Verification::failed(rows, at, problem, anchor_count)
        };
        while let Some(r) = rows.next()? {
            let row = read_row(r)?;
            let version: i64 = r.get(7)?;
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
            let hash_fn = match version {
                1 if seen_v2 => {
                    return Ok(fail(
                        checked,
                        row.seq,
                        format!(
                            "row {} uses the legacy encoding after newer rows (downgraded)",
                            row.seq
                        ),
                    ))
                }
                1 => row_hash_v1,
                2 => row_hash,
                other => {
                    return Ok(fail(
                        checked,
                        row.seq,
                        format!("row {} has unknown encoding version {other}", row.seq),
                    ))
                }
            };
            seen_v2 |= version == 2;
            legacy += u64::from(version == 1);
            let want = hash_fn(
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
            if let Some(anchored) = wanted.get(&row.seq) {
                if *anchored != row.hash {
                    return Ok(fail(
                        checked,
                        row.seq,
                        format!(
                            "row {} differs from the hash anchored in the quarantine store (the chain was rewritten)",
                            row.seq
                        ),
                    ));
                }
            }
            prev = row.hash;
            expected_seq += 1;
            checked += 1;
        }
        drop(rows);
        let count = i64::try_from(checked).unwrap_or(i64::MAX);
        if let Some((seq, _)) = anchors.iter().filter(|(seq, _)| *seq > count).max() {
            return Ok(fail(
                checked,
                count,
                format!(
                    "the ledger ends at row {count} but the quarantine store anchors row {seq} (truncated or wiped)"
                ),
            ));
        }
        let head: Option<(i64, String)> = self
            .conn
            .query_row(
                "SELECT count, hash FROM ledger_head WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
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
        Ok(Verification::passed(checked, anchor_count, legacy))
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
    fn moving_text_between_fields_changes_the_hash() {
        // v1 joined fields with "\n": these two rows hashed alike.
        let a = ("s\nblock", "x");
        let b = ("s", "block\nx");
        assert_eq!(
            row_hash_v1(GENESIS, 1, "t", a.0, a.1, "{}"),
            row_hash_v1(GENESIS, 1, "t", b.0, b.1, "{}")
        );
        assert_ne!(
            row_hash(GENESIS, 1, "t", a.0, a.1, "{}"),
            row_hash(GENESIS, 1, "t", b.0, b.1, "{}")
        );
    }

    #[test]
    fn legacy_ledgers_still_verify_and_continue_in_v2() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE ledger (seq INTEGER PRIMARY KEY, ts TEXT NOT NULL, session TEXT NOT NULL,
                decision TEXT NOT NULL, payload TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
             CREATE TABLE ledger_head (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL, hash TEXT NOT NULL);",
        )
        .unwrap();
        let mut prev = GENESIS.to_owned();
        for seq in 1..=2 {
            let hash = row_hash_v1(&prev, seq, "t", "s", "pass", "{}");
            conn.execute(
                "INSERT INTO ledger VALUES (?1, 't', 's', 'pass', '{}', ?2, ?3)",
                params![seq, prev, hash],
            )
            .unwrap();
            prev = hash;
        }
        conn.execute("INSERT INTO ledger_head VALUES (1, 2, ?1)", [&prev])
            .unwrap();
        let l = Ledger::from_connection(conn).unwrap();
        let v = l.verify().unwrap();
        assert!(v.ok, "{v:?}");
        assert_eq!(v.legacy_rows, 2);
        l.append(Timestamp::from_unix(5), "s", "block", "{}")
            .unwrap();
        let v = l.verify().unwrap();
        assert!(v.ok && v.rows == 3 && v.legacy_rows == 2, "{v:?}");
        // a legacy row after a v2 row is a downgrade
        l.append(Timestamp::from_unix(6), "s", "pass", "{}")
            .unwrap();
        l.connection()
            .execute("UPDATE ledger SET v = 1 WHERE seq = 4", [])
            .unwrap();
        assert!(l.verify().unwrap().problem.unwrap().contains("downgraded"));
    }

    #[test]
    fn rehashed_chain_is_caught_by_the_anchor() {
        let l = filled();
        let anchor = l.head().unwrap();
        // Rewrite row 5 and recompute its hash and the head.
        let rows = l.recent(2).unwrap();
        let prev = &rows[1].hash;
        let hash = row_hash(prev, 5, &rows[0].ts, "s", "pass", "{}");
        let c = l.connection();
        c.execute(
            "UPDATE ledger SET decision = 'pass', payload = '{}', hash = ?1 WHERE seq = 5",
            [&hash],
        )
        .unwrap();
        c.execute("UPDATE ledger_head SET hash = ?1", [&hash])
            .unwrap();
        assert!(l.verify().unwrap().ok);
        let v = l.verify_anchored(Some(&[anchor])).unwrap();
        assert!(v.problem.unwrap().contains("rewritten"));
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
