//! `palisade_hermes._native`: the PyO3 face of [`palisade_hermes::Plugin`].
//!
//! The Python shim builds one [`Guard`] per plugin at `register(ctx)` time and
//! sends every Hermes hook call through [`Guard::handle`]: kwargs as JSON in,
//! the callback's return value as JSON out. The guard work runs with the GIL
//! released, so Hermes' worker threads are not serialised behind it.
//!
//! No code here is `unsafe`; the only unsafe code is PyO3's own FFI layer.

#![deny(unsafe_code)]

use std::path::Path;

use palisade_hermes::{Env, GuardName, Host, Plugin};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Parses the guard names the Python plugins use (`egress`, `egress-guard`,
/// `palisade-egress`).
fn guard_name(name: &str) -> Option<GuardName> {
    GuardName::parse(name.strip_prefix("palisade-").unwrap_or(name))
}

/// One guard's dispatcher, shared by all of its hook callbacks.
#[pyclass(frozen, module = "palisade_hermes._native")]
struct Guard {
    plugin: Plugin,
}

#[pymethods]
impl Guard {
    /// Builds the dispatcher; reads the seeds' environment variables once.
    ///
    /// `inplace_modify`: the shim applies a `modify` directive to the
    /// argument dict Hermes is about to execute, so argument rewrites (an
    /// egress redaction) work on hosts without the `modify` directive too.
    #[new]
    #[pyo3(signature = (guard, host_version = "", inplace_modify = false))]
    fn new(guard: &str, host_version: &str, inplace_modify: bool) -> PyResult<Self> {
        let name = guard_name(guard)
            .ok_or_else(|| PyValueError::new_err(format!("unknown palisade guard {guard:?}")))?;
        let mut host = Host::from_version(host_version);
        if inplace_modify {
            host.supports_modify = true;
        }
        Ok(Guard {
            plugin: Plugin::new(name, host, Env::from_process()),
        })
    }

    /// The host capabilities the dispatcher decides with, as JSON.
    fn host(&self) -> String {
        serde_json::to_string(self.plugin.host()).unwrap_or_else(|_| "null".to_owned())
    }

    /// The Hermes hook names this guard wants registered.
    fn hooks(&self) -> Vec<String> {
        self.plugin
            .hooks()
            .iter()
            .map(|h| h.name().to_string())
            .collect()
    }

    /// One hook call: `kwargs_json` in, the callback's return value as JSON out.
    fn handle(&self, py: Python<'_>, hook: &str, home: &str, kwargs_json: &str) -> String {
        py.detach(|| self.plugin.handle(Path::new(home), hook, kwargs_json))
    }

    /// The warnings queued since the last call (fallbacks and fail-mode
    /// decisions, each distinct text once); the shim logs them through
    /// Hermes' logging.
    fn take_warnings(&self) -> Vec<String> {
        self.plugin.take_warnings()
    }

    /// Writes the decisions the dispatcher still buffers in memory (the
    /// injection guard batches its `pass` rows); the shim calls it at exit.
    /// Returns the error text of a failed write, or `None`.
    fn flush(&self, py: Python<'_>) -> Option<String> {
        py.detach(|| self.plugin.flush().err())
    }

    /// One user command (`status`, `report`, `release`, …) as JSON.
    fn command(&self, py: Python<'_>, name: &str, home: &str, args_json: &str) -> String {
        py.detach(|| self.plugin.command(Path::new(home), name, args_json))
    }
}

/// The version of this wheel.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Module initialisation.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Guard>()?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
