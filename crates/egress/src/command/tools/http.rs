//! HTTP clients: curl, wget, libwww-perl, httpie/xh, aria2c.

use super::*;

/// `curl`.
pub(super) fn on_curl(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    curl(args, ctx);
    true
}

/// `wget` and `wget2`.
pub(super) fn on_wget(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    wget(args, ctx);
    true
}

/// `lwp-request` and `POST`, `PUT`. libwww-perl: `lwp-request -m POST URL < f`, `POST URL < f`.
pub(super) fn on_lwp_request(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { name, args, .. } = *call;
    let method = if name == "lwp-request" {
        option_value(args, &["-m"]).map(|m| m.to_ascii_uppercase())
    } else {
        Some(name.to_owned())
    };
    let url = positionals(args, &["-m", "-c", "-b", "-t", "-i", "-C", "-H", "-P"])
        .into_iter()
        .find_map(url_like);
    if method.is_some_and(|m| matches!(m.as_str(), "POST" | "PUT")) {
        if let Some(dest) = url {
            ctx.hit(name, dest, format!("{name} upload"));
        }
    }
    true
}

/// `http` and `https`, `xh`, `xhs`, `httpie`.
pub(super) fn on_http(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd, name, args, ..
    } = *call;
    // Even a literal body on stdin makes httpie send a request body.
    httpie(name, args, cmd.stdin != Stdin::Inherited, ctx);
    true
}

/// `aria2c`.
pub(super) fn on_aria2c(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    if !(ctx.any_host()) {
        return false;
    }
    for a in positionals(args, &["-d", "-o", "-i", "-x", "-s", "-j"]) {
        if let Some(d) = url_like(a) {
            ctx.hit("aria2c", d, "aria2c request");
        }
    }
    true
}
