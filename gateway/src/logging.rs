//! The binary's log output: `--log-format text` (the default, human-readable lines) or
//! `--log-format json` (one JSON object per line, for journald, Loki, Elasticsearch, `jq`).
//!
//! JSON lines carry `timestamp`, `level`, `target`, `message` and the event's fields flattened
//! to the top level, so `jq 'select(.session == 7)'` finds every line of session 7. The fields
//! operators look for have the same names on every line that has them (see
//! `docs/operations.md`): `session` (FIXP SessionID), `account` (account name; an
//! account's index in the configuration is `account_ix` where the name is not at hand),
//! `cl_ord_id` (the strategy's ClOrdID) and `client_oid` (Bitget's clientOid).
//!
//! The filter is `RUST_LOG` (default `info`).

use std::io::{IsTerminal as _, Write as _};
use std::sync::OnceLock;

/// The format of log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (tracing-subscriber's default format).
    #[default]
    Text,
    /// One JSON object per line, event fields flattened to the top level.
    Json,
}

/// Where log lines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogTarget {
    /// Standard output (running the gateway: its status lines are there too).
    Stdout,
    /// Standard error (`check-config`, whose standard output is the configuration).
    Stderr,
}

/// Installs the global subscriber: `format`, written to `target`, filtered by `RUST_LOG`
/// (default `info`). A second call (or a subscriber already set) is ignored.
pub fn init(format: LogFormat, target: LogTarget) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    // Colours only on a terminal: not in the journal, a file or a pipe.
    let ansi = match target {
        LogTarget::Stdout => std::io::stdout().is_terminal(),
        LogTarget::Stderr => std::io::stderr().is_terminal(),
    };
    let result = match (format, target) {
        (LogFormat::Text, LogTarget::Stdout) => builder
            .with_ansi(ansi)
            .with_writer(std::io::stdout)
            .try_init(),
        (LogFormat::Text, LogTarget::Stderr) => builder
            .with_ansi(ansi)
            .with_writer(std::io::stderr)
            .try_init(),
        (LogFormat::Json, LogTarget::Stdout) => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .with_writer(std::io::stdout)
            .try_init(),
        (LogFormat::Json, LogTarget::Stderr) => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .with_writer(std::io::stderr)
            .try_init(),
    };
    // Already initialised (tests): the first subscriber and format stay.
    if result.is_ok() {
        let _ = FORMAT.set(format);
    }
}

/// The format [`init`] installed (text until then).
static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// The format [`init`] installed ([`LogFormat::Text`] before).
pub fn format() -> LogFormat {
    FORMAT.get().copied().unwrap_or_default()
}

/// One of the gateway's status lines (listener address, stop, latency tables; `text` may hold
/// newlines) in the installed format: a plain line on standard output with `text` (what
/// supervisors and scripts wait for), an INFO event of target `gateway` with `json` (the
/// message keeps the same text), so that every line of a JSON run is one object.
pub fn status_line(text: &str) {
    match format() {
        LogFormat::Text => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        }
        LogFormat::Json => tracing::info!(target: "gateway", "{text}"),
    }
}

/// A fatal error of the binary: `gateway: <error>` on standard error with `text`, an ERROR
/// event of target `gateway` with `json`.
pub fn fatal(error: &dyn std::fmt::Display) {
    match format() {
        LogFormat::Text => eprintln!("gateway: {error}"),
        LogFormat::Json => tracing::error!(target: "gateway", error = %error, "gateway: {error}"),
    }
}
