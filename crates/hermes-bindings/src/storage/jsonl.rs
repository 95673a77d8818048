//! Append-only JSON Lines logs that survive concurrent writers and crashes.
//!
//! # Guarantees
//!
//! * **Whole lines.** Every append takes an exclusive advisory lock on a
//!   sibling `<file>.lock` (flock via `fs4`; released by the kernel if the
//!   process dies), then writes the row and its newline with one `write`
//!   call on a file opened `O_APPEND`. Two processes appending at once
//!   interleave whole lines.
//! * **A torn tail never eats a row.** If a writer was killed mid-line, the
//!   next append first terminates the torn line, so the torn fragment is one
//!   corrupt line and the new row stays parseable.
//! * **Tolerant readers.** A line that is not a JSON object is skipped and
//!   counted in [`ReadReport::skipped`]; nothing panics.
//! * **Bounded reports.** [`JsonlLog::read_tail`] reads at most the last N bytes.
//! * **Atomic rewrite.** Pruning and purging write a temp file in the same
//!   directory (0600), fsync it, rename it over the log and fsync the
//!   directory, all under the lock: a reader sees the old file or the new
//!   one, never a half-written one, and no concurrent append is lost.
//! * **0600.** Logs, lock and marker files are created with mode 0600.
//!
//! Appends are not fsynced one by one (a killed process loses nothing that
//! `append` acknowledged, because the page cache outlives it; a power cut may
//! lose the last rows).

use super::{ensure_dir, private_options};
use crate::time::Timestamp;
use serde::Serialize;
use serde_json::Value;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One JSON Lines log file.
///
/// ```
/// use palisade_hermes::storage::jsonl::JsonlLog;
/// let dir = tempfile::tempdir().unwrap();
/// let log = JsonlLog::new(dir.path().join("evidence.jsonl"));
/// log.append(&serde_json::json!({"verdict": "pass"})).unwrap();
/// let report = log.read_all().unwrap();
/// assert_eq!(report.rows.len(), 1);
/// assert_eq!(report.skipped, 0);
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct JsonlLog {
    path: PathBuf,
}

/// Rows read from a log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadReport {
    /// The rows that parsed as JSON objects, oldest first.
    pub rows: Vec<Value>,
    /// Lines that were not JSON objects (corrupt, torn, hand-edited).
    pub skipped: usize,
    /// Where the first [`MAX_LOCATED`] of them are, so they can be found
    /// and fixed.
    pub skipped_at: Vec<SkippedLine>,
    /// The file does not exist (nothing written yet, or purged by hand).
    pub missing: bool,
    /// Only the tail was read: older rows exist that are not in `rows`.
    pub partial: bool,
}

/// Skipped lines located in a [`ReadReport`].
pub const MAX_LOCATED: usize = 20;

/// Where a skipped (corrupt) line is.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("a.jsonl");
/// std::fs::write(&path, "{\"n\":1}\nbroken\n").unwrap();
/// let r = palisade_hermes::storage::jsonl::JsonlLog::new(&path).read_all().unwrap();
/// assert_eq!(r.skipped_at[0].line, Some(2));
/// assert_eq!(r.skipped_at[0].offset, 8);
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Serialize)]
pub struct SkippedLine {
    /// 1-based line number in the file, when the whole file was read (a
    /// tail read does not count the lines before it).
    pub line: Option<u64>,
    /// Byte offset of the line's start in the file.
    pub offset: u64,
}

/// What a rewrite kept and removed.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Serialize)]
pub struct RetainReport {
    /// Rows kept.
    pub kept: usize,
    /// Rows removed by the predicate.
    pub removed: usize,
    /// Corrupt lines dropped by the rewrite.
    pub dropped_corrupt: usize,
}

/// Parsed rows of a log that only grows, reused between reads
/// (see [`JsonlLog::read_incremental`]).
#[derive(Clone, Debug, Default)]
pub struct IncrementalCache {
    identity: Option<(u64, u64)>,
    offset: u64,
    rows: Vec<Value>,
    skipped: usize,
}

impl IncrementalCache {
    /// The rows read so far, oldest first.
    ///
    /// ```
    /// assert!(palisade_hermes::storage::jsonl::IncrementalCache::default().rows().is_empty());
    /// ```
    pub fn rows(&self) -> &[Value] {
        &self.rows
    }

    /// Corrupt lines skipped so far.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::storage::jsonl::IncrementalCache::default().skipped(), 0);
    /// ```
    pub fn skipped(&self) -> usize {
        self.skipped
    }
}

/// How old and how large a log may grow before pruning rewrites it.
///
/// ```
/// let r = palisade_hermes::storage::jsonl::Retention::default();
/// assert_eq!((r.days, r.max_bytes), (30, 64 * 1024 * 1024));
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Retention {
    /// Rows older than this many days are removed.
    pub days: u64,
    /// A log larger than this keeps only its newest rows within half of it
    /// (reports read at most the last 16 MB, so the default keeps two
    /// report windows after a prune).
    pub max_bytes: u64,
}

impl Default for Retention {
    fn default() -> Retention {
        Retention {
            days: 30,
            max_bytes: DEFAULT_MAX_LOG_BYTES,
        }
    }
}

/// The size cap of a pruned log: 64 MiB.
pub const DEFAULT_MAX_LOG_BYTES: u64 = 64 * 1024 * 1024;

/// The lock held while appending or rewriting; dropping it unlocks.
struct LockGuard {
    _file: File,
}

impl JsonlLog {
    /// A log at `path` (nothing is created until the first append).
    ///
    /// ```
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new("/tmp/x.jsonl");
    /// assert!(log.path().ends_with("x.jsonl"));
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> JsonlLog {
        JsonlLog { path: path.into() }
    }

    /// The log's path.
    ///
    /// ```
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new("a.jsonl");
    /// assert_eq!(log.path(), std::path::Path::new("a.jsonl"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sibling(&self, suffix: &str) -> PathBuf {
        let mut name = self
            .path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(suffix);
        self.path.with_file_name(name)
    }

    fn lock(&self) -> io::Result<LockGuard> {
        if let Some(parent) = self.path.parent() {
            if !parent.as_os_str().is_empty() {
                ensure_dir(parent)?;
            }
        }
        let lock_path = self.sibling(".lock");
        let file = private_options()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)?;
        // Fully qualified: fs4's flock, not std's newer inherent File::lock (MSRV).
        <File as fs4::FileExt>::lock(&file)?;
        Ok(LockGuard { _file: file })
    }

    /// Append one row (serialized as one line of JSON).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new(dir.path().join("d/a.jsonl"));
    /// log.append(&serde_json::json!({"n": 1})).unwrap();
    /// assert_eq!(std::fs::read_to_string(log.path()).unwrap(), "{\"n\":1}\n");
    /// ```
    pub fn append<T: Serialize + ?Sized>(&self, row: &T) -> io::Result<()> {
        let line = serde_json::to_string(row).map_err(io::Error::other)?;
        self.append_lines(std::slice::from_ref(&line))
    }

    /// Append several pre-serialized single-line rows under one lock.
    /// A line containing a newline is rejected (it would split a row).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new(dir.path().join("a.jsonl"));
    /// assert!(log.append_lines(&["{}\n{}".to_owned()]).is_err());
    /// log.append_lines(&["{\"a\":1}".to_owned(), "{\"a\":2}".to_owned()]).unwrap();
    /// assert_eq!(log.read_all().unwrap().rows.len(), 2);
    /// ```
    pub fn append_lines(&self, lines: &[String]) -> io::Result<()> {
        if lines.iter().any(|l| l.contains('\n')) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a jsonl row must be a single line",
            ));
        }
        let _lock = self.lock()?;
        let mut file = private_options()
            .create(true)
            .append(true)
            .read(true)
            .open(&self.path)?;
        let meta = file.metadata()?;
        let len = meta.len();
        // A log created by someone else (or by an older version) with a
        // looser mode is tightened to 0600 on open, as the SQLite files are.
        super::restrict_open_file(&file, &meta)?;
        let mut buf = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + 1);
        if len > 0 && last_byte(&mut file, len)? != Some(b'\n') {
            // A writer died mid-line: end the torn fragment so it stays one
            // (skipped) line and does not swallow this row.
            buf.push(b'\n');
        }
        for line in lines {
            buf.extend_from_slice(line.as_bytes());
            buf.push(b'\n');
        }
        file.write_all(&buf)
    }

    /// Read every row. A missing file is an empty report with `missing`.
    ///
    /// ```
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new("/nonexistent/x.jsonl");
    /// assert!(log.read_all().unwrap().missing);
    /// ```
    pub fn read_all(&self) -> io::Result<ReadReport> {
        self.read_tail(u64::MAX)
    }

    /// Read the rows in the last `max_bytes` of the file (a partial first
    /// line is dropped, not counted as corrupt).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new(dir.path().join("a.jsonl"));
    /// for n in 0..100 { log.append(&serde_json::json!({"n": n})).unwrap(); }
    /// let tail = log.read_tail(50).unwrap();
    /// assert!(tail.partial && tail.rows.len() < 10);
    /// assert_eq!(tail.rows.last().unwrap()["n"], 99);
    /// ```
    pub fn read_tail(&self, max_bytes: u64) -> io::Result<ReadReport> {
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(ReadReport {
                    missing: true,
                    ..ReadReport::default()
                })
            }
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        let start = len.saturating_sub(max_bytes);
        file.seek(SeekFrom::Start(start))?;
        let mut bytes = Vec::new();
        (&mut file).take(len - start).read_to_end(&mut bytes)?;
        let mut body: &[u8] = &bytes;
        let mut body_start = start;
        let partial = start > 0;
        if partial {
            // Drop the partial first line unless we happen to start on a boundary.
            let mut prev = [0u8; 1];
            file.seek(SeekFrom::Start(start - 1))?;
            file.read_exact(&mut prev)?;
            if prev[0] != b'\n' {
                body = match body.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        body_start += i as u64 + 1;
                        &body[i + 1..]
                    }
                    None => &[],
                };
            }
        }
        let mut report = ReadReport {
            partial,
            ..ReadReport::default()
        };
        let mut offset = body_start;
        for (index, line) in body.split(|&b| b == b'\n').enumerate() {
            let line_start = offset;
            offset += line.len() as u64 + 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(row) if row.is_object() => report.rows.push(row),
                _ => {
                    report.skipped += 1;
                    if report.skipped_at.len() < MAX_LOCATED {
                        report.skipped_at.push(SkippedLine {
                            line: (!partial).then_some(index as u64 + 1),
                            offset: line_start,
                        });
                    }
                }
            }
        }
        Ok(report)
    }

    /// Read new rows since the last call, reusing `cache` while the file
    /// only grows (same inode, length not smaller). A rewrite (prune, purge)
    /// or truncation resets the cache. A trailing line without its newline
    /// (an append in progress) is left for the next call.
    ///
    /// ```
    /// use palisade_hermes::storage::jsonl::{JsonlLog, IncrementalCache};
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = JsonlLog::new(dir.path().join("said.jsonl"));
    /// let mut cache = IncrementalCache::default();
    /// log.append(&serde_json::json!({"text": "a"})).unwrap();
    /// assert_eq!(log.read_incremental(&mut cache).unwrap(), 1);
    /// log.append(&serde_json::json!({"text": "b"})).unwrap();
    /// assert_eq!(log.read_incremental(&mut cache).unwrap(), 1);
    /// assert_eq!(cache.rows().len(), 2);
    /// ```
    pub fn read_incremental(&self, cache: &mut IncrementalCache) -> io::Result<usize> {
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                *cache = IncrementalCache::default();
                return Ok(0);
            }
            Err(e) => return Err(e),
        };
        let meta = file.metadata()?;
        let identity = file_identity(&meta);
        if cache.identity != Some(identity) || meta.len() < cache.offset {
            *cache = IncrementalCache {
                identity: Some(identity),
                ..IncrementalCache::default()
            };
        }
        if meta.len() == cache.offset {
            return Ok(0);
        }
        file.seek(SeekFrom::Start(cache.offset))?;
        let mut bytes = Vec::new();
        (&mut file)
            .take(meta.len() - cache.offset)
            .read_to_end(&mut bytes)?;
        let complete = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            None => return Ok(0),
        };
        let before = cache.rows.len();
        parse_lines(&bytes[..complete], &mut cache.rows, &mut cache.skipped);
        cache.offset += complete as u64;
        Ok(cache.rows.len() - before)
    }

    /// Rewrite the log keeping only rows for which `keep` is true; corrupt
    /// lines are dropped. Atomic (temp + fsync + rename + dir fsync) and
    /// under the append lock. A missing log is left missing.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new(dir.path().join("a.jsonl"));
    /// for n in 0..4 { log.append(&serde_json::json!({"n": n})).unwrap(); }
    /// let r = log.retain(|row| row["n"].as_i64() >= Some(2)).unwrap();
    /// assert_eq!((r.kept, r.removed), (2, 2));
    /// ```
    pub fn retain(&self, mut keep: impl FnMut(&Value) -> bool) -> io::Result<RetainReport> {
        self.retain_sized(|row, _| keep(row))
    }

    /// [`JsonlLog::retain`] where `keep` also gets the number of bytes from
    /// the start of the row's line to the end of the file (so a caller can
    /// keep only the newest N bytes).
    fn retain_sized(&self, mut keep: impl FnMut(&Value, u64) -> bool) -> io::Result<RetainReport> {
        let _lock = self.lock()?;
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(RetainReport::default()),
            Err(e) => return Err(e),
        };
        let mut report = RetainReport::default();
        let mut out = Vec::with_capacity(bytes.len());
        let total = bytes.len() as u64;
        let mut offset: u64 = 0;
        for line in bytes.split(|&b| b == b'\n') {
            let from_here = total.saturating_sub(offset);
            offset += line.len() as u64 + 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(row) if row.is_object() => {
                    if keep(&row, from_here) {
                        report.kept += 1;
                        out.extend_from_slice(line);
                        out.push(b'\n');
                    } else {
                        report.removed += 1;
                    }
                }
                _ => report.dropped_corrupt += 1,
            }
        }
        if report.removed == 0 && report.dropped_corrupt == 0 {
            return Ok(report);
        }
        atomic_write(&self.path, &out)?;
        Ok(report)
    }

    /// Age and size pruning in one atomic rewrite: rows whose `field`
    /// timestamp is older than `retention.cutoff(now)` go; then, if the file
    /// is larger than `retention.max_bytes`, only the newest rows within half
    /// of it stay (the slack keeps a log at the limit from being rewritten at
    /// every check). Rows without a readable timestamp are kept by age.
    ///
    /// ```
    /// use palisade_hermes::{storage::jsonl::{JsonlLog, Retention}, Timestamp};
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = JsonlLog::new(dir.path().join("a.jsonl"));
    /// let now = Timestamp::parse("2030-01-01T00:00:00Z").unwrap();
    /// log.append(&serde_json::json!({"ts": "2020-01-01T00:00:00Z"})).unwrap();
    /// for n in 0..100 { log.append(&serde_json::json!({"ts": "2029-12-31T00:00:00Z", "n": n})).unwrap(); }
    /// let r = log.prune(&Retention { days: 30, max_bytes: 2000 }, "ts", now).unwrap();
    /// assert!(r.removed > 50);
    /// assert!(std::fs::metadata(log.path()).unwrap().len() <= 1000);
    /// let rows = log.read_all().unwrap().rows;
    /// assert_eq!(rows.last().unwrap()["n"], 99, "the newest rows stay");
    /// ```
    pub fn prune(
        &self,
        retention: &Retention,
        field: &str,
        now: Timestamp,
    ) -> io::Result<RetainReport> {
        let cutoff = now.minus_days(retention.days);
        let len = match fs::metadata(&self.path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(RetainReport::default()),
            Err(e) => return Err(e),
        };
        let budget = if len > retention.max_bytes {
            retention.max_bytes / 2
        } else {
            u64::MAX
        };
        self.retain_sized(|row, from_here| {
            from_here <= budget && row_time(row, field).is_none_or(|t| t >= cutoff)
        })
    }

    /// [`JsonlLog::prune`], at most once per `interval_s` seconds,
    /// remembered in the same sibling `<file>.pruned` marker as
    /// [`JsonlLog::prune_if_due`]. Returns `None` when not due.
    ///
    /// ```
    /// use palisade_hermes::{storage::jsonl::{JsonlLog, Retention}, Timestamp};
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = JsonlLog::new(dir.path().join("a.jsonl"));
    /// let now = Timestamp::from_unix(10_000_000);
    /// let keep = Retention::default();
    /// assert!(log.prune_sized_if_due(&keep, "ts", now, 3600).unwrap().is_some());
    /// assert!(log.prune_sized_if_due(&keep, "ts", now, 3600).unwrap().is_none());
    /// ```
    pub fn prune_sized_if_due(
        &self,
        retention: &Retention,
        field: &str,
        now: Timestamp,
        interval_s: i64,
    ) -> io::Result<Option<RetainReport>> {
        let marker = self.sibling(".pruned");
        let last = fs::read_to_string(&marker)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok());
        if let Some(last) = last {
            if now.unix() >= last && now.unix() - last < interval_s {
                return Ok(None);
            }
        }
        let report = self.prune(retention, field, now)?;
        atomic_write(&marker, now.unix().to_string().as_bytes())?;
        Ok(Some(report))
    }

    /// Remove rows whose `field` timestamp is older than `cutoff`. Rows
    /// without a readable timestamp are kept (their age is unknown).
    ///
    /// ```
    /// use palisade_hermes::{storage::jsonl::JsonlLog, Timestamp};
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = JsonlLog::new(dir.path().join("a.jsonl"));
    /// log.append(&serde_json::json!({"ts": "2020-01-01T00:00:00Z"})).unwrap();
    /// log.append(&serde_json::json!({"ts": "2030-01-01T00:00:00Z"})).unwrap();
    /// let r = log.prune_before("ts", Timestamp::parse("2025-01-01T00:00:00Z").unwrap()).unwrap();
    /// assert_eq!(r.removed, 1);
    /// ```
    pub fn prune_before(&self, field: &str, cutoff: Timestamp) -> io::Result<RetainReport> {
        self.retain(|row| row_time(row, field).is_none_or(|t| t >= cutoff))
    }

    /// [`JsonlLog::prune_before`], at most once per `interval_s` seconds,
    /// remembered in a sibling `<file>.pruned` marker. Returns `None` when
    /// not due.
    ///
    /// ```
    /// use palisade_hermes::{storage::jsonl::JsonlLog, Timestamp};
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = JsonlLog::new(dir.path().join("a.jsonl"));
    /// let now = Timestamp::from_unix(10_000_000);
    /// assert!(log.prune_if_due("ts", now.minus_days(30), now, 3600).unwrap().is_some());
    /// assert!(log.prune_if_due("ts", now.minus_days(30), now, 3600).unwrap().is_none());
    /// ```
    pub fn prune_if_due(
        &self,
        field: &str,
        cutoff: Timestamp,
        now: Timestamp,
        interval_s: i64,
    ) -> io::Result<Option<RetainReport>> {
        let marker = self.sibling(".pruned");
        let last = fs::read_to_string(&marker)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok());
        if let Some(last) = last {
            if now.unix() >= last && now.unix() - last < interval_s {
                return Ok(None);
            }
        }
        let report = self.prune_before(field, cutoff)?;
        atomic_write(&marker, now.unix().to_string().as_bytes())?;
        Ok(Some(report))
    }

    /// Remove every row (the file becomes empty; lock and marker files stay).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let log = palisade_hermes::storage::jsonl::JsonlLog::new(dir.path().join("a.jsonl"));
    /// log.append(&serde_json::json!({})).unwrap();
    /// assert_eq!(log.purge_all().unwrap(), 1);
    /// assert!(log.read_all().unwrap().rows.is_empty());
    /// ```
    pub fn purge_all(&self) -> io::Result<usize> {
        let r = self.retain(|_| false)?;
        Ok(r.removed)
    }
}

/// The timestamp in `row[field]`, if it is RFC 3339 text or Unix seconds.
///
/// ```
/// use palisade_hermes::storage::jsonl::row_time;
/// assert_eq!(row_time(&serde_json::json!({"ts": 5}), "ts").unwrap().unix(), 5);
/// assert!(row_time(&serde_json::json!({"ts": "?"}), "ts").is_none());
/// ```
pub fn row_time(row: &Value, field: &str) -> Option<Timestamp> {
    match row.get(field)? {
        Value::String(s) => Timestamp::parse(s),
        Value::Number(n) => n.as_f64().map(|f| Timestamp::from_unix(f as i64)),
        _ => None,
    }
}

fn parse_lines(body: &[u8], rows: &mut Vec<Value>, skipped: &mut usize) {
    for line in body.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(row) if row.is_object() => rows.push(row),
            _ => *skipped += 1,
        }
    }
}

fn last_byte(file: &mut File, len: u64) -> io::Result<Option<u8>> {
    if len == 0 {
        return Ok(None);
    }
    let mut b = [0u8; 1];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt as _;
        file.read_exact_at(&mut b, len - 1)?;
    }
    #[cfg(not(unix))]
    {
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut b)?;
    }
    Ok(Some(b[0]))
}

#[cfg(unix)]
fn file_identity(meta: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_identity(meta: &fs::Metadata) -> (u64, u64) {
    // No inode: fall back to the creation time, which a rename-over changes.
    let created = meta
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    (0, created)
}

/// Replace `path` with `bytes` without fsync: temp file in the same
/// directory (0600) and rename, so a reader sees the old or the new file,
/// never a torn one. For snapshots that a power cut may roll back.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let p = dir.path().join("latest.json");
/// palisade_hermes::storage::jsonl::replace_file(&p, b"{}").unwrap();
/// assert_eq!(std::fs::read(&p).unwrap(), b"{}");
/// ```
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_and_rename(path, bytes, false)
}

/// Replace `path` with `bytes` atomically: temp file in the same directory
/// (0600), fsync, rename, fsync the directory.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let p = dir.path().join("f");
/// palisade_hermes::storage::jsonl::atomic_write(&p, b"x").unwrap();
/// assert_eq!(std::fs::read(&p).unwrap(), b"x");
/// ```
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_and_rename(path, bytes, true)
}

fn write_and_rename(path: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    ensure_dir(&dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    // Unique per process and call, so concurrent writers never share a temp file.
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
    {
        let mut f = private_options()
            .create(true)
            .write(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        if durable {
            f.sync_all()?;
        }
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    #[cfg(unix)]
    if durable {
        if let Ok(d) = File::open(&dir) {
            // Best effort: some filesystems refuse fsync on a directory.
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Shrink `row` until its JSON is at most `cap` bytes: long strings are cut
/// and long arrays shortened, and `"truncated": true` is added. Returns the
/// row unchanged when it already fits.
///
/// ```
/// use palisade_hermes::storage::jsonl::cap_row;
/// let row = serde_json::json!({"findings": vec!["x".repeat(100); 1000]});
/// let capped = cap_row(row, 65_536);
/// assert!(capped.to_string().len() <= 65_536);
/// assert_eq!(capped["truncated"], true);
/// ```
pub fn cap_row(row: Value, cap: usize) -> Value {
    if row.to_string().len() <= cap {
        return row;
    }
    let mut limit = 4096usize;
    let mut current = row;
    // Each round halves the per-field budget; 12 rounds reach a budget of 1.
    for _ in 0..12 {
        current = shrink(&current, limit);
        if let Value::Object(o) = &mut current {
            o.insert("truncated".to_owned(), Value::Bool(true));
        }
        if current.to_string().len() <= cap {
            return current;
        }
        limit /= 2;
    }
    serde_json::json!({"truncated": true})
}

fn shrink(v: &Value, limit: usize) -> Value {
    match v {
        Value::String(s) if s.len() > limit => {
            Value::String(format!("{}…", palisade_common::text::head(s, limit)))
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .take(limit.max(1))
                .map(|x| shrink(x, limit))
                .collect(),
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), shrink(x, limit)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn torn_tail_does_not_swallow_next_row() {
        let dir = tempfile::tempdir().unwrap();
        let log = JsonlLog::new(dir.path().join("a.jsonl"));
        log.append(&json!({"n": 1})).unwrap();
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .unwrap();
        f.write_all(b"{\"n\": 2, \"tor").unwrap();
        drop(f);
        log.append(&json!({"n": 3})).unwrap();
        let r = log.read_all().unwrap();
        assert_eq!(r.rows, vec![json!({"n": 1}), json!({"n": 3})]);
        assert_eq!(r.skipped, 1);
        assert_eq!(r.skipped_at.len(), 1);
        assert!(r.skipped_at[0].line.is_some());
    }

    #[test]
    fn corrupt_lines_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let log = JsonlLog::new(dir.path().join("a.jsonl"));
        fs::write(
            log.path(),
            "{\"a\":1}\nnot json\n[1,2]\n\n\u{0}\u{1}\n{\"a\":2}\n",
        )
        .unwrap();
        let r = log.read_all().unwrap();
        assert_eq!(r.rows.len(), 2);
        assert_eq!(r.skipped, 3);
        let pr = log.retain(|_| true).unwrap();
        assert_eq!((pr.kept, pr.dropped_corrupt), (2, 3));
        assert_eq!(log.read_all().unwrap().skipped, 0);
    }

    #[test]
    fn incremental_resets_after_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let log = JsonlLog::new(dir.path().join("a.jsonl"));
        let mut cache = IncrementalCache::default();
        for n in 0..3 {
            log.append(&json!({"n": n})).unwrap();
        }
        assert_eq!(log.read_incremental(&mut cache).unwrap(), 3);
        log.retain(|r| r["n"] != 0).unwrap();
        log.read_incremental(&mut cache).unwrap();
        assert_eq!(cache.rows().len(), 2);
        // A half-written line is left for later.
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .unwrap();
        f.write_all(b"{\"n\":").unwrap();
        assert_eq!(log.read_incremental(&mut cache).unwrap(), 0);
        f.write_all(b"9}\n").unwrap();
        assert_eq!(log.read_incremental(&mut cache).unwrap(), 1);
        assert_eq!(cache.rows().last().unwrap()["n"], 9);
    }

    #[cfg(unix)]
    #[test]
    fn files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let log = JsonlLog::new(dir.path().join("sub/a.jsonl"));
        log.append(&json!({"n": 1})).unwrap();
        log.prune_if_due(
            "ts",
            Timestamp::from_unix(0),
            Timestamp::from_unix(10),
            3600,
        )
        .unwrap();
        for name in ["a.jsonl", "a.jsonl.lock", "a.jsonl.pruned"] {
            let mode = fs::metadata(dir.path().join("sub").join(name))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{name}");
        }
        log.retain(|_| false).unwrap();
        let mode = fs::metadata(log.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
