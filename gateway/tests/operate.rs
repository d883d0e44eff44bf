//! The real `gateway` binary as an operator runs it: `gateway check-config FILE` (the effective
//! configuration, secrets redacted, exit 0; an invalid file exit 2 with the field named) and
//! `--log-format json` (every log line one JSON object, the fields flattened), the latter
//! against an in-process simulator.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use gateway::config::GatewayConfig;

const EXE: &str = env!("CARGO_BIN_EXE_gateway");

/// The example configuration shipped with the gateway.
fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/gateway.example.toml")
}

/// A directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("bgw-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).expect("write");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `gateway check-config FILE` with `env` added to the child's environment (and every `BGW_`
/// variable of the test's own environment removed).
fn check_config(file: &Path, env: &[(&str, &str)], extra: &[&str]) -> Output {
    let mut cmd = Command::new(EXE);
    for (k, _) in std::env::vars() {
        if k.starts_with("BGW_") {
            cmd.env_remove(k);
        }
    }
    cmd.args(extra).arg("check-config").arg(file);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run gateway check-config")
}

const KEY: &str = "bg_key_d41d8cd98f00";
const SECRET: &str = "sec-9e107d9d372bb6826bd81d3542a419d6";
const PASS: &str = "pass-e4d909c290d0fb1c";
const TOKEN: &str = "tok-5d41402abc4b2a76";

#[test]
fn check_config_prints_the_example_with_defaults_and_no_secret() {
    let out = check_config(
        &example(),
        &[
            ("BGW_API_KEY", KEY),
            ("BGW_API_SECRET", SECRET),
            ("BGW_API_PASSPHRASE", PASS),
            ("BGW_CONTROL_TOKEN", TOKEN),
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for secret in [KEY, SECRET, PASS, TOKEN, "change-me"] {
        assert!(
            !stdout.contains(secret) && !stderr.contains(secret),
            "{secret} printed:\n{stdout}\n{stderr}"
        );
    }
    assert!(stdout.contains("api_key = \"<redacted>\""), "{stdout}");
    assert!(stdout.contains("secret = \"<redacted>\""), "{stdout}");
    assert!(stdout.contains("credentials = \"<redacted>\""), "{stdout}");
    assert!(
        stdout.contains(
            "Credentials from the environment: BGW_API_KEY, BGW_API_SECRET, BGW_API_PASSPHRASE, BGW_CONTROL_TOKEN."
        ),
        "{stdout}"
    );
    // Defaults the engine applies are filled in.
    for line in [
        "reply_timeout_ms = 5000",
        "order_capacity = 16384",
        "keep_segments = 16",
        "max_connections = 256",
        "rollover = \"none\"",
    ] {
        assert!(stdout.contains(line), "{line} missing:\n{stdout}");
    }
    // The output is itself a configuration the gateway accepts, and printing it again gives the
    // same settings (nothing lost or renamed on the way).
    let again = GatewayConfig::from_toml_str(&stdout).expect("effective configuration loads");
    assert_eq!(again.tracker.reply_timeout_ms, Some(5000));
    assert_eq!(again.exchange.api_key, "<redacted>");
    assert_eq!(again.sessions.len(), 1);
}

#[test]
fn check_config_round_trips_every_section() {
    let dir = TempDir::new("effective");
    let file = dir.write(
        "full.toml",
        "[strategy]\nlisten = \"127.0.0.1:9000\"\nrollover = \"weekly sun 21:30\"\n\n\
         [[session]]\nsession_id = 7\ncredentials = \"s7-secret\"\naccount = \"sub-1\"\n\
         on_budget_exhausted = \"queue\"\nrole = \"operator\"\n\
         [session.risk]\nmax_order_qty = \"2.5\"\nmax_open_orders = 10\n\n\
         [[account]]\nname = \"main\"\napi_key = \"main-key-123\"\nsecret = \"main-sec-456\"\n\
         passphrase = \"main-pass-789\"\n\n\
         [[account]]\nname = \"sub-1\"\napi_key = \"sub-key-123\"\nconnections = 3\n\
         categories = [\"usdt-futures\"]\n\n\
         [rate]\ntier = \"unlimited\"\n[rate.overrides]\nplace_order = 20\n\n\
         [risk.account]\nmax_order_notional = \"100000\"\nmax_deviation = \"0.05\"\n\n\
         [tracker]\nplacement = \"own_thread\"\nidle = \"spin_yield\"\ncore = 1\n\n\
         [moves]\nmaster_accounts = [\"main\"]\n",
    );
    let out = check_config(
        &file,
        &[
            ("BGW_SUB_1_SECRET", "sub-sec-456"),
            ("BGW_SUB_1_PASSPHRASE", "sub-pass-789"),
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for secret in [
        "s7-secret",
        "main-key-123",
        "main-sec-456",
        "main-pass-789",
        "sub-key-123",
        "sub-sec-456",
        "sub-pass-789",
    ] {
        assert!(!stdout.contains(secret), "{secret} printed:\n{stdout}");
    }
    assert!(
        stdout
            .contains("Credentials from the environment: BGW_SUB_1_SECRET, BGW_SUB_1_PASSPHRASE."),
        "{stdout}"
    );
    let cfg = GatewayConfig::from_toml_str(&stdout).expect("effective configuration loads");
    let orig = GatewayConfig::from_toml_str_with_env(
        &std::fs::read_to_string(&file).expect("read"),
        |k| match k {
            "BGW_SUB_1_SECRET" => Some("x".into()),
            "BGW_SUB_1_PASSPHRASE" => Some("y".into()),
            _ => None,
        },
    )
    .expect("original loads");
    assert_eq!(cfg.strategy.rollover, orig.strategy.rollover);
    assert_eq!(cfg.sessions[0].risk, orig.sessions[0].risk);
    assert_eq!(cfg.sessions[0].role, orig.sessions[0].role);
    assert_eq!(cfg.risk, orig.risk);
    assert_eq!(cfg.rate, orig.rate);
    assert_eq!(
        cfg.accounts[1].categories,
        Some(vec!["USDT-FUTURES".into()])
    );
    assert_eq!(cfg.accounts[1].connections, 3);
    assert_eq!(cfg.tracker.placement, orig.tracker.placement);
    assert_eq!(cfg.tracker.idle, orig.tracker.idle);
    assert_eq!(cfg.tracker.core, Some(1));
}

#[test]
fn check_config_refuses_a_broken_file_with_exit_2_naming_the_field() {
    let dir = TempDir::new("broken");
    for (text, names) in [
        (
            "[strategy]\nmax_frame_len = 10\n\n[[session]]\nsession_id = 1\ncredentials = \"x\"\n\
             [exchange]\napi_key = \"k\"\nsecret = \"s\"\npassphrase = \"p\"\n",
            "strategy.max_frame_len",
        ),
        ("[strategy]\nmax_frames = 10\n", "max_frames"),
        (
            "[[session]]\nsession_id = 1\ncredentials = \"x\"\n",
            "exchange.api_key",
        ),
        ("[strategy\nlisten = ", "invalid TOML"),
    ] {
        let file = dir.write("bad.toml", text);
        let out = check_config(&file, &[], &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(out.stdout.is_empty(), "{text}");
        assert!(stderr.contains(names), "{text}: {stderr}");
    }
    let out = check_config(&dir.0.join("absent.toml"), &[], &[]);
    assert_eq!(out.status.code(), Some(2));
}

/// Every non-empty line of `text` is a JSON object; returns them.
fn json_lines(text: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
            Ok(serde_json::Value::Object(o)) => o,
            other => panic!("not a JSON object: {l:?} ({other:?})\n{text}"),
        })
        .collect()
}

#[test]
fn check_config_logs_its_warnings_as_json_on_stderr() {
    let dir = TempDir::new("jsonwarn");
    // More open orders allowed than the tracker's table holds: a start-up warning.
    let file = dir.write(
        "warn.toml",
        "[[session]]\nsession_id = 1\ncredentials = \"x\"\n\n\
         [exchange]\napi_key = \"k\"\nsecret = \"s\"\npassphrase = \"p\"\n\n\
         [risk.account]\nmax_open_orders = 100000\n",
    );
    let out = check_config(&file, &[], &["--log-format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines = json_lines(&stderr);
    let warn = lines
        .iter()
        .find(|l| l.get("level").and_then(|v| v.as_str()) == Some("WARN"))
        .unwrap_or_else(|| panic!("no WARN line: {stderr}"));
    let message = warn.get("message").and_then(|v| v.as_str()).unwrap_or("");
    assert!(message.contains("order_capacity"), "{stderr}");
    assert!(warn.contains_key("timestamp") && warn.contains_key("target"));
    // Standard output is the configuration only.
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("# Effective configuration"));
}

#[cfg(unix)]
#[test]
fn json_log_format_writes_one_object_per_line_with_flat_fields() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut cfg = sim::SimConfig::demo();
    cfg.liquidity.symbols.clear();
    let sim = rt.block_on(sim::Sim::start(cfg)).expect("simulator starts");

    let dir = TempDir::new("jsonlog");
    let ca = dir.write("ca.pem", &sim.ca_cert_pem());
    let config = dir.write(
        "gateway.toml",
        &format!(
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
            dir.0.join("journal").display()
        ),
    );

    let mut child = Command::new(EXE)
        .args(["--log-format", "json", "--config"])
        .arg(&config)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gateway");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains("gateway: strategies connect to ") {
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
            "gateway did not start: {}{}",
            reader.join().unwrap_or_default(),
            err_reader.join().unwrap_or_default()
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
    let err = err_reader.join().expect("stderr reader");
    assert_eq!(status.code(), Some(0), "{status:?}\n{out}\n{err}");

    let lines = json_lines(&out);
    json_lines(&err);
    let message = |l: &serde_json::Map<String, serde_json::Value>| {
        l.get("message")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_owned()
    };
    // A library event with its fields flattened: the account's name at the top level.
    let login = lines
        .iter()
        .find(|l| message(l).contains("logged in and subscribed"))
        .unwrap_or_else(|| panic!("no login line:\n{out}"));
    assert_eq!(
        login.get("account").and_then(|v| v.as_str()),
        Some("main"),
        "{out}"
    );
    assert_eq!(login.get("level").and_then(|v| v.as_str()), Some("INFO"));
    assert!(!login.contains_key("fields") && !login.contains_key("span"));
    // A sample for the docs (shown with --nocapture).
    eprintln!(
        "sample JSON log line: {}",
        serde_json::Value::Object(login.clone())
    );
    // The binary's status lines are objects too, the stop and the latency table included.
    for needle in [
        "gateway: strategies connect to ",
        "gateway: SIGTERM received, stopping",
        "-- gateway latency, whole run",
    ] {
        assert!(
            lines.iter().any(|l| message(l).contains(needle)),
            "{needle} missing:\n{out}"
        );
    }
}
