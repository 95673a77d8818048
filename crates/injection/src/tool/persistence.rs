//! Persistence: writes to places that run code later or grant access —
//! `authorized_keys`, shell start-up files, cron, systemd units, git
//! hooks, `ld.so.preload`, sudoers, launch agents.
//!
//! ## Why
//! A key added to `authorized_keys`, a library in `ld.so.preload` or a
//! sudoers line is a backdoor whatever it says: it blocks. A start-up
//! file, cron entry, unit or hook blocks when what is written fetches or
//! runs a payload; otherwise it is worth a look (flag) — people add PATH
//! lines to `~/.bashrc` every day.
//!
//! ## Example
//! `echo ssh-rsa AAAA… >> ~/.ssh/authorized_keys`,
//! `echo /usr/lib/x.so | sudo tee -a /etc/ld.so.preload`,
//! `printf '#!/bin/sh\ncurl …|sh' > .git/hooks/pre-push`.
//!
//! ## Not flagged
//! `echo 'export PATH=…' >> ~/.bashrc` (flag), `crontab -l`, writing
//! `deploy/invoice-api.service` inside a repository.

use super::registry::Hit;
use crate::Tier;
use palisade_shell::Invocation;

/// How a path persists.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Persists {
    /// Grants access or loads code by itself: always a backdoor.
    Always,
    /// Runs what is written later: a backdoor when that fetches or runs a payload.
    RunsContent,
}

/// The persistence class of a path written to, if it has one.
pub(crate) fn class(path: &str) -> Option<Persists> {
    let p = path.trim().trim_matches(['\'', '"']).to_ascii_lowercase();
    let p = p.as_str();
    let name = p.rsplit('/').next().unwrap_or(p);
    if matches!(
        name,
        "authorized_keys" | "authorized_keys2" | "ld.so.preload"
    ) || p.starts_with("/etc/sudoers")
        || p == "/etc/passwd"
        || p == "/etc/shadow"
    {
        return Some(Persists::Always);
    }
    let rc = matches!(
        name,
        ".bashrc"
            | ".zshrc"
            | ".profile"
            | ".bash_profile"
            | ".bash_login"
            | ".zprofile"
            | ".zshenv"
            | ".zlogin"
            | "config.fish"
            | "rc.local"
            | "crontab"
    );
    let dirs = [
        "/etc/cron",
        "/var/spool/cron",
        "/etc/systemd/system/",
        "/.config/systemd/user/",
        "/etc/init.d/",
        "/etc/profile.d/",
        "/.config/autostart/",
        "/library/launchagents/",
        "/library/launchdaemons/",
        ".git/hooks/",
        "/etc/xdg/autostart/",
    ];
    (rc || dirs.iter().any(|d| p.contains(d))).then_some(Persists::RunsContent)
}

fn hit_for(path: &str) -> Option<Hit> {
    match class(path)? {
        Persists::Always => Some(Hit::new("tool.persistence", Tier::Block)),
        Persists::RunsContent => Some(Hit::new(PERSISTENCE_PATH, Tier::Flag)),
    }
}

/// The id of a write to a [`Persists::RunsContent`] path; the caller
/// raises it to `tool.persistence` / block when the command runs a payload.
pub(crate) const PERSISTENCE_PATH: &str = "tool.persistence_path";

/// `> PATH`, `>> PATH` onto a persistence path.
pub(crate) fn redirect_target(inv: &Invocation) -> Option<Hit> {
    inv.redirects
        .iter()
        .filter(|r| r.op.contains('>') && !r.op.contains('&'))
        .find_map(|r| hit_for(&r.target))
}

/// `tee [-a] PATH…` onto a persistence path.
pub(crate) fn tee_target(inv: &Invocation) -> Option<Hit> {
    inv.args()
        .iter()
        .filter(|a| !a.starts_with('-'))
        .find_map(|a| hit_for(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(class("/root/.ssh/authorized_keys"), Some(Persists::Always));
        assert_eq!(class("/etc/ld.so.preload"), Some(Persists::Always));
        assert_eq!(class("~/.bashrc"), Some(Persists::RunsContent));
        assert_eq!(class(".git/hooks/pre-push"), Some(Persists::RunsContent));
        assert_eq!(class("deploy/invoice-api.service"), None);
        assert_eq!(class("deploy/crontab.txt"), None);
        assert_eq!(class("src/main.rs"), None);
    }
}
