//! `bitget-sim`: runs the venue simulator until Ctrl-C (or SIGTERM).
//!
//! ```text
//! bitget-sim                                   # demo defaults (TLS, ephemeral port)
//! bitget-sim --config config/sim.example.toml --cert-out /tmp/sim-ca.pem
//! bitget-sim --venue fast                      # answers every trade op at once (benchmarks)
//! ```

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Command line.
#[derive(Debug, Parser)]
#[command(
    name = "bitget-sim",
    about = "Local Bitget UTA v3 venue simulator (REST + private/public WebSocket, matching)"
)]
struct Args {
    /// TOML configuration (see config/sim.example.toml); demo defaults when absent.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Write the self-signed certificate (PEM) to this file, for clients to trust.
    #[arg(long)]
    cert_out: Option<PathBuf>,
    /// Override the listen address (e.g. 127.0.0.1:8443).
    #[arg(long)]
    listen: Option<std::net::SocketAddr>,
    /// Serve plain HTTP / ws:// instead of TLS.
    #[arg(long)]
    no_tls: bool,
    /// Which venue answers trade ops (overrides the configuration's `venue`): `full` (the
    /// simulated exchange) or `fast` (answers every op at once, nothing matched; benchmarks).
    #[arg(long, value_enum)]
    venue: Option<sim::config::VenueMode>,
}

#[tokio::main]
async fn main() -> ExitCode {
    // Log lines go to standard output, coloured only on a terminal (not in a file or a pipe).
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(std::io::stdout().is_terminal())
        .init();
    let args = Args::parse();
    let mut cfg = match &args.config {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => match sim::SimConfig::from_toml(&text) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("bitget-sim: {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            },
            Err(e) => {
                eprintln!("bitget-sim: cannot read {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        },
        None => sim::SimConfig::demo(),
    };
    if let Some(l) = args.listen {
        cfg.listen = l;
    }
    if args.no_tls {
        cfg.tls = false;
    }
    if let Some(v) = args.venue {
        cfg.venue = v;
    }
    let handle = match sim::Sim::start(cfg).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("bitget-sim: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("REST        {}", handle.rest_url());
    println!("WS private  {}", handle.ws_private_url());
    println!("WS public   {}", handle.ws_public_url());
    let pem = handle.ca_cert_pem();
    if !pem.is_empty() {
        match &args.cert_out {
            Some(path) => match std::fs::write(path, &pem) {
                Ok(()) => println!("CA cert     {}", path.display()),
                Err(e) => {
                    eprintln!("bitget-sim: cannot write {}: {e}", path.display());
                    handle.shutdown().await;
                    return ExitCode::FAILURE;
                }
            },
            None => println!("CA cert (PEM):\n{pem}"),
        }
    }
    wait_for_stop().await;
    let stats = handle.stats();
    handle.shutdown().await;
    println!("stopped: {stats:?}");
    ExitCode::SUCCESS
}

/// Waits for Ctrl-C (SIGINT) or, on Unix, SIGTERM.
async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                r = tokio::signal::ctrl_c() => {
                    if let Err(e) = r {
                        eprintln!("bitget-sim: cannot wait for Ctrl-C: {e}");
                    }
                }
                _ = term.recv() => {}
            }
            return;
        }
    }
    if let Err(e) = tokio::signal::ctrl_c().await {
        eprintln!("bitget-sim: cannot wait for Ctrl-C: {e}");
    }
}
