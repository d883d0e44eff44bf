//! `gateway`: runs the order gateway from a configuration file until Ctrl-C (SIGINT) or SIGTERM,
//! then stops in order (no new connections, in-flight writes finished, journal flushed: the
//! same [`Gateway::shutdown`] for both signals), prints the whole run's latency table and exits 0.
//! `gateway --version` prints the crate version; `gateway ctl ...` calls a running gateway's
//! control surface (see `gateway::ctl`).

use std::path::PathBuf;

use clap::Parser;
use gateway::config::GatewayConfig;
use gateway::engine::{EngineSettings, Gateway};

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "gateway",
    version,
    about = "SOFH/SBE strategy sessions → Bitget UTA v3 private WebSocket",
    subcommand_negates_reqs = true
)]
struct Args {
    /// Configuration file (see config/gateway.example.toml).
    #[arg(long, short, required = true)]
    config: Option<PathBuf>,
    /// A subcommand instead of running the gateway.
    #[command(subcommand)]
    command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Call a running gateway's control surface (sessions, kill-switch, drain, resume).
    Ctl(gateway::ctl::CtlArgs),
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let args = Args::parse();
    let config = match args.command {
        Some(Command::Ctl(ctl)) => std::process::exit(gateway::ctl::run(ctl)),
        None => args.config.unwrap_or_default(),
    };
    let settings = match GatewayConfig::load(&config).and_then(|c| EngineSettings::from_config(&c))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gateway: {e}");
            std::process::exit(2);
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
            eprintln!("gateway: {e}");
            std::process::exit(1);
        }
    };
    let stop = match rt.block_on(async { StopSignals::install() }) {
        Ok(stop) => stop,
        Err(e) => {
            eprintln!("gateway: cannot install signal handlers: {e}");
            std::process::exit(1);
        }
    };
    let gw = match Gateway::start(settings) {
        Ok(gw) => gw,
        Err(e) => {
            eprintln!("gateway: {e}");
            std::process::exit(1);
        }
    };
    // Before the address line: a supervisor that waits for the address has the breakdown.
    println!("gateway: start-up {}", gw.startup());
    println!("gateway: strategies connect to {}", gw.strategy_addr());
    if let Some(addr) = gw.metrics_addr() {
        println!(
            "gateway: metrics at http://{addr}/metrics (health: /healthz, readiness: /readyz)"
        );
    }
    let signal = rt.block_on(stop.wait());
    println!("gateway: {signal} received, stopping");
    let report = gw.shutdown();
    println!(
        "-- gateway latency, whole run (µs) --\n{}",
        report.legs.table()
    );
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
