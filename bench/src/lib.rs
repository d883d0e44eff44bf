//! Demo strategy, load generator and same-run baselines for the order gateway.

pub mod burst;
pub mod demo;
pub mod endurance;
pub mod floor;
pub mod hostile;
pub mod load;
pub mod memory;
pub mod plot;
pub mod probe;
pub mod relay;
pub mod rig;
pub mod soak;

/// Logs to stderr, filtered by `RUST_LOG`, else at `default_level` (e.g. `warn`): the set-up of
/// every bench binary.
pub fn init_tracing(default_level: &str) {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level)),
        )
        .with_writer(std::io::stderr)
        .init();
}
