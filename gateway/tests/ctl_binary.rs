//! The real binaries against the simulator: `gateway --config FILE` started as a process with
//! `BGW_CONTROL_TOKEN` in its environment (read once at start by `EngineSettings::from_config`)
//! and `[metrics] listen` on a free loopback port, then `gateway ctl ...` run as processes
//! against it: exit 0 and pretty JSON on a 2xx answer, 1 on an HTTP error answer (unknown
//! session, no token), 2 when nothing answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "binary-test-token";
const BIN: &str = env!("CARGO_BIN_EXE_gateway");

/// Kills the gateway process when the test ends (passed or not).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ctl(url: &str, token_env: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("ctl")
        .args(["--url", url, "--token-env", token_env])
        .args(args)
        .env("BGW_CTL_BINARY_TEST_TOKEN", TOKEN)
        .output()
        .expect("gateway ctl runs")
}

fn stdout_json(o: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn gateway_ctl_drives_a_running_gateway() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut sim_cfg = sim::SimConfig::demo();
    sim_cfg.liquidity.symbols.clear();
    let sim = rt
        .block_on(sim::Sim::start(sim_cfg))
        .expect("simulator starts");
    let dir = std::env::temp_dir().join(format!("bgw-ctl-binary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca = dir.join("sim-ca.pem");
    std::fs::write(&ca, sim.ca_cert_pem()).unwrap();
    let config = dir.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[[session]]
session_id = 1
credentials = "secret-1"
name = "alpha"

[[session]]
session_id = 2
credentials = "secret-2"

[exchange]
ws_private_url = "{ws}"
rest_url = "{rest}"
ca_cert_pem_path = "{ca}"
api_key = "bg_demo_key"
secret = "demo-secret"
passphrase = "demo-pass"
categories = ["USDT-FUTURES"]

[metrics]
listen = "127.0.0.1:0"
"#,
            ws = sim.ws_private_url(),
            rest = sim.rest_url(),
            ca = ca.display(),
        ),
    )
    .unwrap();
    let mut child = Command::new(BIN)
        .arg("--config")
        .arg(&config)
        .env("BGW_CONTROL_TOKEN", TOKEN)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("gateway starts");
    let stdout = child.stdout.take().expect("stdout");
    let _running = Running(child);
    // "gateway: metrics at http://ADDR/metrics (...)"
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("gateway: metrics at ") {
                let url = rest.split("/metrics").next().unwrap_or("").to_owned();
                let _ = tx.send(url);
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the gateway announces its metrics listener");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let env = "BGW_CTL_BINARY_TEST_TOKEN";

    // The listing (the io thread serves it once the exchange is up: retry until then).
    let end = Instant::now() + Duration::from_secs(30);
    let o = loop {
        let o = ctl(&url, env, &["sessions"]);
        if o.status.code() == Some(0) || Instant::now() > end {
            break o;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v = stdout_json(&o);
    assert_eq!(v["sessions"][0]["session_id"], 1);
    assert_eq!(v["sessions"][0]["name"], "alpha");
    assert_eq!(v["sessions"][0]["account"], "main");
    assert_eq!(v["sessions"][0]["draining"], false);
    assert_eq!(v["sessions"][1]["session_id"], 2);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("\n  \"sessions\": ["),
        "pretty-printed"
    );

    let o = ctl(&url, env, &["drain", "alpha", "--cancel-open"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v = stdout_json(&o);
    assert_eq!(
        (v["draining"].clone(), v["cancel_open"].clone()),
        (true.into(), true.into())
    );
    let o = ctl(&url, env, &["resume", "1"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(stdout_json(&o)["draining"], false);

    let o = ctl(&url, env, &["kill-switch", "pull", "--account", "main"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v = stdout_json(&o);
    assert_eq!(
        (v["scope"].clone(), v["active"].clone()),
        ("main".into(), true.into())
    );
    let o = ctl(&url, env, &["kill-switch", "release"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(stdout_json(&o)["active"], false);

    // HTTP errors: exit 1, the JSON error printed.
    let o = ctl(&url, env, &["drain", "nobody"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(stdout_json(&o)["error"]
        .as_str()
        .unwrap()
        .contains("unknown session"));
    let o = ctl(&url, "BGW_CTL_BINARY_TEST_UNSET", &["sessions"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    // Usage and connection errors: exit 2.
    assert_eq!(ctl(&url, env, &["drain"]).status.code(), Some(2));
    assert_eq!(
        ctl("http://127.0.0.1:1", env, &["sessions"]).status.code(),
        Some(2)
    );

    // Counted in the gateway's /metrics.
    let addr = url.trim_start_matches("http://");
    let mut conn = std::net::TcpStream::connect(addr).expect("metrics listener");
    std::io::Write::write_all(
        &mut conn,
        format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut conn, &mut text).unwrap();
    for line in [
        "bgw_control_actions_total{action=\"drain\",result=\"ok\"} 1",
        "bgw_control_actions_total{action=\"drain\",result=\"refused\"} 1",
        "bgw_control_actions_total{action=\"kill_switch_pull\",result=\"ok\"} 1",
        "bgw_control_actions_total{action=\"kill_switch_release\",result=\"ok\"} 1",
        "bgw_control_actions_total{action=\"resume\",result=\"ok\"} 1",
        "bgw_control_actions_total{action=\"list\",result=\"refused\"} 1",
        "bgw_kill_switch_active{scope=\"main\"} 0",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    rt.block_on(sim.shutdown());
}
