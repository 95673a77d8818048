//! Infrastructure: containers, clusters, cloud resources, host defences,
//! the guard itself.
//!
//! ## Why
//! Deleting cloud or cluster resources and turning off the guard are
//! reversible only with work and worth a person's look (quarantine).
//! Turning off a firewall, SELinux or the audit daemon is defence evasion,
//! the step before an attack that should not be seen (block). Everyday
//! clean-ups (`docker volume prune`, deleting one pod) only flag.
//!
//! ## Example
//! `docker system prune -af --volumes`, `kubectl delete ns prod`,
//! `aws s3 rb s3://b --force`, `terraform destroy`, `iptables -F`,
//! `ufw disable`, `hermes plugins disable hermes-guard`.
//!
//! ## Not flagged
//! `docker ps`, `kubectl get pods`, `terraform plan`, `systemctl restart nginx`;
//! `terraform plan -destroy` and `docker system prune -f` (no `-a`, no `--volumes`) flag.

use super::registry::Hit;
use crate::Tier;
use palisade_shell::Invocation;

fn positional(inv: &Invocation) -> Vec<&str> {
    inv.args()
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect()
}

/// `docker system prune --volumes` or `-a` quarantines; other prunes flag.
pub(crate) fn container_prune(inv: &Invocation) -> Option<Hit> {
    let pos = positional(inv);
    // Global options may come first (`docker -H ssh://host system prune`):
    // the object is the word before the first `prune`.
    let (object, verb) = match pos.iter().position(|p| *p == "prune") {
        Some(at) if at > 0 => (pos.get(at - 1).copied(), Some("prune")),
        _ => (pos.first().copied(), pos.get(1).copied()),
    };
    match (object, verb) {
        // A filter (`--filter until=72h`, `label=ci`) keeps what is recent or
        // named: only old, chosen objects go.
        // Without `--volumes` or `-a` only stopped containers, unused
        // networks, dangling images and build cache go: all rebuilt again
        // (flag). With them, named volumes (a database's files) or every
        // image not in use (locally built ones too) go.
        (Some("system"), Some("prune"))
            if !inv
                .args()
                .iter()
                .any(|a| a == "--filter" || a.starts_with("--filter="))
                && inv.args().iter().any(|a| {
                    a == "--volumes"
                        || a == "--all"
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('a'))
                }) =>
        {
            Some(Hit::new("tool.container_prune", Tier::Quarantine))
        }
        (Some("system"), Some("prune")) => Some(Hit::new("tool.container_prune", Tier::Flag)),
        // Volumes hold data; `image prune -a` drops every unused image (local
        // builds too): flag. Dangling images, stopped containers, unused
        // networks and build cache are rebuilt on the next build: pass.
        (Some("volume"), Some("prune")) => Some(Hit::new("tool.container_prune", Tier::Flag)),
        (Some("image"), Some("prune")) if all_flag(inv) => {
            Some(Hit::new("tool.container_prune", Tier::Flag))
        }
        (Some("image" | "container" | "network" | "builder"), Some("prune")) => None,
        // `docker [-H ssh://host] volume rm NAME…`: a volume is a service's
        // stored data (a database's files); the target's context (prod,
        // dev) sets the final tier.
        _ if removes_volume(inv) => Some(Hit::new("tool.data_destroy", Tier::Quarantine)),
        _ => None,
    }
}

/// `-a` / `--all` (alone or in a short-option bundle such as `-af`).
fn all_flag(inv: &Invocation) -> bool {
    inv.args()
        .iter()
        .any(|a| a == "--all" || (a.starts_with('-') && !a.starts_with("--") && a.contains('a')))
}

/// `volume rm|remove` after the global options (`-H`/`--host`,
/// `--context`, `--config`, `-l` take a value).
fn removes_volume(inv: &Invocation) -> bool {
    let args = inv.args();
    let mut i = 0usize;
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        let takes = matches!(
            a.as_str(),
            "-H" | "--host" | "-c" | "--context" | "--config" | "-l" | "--log-level"
        );
        i += if takes { 2 } else { 1 };
    }
    args.get(i).is_some_and(|a| a == "volume")
        && args.get(i + 1).is_some_and(|a| a == "rm" || a == "remove")
}

/// `kubectl delete`: a namespace, everything (`--all`), volumes or nodes
/// quarantine; every object of data-bearing kinds in every namespace
/// blocks; one workload object flags.
pub(crate) fn kubectl_delete(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    // Global options come first (`--context prod-eu delete ns x`): read
    // from the verb on.
    let all = positional(inv);
    let verb = all.iter().position(|p| *p == "delete")?;
    if verb > 0
        && !args.iter().any(|a| {
            matches!(
                a.as_str(),
                "--context"
                    | "--cluster"
                    | "--kubeconfig"
                    | "-n"
                    | "--namespace"
                    | "--user"
                    | "-s"
                    | "--server"
            )
        })
    {
        return None;
    }
    let pos = &all[verb..];
    let wide = args
        .iter()
        .any(|a| a == "--all" || a == "-A" || a == "--all-namespaces")
        || pos.get(1).is_some_and(|k| {
            matches!(
                k.split(['/', ',']).next().unwrap_or(""),
                "ns" | "namespace"
                    | "namespaces"
                    | "pv"
                    | "pvc"
                    | "persistentvolume"
                    | "persistentvolumeclaim"
                    | "node"
                    | "nodes"
                    | "crd"
                    | "all"
                    | "secret"
                    | "secrets"
            )
        })
        || args
            .iter()
            .any(|a| a == "-f" || a.starts_with("--filename"));
    // Every object of data-bearing kinds in every namespace
    // (`kubectl delete all,pvc,secrets --all -A`): the cluster's workloads
    // and their data, gone at once.
    let every_namespace = args.iter().any(|a| a == "-A" || a == "--all-namespaces");
    let data_kinds = pos.get(1).is_some_and(|k| {
        k.split(',').any(|k| {
            matches!(
                k,
                "all"
                    | "ns"
                    | "namespace"
                    | "namespaces"
                    | "pvc"
                    | "persistentvolumeclaim"
                    | "persistentvolumeclaims"
                    | "pv"
                    | "persistentvolume"
                    | "persistentvolumes"
                    | "secret"
                    | "secrets"
                    | "crd"
                    | "crds"
            )
        })
    });
    let tier = if every_namespace && has_all(args) && data_kinds {
        Tier::Block
    } else if wide {
        Tier::Quarantine
    } else {
        Tier::Flag
    };
    Some(Hit::new("tool.kubectl_delete", tier))
}

/// `--all` among the arguments.
fn has_all(args: &[String]) -> bool {
    args.iter().any(|a| a == "--all")
}

/// Deleting cloud or infrastructure resources: `aws s3 rm --recursive`,
/// `aws s3 rb --force`, `aws … delete-*` / `terminate-*`, `gsutil rm -r`,
/// `gcloud … delete`, `terraform destroy`, `az … delete`, `helm uninstall`,
/// `rclone purge|delete`, `gh repo delete`. A deletion that takes a whole store's data with it
/// ([`bulk_delete`]) is `tool.cloud_bulk_delete`: after untrusted text it
/// blocks (`context.rs`).
pub(crate) fn cloud_delete(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let has = |w: &str| args.iter().any(|a| a == w);
    let recursive = args
        .iter()
        .any(|a| a == "--recursive" || a == "-r" || a == "-R" || a == "-rf" || a == "-a");
    let deletes = match inv.name() {
        "aws" => {
            (has("s3") && ((has("rm") && recursive) || (has("rb") && has("--force"))))
                || args
                    .get(1)
                    .is_some_and(|a| a.starts_with("delete-") || a.starts_with("terminate-"))
        }
        "gsutil" => (has("rm") && recursive) || has("rb"),
        "gcloud" => has("delete") || (has("storage") && has("rm") && recursive),
        "az" => has("delete"),
        "terraform" | "tofu" | "pulumi" => has("destroy") || has("-destroy"),
        "helm" => has("uninstall") || has("delete"),
        "rclone" => has("purge") || has("delete"),
        "gh" => {
            let pos = positional(inv);
            pos.first() == Some(&"repo") && pos.get(1) == Some(&"delete")
        }
        _ => false,
    };
    // `--dryrun` / `--dry-run` (aws, helm, pulumi…, rclone's `-n`): only
    // lists what would go.
    let dry = args.iter().any(|a| {
        a == "--dryrun"
            || a == "--dry-run"
            || a.starts_with("--dry-run=")
            || (inv.name() == "rclone" && a == "-n")
    });
    // `terraform plan -destroy` writes a plan file; nothing is destroyed
    // until it is applied.
    let plan = matches!(inv.name(), "terraform" | "tofu") && has("plan");
    let tier = if dry || plan {
        Tier::Flag
    } else {
        Tier::Quarantine
    };
    let id = if bulk_delete(inv) {
        "tool.cloud_bulk_delete"
    } else {
        "tool.cloud_delete"
    };
    deletes.then_some(Hit::new(id, tier))
}

/// A deletion that takes a whole store's data with it, with no copy kept:
/// every object under a bucket or prefix (`aws s3 rm --recursive`,
/// `aws s3 rb --force`, `gsutil rm -r`, `gcloud storage rm -r`,
/// `rclone purge`), a project or resource group with all it holds
/// (`gcloud projects delete`, `az group delete`), a managed database or
/// storage account (`aws rds delete-db-instance`, `gcloud sql instances
/// delete`, `az storage account delete`, `az sql db delete`), a GitHub
/// repository (`gh repo delete`), or every resource a listing piped into
/// `xargs` yields.
fn bulk_delete(inv: &Invocation) -> bool {
    // `… describe-instances … | xargs aws ec2 terminate-instances`: every
    // resource a listing yields.
    if inv.wrappers.iter().any(|w| w == "xargs") {
        return true;
    }
    let args = inv.args();
    let has = |w: &str| args.iter().any(|a| a == w);
    let recursive = args
        .iter()
        .any(|a| a == "--recursive" || a == "-r" || a == "-R" || a == "-rf");
    let pos = positional(inv);
    let verb = |group: &[&str], verb: &str| {
        pos.windows(group.len() + 1).any(|w| {
            w.iter().zip(group).all(|(a, b)| a == b) && w.last().is_some_and(|v| *v == verb)
        })
    };
    match inv.name() {
        "aws" => {
            (has("s3") && ((has("rm") && recursive) || (has("rb") && has("--force"))))
                || args.iter().any(|a| {
                    matches!(
                        a.as_str(),
                        "delete-db-instance" | "delete-db-cluster" | "delete-bucket"
                    )
                })
        }
        "gsutil" => (has("rm") && recursive) || has("rb"),
        "gcloud" => {
            verb(&["projects"], "delete")
                || verb(&["sql", "instances"], "delete")
                || verb(&["storage"], "rm") && recursive
                || verb(&["storage", "buckets"], "delete")
        }
        "az" => {
            verb(&["group"], "delete")
                || verb(&["storage", "account"], "delete")
                || verb(&["sql", "db"], "delete")
                || verb(&["sql", "server"], "delete")
                || verb(&["cosmosdb"], "delete")
        }
        "rclone" => has("purge") || has("delete"),
        // A repository with its issues, releases and wiki.
        "gh" => true,
        _ => false,
    }
}

/// `etcdctl del`: the whole keyspace (`--prefix` of `""` or `/`,
/// `--from-key`) is a cluster's entire state and blocks; other keys quarantine.
pub(crate) fn etcd_delete(inv: &Invocation) -> Option<Hit> {
    if !positional(inv).contains(&"del") {
        return None;
    }
    let args = inv.args();
    let on = |flag: &str| {
        args.iter()
            .any(|a| a == flag || a.strip_prefix(flag) == Some("=true"))
    };
    let (prefix, from_key) = (on("--prefix"), on("--from-key"));
    let key = args
        .iter()
        .skip_while(|a| a.as_str() != "del")
        .nth(1)
        .map_or("", String::as_str);
    let key = if key.starts_with('-') { "" } else { key };
    let everything = from_key || (prefix && matches!(key, "" | "/" | "/registry" | "/registry/"));
    Some(Hit::new(
        "tool.data_destroy",
        if everything {
            Tier::Block
        } else {
            Tier::Quarantine
        },
    ))
}

/// Turning host defences off: flushing or opening the firewall, disabling
/// SELinux, stopping the audit daemon or a firewall service (block: the
/// seed's "disabling security tools").
pub(crate) fn defences_off(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let has = |w: &str| args.iter().any(|a| a == w);
    let off = match inv.name() {
        "iptables" | "ip6tables" => {
            has("-F") || has("--flush") || (has("-P") && has("ACCEPT")) || has("-X")
        }
        "nft" => has("flush") && has("ruleset"),
        "ufw" => has("disable") || has("reset"),
        "setenforce" => has("0") || args.iter().any(|a| a.eq_ignore_ascii_case("permissive")),
        "systemctl" | "firewall-cmd" => {
            (has("stop") || has("disable") || has("mask") || has("--panic-on"))
                && args.iter().any(|a| {
                    let a = a.trim_end_matches(".service");
                    matches!(
                        a,
                        "firewalld"
                            | "ufw"
                            | "apparmor"
                            | "auditd"
                            | "nftables"
                            | "iptables"
                            | "fail2ban"
                            | "falco"
                            | "osqueryd"
                            | "clamav-daemon"
                    )
                })
        }
        _ => false,
    };
    off.then_some(Hit::new("tool.defences_off", Tier::Block))
}

/// `hermes plugins disable|uninstall|remove …guard…`: switching the guard off.
pub(crate) fn guard_off(inv: &Invocation) -> Option<Hit> {
    let pos = positional(inv);
    let off = pos
        .first()
        .is_some_and(|p| *p == "plugins" || *p == "plugin")
        && pos
            .get(1)
            .is_some_and(|v| matches!(*v, "disable" | "uninstall" | "remove" | "rm"));
    off.then_some(Hit::new("tool.guard_off", Tier::Quarantine))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(cmd: &str) -> Option<Hit> {
        let script = palisade_shell::commands_run(cmd);
        script.commands.first().and_then(container_prune)
    }

    #[test]
    fn volume_removal_after_global_options() {
        for cmd in [
            "docker volume rm pgdata",
            "docker -H ssh://ops@db-1 volume rm -f pgdata",
            "docker --context remote volume remove data",
        ] {
            assert_eq!(first(cmd).map(|h| h.id), Some("tool.data_destroy"), "{cmd}");
        }
        let tier = |cmd: &str| first(cmd).map(|h| h.tier);
        assert_eq!(
            tier("docker system prune -af --volumes"),
            Some(Tier::Quarantine)
        );
        assert_eq!(tier("docker system prune -f"), Some(Tier::Flag));
        assert_eq!(tier("docker image prune -af"), Some(Tier::Flag));
        assert_eq!(tier("docker volume prune -f"), Some(Tier::Flag));
        for cmd in [
            "docker image prune -f",
            "docker builder prune -f",
            "docker container prune -f",
            "docker network prune",
        ] {
            assert_eq!(tier(cmd), None, "{cmd}");
        }
        for cmd in [
            "docker volume ls",
            "docker -H ssh://x volume inspect data",
            "docker rm web",
        ] {
            assert_eq!(first(cmd), None, "{cmd}");
        }
    }
}
