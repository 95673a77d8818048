//! Everything the guards write, under `$HERMES_HOME/plugin-data/<guard>/`.
//!
//! * [`jsonl`] — append-only JSON Lines logs: appends under an advisory lock,
//!   files created 0600, a torn last line (a writer killed mid-append) never
//!   swallows the next row, readers skip and count corrupt lines, reports read
//!   at most the last N bytes, retention pruning and purge by atomic rewrite
//!   (temp file + fsync + rename + directory fsync), and an incremental reader
//!   that reuses parsed rows while a file only grows.
//! * [`ledger`] — the SHA-256 hash-chained decision ledger in SQLite; `verify`
//!   detects an edited, deleted, reordered or truncated row.
//! * [`quarantine`] — the injection guard's SQLite quarantine, pattern store
//!   and telemetry.
//! * [`paths`] — the data directory and filename-safe session ids.

pub mod jsonl;
pub mod ledger;
pub mod paths;
pub mod quarantine;

use std::fs;
use std::io;
use std::path::Path;

/// Create `dir` (and parents) with mode 0700 for the directories we create.
///
/// ```
/// let d = tempfile::tempdir().unwrap();
/// palisade_hermes::storage::ensure_dir(&d.path().join("a/b")).unwrap();
/// assert!(d.path().join("a/b").is_dir());
/// ```
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Open (creating if needed) a SQLite store at `path`: its folder 0700, the
/// file created 0600 before SQLite opens it (the -wal and -shm files inherit
/// the database file's mode), WAL journal with synchronous=NORMAL, so a commit
/// survives a killed process without an fsync per row (a power cut may lose
/// the newest rows; the ledger's hash chain stays consistent either way).
/// Closing does not checkpoint: a host spawns one short process per hook
/// event, and a checkpoint at every close fsyncs the WAL, the database and
/// its folder each time (most of a hook's wall time); the WAL is
/// checkpointed as it grows (SQLite's auto-checkpoint), which guarantees
/// the same as before under synchronous=NORMAL.
pub(crate) fn open_sqlite(path: &Path) -> rusqlite::Result<rusqlite::Connection> {
    if let Some(parent) = path.parent() {
        let _ = ensure_dir(parent);
    }
    let _ = private_options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path);
    let _ = restrict_mode(path);
    let conn = rusqlite::Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    Ok(conn)
}

/// Open options for a data file: created with mode 0600 on Unix.
pub(crate) fn private_options() -> fs::OpenOptions {
    let mut options = fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Tighten an open file to 0600 when its mode lets group or others in (a
/// no-op elsewhere); `meta` is the file's metadata, already read.
pub(crate) fn restrict_open_file(file: &fs::File, meta: &fs::Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            file.set_permissions(fs::Permissions::from_mode(0o600))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (file, meta);
    Ok(())
}

/// Tighten an existing file to 0600 (a no-op elsewhere).
pub(crate) fn restrict_mode(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = fs::metadata(path)?;
        if meta.permissions().mode() & 0o077 != 0 {
            fs::set_permissions(path, fs::Permissions::from_mode(0o600))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}
