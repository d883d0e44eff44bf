//! `gateway check-config FILE`: the file loaded and validated exactly as the gateway does at
//! start ([`GatewayConfig::load`], then [`EngineSettings::from_config`]), printed back as the
//! effective configuration: TOML with the defaults filled in and every secret redacted.
//!
//! The printed view is the configuration structs themselves, serialized (no second copy of
//! the schema, keys in the order of the structs): [`Secret`](crate::exchange::Secret) (API
//! secrets, passphrases, session credentials) and the API keys serialize as `"<redacted>"`
//! (empty ones as `""`: nothing was given). Optional keys whose default the engine applies
//! (`[tracker]` deadlines, capacity and retention, `[journal]` segments) are filled in with the
//! values the engine would use. A header comment names the credential environment variables
//! that were set (without their values).

use std::io::Write;
use std::path::Path;

use crate::config::{credential_env_set, ConfigError, GatewayConfig};
use crate::control::auth::TOKEN_ENV;
use crate::engine::EngineSettings;
use crate::exchange::REDACTED;

/// Exit code of `check-config` (and of the gateway) for a configuration that does not load or
/// validate.
pub const EXIT_INVALID: i32 = 2;

/// Exit code of `check-config` when a valid configuration could not be printed.
pub const EXIT_INTERNAL: i32 = 1;

/// Loads `path` exactly as the gateway does at start (environment overrides included) and
/// builds the engine settings from it (which reads `ca_cert_pem_path` and resolves accounts).
///
/// Errors: whatever would stop the gateway's start with exit code 2.
pub fn load_checked(path: &Path) -> Result<(GatewayConfig, EngineSettings), ConfigError> {
    let cfg = GatewayConfig::load(path)?;
    let settings = EngineSettings::from_config(&cfg)?;
    Ok((cfg, settings))
}

/// The effective configuration as TOML: `cfg` with the engine's defaults from `settings`
/// filled in and every secret redacted.
///
/// Errors: a value TOML cannot hold (none of the configuration's types should produce one).
pub fn effective_toml(
    cfg: &GatewayConfig,
    settings: &EngineSettings,
) -> Result<String, toml::ser::Error> {
    let mut cfg = cfg.clone();
    let t = &mut cfg.tracker;
    let d = &settings.tracker;
    t.reply_timeout_ms = Some(d.deadlines.reply_timeout_ms);
    t.push_deadline_ms = Some(d.deadlines.push_deadline_ms);
    t.order_capacity = Some(d.order_capacity);
    t.retention_ms = Some(d.retention.retention_ms);
    t.retention_orders = Some(d.retention.retention_orders);
    t.tombstones = Some(d.retention.tombstones);
    t.unseen_tail_ms = Some(d.retention.unseen_tail_ms);
    let policy = cfg.journal.segment_policy();
    cfg.journal.segment_bytes = Some(policy.segment_bytes);
    cfg.journal.keep_segments = Some(policy.keep_segments);

    toml::to_string_pretty(&cfg)
}

/// `gateway check-config FILE`: prints the effective configuration of `path` to `out` and
/// returns 0; on a configuration the gateway would refuse, prints the error (naming the field)
/// to `err` and returns [`EXIT_INVALID`].
pub fn check_config(path: &Path, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let (cfg, settings) = match load_checked(path) {
        Ok(loaded) => loaded,
        Err(e) => {
            let _ = writeln!(err, "gateway check-config: {}: {e}", path.display());
            return EXIT_INVALID;
        }
    };
    let text = match effective_toml(&cfg, &settings) {
        Ok(text) => text,
        Err(e) => {
            let _ = writeln!(
                err,
                "gateway check-config: cannot print the configuration: {e}"
            );
            return EXIT_INTERNAL;
        }
    };
    let mut from_env = credential_env_set(&cfg, |k| std::env::var(k).ok());
    // The control surface's token (read at start, never printed): set or not is what an
    // operator checks before relying on `gateway ctl`.
    if std::env::var(TOKEN_ENV).is_ok_and(|v| !v.is_empty()) {
        from_env.push(TOKEN_ENV.to_owned());
    }
    let env_line = if from_env.is_empty() {
        "none".to_owned()
    } else {
        from_env.join(", ")
    };
    let written = write!(
        out,
        "# Effective configuration of {} (valid; defaults filled in, secrets shown as \"{REDACTED}\").\n\
         # Credentials from the environment: {env_line}.\n\n{text}",
        path.display()
    )
    .and_then(|()| out.flush());
    match written {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "gateway check-config: cannot write: {e}");
            EXIT_INTERNAL
        }
    }
}
