//! `gateway-core` makes decisions only: its dependency tree holds no async runtime, no network
//! or TLS crate, no thread pool or channel, no clock source (issue 11, item 1). Read from
//! `cargo tree` of this package (normal dependencies, every feature the workspace enables).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::process::Command;

/// Crates that must never enter the core's dependency tree: async runtimes and their reactors,
/// HTTP / WebSocket / TLS stacks, socket helpers, thread and channel crates, CPU pinning.
const FORBIDDEN: &[&str] = &[
    "tokio",
    "mio",
    "async-std",
    "smol",
    "futures",
    "futures-util",
    "reqwest",
    "hyper",
    "h2",
    "http",
    "tungstenite",
    "tokio-tungstenite",
    "rustls",
    "tokio-rustls",
    "ring",
    "socket2",
    "crossbeam-channel",
    "rayon",
    "core_affinity",
    "parking_lot",
    "axum",
];

/// The forbidden crates named in `cargo tree --prefix none` output (one `name vX.Y.Z ...` per
/// line).
fn forbidden_in(tree: &str) -> Vec<String> {
    let mut found: Vec<String> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| FORBIDDEN.contains(name))
        .map(str::to_owned)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn the_checker_flags_a_runtime_and_a_network_crate() {
    let tree = "gateway-core v0.1.0 (/x)\ncodec v0.1.0 (/y)\ntokio v1.48.0\nserde v1.0.0\nrustls v0.23.0\n";
    assert_eq!(forbidden_in(tree), ["rustls", "tokio"]);
    assert!(forbidden_in("codec v0.1.0 (/y)\nserde v1.0.0\n").is_empty());
}

#[test]
fn the_core_depends_on_no_runtime_network_thread_or_clock_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--package",
            "gateway-core",
            "--edges",
            "normal",
            "--prefix",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        tree.lines().any(|l| l.starts_with("codec ")),
        "the tree was read: {tree}"
    );
    let found = forbidden_in(&tree);
    assert!(
        found.is_empty(),
        "gateway-core depends on {found:?}: decisions only, the shell (gateway) owns I/O\n{tree}"
    );
}
