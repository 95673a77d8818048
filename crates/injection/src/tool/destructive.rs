//! Destructive commands: recursive deletion of roots, home or system
//! directories, disk writes and formats, recursive permission changes,
//! killing every process.
//!
//! ## Why
//! These lose data or a machine outside the project being worked on, and
//! cannot be undone: they block. Deleting inside a project (build output,
//! caches) is routine and passes.
//!
//! ## Example
//! `rm -rf /`, `sudo rm -rf --no-preserve-root /`, `find / -exec shred {} +`,
//! `dd if=/dev/zero of=/dev/sda`, `mkfs.ext4 /dev/sdb1`, `chmod -R 777 /`,
//! `zfs destroy -r tank/home`, `rm -rf /mnt/c/Users/ana/Documents` (WSL).
//!
//! ## Not flagged
//! `rm -rf ./build node_modules target`, `rm -rf /tmp/x`, `rm file.txt`,
//! `zfs destroy tank/home@2024-01-01` (one snapshot), `rm -rf /root/.cache`
//! (a cache); `find ~/Downloads -name '*.dmg' -mtime +30 -delete` only flags.

use super::registry::Hit;
use crate::Tier;
use palisade_shell::Invocation;

/// `rm -r` of a root, home or system directory blocks; of another
/// absolute path it flags.
pub(crate) fn rm(inv: &Invocation) -> Option<Hit> {
    let tier = rm_tier(inv.args())?;
    if tier < Tier::Quarantine && inv.args().iter().any(|a| empty_expansion_root(a)) {
        return Some(Hit::new("tool.rm_empty_expansion", Tier::Quarantine));
    }
    let id = if tier == Tier::Block {
        "tool.rm_root"
    } else {
        "tool.rm_recursive"
    };
    Some(Hit::new(id, tier))
}

/// `find ROOT … -delete` (or `-exec rm`) from a root or home directory
/// blocks; one that deletes only empty files or files named by
/// [`DISPOSABLE`] patterns (`-name '*.dmg'`) only flags.
pub(crate) fn find_delete(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let root = args.first().is_some_and(|p| root_like(p));
    let deletes = args.iter().any(|a| a == "-delete")
        || args.windows(2).any(|w| {
            matches!(w[0].as_str(), "-exec" | "-execdir")
                && matches!(palisade_shell::basename(&w[1]), "rm" | "shred" | "unlink")
        });
    if !(root && deletes) {
        return None;
    }
    let names: Vec<&str> = args
        .windows(2)
        .filter(|w| matches!(w[0].as_str(), "-name" | "-iname"))
        .map(|w| w[1].as_str())
        .collect();
    let empty_only = args.iter().any(|a| a == "-empty");
    let disposable = !names.is_empty() && names.iter().all(|n| disposable_name(n));
    let tier = if empty_only || disposable {
        Tier::Flag
    } else {
        Tier::Block
    };
    Some(Hit::new("tool.find_delete", tier))
}

/// Name patterns of files nobody keeps: installers and disk images once
/// installed, compiled and temporary files, logs, editor and patch
/// leftovers, partial downloads (lower case, as `find -name` gives them).
const DISPOSABLE: &[&str] = &[
    "*.dmg",
    "*.pkg",
    "*.msi",
    "*.iso",
    "*.pyc",
    "*.pyo",
    "*.o",
    "*.class",
    "*.log",
    "*.tmp",
    "*.temp",
    "*.bak",
    "*.orig",
    "*.rej",
    "*.swp",
    "*~",
    ".ds_store",
    "__pycache__",
    "*.crdownload",
    "*.part",
    "thumbs.db",
    "core",
    "core.*",
];

/// Whether a `find -name` pattern names only disposable files.
fn disposable_name(pattern: &str) -> bool {
    let p = pattern.trim_matches(['\'', '"']).to_ascii_lowercase();
    DISPOSABLE.contains(&p.as_str())
}

/// `dd of=/dev/…`: wiping a disk (a zero or random source, or none) blocks;
/// writing an image file to a device (flashing a USB stick) quarantines.
pub(crate) fn dd(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let of_dev = args
        .iter()
        .any(|a| a.starts_with("of=/dev/") && !a.starts_with("of=/dev/null"));
    if !of_dev {
        return None;
    }
    let source = args.iter().find_map(|a| a.strip_prefix("if="));
    let wipe = source.is_none_or(|s| s.starts_with("/dev/"));
    Some(if wipe {
        Hit::new("tool.disk_write", Tier::Block)
    } else {
        Hit::new("tool.disk_write", Tier::Quarantine)
    })
}

/// Formatting or repartitioning a disk.
pub(crate) fn disk_format(inv: &Invocation) -> Option<Hit> {
    let help = inv.args().iter().any(|a| {
        matches!(
            a.as_str(),
            "-h" | "--help" | "-V" | "--version" | "-l" | "--list"
        )
    });
    // Formatting an image file (`mkfs.ext4 -F ./disk.img`) touches no disk.
    let image_only = {
        let mut targets = inv.args().iter().filter(|a| !a.starts_with('-')).peekable();
        targets.peek().is_some() && targets.all(|a| !a.starts_with("/dev/") && image_file(a))
    };
    (!help && !image_only).then_some(Hit::new("tool.disk_format", Tier::Block))
}

/// A disk image file (`./disk.img`, `rootfs.ext4`, `/tmp/x.qcow2`).
fn image_file(a: &str) -> bool {
    let l = a.to_ascii_lowercase();
    [
        ".img", ".iso", ".raw", ".qcow2", ".vhd", ".vhdx", ".vmdk", ".ext4", ".ext3", ".fs", ".bin",
    ]
    .iter()
    .any(|e| l.ends_with(e))
}

/// `shred` of a device or a root-like path.
pub(crate) fn shred(inv: &Invocation) -> Option<Hit> {
    inv.args()
        .iter()
        .filter(|a| !a.starts_with('-'))
        .any(|a| a.starts_with("/dev/") || root_like(a))
        .then_some(Hit::new("tool.disk_write", Tier::Block))
}

/// `chmod -R` / `chown -R` / `chgrp -R` of a root-like path.
pub(crate) fn recursive_permissions(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let recursive = args.iter().any(|a| {
        a == "-R"
            || a == "--recursive"
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('R'))
    });
    if !recursive {
        return None;
    }
    let targets: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .collect();
    if !targets.iter().any(|a| root_like(a)) {
        return None;
    }
    // One directory inside home (`chown -R me ~/.npm`, the usual EACCES
    // fix) is the user's own: a look. Home itself, roots, system
    // directories and the key directories block.
    let own = targets
        .iter()
        .filter(|a| root_like(a))
        .all(|a| home_child(a) && !key_dir(a));
    Some(Hit::new(
        "tool.recursive_permissions",
        if own { Tier::Flag } else { Tier::Block },
    ))
}

/// A path one level inside the home directory (`~/.npm`, `$HOME/go`).
fn home_child(t: &str) -> bool {
    let l = t.trim().to_ascii_lowercase();
    let rest = l
        .strip_prefix("~/")
        .or_else(|| l.strip_prefix("$home/"))
        .or_else(|| l.strip_prefix("${home}/"));
    rest.is_some_and(|r| {
        let r = r.trim_end_matches('/');
        !r.is_empty() && !r.contains('/') && !r.contains('*') && r != "." && r != ".."
    })
}

/// Directories holding keys and credentials, whose permissions protect them.
fn key_dir(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    [
        ".ssh",
        ".gnupg",
        ".aws",
        ".kube",
        ".docker",
        ".password-store",
        ".config",
    ]
    .iter()
    .any(|d| l.trim_end_matches('/').ends_with(d))
}

/// `truncate -s 0` (emptying files) of a root, home or system directory's
/// files (`find ~ -type f -exec truncate -s 0 {} +`).
pub(crate) fn truncate(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let zero = args.windows(2).any(|w| {
        matches!(w[0].as_str(), "-s" | "--size") && matches!(w[1].as_str(), "0" | "0K" | "0k")
    }) || args
        .iter()
        .any(|a| matches!(a.as_str(), "-s0" | "--size=0"));
    let mut skip = false;
    let targets = args.iter().filter(|a| {
        let value = skip;
        skip = matches!(a.as_str(), "-s" | "--size" | "-r" | "--reference");
        !value && !a.starts_with('-')
    });
    if !zero {
        return None;
    }
    let targets: Vec<&String> = targets.collect();
    // A service's data files (`/var/lib/mysql/*.ibd`) emptied are the
    // database gone; logs and other trees emptied are a person's call.
    if targets.iter().any(|t| service_data(t)) {
        return Some(Hit::new("tool.truncate_tree", Tier::Block));
    }
    targets
        .iter()
        .any(|t| root_like(t))
        .then_some(Hit::new("tool.truncate_tree", Tier::Quarantine))
}

/// `mv` of a root, home or system directory itself (`mv ~ /tmp/x`): the
/// tree is gone from where everything expects it, and usually deleted next.
pub(crate) fn move_root(inv: &Invocation) -> Option<Hit> {
    let pos: Vec<&String> = inv.args().iter().filter(|a| !a.starts_with('-')).collect();
    let (_, sources) = pos.split_last()?;
    sources
        .iter()
        .any(|s| top_dir(s))
        .then_some(Hit::new("tool.move_root", Tier::Block))
}

/// The root, the home directory, a user's home (`/home/dana`) or a
/// top-level directory (`/etc`, `/usr`).
fn top_dir(t: &str) -> bool {
    let l = t.trim().to_ascii_lowercase();
    let l = l.trim_end_matches('/');
    if matches!(l, "" | "~" | "$home" | "${home}") {
        return true;
    }
    let Some(rest) = l.strip_prefix('/') else {
        return false;
    };
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [one] => matches!(
            *one,
            "etc"
                | "usr"
                | "bin"
                | "sbin"
                | "lib"
                | "lib64"
                | "boot"
                | "var"
                | "home"
                | "root"
                | "opt"
                | "srv"
                | "users"
                | "system"
                | "library"
                | "applications"
        ),
        ["home" | "users", user] => !user.contains('*'),
        _ => false,
    }
}

/// `kill -9 -1` (every process the user may signal), `killall5`.
pub(crate) fn kill_all(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let everyone = match inv.name() {
        "kill" => args.iter().any(|a| a == "-1"),
        _ => args.iter().any(|a| a == "-u") && args.iter().any(|a| a == "root"),
    };
    everyone.then_some(Hit::new("tool.kill_all", Tier::Quarantine))
}

/// Tier for `rm` with these arguments: recursive deletion of a root, home or
/// system directory blocks; of any other non-temporary path quarantines.
pub(crate) fn rm_tier(args: &[String]) -> Option<Tier> {
    let mut recursive = false;
    let mut targets = Vec::new();
    let mut end_of_opts = false;
    for a in args {
        if !end_of_opts && a == "--" {
            end_of_opts = true;
        } else if !end_of_opts && a.starts_with("--") {
            if a == "--recursive" {
                recursive = true;
            }
            if a == "--help" || a == "--version" {
                return None;
            }
        } else if !end_of_opts && a.starts_with('-') && a.len() > 1 {
            if a.contains('r') || a.contains('R') {
                recursive = true;
            }
        } else {
            targets.push(a.as_str());
        }
    }
    if !recursive {
        return None;
    }
    if targets.is_empty() {
        return Some(Tier::Quarantine);
    }
    if targets.iter().any(|t| root_like(t) || guard_path(t)) {
        return Some(Tier::Block);
    }
    if targets.iter().all(|t| temp_path(t)) {
        return None;
    }
    // Relative build/cache directories (`node_modules`, `dist/`) are routine;
    // other absolute paths are worth a flag; roots/home/system block above.
    let absolute = |t: &&str| t.starts_with('/') || t.starts_with('~') || t.starts_with('$');
    if !targets.iter().any(absolute) {
        return None;
    }
    Some(Tier::Flag)
}

/// Whether an `rm` target is an expansion the reader could not resolve
/// (`$STAGE_DIR`, `${DIR}`, `$(cat .stage)`) followed by `/` and at most a
/// glob: when the expansion is empty, the target is the root directory
/// (`rm -rf "$STAGE_DIR"/*` becomes `rm -rf /*`). An expansion guarded
/// against emptiness (`${DIR:?}`), a temporary directory's variable, or
/// a path that goes on into a named directory (`$OUT/cache`) is not.
///
/// ```text
/// "$STAGE_DIR/*", "${DIR}/", "$(cat .runtime_path)/*"  → true
/// "${BUILD_DIR:?}/*", "$tmp/*", "$OUT/cache", "$OUT"   → false
/// ```
fn empty_expansion_root(t: &str) -> bool {
    let Some(v) = t.strip_prefix('$') else {
        return false;
    };
    let rest = if let Some(inner) = v.strip_prefix('{') {
        let Some(close) = inner.find('}') else {
            return false;
        };
        if inner[..close].contains(['?', ':', '-', '=', '#', '%', '/']) {
            // a modifier: `:?` guards, a default is a path of its own
            return false;
        }
        &inner[close + 1..]
    } else if let Some(inner) = v.strip_prefix('(') {
        // a command substitution: up to its matching `)`
        let mut depth = 1usize;
        let mut end = None;
        for (i, c) in inner.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return false;
        };
        &inner[end + 1..]
    } else {
        let name_end = v
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(v.len());
        if name_end == 0 {
            return false;
        }
        &v[name_end..]
    };
    !temp_path(t) && matches!(rest, "/" | "/*" | "/.*" | "/.[!.]*" | "/**")
}

pub(crate) fn temp_path(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    if temp_var(&l) || l.starts_with("$(mktemp") {
        return true;
    }
    if matches!(l.as_str(), "/tmp/*" | "/var/tmp/*") {
        return true;
    }
    l.starts_with("/tmp/")
        || l.starts_with("/var/tmp/")
        || l.starts_with("$tmpdir/")
        || l.starts_with("${tmpdir}/")
        || l.starts_with("${tmpdir:-")
        || l.starts_with("/private/tmp/")
}

/// A variable that by its name holds a temporary directory (`$tmp`,
/// `${TMPDIR}`, `$tmp_dir/x`), as `tmp=$(mktemp -d)` scripts write.
fn temp_var(l: &str) -> bool {
    let Some(v) = l.strip_prefix('$') else {
        return false;
    };
    let v = v.strip_prefix('{').unwrap_or(v);
    let name_end = v
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(v.len());
    let (name, rest) = v.split_at(name_end);
    let rest = rest.strip_prefix('}').unwrap_or(rest);
    matches!(
        name,
        "tmp" | "temp" | "tmpdir" | "tempdir" | "tmp_dir" | "temp_dir" | "workdir_tmp" | "scratch"
    ) && (rest.is_empty() || rest.starts_with('/'))
}

/// Where a container mounts the host's root (`docker run -v /:/host`):
/// paths under it are the host's own.
const HOST_MOUNTS: &[&str] = &["/host", "/hostfs", "/rootfs", "/mnt/host", "/host-root"];

/// Service data directories: deleting one loses a database or a daemon's state.
const SERVICE_DATA: &[&str] = &[
    "postgresql",
    "pgsql",
    "mysql",
    "mariadb",
    "mongodb",
    "redis",
    "docker",
    "containerd",
    "elasticsearch",
    "etcd",
    "kubelet",
    "cassandra",
    "influxdb",
    "clickhouse",
    "rabbitmq",
    // Object stores and hosted repositories: every bucket or repository
    // they serve.
    "minio",
    "git",
    "gitea",
    "gitlab",
    "gitolite",
    "forgejo",
];

/// Folders inside a home directory that hold all of a user's documents or
/// every application's data (`~/Documents`, `~/Library/Application
/// Support`, `AppData/Roaming`, `~/.local/share`), lower case.
const USER_DATA: &[&str] = &[
    "documents",
    "desktop",
    "pictures",
    "downloads",
    "music",
    "videos",
    "onedrive",
    "appdata",
    "library",
    ".ssh",
    ".gnupg",
    ".aws",
    ".config",
    "library/application support",
    "library/keychains",
    "library/mail",
    "library/messages",
    "library/containers",
    "appdata/roaming",
    "appdata/local",
    ".local/share",
];

/// Whether a path relative to a home directory is one of [`USER_DATA`].
fn user_data_dir(rel: &str) -> bool {
    let rel = rel.trim_end_matches("/*").trim_end_matches('/');
    USER_DATA.contains(&rel)
}

/// A path in a service's data directory (`/var/lib/mysql`,
/// `/var/lib/postgresql/16/main`, or under `/srv`, the FHS home of the data
/// a host serves: `/srv/minio/data`, `/srv/git/repositories`).
fn service_data(t: &str) -> bool {
    let l = t.trim().to_ascii_lowercase();
    l.strip_prefix("/var/lib/")
        .or_else(|| l.strip_prefix("/srv/"))
        .is_some_and(|rest| SERVICE_DATA.contains(&rest.split('/').next().unwrap_or("")))
}

/// `zfs destroy` of a dataset or pool with its children (`-r`/`-R`) or not a
/// snapshot, `zpool destroy`/`labelclear`: the pool's data is gone. One
/// snapshot (`tank/home@2024-01-01`) destroyed is routine and passes.
pub(crate) fn zfs_destroy(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let verb = args.iter().find(|a| !a.starts_with('-'))?;
    let targets: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .collect();
    let dry = args
        .iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('n'));
    let hit = match (inv.name(), verb.as_str()) {
        ("zpool", "destroy" | "labelclear") => true,
        ("zfs", "destroy") => {
            let children = args
                .iter()
                .any(|a| a.starts_with('-') && (a.contains('r') || a.contains('R')));
            children || targets.iter().any(|t| !t.contains('@'))
        }
        _ => false,
    };
    (hit && !dry).then_some(Hit::new("tool.disk_format", Tier::Block))
}

/// Paths of the guard itself: deleting them switches it off.
pub(crate) fn guard_path(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    l.contains(".hermes/plugins") || l.contains("hermes-guard") || l.contains("hermes_guard")
}

/// A root, home, or top-level/system directory (or everything: `*`, `.*`),
/// a service's data directory, or one of those under a host mount.
pub(crate) fn root_like(t: &str) -> bool {
    let l = t.trim().to_ascii_lowercase();
    // `${HOME:?}`, `${HOME:-/x}`, `${HOME?}`: the home directory all the same.
    let l = match l.strip_prefix("${home") {
        Some(rest) if rest.starts_with([':', '?', '-']) => match rest.find('}') {
            Some(close) => format!("${{home}}{}", &rest[close + 1..]),
            None => l,
        },
        _ => l,
    };
    for m in HOST_MOUNTS {
        if let Some(rest) = l.strip_prefix(m) {
            if rest.is_empty() || rest == "/" || rest == "/*" {
                return true;
            }
            if rest.starts_with('/') && root_like(rest) {
                return true;
            }
        }
    }
    // `/mnt/c/…` under WSL is the Windows drive `C:\`.
    if let Some(rest) = l.strip_prefix("/mnt/") {
        let mut it = rest.splitn(2, '/');
        let drive = it.next().unwrap_or("");
        if drive.len() == 1 && drive.as_bytes()[0].is_ascii_alphabetic() {
            let inner = it.next().unwrap_or("");
            return inner.is_empty() || root_like(&format!("/{inner}"));
        }
    }
    if service_data(&l) {
        return true;
    }
    // The web server's document root: a site's content.
    if matches!(
        l.trim_end_matches("/*").trim_end_matches('/'),
        "/var/www" | "/var/www/html" | "/srv/www" | "/usr/share/nginx/html"
    ) {
        return true;
    }
    let l = l.trim_end_matches("/*").trim_end_matches("/.");
    // A cache (`~/.cache`, `/root/.cache`, `/var/cache`, `~/Library/Caches`,
    // npm's `/root/.npm`) is rebuilt by what filled it.
    if l.rsplit('/').next().is_some_and(|last| {
        matches!(
            last,
            ".cache" | "cache" | "caches" | ".npm" | "_cacache" | ".pnpm-store"
        )
    }) && l.len() > 1
    {
        return false;
    }
    if matches!(
        l,
        "" | "/"
            | "*"
            | ".*"
            | "~"
            | "~/"
            | "$home"
            | "${home}"
            | "$home/"
            | "/*"
            | "c:\\"
            | "c:/"
            | ".."
    ) {
        return true;
    }
    let home_rel = l
        .strip_prefix("~/")
        .or_else(|| l.strip_prefix("$home/"))
        .or_else(|| l.strip_prefix("${home}/"));
    if let Some(rest) = home_rel {
        let rest = rest.trim_end_matches('/');
        return rest.split('/').filter(|s| !s.is_empty()).count() <= 1 || user_data_dir(rest);
    }
    if temp_path(l) || matches!(l, "/tmp" | "/var/tmp" | "$tmpdir" | "${tmpdir}") {
        return false;
    }
    if let Some(rest) = l.strip_prefix('/') {
        let parts: Vec<&str> = rest
            .trim_end_matches('/')
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        let top = parts.first().copied().unwrap_or("");
        let system = matches!(
            top,
            "etc"
                | "usr"
                | "var"
                | "bin"
                | "sbin"
                | "lib"
                | "lib64"
                | "boot"
                | "opt"
                | "srv"
                | "dev"
                | "sys"
                | "proc"
                | "root"
                | "system"
                | "library"
                | "applications"
                | "mnt"
                | "media"
                | "snap"
        );
        let home = matches!(top, "home" | "users");
        // A user's own data folders, as `~/Documents` is.
        let user_data = home && parts.len() >= 3 && user_data_dir(&parts[2..].join("/"));
        return parts.len() <= 1
            || (system && parts.len() <= 2)
            || (home && parts.len() <= 2)
            || user_data;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_expansion_before_a_root_glob() {
        for t in [
            "$STAGE_DIR/*",
            "${DIR}/",
            "$(cat .runtime_path 2>/dev/null)/*",
            "$X/.*",
        ] {
            assert!(empty_expansion_root(t), "{t}");
        }
        for t in [
            "${BUILD_DIR:?}/*",
            "${TMPDIR:-/tmp}/*",
            "$tmp/*",
            "$OUT/cache",
            "$OUT",
            "./$d",
            "$",
            "$(unclosed/*",
        ] {
            assert!(!empty_expansion_root(t), "{t}");
        }
    }

    #[test]
    fn user_data_and_wsl_drives_are_root_like() {
        for p in [
            "~/Library/Application Support",
            "/home/ana/Documents",
            "/Users/ana/Desktop/",
            "/mnt/c/Users/ana/Documents",
            "/mnt/c/",
            "~/.local/share",
        ] {
            assert!(root_like(p), "{p}");
        }
        for p in [
            "~/.cache",
            "/root/.cache",
            "/var/cache",
            "~/Library/Caches",
            "/root/.npm",
            "~/Library/Caches/com.example.app",
            "/home/ana/proj/build",
            "/mnt/data/cache/x/y",
            "/mnt/c/Users/ana/proj/build",
            "~/.local/share/Trash/files",
        ] {
            assert!(!root_like(p), "{p}");
        }
    }
}
