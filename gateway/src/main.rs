//! `gateway`: runs the order gateway from a configuration file until Ctrl-C (SIGINT) or SIGTERM,
//! then stops in order (no new connections, in-flight writes finished, journal flushed: the
//! same [`Gateway::shutdown`] for both signals), prints the whole run's latency table and exits 0.
//! `gateway --version` prints the crate version; `gateway check-config FILE` validates a
//! configuration and prints it with defaults filled in and secrets redacted (exit 0, or 2 when
//! invalid); `gateway ctl ...` calls a running gateway's control surface (see `gateway::ctl`).
//! `--log-format json` writes one JSON object per line ([`gateway::logging`]).

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use gateway::check_config::{check_config, load_checked, EXIT_INVALID};
use gateway::engine::Gateway;
use gateway::logging::{self, fatal, status_line, LogFormat, LogTarget};

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "gateway",
    version,
    about = "SOFH/SBE strategy sessions → Bitget UTA v3 private WebSocket",
    subcommand_negates_reqs = true
)]
struct Args {
    /// Configuration file to run the gateway with (see config/gateway.example.toml).
    #[arg(long, short, required = true)]
    config: Option<PathBuf>,
    /// Log line format: `text` (human-readable) or `json` (one object per line).
    #[arg(long, value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,
    /// A command other than running the gateway.
    #[command(subcommand)]
    command: Option<Command>,
}

/// Commands other than running the gateway.
#[derive(Debug, Subcommand)]
enum Command {
    /// Validates FILE exactly as the gateway does at start and prints the effective
    /// configuration (defaults filled in, secrets redacted); exit 0 when valid, 2 when not.
    CheckConfig {
        /// Configuration file to check.
        file: PathBuf,
    },
    /// Calls a running gateway's control surface (sessions, kill-switch, drain, resume).
    Ctl(gateway::ctl::CtlArgs),
}

fn main() {
    let args = Args::parse();
    match args.command {
        Some(Command::Ctl(ctl)) => {
            logging::init(args.log_format, LogTarget::Stderr);
            std::process::exit(gateway::ctl::run(ctl));
        }
        Some(Command::CheckConfig { file }) => {
            // Standard output is the configuration: log lines (warnings) go to standard error.
            logging::init(args.log_format, LogTarget::Stderr);
            let code = check_config(
                &file,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            );
            std::process::exit(code);
        }
        None => {
            logging::init(args.log_format, LogTarget::Stdout);
            match args.config {
                Some(config) => run(&config),
                None => {
                    fatal(&"--config FILE is required");
                    std::process::exit(EXIT_INVALID);
                }
            }
        }
    }
}

/// Runs the gateway from `config` until a stop signal.
fn run(config: &std::path::Path) {
    let settings = match load_checked(config) {
        Ok((_, s)) => s,
        Err(e) => {
            fatal(&e);
            std::process::exit(EXIT_INVALID);
        }
    };
    // The runtime and the signal handlers come before the gateway starts, so a signal that
    // arrives as soon as the listener is announced already means an orderly stop.
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            fatal(&e);
            std::process::exit(1);
        }
    };
    let stop = match rt.block_on(async { StopSignals::install() }) {
        Ok(stop) => stop,
        Err(e) => {
            fatal(&format_args!("cannot install signal handlers: {e}"));
            std::process::exit(1);
        }
    };
    let gw = match Gateway::start(settings) {
        Ok(gw) => gw,
        Err(e) => {
            fatal(&e);
            std::process::exit(1);
        }
    };
    // Before the address line: a supervisor that waits for the address has the breakdown.
    status_line(&format!("gateway: start-up {}", gw.startup()));
    status_line(&format!(
        "gateway: strategies connect to {}",
        gw.strategy_addr()
    ));
    if let Some(addr) = gw.metrics_addr() {
        status_line(&format!(
            "gateway: metrics at http://{addr}/metrics (health: /healthz, readiness: /readyz)"
        ));
    }
    let signal = rt.block_on(stop.wait());
    status_line(&format!("gateway: {signal} received, stopping"));
    let report = gw.shutdown();
    status_line(&format!(
        "-- gateway latency, whole run (µs) --\n{}",
        report.legs.table()
    ));
}

/// The signals that stop the gateway in order: SIGINT (Ctrl-C) and, on Unix, SIGTERM (what
/// `kill`, systemd and container runtimes send).
struct StopSignals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Registers the handlers (inside the runtime); from now on these signals no longer kill
    /// the process.
    fn install() -> std::io::Result<StopSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(StopSignals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(StopSignals {})
        }
    }

    /// Waits for the first stop signal; returns its name.
    async fn wait(mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.interrupt.recv() => "SIGINT",
                _ = self.terminate.recv() => "SIGTERM",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}
