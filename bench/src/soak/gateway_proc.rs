//! The gateway as a child process (the real `gateway` binary), so that the soak can kill it with
//! SIGKILL and start it again on the same configuration and journal.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running gateway process.
#[derive(Debug)]
pub struct GatewayProc {
    child: Child,
    /// Where its strategy listener is.
    pub addr: SocketAddr,
    /// Where its metrics endpoint is (`/metrics`, `/readyz`), when started with
    /// [`GatewayProc::start_with_metrics`].
    pub metrics: Option<SocketAddr>,
    /// Where its start-up's time went, as it printed it (`gateway: start-up <this>`, before
    /// the strategy address), e.g. `412 ms: setup 2, journal 30, ...`.
    pub startup: Option<String>,
}

/// What the gateway announces on its standard output.
enum Announced {
    /// `gateway: strategies connect to <addr>`.
    Strategy(SocketAddr),
    /// `gateway: metrics at http://<addr>/metrics …`.
    Metrics(SocketAddr),
    /// `gateway: start-up <phases>`.
    Startup(String),
}

/// The address a line of the gateway's standard output announces, if any.
fn announced(line: &str) -> Option<Announced> {
    if let Some(p) = line.strip_prefix("gateway: start-up ") {
        return Some(Announced::Startup(p.trim().to_owned()));
    }
    if let Some(a) = line.strip_prefix("gateway: strategies connect to ") {
        return a.trim().parse().ok().map(Announced::Strategy);
    }
    line.strip_prefix("gateway: metrics at http://")?
        .split('/')
        .next()?
        .parse()
        .ok()
        .map(Announced::Metrics)
}

/// The `gateway` binary next to the running executable (`target/<profile>/gateway`).
pub fn sibling_gateway_exe() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = me.parent().ok_or("no executable directory")?;
    let exe = dir.join("gateway");
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(format!(
            "{} not found: build it with `cargo build -p gateway --bin gateway` (same profile)",
            exe.display()
        ))
    }
}

impl GatewayProc {
    /// Starts `exe --config config`, appending its output to `log`, and waits (at most 30 s)
    /// for the line that gives the strategy listener's address.
    pub fn start(exe: &Path, config: &Path, log: &Path) -> Result<GatewayProc, String> {
        GatewayProc::start_inner(exe, config, log, false)
    }

    /// [`GatewayProc::start`] for a configuration with `[metrics] listen`: also waits for the
    /// line that gives the metrics endpoint's address.
    pub fn start_with_metrics(
        exe: &Path,
        config: &Path,
        log: &Path,
    ) -> Result<GatewayProc, String> {
        GatewayProc::start_inner(exe, config, log, true)
    }

    fn start_inner(
        exe: &Path,
        config: &Path,
        log: &Path,
        want_metrics: bool,
    ) -> Result<GatewayProc, String> {
        let mut child = Command::new(exe)
            .arg("--config")
            .arg(config)
            .env(
                "RUST_LOG",
                std::env::var("SOAK_GATEWAY_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", exe.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let open_log = || {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .map_err(|e| format!("{}: {e}", log.display()))
        };
        let mut err_log = open_log()?;
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = writeln!(err_log, "{line}");
            }
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let mut out_log = open_log()?;
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(a) = announced(&line) {
                    let _ = tx.send(a);
                }
                let _ = writeln!(out_log, "{line}");
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let (mut addr, mut metrics, mut startup) = (None, None, None);
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Announced::Strategy(a)) => addr = Some(a),
                Ok(Announced::Metrics(a)) => metrics = Some(a),
                Ok(Announced::Startup(p)) => startup = Some(p),
                Err(_) => {
                    if let Ok(Some(status)) = child.try_wait() {
                        return Err(format!(
                            "gateway exited at start ({status}); see {}",
                            log.display()
                        ));
                    }
                    if Instant::now() > deadline {
                        let _ = child.kill();
                        return Err(format!("gateway did not start; see {}", log.display()));
                    }
                }
            }
            if let Some(addr) = addr {
                if metrics.is_some() || !want_metrics {
                    return Ok(GatewayProc {
                        child,
                        addr,
                        metrics,
                        startup,
                    });
                }
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL, then reaps the process.
    pub fn kill9(mut self) {
        self.kill();
    }

    /// SIGKILL, then reaps the process (`self` stays, for its address and log; a second call
    /// does nothing).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGINT (the gateway's orderly stop), waiting at most 10 s before SIGKILL.
    pub fn stop(mut self) {
        let _ = Command::new("kill")
            .arg("-INT")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill9();
    }
}
