//! Sockets and remote sessions: netcat, socat, telnet, `openssl s_client`, ssh, DNS tools carrying data, mail.

use super::*;

/// `nc` and `ncat`, `netcat`.
pub(super) fn on_nc(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { name, args, .. } = *call;
    netcat(name, args, ctx);
    true
}

/// `socat`.
pub(super) fn on_socat(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    socat(args, ctx);
    true
}

/// `telnet`.
pub(super) fn on_telnet(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd,
        prev,
        args,
        stdin_fed,
        ..
    } = *call;
    if !((stdin_fed && !typed_read_request(cmd, prev)) || ctx.any_host()) {
        return false;
    }
    if let Some(h) = positionals(args, &["-l", "-b", "-e", "-n"]).first() {
        ctx.hit("telnet", host_dest(h), "telnet connection");
    }
    true
}

/// `openssl`.
pub(super) fn on_openssl(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd,
        prev,
        args,
        stdin_fed,
        ..
    } = *call;
    if !(args.first().map(String::as_str) == Some("s_client")
        && ((stdin_fed && !typed_read_request(cmd, prev)) || ctx.any_host()))
    {
        return false;
    }
    let target = option_value(args, &["-connect"]).unwrap_or_default();
    ctx.hit(
        "openssl s_client",
        host_dest(&target),
        "openssl s_client connection",
    );
    true
}

/// `ssh`.
pub(super) fn on_ssh(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd,
        prev,
        args,
        stdin_fed,
        ..
    } = *call;
    let pos = positionals(
        args,
        &[
            "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
            "-p", "-Q", "-R", "-S", "-W", "-w",
        ],
    );
    // `ssh host bash <<'EOF' … EOF`: typed commands for a remote
    // shell, not data (unless they expand something here).
    let remote_shell = !pos.is_empty()
        && pos[1..].iter().flat_map(|w| w.split_whitespace()).all(|w| {
            matches!(
                basename(w),
                "bash"
                    | "sh"
                    | "zsh"
                    | "dash"
                    | "ksh"
                    | "sudo"
                    | "-s"
                    | "-l"
                    | "-e"
                    | "-x"
                    | "-i"
                    | "-"
            )
        });
    let typed_commands = remote_shell
        && visible_stdin(cmd, prev)
            .is_some_and(|t| t.iter().all(|t| !t.contains("$(") && !t.contains('`')));
    if let Some(target) = pos.first() {
        if stdin_fed && !typed_commands {
            ctx.hit("ssh", host_dest(target), "data piped to ssh");
        } else if ctx.any_host() {
            ctx.hit("ssh", host_dest(target), "ssh connection");
        }
    }
    true
}

/// `dig` and `nslookup`, `host`, `drill`, `ping`, `ping6`, `traceroute`, `getent`. The queried name carries data: `dig $(whoami).x`, `ping -c1 $(hostname).x`.
pub(super) fn on_dig(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { name, args, .. } = *call;
    for a in args
        .iter()
        .filter(|a| !a.starts_with('-') && !a.starts_with('@'))
    {
        let dns_tool = matches!(name, "dig" | "nslookup" | "host" | "drill");
        // Command output anywhere in the name; for DNS tools also a
        // variable used as a label (`$KEY.x.example`), not a bare `$HOST`.
        let carries = a.contains("$(")
            || (dns_tool
                && a.contains('$')
                && a.rsplit(['$', '}']).next().is_some_and(|s| {
                    s.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
                        .starts_with('.')
                }));
        if carries {
            let cut = a.rfind(['$', ')', '}']).unwrap_or(0);
            let mut suffix = a.get(cut + 1..).unwrap_or("");
            if a[cut..].starts_with('$') {
                // `$NAME.domain`: the variable's name is not part of the domain.
                suffix = suffix.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
            }
            let domain = suffix.trim_start_matches('.');
            let dest = if domain.contains('.') {
                Destination::Host(super::super::normalize_host(domain))
            } else {
                Destination::Unknown
            };
            ctx.hit(name, dest, "DNS query carrying data");
        }
    }
    true
}

/// `mail` and `mailx`, `mutt`, `sendmail`, `swaks`.
pub(super) fn on_mail(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        name,
        args,
        stdin_fed,
        ..
    } = *call;
    let attach = args
        .iter()
        .any(|a| a == "-a" || a == "-A" || a.starts_with("--attach"));
    if attach || stdin_fed {
        let to = args
            .iter()
            .find(|a| !a.starts_with('-') && a.contains('@'))
            .and_then(|a| a.rsplit('@').next())
            .map(|d| Destination::Host(super::super::normalize_host(d)))
            .unwrap_or(Destination::Unknown);
        ctx.hit(name, to, "mail with data");
    }
    true
}
