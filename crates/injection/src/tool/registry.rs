//! The table of command rules: which rule reads which command, one family
//! per file (`destructive.rs`, `vcs.rs`, `infra.rs`, `supply.rs`,
//! `persistence.rs`, `exfil.rs`), the way ruff keeps one rule per file and
//! a central table of codes.
//!
//! Each rule is handed one [`Invocation`] (wrappers already peeled by
//! `palisade-shell`) and returns what it found. Tiers follow the policy in
//! the module docs of `tool` (`## Tier policy`), not the rule's order.

use super::{destructive, exfil, infra, persistence, supply, vcs};
use crate::Tier;
use palisade_shell::Invocation;

/// What a command rule found: its rule id and tier.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Hit {
    pub(crate) id: &'static str,
    pub(crate) tier: Tier,
}

impl Hit {
    pub(crate) const fn new(id: &'static str, tier: Tier) -> Self {
        Hit { id, tier }
    }
}

/// A rule over one command.
pub(crate) type Check = fn(&Invocation) -> Option<Hit>;

/// One registry entry: the command names it reads (`mkfs*`: a prefix) and
/// its check.
pub(crate) struct CommandRule {
    pub(crate) names: &'static [&'static str],
    pub(crate) check: Check,
}

impl CommandRule {
    fn applies(&self, name: &str) -> bool {
        self.names.iter().any(|n| match n.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => *n == name,
        })
    }
}

/// Every command rule.
pub(crate) const RULES: &[CommandRule] = &[
    CommandRule {
        names: &["rm", "unlink", "srm"],
        check: destructive::rm,
    },
    CommandRule {
        names: &["find"],
        check: destructive::find_delete,
    },
    CommandRule {
        names: &["dd"],
        check: destructive::dd,
    },
    CommandRule {
        names: &[
            "mkfs*",
            "wipefs",
            "fdisk",
            "sfdisk",
            "parted",
            "sgdisk",
            "blkdiscard",
        ],
        check: destructive::disk_format,
    },
    CommandRule {
        names: &["zfs", "zpool"],
        check: destructive::zfs_destroy,
    },
    CommandRule {
        names: &["etcdctl"],
        check: infra::etcd_delete,
    },
    CommandRule {
        names: &["shred"],
        check: destructive::shred,
    },
    CommandRule {
        names: &["truncate"],
        check: destructive::truncate,
    },
    CommandRule {
        names: &["mv"],
        check: destructive::move_root,
    },
    CommandRule {
        names: &["chmod", "chown", "chgrp"],
        check: destructive::recursive_permissions,
    },
    CommandRule {
        names: &["kill", "pkill", "killall"],
        check: destructive::kill_all,
    },
    CommandRule {
        names: &["git"],
        check: vcs::git,
    },
    CommandRule {
        names: &["docker", "podman", "nerdctl"],
        check: infra::container_prune,
    },
    CommandRule {
        names: &["kubectl", "oc"],
        check: infra::kubectl_delete,
    },
    CommandRule {
        names: &[
            "aws",
            "gsutil",
            "gcloud",
            "az",
            "terraform",
            "tofu",
            "pulumi",
            "helm",
            "rclone",
            "gh",
        ],
        check: infra::cloud_delete,
    },
    CommandRule {
        names: &[
            "iptables",
            "ip6tables",
            "nft",
            "ufw",
            "setenforce",
            "systemctl",
            "firewall-cmd",
        ],
        check: infra::defences_off,
    },
    CommandRule {
        names: &["hermes"],
        check: infra::guard_off,
    },
    CommandRule {
        names: &[
            "pip", "pip3", "uv", "pipx", "npm", "pnpm", "yarn", "bun", "gem", "cargo", "go",
        ],
        check: supply::install_from_url,
    },
    CommandRule {
        names: &["python*", "py", "pypy*"],
        check: supply::module_install,
    },
    CommandRule {
        names: &["gpg", "gpg2"],
        check: exfil::secret_key_export,
    },
    CommandRule {
        names: &["tee"],
        check: persistence::tee_target,
    },
];

/// Run every rule that reads this command.
pub(crate) fn check(inv: &Invocation, out: &mut Vec<Hit>) {
    let name = inv.name();
    for rule in RULES.iter().filter(|r| r.applies(name)) {
        if let Some(hit) = (rule.check)(inv) {
            out.push(hit);
        }
    }
    out.extend(persistence::redirect_target(inv));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_names_apply() {
        let mkfs = RULES.iter().find(|r| r.names.contains(&"mkfs*")).unwrap();
        assert!(mkfs.applies("mkfs.ext4"));
        assert!(!mkfs.applies("mk"));
        assert!(RULES.iter().any(|r| r.applies("git")));
    }

    fn tier(cmd: &str) -> Option<Tier> {
        let script = palisade_shell::commands_run(cmd);
        let mut out = Vec::new();
        for c in &script.commands {
            check(c, &mut out);
        }
        out.iter().map(|h| h.tier).max()
    }

    #[test]
    fn storage_and_keyspace_deletions() {
        for cmd in [
            "sudo zfs destroy -rR tank/home",
            "zpool destroy -f tank",
            "zfs destroy tank/data",
            "etcdctl del \"\" --prefix",
            "etcdctl --endpoints=https://10.0.0.11:2379 del / --prefix",
            "etcdctl del a --from-key",
            "etcdctl del '' --from-key=true",
            "find /var/lib/mysql -name '*.ibd' -exec truncate -s 0 {} +",
        ] {
            assert_eq!(tier(cmd), Some(Tier::Block), "{cmd}");
        }
        assert_eq!(
            tier("etcdctl del /registry/pods/default/web-1"),
            Some(Tier::Quarantine)
        );
        assert_eq!(
            tier("find /var/log -type f -exec truncate -s 0 {} +"),
            Some(Tier::Quarantine)
        );
        for cmd in [
            "zfs destroy tank/home@2024-01-01",
            "zfs destroy -n -r tank/home",
            "zfs list",
            "zpool status tank",
            "etcdctl get / --prefix --keys-only",
        ] {
            assert_eq!(tier(cmd), None, "{cmd}");
        }
    }
}
