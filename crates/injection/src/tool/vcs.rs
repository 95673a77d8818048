//! Destructive git: losing uncommitted or untracked work, rewriting shared
//! history.
//!
//! ## Why
//! A force push rewrites history other people have: it blocks. Discarding
//! local work (`reset --hard`, `clean -f`, `checkout -- .`, `branch -D`,
//! `stash drop`) is something a developer does every day in a checkout,
//! so it is held for a look (quarantine), never blocked; resetting onto
//! the upstream branch just fetched (`git reset --hard origin/main`) is a
//! sync and only flags.
//!
//! ## Example
//! `git push --force origin main`, `git reset --hard HEAD~5`, `git clean -fdx`.
//!
//! ## Not flagged
//! `git status`, `git push origin main`, `git restore --staged f`,
//! `git clean -n`, `git checkout -b feature`.

use super::registry::Hit;
use crate::Tier;
use palisade_shell::Invocation;

/// The git rule.
pub(crate) fn git(inv: &Invocation) -> Option<Hit> {
    let args = inv.args();
    let mut i = 0usize;
    while i < args.len() && args[i].starts_with('-') {
        let takes = matches!(
            args[i].as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace"
        );
        i += if takes { 2 } else { 1 };
    }
    let sub = args.get(i)?.as_str();
    let rest = &args[i + 1..];
    let has = |f: &str| rest.iter().any(|a| a == f);
    let short = |c: char| {
        rest.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
    };
    let local = |id| Some(Hit::new(id, Tier::Quarantine));
    match sub {
        "reset" if has("--hard") || has("--merge") || has("--keep") => {
            let onto_upstream = rest.iter().any(|a| {
                !a.starts_with('-')
                    && (a.starts_with("origin/") || a.starts_with("upstream/") || a.contains("@{u"))
            });
            if onto_upstream {
                Some(Hit::new("tool.git_reset_hard", Tier::Flag))
            } else {
                local("tool.git_reset_hard")
            }
        }
        // `-X` (capital) removes only what .gitignore names: build output.
        "clean"
            if (short('f') || has("--force"))
                && !short('n')
                && !has("--dry-run")
                && short('X')
                && !short('x') =>
        {
            Some(Hit::new("tool.git_clean", Tier::Flag))
        }
        "clean" if (short('f') || has("--force")) && !short('n') && !has("--dry-run") => {
            local("tool.git_clean")
        }
        "push"
            if has("--force")
                || has("-f")
                || rest
                    .iter()
                    .any(|a| a.starts_with("--force=") || a.starts_with('+'))
                || has("--mirror")
                || has("--delete")
                || short('d') && !has("--dry-run") =>
        {
            Some(Hit::new("tool.git_push_force", Tier::Block))
        }
        "checkout" if has("--") || has("-f") || has("--force") || has(".") => {
            local("tool.git_checkout_discard")
        }
        // Restoring only generated output (`src/generated/`, `dist/`):
        // the tools write those files again; no one's edits are in them.
        "restore" if regenerable_only(rest) => None,
        "restore" if !has("--staged") || has("--worktree") => local("tool.git_restore"),
        "branch" if has("-D") || (has("--delete") && has("--force")) => {
            local("tool.git_branch_delete")
        }
        "stash" if rest.first().is_some_and(|a| a == "drop" || a == "clear") => {
            local("tool.git_stash_drop")
        }
        "switch" if has("--discard-changes") || has("-f") || has("--force") => {
            local("tool.git_checkout_discard")
        }
        "filter-branch" | "filter-repo" => local("tool.git_rewrite"),
        // Every repository's hooks sent to one directory: what lands there
        // runs on each commit (a payload fetched in the same command blocks,
        // see command.rs).
        "config"
            if (has("--global") || has("--system"))
                && rest
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case("core.hookspath"))
                && !has("--unset")
                && !has("--get") =>
        {
            Some(Hit::new(super::persistence::PERSISTENCE_PATH, Tier::Flag))
        }
        _ => None,
    }
}

/// Directory names whose contents a build writes, not a person.
const GENERATED_DIRS: &[&str] = &[
    "generated",
    "__generated__",
    "gen",
    "dist",
    "build",
    "target",
    "node_modules",
];

/// `git restore … -- PATH…` where every path lies in a generated-output
/// directory (and at least one path is named).
fn regenerable_only(rest: &[String]) -> bool {
    let paths: Vec<&String> = match rest.iter().position(|a| a == "--") {
        Some(at) => rest.get(at + 1..).unwrap_or(&[]).iter().collect(),
        None => rest.iter().filter(|a| !a.starts_with('-')).collect(),
    };
    !paths.is_empty()
        && paths.iter().all(|p| {
            !p.starts_with('/')
                && !p.contains("..")
                && p.split('/').any(|seg| GENERATED_DIRS.contains(&seg))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn restore_of_generated_output_only() {
        assert!(regenerable_only(&words("--source=HEAD -- src/generated/")));
        assert!(regenerable_only(&words("dist/app.js build/")));
        assert!(!regenerable_only(&words(
            "--source=HEAD -- src/ src/generated/"
        )));
        assert!(!regenerable_only(&words("--source=HEAD -- .")));
        assert!(!regenerable_only(&words("--worktree")));
        assert!(!regenerable_only(&words("-- ../generated")));
    }
}
