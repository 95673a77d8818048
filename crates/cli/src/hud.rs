//! `palisade hud`: one self-contained HTML page of the guards' posture.
//!
//! The page has no scripts, no network and no external assets: inline CSS and
//! text only, so it renders the same from a file, an e-mail attachment or an
//! air-gapped machine. Every number carries a `data-k` attribute naming what it
//! is, so tests (and people with devtools) can check it against the store.

use palisade_hermes::storage::ledger::Ledger;
use palisade_hermes::{Env, GuardName, Host, Plugin, Timestamp};
use palisade_injection::{posture_breakdown, Telemetry};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// Everything the page shows, gathered from the stored data by the caller.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HudData {
    /// Where the data came from (the Hermes home).
    pub home: String,
    /// When the page was rendered (RFC 3339).
    pub generated_at: String,
    /// The injection guard's live posture.
    pub posture: Posture,
    /// Interceptions per layer (L1–L4) and tier (block, quarantine, flag).
    pub matrix: [[u64; 3]; 4],
    /// Quarantine entries still held.
    pub held: u64,
    /// Quarantine entries released by a person.
    pub released: u64,
    /// Every interception recorded (real telemetry only, never the arena).
    pub interceptions: u64,
    /// The latest interception, if any.
    pub latest: Option<Intercept>,
    /// Egress findings per rule key.
    pub egress_by_rule: Vec<(String, u64)>,
    /// Provenance verdicts per reason.
    pub provenance_by_reason: Vec<(String, u64)>,
    /// Closure candidates waiting for review.
    pub closure_pending: u64,
    /// Closure candidates past their review date.
    pub closure_overdue: u64,
}

/// The posture score and the parts it is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Posture {
    /// The score, 0–100.
    pub score: u32,
    /// Earned base components: (name, points earned, points possible).
    pub base: Vec<(String, u32, u32)>,
    /// Penalties: (name, points taken).
    pub penalties: Vec<(String, u32)>,
}

impl Default for Posture {
    fn default() -> Self {
        Posture {
            score: 100,
            base: Vec::new(),
            penalties: Vec::new(),
        }
    }
}

/// One interception, already masked for display.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Intercept {
    /// When.
    pub ts: String,
    /// Tier (`block`, `quarantine`, `flag`).
    pub tier: String,
    /// Layer (`L1`…`L4`, `tool`).
    pub layer: String,
    /// Rule key.
    pub rule: String,
    /// Masked preview.
    pub preview: String,
}

/// Gather the page's data from a Hermes home. Missing stores count as empty
/// (a fresh install); a store that cannot be read is an error naming it.
pub fn gather(home: &Path, env: Env, now: Timestamp) -> Result<HudData, String> {
    let run = |guard: GuardName, command: &str| -> Result<Value, String> {
        let plugin = Plugin::new(guard, Host::default(), env.clone());
        let out = plugin.command_at(home, command, "{}", now);
        if out["ok"] == true {
            Ok(out["result"].clone())
        } else {
            Err(format!(
                "{} {command}: {}",
                guard.as_str(),
                out["error"].as_str().unwrap_or("failed")
            ))
        }
    };
    let status = run(GuardName::Injection, "status")?;
    let count = |v: &Value| v.as_u64().unwrap_or(0);
    let telemetry = &status["telemetry"];
    let breakdown = posture_breakdown(&Telemetry {
        pre_llm_call: true,
        pre_tool_call: true,
        fail_closed: status["config"]["fail_closed_on_error"] == true,
        redaction: status["config"]["redact_secrets"] == true,
        ledger_verified: status["ledger"]["ok"] == true,
        held: u32::try_from(count(&telemetry["pending"])).unwrap_or(u32::MAX),
        degraded_layers: telemetry["degraded_layers"]
            .as_array()
            .map_or(0, |a| a.len() as u32),
        released: u32::try_from(count(&telemetry["released"])).unwrap_or(u32::MAX),
        interceptions: u32::try_from(count(&telemetry["interceptions"])).unwrap_or(u32::MAX),
    });
    let posture = Posture {
        score: breakdown.score,
        base: breakdown
            .base
            .iter()
            .map(|c| (c.name.to_owned(), c.earned, c.possible))
            .collect(),
        penalties: vec![
            ("pending".to_owned(), breakdown.pending),
            ("degraded".to_owned(), breakdown.degraded),
            ("false positive".to_owned(), breakdown.false_positive),
        ],
    };
    let (matrix, latest) = read_ledger(home)?;
    let egress = run(GuardName::Egress, "report")?;
    let provenance = run(GuardName::Provenance, "report")?;
    let closure = run(GuardName::Closure, "report")?;
    Ok(HudData {
        home: home.display().to_string(),
        generated_at: now.to_string(),
        posture,
        matrix,
        held: count(&telemetry["pending"]),
        released: count(&telemetry["released"]),
        interceptions: count(&telemetry["interceptions"]),
        latest,
        egress_by_rule: counts(&egress["by_rule"]),
        provenance_by_reason: counts(&provenance["by_reason"]),
        closure_pending: count(&closure["pending"]),
        closure_overdue: count(&closure["overdue"]),
    })
}

/// Interceptions per layer and tier, and the newest interception, from the
/// decision ledger: each decision counts once for every layer that
/// contributed a finding.
fn read_ledger(home: &Path) -> Result<([[u64; 3]; 4], Option<Intercept>), String> {
    let mut matrix = [[0u64; 3]; 4];
    let mut latest = None;
    let path = GuardName::Injection
        .data_dir(home)
        .join(palisade_hermes::storage::ledger::FILE_NAME);
    if !path.exists() {
        return Ok((matrix, latest));
    }
    let ledger = Ledger::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // Newest first, so the first interception seen is the latest.
    let rows = ledger
        .recent(usize::MAX)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    for row in rows {
        let Some(tier) = TIERS.iter().position(|t| *t == row.decision) else {
            continue;
        };
        let payload: Value = serde_json::from_str(&row.payload).unwrap_or_default();
        let findings = payload["findings"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let layers: BTreeSet<usize> = findings
            .iter()
            .filter_map(|f| f["layer"].as_str())
            .filter_map(layer_index)
            .collect();
        for &layer in &layers {
            matrix[layer][tier] += 1;
        }
        if latest.is_none() {
            let rules: Vec<&str> = findings.iter().filter_map(|f| f["rule"].as_str()).collect();
            latest = Some(Intercept {
                ts: row.ts.clone(),
                tier: row.decision.clone(),
                layer: layers
                    .first()
                    .map_or_else(|| "tool".to_owned(), |l| format!("L{}", l + 1)),
                rule: rules.join(", "),
                preview: payload["preview"].as_str().unwrap_or_default().to_owned(),
            });
        }
    }
    Ok((matrix, latest))
}

/// The matrix row of a stored layer, written as `L2` or as its name.
fn layer_index(layer: &str) -> Option<usize> {
    match layer {
        "L1" | "invisible" => Some(0),
        "L2" | "instruction" => Some(1),
        "L3" | "token" => Some(2),
        "L4" | "encoding" => Some(3),
        _ => None,
    }
}

/// A `{name: count}` object as sorted rows, largest first.
fn counts(v: &Value) -> Vec<(String, u64)> {
    let mut rows: Vec<(String, u64)> = v
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0)))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows
}

const LAYERS: [&str; 4] = [
    "L1 invisible",
    "L2 instructions",
    "L3 tokens, lookalikes",
    "L4 encodings",
];
const TIERS: [&str; 3] = ["block", "quarantine", "flag"];

/// Render the page.
pub fn render(data: &HudData) -> String {
    let mut h = String::with_capacity(8 * 1024);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Palisade posture</title><style>{CSS}</style></head><body>\n"
    );
    let _ = write!(
        h,
        "<header><h1>Palisade posture</h1><p class=\"meta\">{} · generated {}</p></header>\n<main>\n",
        esc(&data.home),
        esc(&data.generated_at)
    );

    // Posture score.
    let tone = match data.posture.score {
        90..=100 => "good",
        60..=89 => "warn",
        _ => "bad",
    };
    let _ = write!(
        h,
        "<section class=\"card\"><h2>Injection posture</h2>\
         <div class=\"score {tone}\"><span data-k=\"posture\">{}</span><small>/100</small></div><table>",
        data.posture.score
    );
    for (name, earned, possible) in &data.posture.base {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"n\" data-k=\"base:{}\">{earned}</td><td class=\"n dim\">of {possible}</td></tr>",
            esc(name),
            esc(name)
        );
    }
    for (name, taken) in &data.posture.penalties {
        let sign = if *taken > 0 { "−" } else { "" };
        let _ = write!(
            h,
            "<tr><td>{} penalty</td><td class=\"n\">{sign}<span data-k=\"penalty:{}\">{taken}</span></td><td></td></tr>",
            esc(name),
            esc(name)
        );
    }
    h.push_str("</table></section>\n");

    // L1–L4 matrix.
    h.push_str("<section class=\"card\"><h2>Interceptions by layer</h2><table class=\"matrix\"><tr><th></th>");
    for tier in TIERS {
        let _ = write!(h, "<th>{tier}</th>");
    }
    h.push_str("</tr>");
    for (l, layer) in LAYERS.iter().enumerate() {
        let _ = write!(h, "<tr><th>{layer}</th>");
        for (t, tier) in TIERS.iter().enumerate() {
            let n = data.matrix[l][t];
            let class = if n > 0 { "n hot" } else { "n" };
            let _ = write!(
                h,
                "<td class=\"{class}\" data-k=\"matrix:L{}:{tier}\">{n}</td>",
                l + 1
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    let _ = write!(
        h,
        "<p>Real telemetry only: <b data-k=\"interceptions\">{}</b> interceptions, \
         <b data-k=\"held\">{}</b> held, <b data-k=\"released\">{}</b> released.</p>",
        data.interceptions, data.held, data.released
    );
    match &data.latest {
        Some(i) => {
            let _ = write!(
                h,
                "<p class=\"latest\">Latest intercept: <b>{}</b> {} <code>{}</code> at {}<br><code>{}</code></p>",
                esc(&i.tier),
                esc(&i.layer),
                esc(&i.rule),
                esc(&i.ts),
                esc(&i.preview)
            );
        }
        None => h.push_str("<p class=\"latest dim\">No interceptions recorded.</p>"),
    }
    h.push_str("</section>\n");

    counts_card(
        &mut h,
        "Egress findings by rule",
        "egress",
        &data.egress_by_rule,
    );
    counts_card(
        &mut h,
        "Provenance verdicts by reason",
        "provenance",
        &data.provenance_by_reason,
    );

    let _ = writeln!(
        h,
        "<section class=\"card\"><h2>Closure review</h2>\
         <p><b data-k=\"closure:pending\">{}</b> candidates pending, \
         <b data-k=\"closure:overdue\" class=\"{}\">{}</b> overdue.</p></section>",
        data.closure_pending,
        if data.closure_overdue > 0 { "bad" } else { "" },
        data.closure_overdue
    );
    h.push_str("</main><footer>Rendered by palisade hud. Local data only; this page loads nothing.</footer></body></html>\n");
    h
}

fn counts_card(h: &mut String, title: &str, key: &str, rows: &[(String, u64)]) {
    let _ = write!(h, "<section class=\"card\"><h2>{title}</h2>");
    if rows.is_empty() {
        h.push_str("<p class=\"dim\">Nothing recorded.</p></section>\n");
        return;
    }
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
    h.push_str("<table>");
    for (name, n) in rows {
        // Bar width as a whole percentage of the largest count.
        let width = n.saturating_mul(100) / max;
        let _ = write!(
            h,
            "<tr><td><code>{}</code></td><td class=\"n\" data-k=\"{key}:{}\">{n}</td>\
             <td class=\"bar\"><span style=\"width:{width}%\"></span></td></tr>",
            esc(name),
            esc(name)
        );
    }
    h.push_str("</table></section>\n");
}

/// Escape text for HTML content and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = "\
:root{--bg:#0f1419;--card:#1a2129;--fg:#e6e9ec;--dim:#8a97a5;--good:#3fb950;--warn:#d29922;--bad:#f85149;--acc:#58a6ff}\
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;background:var(--bg);color:var(--fg)}\
header{padding:20px 28px;border-bottom:1px solid #2a333d}h1{margin:0;font-size:22px}h2{margin:0 0 12px;font-size:15px;color:var(--dim);text-transform:uppercase;letter-spacing:.05em}\
.meta,.dim{color:var(--dim)}main{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:16px;padding:20px 28px}\
.card{background:var(--card);border-radius:10px;padding:16px 18px}.score{font-size:64px;font-weight:700;line-height:1}.score small{font-size:20px;color:var(--dim)}\
.good{color:var(--good)}.warn{color:var(--warn)}.bad{color:var(--bad)}table{width:100%;border-collapse:collapse;margin-top:10px}\
td,th{padding:4px 6px;text-align:left;border-bottom:1px solid #252d36}.n{text-align:right;font-variant-numeric:tabular-nums}\
.matrix td,.matrix th{text-align:center}.hot{background:#3b1f23;color:var(--bad);font-weight:700}code{font-size:13px;color:var(--acc)}\
.bar{width:40%}.bar span{display:block;height:8px;border-radius:4px;background:var(--acc)}footer{padding:12px 28px;color:var(--dim);font-size:12px}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_home_renders_full_score_and_no_external_assets() {
        let page = render(&HudData::default());
        assert!(page.contains("data-k=\"posture\">100<"));
        for forbidden in ["<script", "http://", "https://", "src=", "@import", "url("] {
            assert!(
                !page.contains(forbidden),
                "page must be self-contained: found {forbidden}"
            );
        }
    }

    #[test]
    fn numbers_and_escaping() {
        let mut data = HudData::default();
        data.matrix[1][0] = 3;
        data.egress_by_rule = vec![("egress-guard:EG-SECRET-001".into(), 7)];
        data.latest = Some(Intercept {
            preview: "<|im_start|>system".into(),
            ..Intercept::default()
        });
        let page = render(&data);
        assert!(page.contains("data-k=\"matrix:L2:block\">3<"));
        assert!(page.contains("data-k=\"egress:egress-guard:EG-SECRET-001\">7<"));
        assert!(page.contains("&lt;|im_start|&gt;"));
        assert!(!page.contains("<|im_start|>"));
    }
}
