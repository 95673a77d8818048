//! Object storage and cloud CLIs: aws, gsutil, gcloud, rclone, azcopy, az, s3cmd, mc.

use super::*;

/// `aws`.
pub(super) fn on_aws(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    aws(args, ctx);
    true
}

/// `gsutil`.
pub(super) fn on_gsutil(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    gsutil(args, ctx);
    true
}

/// `gcloud`.
pub(super) fn on_gcloud(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    let pos = positionals(args, &["--project", "--configuration", "--account"]);
    if pos.len() >= 2 && (pos[0] == "storage" || (pos[0] == "alpha" && pos[1] == "storage")) {
        let skip = if pos[0] == "alpha" { 2 } else { 1 };
        cloud_copy("gcloud storage", &pos[skip..], ctx);
    } else if pos.len() >= 2 && pos[0] == "compute" && pos[1] == "scp" {
        // `gcloud compute scp FILE… VM:PATH`.
        let rest: Vec<String> = args
            .iter()
            .skip_while(|a| a.as_str() != "scp")
            .skip(1)
            .cloned()
            .collect();
        copy_to_remote(
            "gcloud compute scp",
            &rest,
            &[
                "--zone",
                "--project",
                "--account",
                "--configuration",
                "--ssh-key-file",
                "--strict-host-key-checking",
                "--port",
                "--scp-flag",
                "--ssh-key-expire-after",
                "--verbosity",
            ],
            ctx,
        );
    }
    true
}

/// `rclone`.
pub(super) fn on_rclone(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        args, stdin_fed, ..
    } = *call;
    rclone(args, stdin_fed, ctx);
    true
}

/// `azcopy`.
pub(super) fn on_azcopy(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    let pos = positionals(args, &[]);
    if pos.len() >= 3
        && matches!(pos[0], "copy" | "cp" | "sync")
        && !is_url(pos[1])
        && is_url(pos[2])
    {
        ctx.hit("azcopy", url_destination(pos[2]), "azcopy upload");
    }
    true
}

/// `az`.
pub(super) fn on_az(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    let pos = positionals(
        args,
        &[
            "--account-name",
            "--container-name",
            "-c",
            "--file",
            "-f",
            "--name",
            "-n",
            "--source",
            "-s",
            "--destination",
            "-d",
            "--account-key",
            "--sas-token",
            "--connection-string",
            "--subscription",
            "--pattern",
        ],
    );
    let upload = pos.len() >= 3
        && pos[0] == "storage"
        && matches!(pos[1], "blob" | "file" | "fs" | "copy")
        && pos
            .iter()
            .any(|p| matches!(*p, "upload" | "upload-batch" | "sync" | "start"));
    if upload {
        let dest = option_value(args, &["--account-name"])
            .map(|a| Destination::Host(format!("{}.blob.core.windows.net", a.to_ascii_lowercase())))
            .unwrap_or(Destination::Unknown);
        ctx.hit("az storage", dest, "az storage upload");
    }
    true
}

/// `s3cmd`.
pub(super) fn on_s3cmd(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    let pos = positionals(
        args,
        &[
            "-c",
            "--config",
            "--acl-grant",
            "--mime-type",
            "--storage-class",
        ],
    );
    if pos.len() >= 3 && matches!(pos[0], "put" | "sync" | "cp" | "mv") {
        let dst = pos[pos.len() - 1];
        if dst.starts_with("s3://")
            && pos[1..pos.len() - 1]
                .iter()
                .any(|s| !s.starts_with("s3://"))
        {
            ctx.hit("s3cmd", url_destination(dst), "s3cmd upload to bucket");
        }
    }
    true
}

/// `mc`.
pub(super) fn on_mc(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    let pos = positionals(args, &["--config-dir", "-C"]);
    if pos.len() >= 3 && matches!(pos[0], "cp" | "mirror" | "mv" | "put") {
        let dst = pos[pos.len() - 1];
        let alias = dst.split('/').next().unwrap_or("");
        let local = |s: &str| {
            s.starts_with('.') || s.starts_with('/') || s.starts_with('~') || !s.contains('/')
        };
        if !local(dst) && !alias.is_empty() && pos[1..pos.len() - 1].iter().any(|s| local(s)) {
            ctx.hit(
                "mc",
                Destination::Remote(alias.to_owned()),
                "mc copy to object storage",
            );
        }
    }
    true
}
