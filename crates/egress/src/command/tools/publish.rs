//! Registries and hosted services: container/package publishing, Hugging Face, Kaggle, gh, git, file-drop tools.

use super::*;

/// `docker` and `podman`, `buildah`, `npm`, `pnpm`, `yarn`, `twine`, `gem`, `cargo`, `helm`.
pub(super) fn on_registry_publish(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { name, args, .. } = *call;
    publish(name, args, ctx);
    true
}

/// `huggingface-cli` and `hf`.
pub(super) fn on_huggingface_cli(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { name, args, .. } = *call;
    if !(args
        .first()
        .is_some_and(|a| matches!(a.as_str(), "upload" | "upload-large-folder")))
    {
        return false;
    }
    ctx.hit(
        name,
        Destination::Host("huggingface.co".into()),
        "Hugging Face upload",
    );
    true
}

/// `kaggle`.
pub(super) fn on_kaggle(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    let pos = positionals(
        args,
        &["-p", "--path", "-f", "--file", "-m", "--message", "-c"],
    );
    let upload = matches!(
        (pos.first().copied(), pos.get(1).copied()),
        (Some("datasets" | "d"), Some("create" | "version"))
            | (Some("competitions" | "c"), Some("submit"))
            | (Some("kernels" | "k"), Some("push"))
            | (Some("models" | "m"), Some("create" | "instances"))
    );
    if upload {
        ctx.hit(
            "kaggle",
            Destination::Host("kaggle.com".into()),
            "Kaggle upload",
        );
    }
    true
}

/// `gh`.
pub(super) fn on_gh(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    let pos = positionals(
        args,
        &[
            "-R",
            "--repo",
            "-d",
            "--desc",
            "-f",
            "--filename",
            "-n",
            "--notes",
            "-t",
            "--title",
            "--target",
            "-F",
            "--notes-file",
            "--discussion-category",
        ],
    );
    let api_sends = pos.first() == Some(&"api")
        && (args.iter().any(|a| {
            let a = a.split('=').next().unwrap_or(a);
            matches!(a, "-f" | "-F" | "--field" | "--raw-field" | "--input")
        }) || option_value(args, &["-X", "--method"])
            .is_some_and(|m| matches!(m.to_ascii_uppercase().as_str(), "POST" | "PUT" | "PATCH")));
    if api_sends {
        ctx.hit(
            "gh",
            Destination::Host("api.github.com".into()),
            "gh api with data",
        );
    } else if pos.len() >= 2
        && pos[0] == "repo"
        && pos[1] == "create"
        && args.iter().any(|a| a == "--push")
    {
        ctx.hit(
            "gh",
            Destination::Host("github.com".into()),
            "gh repo create --push",
        );
    } else if pos.len() >= 2
        && pos[0] == "gist"
        && (pos[1] == "create"
            || (pos[1] == "edit" && args.iter().any(|a| a == "-a" || a.starts_with("--add"))))
    {
        ctx.hit(
            "gh",
            Destination::Host("gist.github.com".into()),
            "gh gist create",
        );
    } else if pos.len() >= 2
        && pos[0] == "release"
        && (pos[1] == "upload" || (pos[1] == "create" && pos.len() >= 4))
    {
        ctx.hit(
            "gh",
            Destination::Host("github.com".into()),
            "gh release upload",
        );
    }
    true
}

/// `git`.
pub(super) fn on_git(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, .. } = *call;
    git(args, ctx);
    true
}

/// `croc` and `wormhole`, `ffsend`, `pastebinit`, `termbin`, `nc.traditional`.
pub(super) fn on_croc(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { name, args, .. } = *call;
    let sends = name == "pastebinit"
        || name == "nc.traditional"
        || args.iter().any(|a| a == "send" || a == "upload");
    if sends {
        ctx.hit(name, Destination::Unknown, format!("{name} file transfer"));
    }
    true
}
