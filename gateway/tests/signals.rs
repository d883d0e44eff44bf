//! The real `gateway` binary: `--version`, and SIGTERM handled like Ctrl-C (orderly stop, the
//! shutdown summary, exit code 0), against an in-process simulator.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_gateway");

/// A directory removed on drop.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn version_prints_the_crate_version_and_exits_0() {
    let out = Command::new(EXE).arg("--version").output().expect("run");
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("gateway {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[cfg(unix)]
#[test]
fn sigterm_stops_the_gateway_in_order_and_exits_0() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut cfg = sim::SimConfig::demo();
    cfg.liquidity.symbols.clear();
    let sim = rt.block_on(sim::Sim::start(cfg)).expect("simulator starts");

    let dir = TempDir(std::env::temp_dir().join(format!("bgw-sigterm-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("temp dir");
    let ca = dir.0.join("ca.pem");
    std::fs::write(&ca, sim.ca_cert_pem()).expect("ca");
    let journal = dir.0.join("journal");
    let config = dir.0.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[strategy]\nlisten = \"127.0.0.1:0\"\n\n\
             [[session]]\nsession_id = 1\ncredentials = \"secret-1\"\n\n\
             [[account]]\nname = \"main\"\napi_key = \"bg_demo_key\"\nsecret = \"demo-secret\"\n\
             passphrase = \"demo-pass\"\nposition_updates = false\n\n\
             [exchange]\nws_private_url = \"{}\"\nrest_url = \"{}\"\nca_cert_pem_path = \"{}\"\n\
             categories = [\"USDT-FUTURES\"]\n\n\
             [rate]\ntier = \"unlimited\"\n\n[risk]\nmark_refresh_ms = 0\n\n\
             [journal]\ndir = \"{}\"\n",
            sim.ws_private_url(),
            sim.rest_url(),
            ca.display(),
            journal.display()
        ),
    )
    .expect("config");

    let mut child = Command::new(EXE)
        .arg("--config")
        .arg(&config)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn gateway");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("gateway: strategies connect to ") {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    if rx.recv_timeout(Duration::from_secs(30)).is_err() {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "gateway did not start: {}",
            reader.join().unwrap_or_default()
        );
    }

    let sent = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gateway did not stop within 20 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = reader.join().expect("stdout reader");
    assert_eq!(status.code(), Some(0), "{status:?}\n{out}");
    assert!(out.contains("gateway: SIGTERM received, stopping"), "{out}");
    assert!(out.contains("-- gateway latency, whole run"), "{out}");
    // The journal of the configured session is on disk.
    assert!(
        journal
            .join("session-1")
            .join("e0000000000-s0000000001.journal")
            .is_file(),
        "{out}"
    );
}

/// A session with empty credentials accepts any Negotiate: the binary refuses to start with
/// one on a listener that is not loopback (exit code not 0, the message names the field and
/// the way out) before it connects anywhere.
#[test]
fn empty_credentials_on_a_non_loopback_listener_are_refused_at_start() {
    let dir = TempDir(std::env::temp_dir().join(format!("bgw-open-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("temp dir");
    let config = dir.0.join("gateway.toml");
    std::fs::write(
        &config,
        "[strategy]\nlisten = \"0.0.0.0:0\"\n\n\
         [[session]]\nsession_id = 1\ncredentials = \"\"\n\n\
         [exchange]\napi_key = \"k\"\nsecret = \"s\"\npassphrase = \"p\"\n\
         ws_private_url = \"wss://127.0.0.1:1/v3/ws/private\"\nrest_url = \"https://127.0.0.1:1\"\n",
    )
    .expect("config");
    let out = Command::new(EXE)
        .arg("--config")
        .arg(&config)
        .output()
        .expect("run");
    assert!(!out.status.success(), "{:?}", out.status);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("session.credentials") && text.contains("allow_empty_credentials"),
        "{text}"
    );
}
