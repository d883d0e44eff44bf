//! `gateway`: runs the order gateway from a configuration file until Ctrl-C, then prints the
//! whole run's latency table.

use std::path::PathBuf;

use clap::Parser;
use gateway::config::GatewayConfig;
use gateway::engine::{EngineSettings, Gateway};

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "gateway",
    about = "SOFH/SBE strategy sessions → Bitget UTA v3 private WebSocket"
)]
struct Args {
    /// Configuration file (see config/gateway.example.toml).
    #[arg(long, short)]
    config: PathBuf,
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let args = Args::parse();
    let settings =
        match GatewayConfig::load(&args.config).and_then(|c| EngineSettings::from_config(&c)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("gateway: {e}");
                std::process::exit(2);
            }
        };
    let gw = match Gateway::start(settings) {
        Ok(gw) => gw,
        Err(e) => {
            eprintln!("gateway: {e}");
            std::process::exit(1);
        }
    };
    println!("gateway: strategies connect to {}", gw.strategy_addr());
    if let Some(addr) = gw.metrics_addr() {
        println!(
            "gateway: metrics at http://{addr}/metrics (health: /healthz, readiness: /readyz)"
        );
    }
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
    let _ = rt.block_on(tokio::signal::ctrl_c());
    let report = gw.shutdown();
    println!(
        "-- gateway latency, whole run (µs) --\n{}",
        report.legs.table()
    );
}
