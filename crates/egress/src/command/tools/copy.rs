//! File copies to remote hosts: scp, rsync, sftp, ftp and its relatives.

use super::*;

/// `scp`.
pub(super) fn on_scp(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    copy_to_remote(
        "scp",
        args,
        &["-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-D", "-X"],
        ctx,
    );
    true
}

/// `rsync`.
pub(super) fn on_rsync(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    copy_to_remote(
        "rsync",
        args,
        &[
            "-e",
            "--rsh",
            "-f",
            "--filter",
            "-T",
            "--port",
            "--password-file",
            "--log-file",
            "--files-from",
            "--chmod",
            "--chown",
            "-B",
            "--timeout",
            "--bwlimit",
            "--exclude",
            "--include",
            "--exclude-from",
            "--include-from",
            "--compare-dest",
            "--link-dest",
            "--max-size",
            "--min-size",
            "--partial-dir",
            "--temp-dir",
            "-M",
            "--remote-option",
        ],
        ctx,
    );
    true
}

/// `sftp`.
pub(super) fn on_sftp(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd, prev, args, ..
    } = *call;
    let pos = positionals(
        args,
        &[
            "-b", "-B", "-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-R", "-S", "-s", "-X",
        ],
    );
    if let Some(target) = pos.first() {
        // Batch commands we can read (heredoc, here-string, `echo … |`)
        // that never put a file only download.
        let batch = option_value(args, &["-b"]);
        let visible =
            visible_stdin(cmd, prev).filter(|_| batch.as_deref().is_none_or(|b| b == "-"));
        let gets_only = visible.is_some_and(|texts| {
            !texts.is_empty()
                && !texts.iter().any(|t| {
                    t.split(|c: char| c.is_whitespace() || c == ';')
                        .any(|w| matches!(w, "put" | "mput" | "reput" | "-put"))
                })
        });
        // `sftp host:path [local]` fetches the file and exits.
        let fetch = batch.is_none()
            && cmd.stdin == Stdin::Inherited
            && remote_spec(target).is_some()
            && target.split_once(':').is_some_and(|(_, p)| !p.is_empty());
        if !(gets_only || fetch) || ctx.any_host() {
            ctx.hit("sftp", host_dest(target), "sftp session");
        }
    }
    true
}

/// `ftp` and `lftp`, `tftp`, `ncftp`, `ncftpput`, `ftpput`, `smbclient`.
pub(super) fn on_ftp(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd,
        prev,
        name,
        args,
        stdin_fed,
        ..
    } = *call;
    let script = visible_stdin(cmd, prev).unwrap_or_default();
    ftp_like(name, args, stdin_fed, &script, ctx);
    true
}
