//! Commands that run other commands: shells (`-c`, piped or heredoc scripts), `eval`, `at`, `find -exec`, `su -c`/`runuser`, `kubectl exec`, PowerShell, `base64 -d | sh`, `docker run`.

use super::*;

/// `bash` and `sh`, `zsh`, `dash`, `ksh`, `ash`, `fish`.
pub(super) fn on_bash(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd,
        prev,
        args,
        depth,
        ..
    } = *call;
    if let Some(script) = option_value(args, &["-c"]) {
        analyze_nested(&script, ctx, depth);
    } else if args.iter().all(|a| a.starts_with('-')) {
        if let Some(prev) = prev {
            piped_into_shell(prev, ctx, depth);
        }
        for body in &cmd.stdin_text {
            analyze_nested(body, ctx, depth);
        }
    }
    true
}

/// `eval`.
pub(super) fn on_eval(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, depth, .. } = *call;
    analyze_nested(&args.join(" "), ctx, depth);
    true
}

/// `docker` and `podman`, `nerdctl`.
pub(super) fn on_container_run(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, depth, .. } = *call;
    if !(matches!(
        args.iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str),
        Some("run" | "exec")
    )) {
        return false;
    }
    container_command(args, ctx, depth);
    true
}

/// `at` and `batch`.
pub(super) fn on_at(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd, prev, depth, ..
    } = *call;
    // `at` reads the commands it schedules from stdin.
    for body in &cmd.stdin_text {
        analyze_nested(body, ctx, depth);
    }
    if let Some(prev) = prev {
        piped_into_shell(prev, ctx, depth);
    }
    true
}

/// `base64`.
pub(super) fn on_base64(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd,
        prev,
        args,
        depth,
        ..
    } = *call;
    if !(args
        .iter()
        .any(|a| matches!(a.as_str(), "-d" | "--decode" | "-D")))
    {
        return false;
    }
    decode_and_analyze(cmd, prev, ctx, depth);
    true
}

/// `find`.
pub(super) fn on_find(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, depth, .. } = *call;
    if let Some(at) = args
        .iter()
        .position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
    {
        let inner: Vec<String> = args[at + 1..]
            .iter()
            .take_while(|a| a.as_str() != ";" && a.as_str() != "+")
            .cloned()
            .collect();
        if !inner.is_empty() && depth < shell::MAX_DEPTH {
            let sub = SimpleCommand {
                words: inner,
                ..SimpleCommand::default()
            };
            analyze_one(&sub, None, ctx, depth + 1);
        }
    }
    true
}

/// `su` and `runuser`, `script`, `sg`.
pub(super) fn on_su(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call {
        cmd,
        prev,
        name,
        args,
        depth,
        ..
    } = *call;
    if let Some(script) = option_value(args, &["-c", "--command"]) {
        analyze_nested(&script, ctx, depth);
    } else if name == "runuser" && depth < shell::MAX_DEPTH {
        // `runuser -u USER [--] COMMAND…`.
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            if a == "--" {
                i += 1;
                break;
            }
            if !a.starts_with('-') {
                break;
            }
            i += if matches!(a, "-u" | "--user" | "-g" | "--group" | "-G" | "-w") {
                2
            } else {
                1
            };
        }
        if i < args.len() && args.iter().any(|a| a == "-u" || a == "--user") {
            let sub = SimpleCommand {
                words: args[i..].to_vec(),
                stdin: cmd.stdin,
                stdin_text: cmd.stdin_text.clone(),
                ..SimpleCommand::default()
            };
            analyze_one(&sub, prev, ctx, depth + 1);
        }
    }
    true
}

/// `kubectl` and `oc`.
pub(super) fn on_kubectl(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, depth, .. } = *call;
    if args.first().map(String::as_str) != Some("exec") {
        return false;
    }
    if let Some(at) = args.iter().position(|a| a == "--") {
        if at + 1 < args.len() && depth < shell::MAX_DEPTH {
            let sub = SimpleCommand {
                words: args[at + 1..].to_vec(),
                ..SimpleCommand::default()
            };
            analyze_one(&sub, None, ctx, depth + 1);
        }
    }
    true
}

/// `powershell` and `pwsh`.
pub(super) fn on_powershell(call: &Call<'_>, ctx: &mut Context<'_>) -> bool {
    let Call { args, depth, .. } = *call;
    powershell(args, ctx, depth);
    true
}
