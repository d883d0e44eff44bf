//! The `hostile` bench: the real `gateway` binary, as a child process trading on a
//! `bitget-sim` child process, under hostile load on its strategy port. It prints figures and
//! judges none of them; it fails ([`run`] errs) only when the gateway does not live through it
//! (see [`failures`]: a gateway that exited, a session established before a burst that could
//! not trade during it, no new session admitted within 15 s of a burst, none after the
//! descriptors ran out):
//!
//! 1. **Admission**: a burst of idle TCP connections that never send Negotiate, at the
//!    gateway's default limits: how many it holds, how many it closes at once, and whether a
//!    well-behaved session still gets in meanwhile.
//! 2. **Memory**: the gateway's resident set (`VmRSS` of `/proc/<pid>/status`) idle, at the
//!    peak of a burst it is configured to hold whole, and 2 s after the burst is closed, over
//!    several rounds (growth across rounds shows memory that does not come back).
//! 3. **Fairness**: one session floods NewOrderSingle pipelined (most refused by the rate
//!    budget, ThrottleLimitExceeded) while a second session, on another account, sends one
//!    request at a time; its round trips (request written → answer read) with and without the
//!    flood, and the delay the flood adds. The probe ([`ProbeMode`]) is answered by the gateway
//!    itself (a NewOrderSingle for a symbol the exchange does not list: order entry rejects it
//!    on the io thread, so only the io thread's fairness is measured) or goes through the
//!    exchange simulator (a limit buy and its cancel: the simulator and the machine's CPU
//!    contention are in the figures too), or both, each on its own gateway.
//! 4. **Descriptor exhaustion**: the gateway under `ulimit -n 128` with more idle connections
//!    than it has descriptors; what it writes to its log meanwhile.
//!
//! Needs `bitget-sim` and `gateway` built next to this executable
//! (`cargo build --release -p sim --bin bitget-sim -p gateway --bin gateway -p bench --bin hostile`).

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use codec::sbe::{
    BusinessRejectReason, CxlRejReason, ExecType, OrdRejReason, OrderCancelRequest, Side, Symbol,
    TimeInForce,
};
use hdrhistogram::Histogram;
use strategy_client::{ClientOptions, Received, StrategyClient};

use crate::probe::{proc_status_kib, scrape};
use crate::rig::{limit_buy, price_at, Market};

/// One part of the bench.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Section {
    /// Idle connections at the default admission limits.
    Admission,
    /// Resident set with a held burst of idle connections, over rounds.
    Memory,
    /// A well-behaved session's round trips while another floods.
    Fairness,
    /// Log output while descriptors run out.
    Exhaustion,
}

/// What the well-behaved session of the fairness section asks, i.e. what its round trip
/// measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProbeMode {
    /// A NewOrderSingle for a symbol the exchange does not list (`NOPEUSDT`), answered at once
    /// by the gateway (ExecutionReport Rejected, OrdRejReason UnknownSymbol, from order entry
    /// on the io thread): the exchange plays no part, the round trip is what the gateway's io
    /// thread controls.
    Gateway,
    /// A limit buy at half the mid, then its cancel, through the exchange simulator: the io
    /// thread's fairness mixed with the simulator's and the machine's CPU contention.
    Exchange,
    /// `gateway`, then `exchange`, each with its own gateway and flood.
    Both,
}

impl ProbeMode {
    /// The probes to run, in order.
    fn kinds(self) -> &'static [ProbeKind] {
        match self {
            ProbeMode::Gateway => &[ProbeKind::Gateway],
            ProbeMode::Exchange => &[ProbeKind::Exchange],
            ProbeMode::Both => &[ProbeKind::Gateway, ProbeKind::Exchange],
        }
    }
}

/// One probe of [`ProbeMode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProbeKind {
    /// Answered by the gateway (unknown symbol).
    Gateway,
    /// Through the exchange (limit buy, cancel).
    Exchange,
}

impl ProbeKind {
    fn name(self) -> &'static str {
        match self {
            ProbeKind::Gateway => "gateway",
            ProbeKind::Exchange => "exchange",
        }
    }
}

/// What to run, and how hard.
#[derive(Debug, Clone)]
pub struct HostileOptions {
    /// Idle connections opened at once (admission and memory).
    pub burst: usize,
    /// Memory rounds (open the burst, close it, wait).
    pub rounds: usize,
    /// NewOrderSingle the flooding session writes.
    pub flood: u64,
    /// How long the idle connections are held under `ulimit -n 128`, seconds.
    pub exhaust_secs: u64,
    /// Idle connections opened under `ulimit -n 128`.
    pub exhaust_conns: usize,
    /// Requests of the well-behaved session before and after the flood (each).
    pub probe_requests: usize,
    /// Least time between two requests of the well-behaved session, µs.
    pub probe_interval_us: u64,
    /// What the well-behaved session of the fairness section asks.
    pub probe: ProbeMode,
    /// `[rate.overrides] place_order` and `cancel_order` of the fairness gateway (per account
    /// per 1.1 s window; the connection bucket is unlimited).
    pub rate: u32,
    /// Run only this section.
    pub only: Option<Section>,
    /// Where configurations and logs go.
    pub work_dir: PathBuf,
}

const MIB: f64 = 1024.0 * 1024.0;
/// Credentials of every bench session.
const CREDENTIALS: &str = "hostile";
/// The flooding session (account `main`).
const FLOOD_SESSION: u64 = 1;
/// The well-behaved session (account `b`).
const PROBE_SESSION: u64 = 2;
/// A session used to check that the gateway still admits sessions (account `main`).
const CHECK_SESSION: u64 = 3;
/// The descriptor limit of the exhaustion gateway.
const EXHAUST_NOFILE: u64 = 128;
/// How long one request of the well-behaved session may wait for its answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// A symbol the simulator does not list: the gateway-answered probe's NewOrderSingle.
const UNLISTED: &str = "NOPEUSDT";
/// The fairness goal: the delay a flood adds to another session's p99 round trip, µs.
const ADDED_P99_GOAL_US: f64 = 1_000.0;

// ---------------------------------------------------------------------------------------------
// Child processes

/// The directory of this executable, where `bitget-sim` and `gateway` are expected.
fn sibling(name: &str) -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let exe = me.with_file_name(name);
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(format!(
            "{} not found: build it with `cargo build --release -p sim --bin bitget-sim \
             -p gateway --bin gateway` (same profile as this bench)",
            exe.display()
        ))
    }
}

/// A child process stopped on drop: SIGTERM, at most 5 s, then SIGKILL.
struct Proc {
    child: Child,
}

impl Proc {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `None` while it runs, else how it ended.
    fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(None) => None,
            Ok(Some(status)) => Some(status.to_string()),
            Err(e) => Some(e.to_string()),
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.exited().is_some() {
            return;
        }
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.pid().to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if self.exited().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Copies `from` line by line to `to`, sending every line to `lines` as well (until the
/// receiver is gone).
fn drain_lines(from: impl Read + Send + 'static, to: PathBuf, lines: mpsc::Sender<String>) {
    std::thread::spawn(move || {
        let mut file = std::fs::File::create(&to).ok();
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if let Some(f) = file.as_mut() {
                let _ = writeln!(f, "{line}");
            }
            let _ = lines.send(line);
        }
    });
}

/// The simulator child: the demo configuration plus a second master account (`b`), TLS,
/// ephemeral port.
struct SimProc {
    proc: Proc,
    rest_url: String,
    ws_private_url: String,
    ca_path: PathBuf,
}

fn start_sim(dir: &Path) -> Result<SimProc, String> {
    let exe = sibling("bitget-sim")?;
    let mut cfg = sim::SimConfig::demo();
    cfg.accounts.push(sim::config::AccountConfig {
        uid: "1000000003".into(),
        api_key: "bg_hostile_b".into(),
        secret: "hostile-b-secret".into(),
        passphrase: "hostile-b-pass".into(),
        ..sim::config::AccountConfig::default()
    });
    let text = toml::to_string(&cfg).map_err(|e| format!("simulator configuration: {e}"))?;
    let cfg_path = dir.join("sim.toml");
    std::fs::write(&cfg_path, text).map_err(|e| format!("{}: {e}", cfg_path.display()))?;
    let ca_path = dir.join("sim-ca.pem");
    let err = std::fs::File::create(dir.join("sim.stderr")).map_err(|e| e.to_string())?;
    let mut child = Command::new(&exe)
        .arg("--config")
        .arg(&cfg_path)
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--cert-out")
        .arg(&ca_path)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(err))
        .spawn()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let stdout = child.stdout.take().ok_or("bitget-sim: no stdout")?;
    let mut proc = Proc { child };
    let (tx, rx) = mpsc::channel();
    drain_lines(stdout, dir.join("sim.stdout"), tx);
    let (mut rest_url, mut ws_private_url) = (String::new(), String::new());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                match words.as_slice() {
                    ["REST", url] => rest_url = (*url).to_owned(),
                    ["WS", "private", url] => ws_private_url = (*url).to_owned(),
                    ["CA", "cert", ..] => break,
                    _ => {}
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(status) = proc.exited() {
                    return Err(format!(
                        "bitget-sim exited at start ({status}); see {}",
                        dir.join("sim.stderr").display()
                    ));
                }
                if Instant::now() > deadline {
                    return Err("bitget-sim did not print its addresses in 30 s".into());
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err("bitget-sim closed its output at start".into())
            }
        }
    }
    if rest_url.is_empty() || ws_private_url.is_empty() {
        return Err("bitget-sim did not print its addresses".into());
    }
    Ok(SimProc {
        proc,
        rest_url,
        ws_private_url,
        ca_path,
    })
}

/// The descriptor limit a gateway child runs under.
#[derive(Debug, Clone, Copy)]
enum NoFile {
    /// 65 536, or the hard limit when that is lower.
    Raised,
    /// This limit, soft and hard.
    Limit(u64),
}

/// The `[strategy]` limits of one gateway (`None`: the default).
#[derive(Debug, Clone, Copy, Default)]
struct StrategyLimits {
    max_connections: Option<usize>,
    max_unauthenticated: Option<usize>,
    handshake_timeout_ms: Option<u32>,
}

/// A gateway child.
struct GwProc {
    proc: Proc,
    addr: SocketAddr,
    metrics: Option<SocketAddr>,
    /// Its standard error (copied as written).
    stderr_path: PathBuf,
    /// Its standard output, where its log lines go (copied line by line as written).
    stdout_path: PathBuf,
}

/// The gateway's configuration: sessions 1 (account `main`, no cancel on disconnect),
/// 2 (account `b`) and 3 (account `main`); the metrics endpoint on an ephemeral port; the
/// rate budget at Bitget's tier with `rate` place and cancel orders per account and no
/// connection limit.
fn gateway_toml(sim: &SimProc, limits: StrategyLimits, rate: u32) -> String {
    let mut s = String::from("[strategy]\nlisten = \"127.0.0.1:0\"\nkeepalive_min_ms = 100\n");
    if let Some(v) = limits.max_connections {
        s.push_str(&format!("max_connections = {v}\n"));
    }
    if let Some(v) = limits.max_unauthenticated {
        s.push_str(&format!("max_unauthenticated = {v}\n"));
    }
    if let Some(v) = limits.handshake_timeout_ms {
        s.push_str(&format!("handshake_timeout_ms = {v}\n"));
    }
    for (id, name, account, cod) in [
        (FLOOD_SESSION, "flood", "main", false),
        (PROBE_SESSION, "probe", "b", true),
        (CHECK_SESSION, "check", "main", true),
    ] {
        s.push_str(&format!(
            "\n[[session]]\nsession_id = {id}\ncredentials = \"{CREDENTIALS}\"\nname = \"{name}\"\n\
             account = \"{account}\"\ncancel_on_disconnect = {cod}\n"
        ));
    }
    s.push_str(
        "\n[[account]]\nname = \"main\"\napi_key = \"bg_demo_key\"\nsecret = \"demo-secret\"\n\
         passphrase = \"demo-pass\"\n\
         \n[[account]]\nname = \"b\"\napi_key = \"bg_hostile_b\"\nsecret = \"hostile-b-secret\"\n\
         passphrase = \"hostile-b-pass\"\n",
    );
    s.push_str(&format!(
        "\n[exchange]\nws_private_url = \"{}\"\nrest_url = \"{}\"\nca_cert_pem_path = \"{}\"\n\
         categories = [\"USDT-FUTURES\"]\n",
        sim.ws_private_url,
        sim.rest_url,
        sim.ca_path.display()
    ));
    s.push_str(&format!(
        "\n[rate]\ntier = \"default\"\n[rate.overrides]\nconnection = 0\nplace_order = {rate}\n\
         cancel_order = {rate}\n\n[risk]\nmark_refresh_ms = 0\n\n\
         [metrics]\nreport_interval_ms = 60000\nlisten = \"127.0.0.1:0\"\n"
    ));
    s
}

/// Starts the gateway `name` (files `<name>.toml`, `<name>.stdout`, `<name>.stderr` in `dir`)
/// under `sh -c 'ulimit -n …; exec gateway --config …'` and waits (at most 30 s) for its
/// strategy and metrics addresses.
fn start_gateway(
    dir: &Path,
    name: &str,
    config: &str,
    nofile: NoFile,
    rust_log: &str,
) -> Result<GwProc, String> {
    let exe = sibling("gateway")?;
    let cfg_path = dir.join(format!("{name}.toml"));
    std::fs::write(&cfg_path, config).map_err(|e| format!("{}: {e}", cfg_path.display()))?;
    let stderr_path = dir.join(format!("{name}.stderr"));
    let err = std::fs::File::create(&stderr_path)
        .map_err(|e| format!("{}: {e}", stderr_path.display()))?;
    let ulimit = match nofile {
        NoFile::Raised => "ulimit -n 65536 2>/dev/null || ulimit -n \"$(ulimit -Hn)\"".to_owned(),
        NoFile::Limit(n) => format!("ulimit -n {n}"),
    };
    let script = format!("{ulimit} || exit 97; exec \"$0\" --config \"$1\"");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(&exe)
        .arg(&cfg_path)
        .env("RUST_LOG", rust_log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(err))
        .spawn()
        .map_err(|e| format!("sh -c … {}: {e}", exe.display()))?;
    let stdout = child.stdout.take().ok_or("gateway: no stdout")?;
    let mut proc = Proc { child };
    let (tx, rx) = mpsc::channel();
    let stdout_path = dir.join(format!("{name}.stdout"));
    drain_lines(stdout, stdout_path.clone(), tx);
    let (mut addr, mut metrics) = (None, None);
    let deadline = Instant::now() + Duration::from_secs(30);
    while addr.is_none() || metrics.is_none() {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                if let Some(a) = line.strip_prefix("gateway: strategies connect to ") {
                    addr = a.trim().parse::<SocketAddr>().ok();
                } else if let Some(rest) = line.strip_prefix("gateway: metrics at http://") {
                    metrics = rest
                        .split('/')
                        .next()
                        .and_then(|a| a.parse::<SocketAddr>().ok());
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(status) = proc.exited() {
                    return Err(format!(
                        "gateway {name} exited at start ({status}); see {}",
                        stderr_path.display()
                    ));
                }
                if Instant::now() > deadline {
                    return Err(format!(
                        "gateway {name} did not start in 30 s; see {}",
                        stderr_path.display()
                    ));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(format!(
                    "gateway {name} closed its output at start; see {}",
                    stderr_path.display()
                ))
            }
        }
    }
    let addr = addr.ok_or("gateway: no strategy address")?;
    Ok(GwProc {
        proc,
        addr,
        metrics,
        stderr_path,
        stdout_path,
    })
}

impl GwProc {
    /// Everything it has written so far: standard output (its log lines) then standard error.
    fn output(&self) -> (Vec<u8>, Vec<u8>) {
        (
            std::fs::read(&self.stdout_path).unwrap_or_default(),
            std::fs::read(&self.stderr_path).unwrap_or_default(),
        )
    }

    /// Resident set, bytes (0 once gone).
    fn rss(&self) -> u64 {
        proc_status_kib(self.proc.pid(), "VmRSS:") * 1024
    }

    /// High-water mark of the resident set, bytes.
    fn hwm(&self) -> u64 {
        proc_status_kib(self.proc.pid(), "VmHWM:") * 1024
    }

    /// The soft and hard "Max open files" of the process.
    fn nofile(&self) -> Option<(String, String)> {
        let text = std::fs::read_to_string(format!("/proc/{}/limits", self.proc.pid())).ok()?;
        let line = text.lines().find(|l| l.starts_with("Max open files"))?;
        let mut w = line["Max open files".len()..].split_whitespace();
        Some((w.next()?.to_owned(), w.next()?.to_owned()))
    }

    /// Descriptors the process has open.
    fn open_fds(&self) -> Option<usize> {
        std::fs::read_dir(format!("/proc/{}/fd", self.proc.pid()))
            .ok()
            .map(|d| d.count())
    }

    /// A metric without labels from `/metrics`.
    fn metric(&self, name: &str) -> Option<f64> {
        let text = scrape(self.metrics?).ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
    }

    /// Connects and establishes session `session_id`; the time it took.
    fn session(&self, session_id: u64, keepalive_ms: u32) -> Result<StrategyClient, String> {
        self.session_within(session_id, keepalive_ms, Duration::from_secs(5))
    }

    /// [`GwProc::session`] with a handshake timeout.
    fn session_within(
        &self,
        session_id: u64,
        keepalive_ms: u32,
        timeout: Duration,
    ) -> Result<StrategyClient, String> {
        StrategyClient::connect(
            self.addr,
            &ClientOptions {
                session_id,
                credentials: CREDENTIALS.into(),
                keepalive_ms,
                auto_keepalive: true,
                timeout,
            },
        )
        .map_err(|e| format!("session {session_id}: {e}"))
    }

    /// Whether a fresh session establishes: `Ok(ms)` or why not. It terminates at once.
    fn check_session(&self) -> Result<f64, String> {
        self.check_session_within(Duration::from_secs(5))
    }

    /// [`GwProc::check_session`] with a handshake timeout.
    fn check_session_within(&self, timeout: Duration) -> Result<f64, String> {
        let t = Instant::now();
        let mut c = self.session_within(CHECK_SESSION, 1_000, timeout)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let _ = c.terminate();
        Ok(ms)
    }

    /// `"running"`, or how the process ended.
    fn state(&mut self) -> String {
        self.proc
            .exited()
            .map_or_else(|| "running".to_owned(), |s| format!("EXITED ({s})"))
    }
}

/// Clock ticks per second of `/proc` CPU times (`getconf CLK_TCK`, 100 on Linux).
const CLK_TCK: f64 = 100.0;

/// User + system CPU time of a `/proc/.../stat` line, clock ticks.
fn stat_ticks(text: &str) -> Option<u64> {
    // After the `(comm)`: state is field 3, utime 14, stime 15.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// CPU time of process `pid` (all its threads), clock ticks.
fn proc_ticks(pid: u32) -> Option<u64> {
    stat_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// CPU time of the threads of process `pid` named `name`, clock ticks.
fn thread_ticks(pid: u32, name: &str) -> Option<u64> {
    let mut sum = None;
    for t in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let dir = t.ok()?.path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim() == name {
            let text = std::fs::read_to_string(dir.join("stat")).ok()?;
            *sum.get_or_insert(0) += stat_ticks(&text)?;
        }
    }
    sum
}

/// Busy (everything but idle and iowait, steal included) and all clock ticks of the machine's
/// CPUs, and how many CPUs (`/proc/stat`).
fn machine_ticks() -> Option<(u64, u64, usize)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let mut lines = text.lines();
    let all: Vec<u64> = lines
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let cpus = lines
        .take_while(|l| l.starts_with("cpu"))
        .filter(|l| l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count();
    let total: u64 = all.iter().take(8).sum();
    let idle = all.get(3)? + all.get(4)?;
    Some((total.saturating_sub(idle), total, cpus))
}

/// Where the CPU time went over a stretch of time: the gateway (all threads, its io thread,
/// its tracker thread), the simulator, this bench, the whole machine.
#[derive(Debug, Clone, Copy, Default)]
struct CpuSnap {
    gateway: Option<u64>,
    io: Option<u64>,
    tracker: Option<u64>,
    sim: Option<u64>,
    bench: Option<u64>,
    machine: Option<(u64, u64, usize)>,
}

impl CpuSnap {
    fn take(gateway: u32, sim: u32) -> CpuSnap {
        CpuSnap {
            gateway: proc_ticks(gateway),
            io: thread_ticks(gateway, "bgw-io"),
            tracker: thread_ticks(gateway, "bgw-tracker"),
            sim: proc_ticks(sim),
            bench: proc_ticks(std::process::id()),
            machine: machine_ticks(),
        }
    }
}

/// CPU seconds between two snapshots of one field.
fn cpu_secs(a: Option<u64>, b: Option<u64>) -> Option<f64> {
    Some(b?.checked_sub(a?)? as f64 / CLK_TCK)
}

/// Raises this process's soft descriptor limit to its hard limit; returns the new soft limit.
///
/// Errors: the limit cannot be read or set, as text.
pub fn raise_own_nofile() -> Result<u64, String> {
    rlimit::increase_nofile_limit(u64::MAX).map_err(|e| format!("RLIMIT_NOFILE: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Idle connections

/// Idle connections and how opening them went.
struct Burst {
    conns: Vec<TcpStream>,
    failed: usize,
    first_error: Option<String>,
    took: Duration,
    /// The slowest single connect.
    slowest: Duration,
}

/// Opens `n` TCP connections to `addr` that send nothing.
fn open_idle(addr: SocketAddr, n: usize) -> Burst {
    let t = Instant::now();
    let mut conns = Vec::with_capacity(n);
    let mut failed = 0;
    let mut first_error = None;
    let mut slowest = Duration::ZERO;
    for _ in 0..n {
        let t1 = Instant::now();
        let r = TcpStream::connect_timeout(&addr, Duration::from_secs(3));
        slowest = slowest.max(t1.elapsed());
        match r {
            Ok(s) => conns.push(s),
            Err(e) => {
                failed += 1;
                first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    Burst {
        conns,
        failed,
        first_error,
        took: t.elapsed(),
        slowest,
    }
}

/// What became of idle connections.
#[derive(Debug, Default, Clone, Copy)]
struct Census {
    /// Still open, nothing received.
    held: usize,
    /// Closed by the gateway (end of stream or reset).
    closed: usize,
    /// The gateway sent something (a Terminate).
    answered: usize,
}

/// Reads each connection without blocking: nothing to read means the gateway holds it.
fn census(conns: &[TcpStream]) -> Census {
    let mut c = Census::default();
    let mut buf = [0u8; 256];
    for s in conns {
        let _ = s.set_nonblocking(true);
        match (&*s).read(&mut buf) {
            Ok(0) => c.closed += 1,
            Ok(_) => c.answered += 1,
            Err(e) if e.kind() == ErrorKind::WouldBlock => c.held += 1,
            Err(_) => c.closed += 1,
        }
    }
    c
}

/// Polls a process's resident set every 5 ms and keeps the largest value.
struct PeakSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl PeakSampler {
    fn start(pid: u32) -> PeakSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(0));
        let thread = {
            let (stop, peak) = (Arc::clone(&stop), Arc::clone(&peak));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    peak.fetch_max(proc_status_kib(pid, "VmRSS:") * 1024, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        PeakSampler {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    /// Stops sampling; the peak, bytes.
    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.peak.load(Ordering::Relaxed)
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB
}

fn opt_num(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.0}"))
}

fn session_text(r: &Result<f64, String>) -> String {
    match r {
        Ok(ms) => format!("yes, handshake {ms:.1} ms"),
        Err(e) => format!("NO ({e})"),
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Admission

/// Figures of the admission section.
#[derive(Debug)]
struct Admission {
    burst: usize,
    opened: usize,
    held: usize,
    closed: usize,
    /// Worst place/cancel round trip of a session established before the burst, during it, ms.
    trades: Result<f64, String>,
    /// A new session's first attempt during the burst.
    session: Result<f64, String>,
    /// When a new session was first admitted, seconds after the burst was opened.
    admitted_after: Option<f64>,
    state: String,
}

/// The simulator's liquid USDT-FUTURES instrument (demo configuration).
fn futures_market() -> Result<Market, String> {
    crate::rig::markets(&sim::SimConfig::demo())
        .into_iter()
        .find(|m| m.category == codec::sbe::Category::UsdtFutures)
        .ok_or_else(|| "no USDT-FUTURES market in the simulator's demo configuration".to_owned())
}

fn admission(sim: &SimProc, opts: &HostileOptions) -> Result<Admission, String> {
    println!(
        "\n== 1. Admission: {} idle connections (never Negotiate), default limits \
         (max_connections 256, max_unauthenticated 64, handshake_timeout_ms 5000)",
        opts.burst
    );
    let cfg = gateway_toml(sim, StrategyLimits::default(), opts.rate);
    let mut gw = start_gateway(&opts.work_dir, "gw-admission", &cfg, NoFile::Raised, "warn")?;
    let mut before = Probe::new(
        gw.session(PROBE_SESSION, 30_000)?,
        futures_market()?,
        0,
        ProbeKind::Exchange,
    )?;
    before.run_n(4)?;
    std::thread::sleep(Duration::from_millis(500));
    let idle_rss = gw.rss();
    let sampler = PeakSampler::start(gw.proc.pid());
    let t_burst = Instant::now();
    let burst = open_idle(gw.addr, opts.burst);
    std::thread::sleep(Duration::from_secs(1));
    let c = census(&burst.conns);
    let trades = before
        .run_n(4)
        .map(|s| s.hist.max() as f64 / 1e6)
        .map_err(|e| e.to_string());
    let session = gw.check_session();
    let peak = sampler.finish();
    let refused = gw.metric("bgw_strategy_connections_refused_total");
    let accept_errors = gw.metric("bgw_strategy_accept_errors_total");
    let fds = gw.open_fds();
    // A new session gets in once idle connections leave: the handshake timeout ends them.
    let mut admitted_after = session
        .as_ref()
        .ok()
        .map(|_| t_burst.elapsed().as_secs_f64());
    while admitted_after.is_none() && t_burst.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(100));
        if gw.check_session().is_ok() {
            admitted_after = Some(t_burst.elapsed().as_secs_f64());
        }
    }
    let late = census(&burst.conns);
    drop(burst.conns);
    let _ = before.client.terminate();
    let state = gw.state();
    let row = |k: &str, v: String| println!("  {k:<44} {v:>12}");
    row(
        "connections opened",
        format!("{}/{}", opts.burst - burst.failed, opts.burst),
    );
    row(
        "  time to open them / slowest connect",
        format!(
            "{:.2} s / {:.1} ms",
            burst.took.as_secs_f64(),
            burst.slowest.as_secs_f64() * 1e3
        ),
    );
    if let Some(e) = &burst.first_error {
        row("  first connect error", e.clone());
    }
    row("held after ~1 s (read would block)", c.held.to_string());
    row("refused (closed by the gateway)", c.closed.to_string());
    row("answered (Terminate)", c.answered.to_string());
    row("bgw_strategy_connections_refused_total", opt_num(refused));
    row("bgw_strategy_accept_errors_total", opt_num(accept_errors));
    row(
        "gateway descriptors open, burst held",
        fds.map_or_else(|| "n/a".into(), |n| n.to_string()),
    );
    row(
        "gateway RSS idle / peak (MiB)",
        format!("{:.1} / {:.1}", mib(idle_rss), mib(peak)),
    );
    row(
        "session established before: worst round trip",
        match &trades {
            Ok(ms) => format!("{ms:.2} ms"),
            Err(e) => format!("FAILED ({e})"),
        },
    );
    row("new session during the burst", session_text(&session));
    row(
        "new session first admitted after (s)",
        admitted_after.map_or_else(|| "not in 15 s".into(), |s| format!("{s:.2}")),
    );
    row(
        "idle ones then: held / closed / Terminate",
        format!("{} / {} / {}", late.held, late.closed, late.answered),
    );
    row("gateway afterwards", state.clone());
    Ok(Admission {
        burst: opts.burst,
        opened: opts.burst - burst.failed,
        held: c.held,
        closed: c.closed,
        trades,
        session,
        admitted_after,
        state,
    })
}

// ---------------------------------------------------------------------------------------------
// 2. Memory

/// One memory round.
#[derive(Debug)]
struct MemRound {
    held: usize,
    peak: u64,
    after: u64,
}

/// Figures of the memory section.
#[derive(Debug)]
struct Memory {
    burst: usize,
    idle: u64,
    rounds: Vec<MemRound>,
    state: String,
}

fn memory(sim: &SimProc, opts: &HostileOptions) -> Result<Memory, String> {
    let cap = opts.burst + 16;
    println!(
        "\n== 2. Memory: gateway RSS with {} idle connections held (max_connections = \
         max_unauthenticated = {cap}, handshake_timeout_ms 120000), {} rounds",
        opts.burst, opts.rounds
    );
    let limits = StrategyLimits {
        max_connections: Some(cap),
        max_unauthenticated: Some(cap),
        handshake_timeout_ms: Some(120_000),
    };
    let cfg = gateway_toml(sim, limits, opts.rate);
    let mut gw = start_gateway(&opts.work_dir, "gw-memory", &cfg, NoFile::Raised, "warn")?;
    if let Some((soft, hard)) = gw.nofile() {
        println!("  gateway descriptor limit: soft {soft}, hard {hard}");
    }
    std::thread::sleep(Duration::from_secs(1));
    let idle = gw.rss();
    let fds = |gw: &GwProc| {
        gw.open_fds()
            .map_or_else(|| "n/a".into(), |n| n.to_string())
    };
    println!(
        "  {:>5} {:>6} {:>8} {:>10} {:>8} {:>9} {:>9} {:>9} {:>10} {:>8}",
        "round",
        "held",
        "open s",
        "slowest ms",
        "fds held",
        "fds after",
        "peak MiB",
        "after MiB",
        "after/idle",
        "KiB/conn"
    );
    println!(
        "  {:>5} {:>6} {:>8} {:>10} {:>8} {:>9} {:>9.1} {:>9} {:>10} {:>8}",
        "idle",
        "-",
        "-",
        "-",
        "-",
        fds(&gw),
        mib(idle),
        "-",
        "-",
        "-"
    );
    let mut rounds = Vec::new();
    for round in 1..=opts.rounds {
        let sampler = PeakSampler::start(gw.proc.pid());
        let burst = open_idle(gw.addr, opts.burst);
        std::thread::sleep(Duration::from_millis(500));
        let c = census(&burst.conns);
        let fds_held = fds(&gw);
        let peak = sampler.finish();
        drop(burst.conns);
        std::thread::sleep(Duration::from_secs(2));
        let after = gw.rss();
        let per_conn = if c.held > 0 {
            peak.saturating_sub(idle) as f64 / 1024.0 / c.held as f64
        } else {
            0.0
        };
        println!(
            "  {:>5} {:>6} {:>8.2} {:>10.1} {:>8} {:>9} {:>9.1} {:>9.1} {:>10.2} {:>8.1}",
            round,
            c.held,
            burst.took.as_secs_f64(),
            burst.slowest.as_secs_f64() * 1e3,
            fds_held,
            fds(&gw),
            mib(peak),
            mib(after),
            after as f64 / idle.max(1) as f64,
            per_conn
        );
        if burst.failed > 0 {
            println!(
                "        ({} connects failed: {})",
                burst.failed,
                burst.first_error.unwrap_or_default()
            );
        }
        rounds.push(MemRound {
            held: c.held,
            peak,
            after,
        });
    }
    let state = gw.state();
    println!(
        "  gateway VmHWM {:.1} MiB; session after the rounds: {}; gateway {state}",
        mib(gw.hwm()),
        session_text(&gw.check_session())
    );
    Ok(Memory {
        burst: opts.burst,
        idle,
        rounds,
        state,
    })
}

// ---------------------------------------------------------------------------------------------
// 3. Fairness

/// What the well-behaved session measured in one phase.
struct ProbeStats {
    /// Request written → answer read, ns.
    hist: Histogram<u64>,
    /// Answers that were ThrottleLimitExceeded.
    throttled: u64,
    /// Other refusals (of a place or a cancel); for the gateway-answered probe, every answer
    /// but the expected Rejected UnknownSymbol.
    rejected: u64,
    /// Gateway-answered probe: request written → the gateway's decision (the TransactTime it
    /// stamps on the Rejected report when order entry starts on the request; same host clock),
    /// ns. The io thread's wait before it reaches the request.
    decided: Histogram<u64>,
    /// Gateway-answered probe: the round trip minus `decided` (decision, answer written, read
    /// by the probe), ns.
    answered: Histogram<u64>,
}

impl ProbeStats {
    fn new() -> Result<ProbeStats, String> {
        let h = || Histogram::new_with_bounds(1, 60_000_000_000, 3).map_err(|e| e.to_string());
        Ok(ProbeStats {
            hist: h()?,
            throttled: 0,
            rejected: 0,
            decided: h()?,
            answered: h()?,
        })
    }

    fn us(&self, q: f64) -> f64 {
        self.hist.value_at_quantile(q) as f64 / 1e3
    }
}

/// A quantile of `h`, µs.
fn us_at(h: &Histogram<u64>, q: f64) -> f64 {
    h.value_at_quantile(q) as f64 / 1e3
}

/// The well-behaved session, one request at a time, at most one per `interval`: for
/// [`ProbeKind::Exchange`] a limit buy at half the mid (it rests), then its cancel; for
/// [`ProbeKind::Gateway`] a limit buy of [`UNLISTED`], which the gateway refuses itself.
struct Probe {
    client: StrategyClient,
    market: Market,
    kind: ProbeKind,
    /// [`UNLISTED`].
    unlisted: Symbol,
    next_cl: u64,
    /// The resting order to cancel next.
    open: Option<u64>,
    interval: Duration,
    last_send: Instant,
    /// The request's frame, encoded before the clock starts.
    frame: Vec<u8>,
}

impl Probe {
    fn new(
        client: StrategyClient,
        market: Market,
        interval_us: u64,
        kind: ProbeKind,
    ) -> Result<Probe, String> {
        Ok(Probe {
            client,
            market,
            kind,
            unlisted: Symbol::new(UNLISTED).map_err(|e| format!("{UNLISTED}: {e}"))?,
            // ClOrdIDs unique across the gateways of one run.
            next_cl: gateway::metrics::utc_now_ns(),
            open: None,
            interval: Duration::from_micros(interval_us),
            last_send: Instant::now(),
            frame: Vec::with_capacity(256),
        })
    }

    /// One request and its answer, recorded in `stats`: from just before the request's frame
    /// is written to just after its answer is read and decoded.
    fn step(&mut self, stats: &mut ProbeStats) -> Result<(), String> {
        let since = self.last_send.elapsed();
        if since < self.interval {
            std::thread::sleep(self.interval - since);
        }
        self.next_cl += 1;
        let cl = self.next_cl;
        let m = self.market;
        self.frame.clear();
        match (self.kind, self.open) {
            (ProbeKind::Gateway, _) => {
                limit_buy(cl, self.unlisted, m.category, price_at(&m, "0.5"), m.qty)
                    .encode_frame(&mut self.frame);
            }
            (ProbeKind::Exchange, Some(orig)) => OrderCancelRequest {
                cl_ord_id: cl,
                orig_cl_ord_id: orig,
                transact_time: gateway::metrics::utc_now_ns(),
                symbol: m.symbol,
                category: m.category,
                side: Side::Buy,
            }
            .encode_frame(&mut self.frame),
            (ProbeKind::Exchange, None) => {
                limit_buy(cl, m.symbol, m.category, price_at(&m, "0.5"), m.qty)
                    .encode_frame(&mut self.frame);
            }
        }
        let utc0 = gateway::metrics::utc_now_ns();
        let t0 = Instant::now();
        self.last_send = t0;
        self.client
            .send_raw(&self.frame)
            .map_err(|e| format!("probe send {cl}: {e}"))?;
        let deadline = t0 + ANSWER_TIMEOUT;
        let gateway_only = self.kind == ProbeKind::Gateway;
        loop {
            let left = deadline
                .checked_duration_since(Instant::now())
                .ok_or_else(|| format!("probe: no answer to ClOrdID {cl} in {ANSWER_TIMEOUT:?}"))?;
            let got = self
                .client
                .recv(left)
                .map_err(|e| format!("probe ClOrdID {cl}: {e}"))?;
            let ns = |t: Instant| u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
            match got {
                Some(Received::Exec(er)) if er.cl_ord_id == cl => {
                    let elapsed = ns(t0);
                    match er.exec_type {
                        ExecType::Rejected => match er.ord_rej_reason {
                            Some(OrdRejReason::ThrottleLimitExceeded) => stats.throttled += 1,
                            Some(OrdRejReason::UnknownSymbol) if gateway_only => {
                                let decided = er.transact_time.saturating_sub(utc0);
                                let _ = stats.decided.record(decided.max(1));
                                let _ = stats
                                    .answered
                                    .record(elapsed.saturating_sub(decided).max(1));
                            }
                            _ => stats.rejected += 1,
                        },
                        // Not what the gateway answers itself: reached the exchange somehow.
                        _ if gateway_only => stats.rejected += 1,
                        ExecType::New | ExecType::PendingNew => self.open = Some(cl),
                        ExecType::Canceled => self.open = None,
                        _ => {}
                    }
                    let _ = stats.hist.record(elapsed.max(1));
                    return Ok(());
                }
                Some(Received::CancelReject(r)) if r.cl_ord_id == cl => {
                    let elapsed = ns(t0);
                    if r.cxl_rej_reason == CxlRejReason::ThrottleLimitExceeded {
                        stats.throttled += 1;
                    } else {
                        stats.rejected += 1;
                        // Unknown or already done: place a fresh order next.
                        self.open = None;
                    }
                    let _ = stats.hist.record(elapsed.max(1));
                    return Ok(());
                }
                Some(Received::BusinessReject(r)) if r.business_reject_ref_id == cl => {
                    let elapsed = ns(t0);
                    if r.business_reject_reason == BusinessRejectReason::ThrottleLimitExceeded {
                        stats.throttled += 1;
                    } else {
                        stats.rejected += 1;
                    }
                    let _ = stats.hist.record(elapsed.max(1));
                    return Ok(());
                }
                Some(Received::NotApplied(_)) => {
                    return Err(format!(
                        "probe ClOrdID {cl}: NotApplied (exchange link down?)"
                    ))
                }
                Some(Received::Terminate(t)) => {
                    return Err(format!("probe session terminated: {}", t.reason.as_str()))
                }
                Some(_) => {}
                None => {
                    return Err(format!(
                        "probe: no answer to ClOrdID {cl} in {ANSWER_TIMEOUT:?}"
                    ))
                }
            }
        }
    }

    /// `n` requests.
    fn run_n(&mut self, n: usize) -> Result<ProbeStats, String> {
        let mut stats = ProbeStats::new()?;
        for _ in 0..n {
            self.step(&mut stats)?;
        }
        Ok(stats)
    }
}

/// What the flooding session saw.
#[derive(Debug, Default)]
struct FloodStats {
    sent: u64,
    write_time: Duration,
    write_error: Option<String>,
    /// Orders with an answer (the first ExecutionReport or reject of each).
    answered: u64,
    new: u64,
    throttled: u64,
    other_rejected: u64,
    other_first: u64,
    /// Start of writing → the last first answer.
    answer_time: Duration,
    read_error: Option<String>,
}

/// Floods `n` IOC limit buys at half the mid (those that pass the rate budget are cancelled
/// by the venue at once, nothing rests) on `client`, written in batches of 64 frames from one
/// thread and read on another; `over` is set when every order has its answer (or 30 s after
/// the last write).
fn flood(
    client: StrategyClient,
    market: Market,
    n: u64,
    over: Arc<AtomicBool>,
) -> Result<JoinHandle<FloodStats>, String> {
    let mut sender = client.sender().map_err(|e| format!("flood sender: {e}"))?;
    let base = gateway::metrics::utc_now_ns();
    let written = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let writer = {
        let written = Arc::clone(&written);
        std::thread::Builder::new()
            .name("flood-write".into())
            .spawn(move || -> (u64, Duration, Option<String>) {
                let price = price_at(&market, "0.5");
                let mut sent = 0u64;
                let mut error = None;
                while sent < n {
                    let batch = (n - sent).min(64);
                    let r = sender.send_frame(|b| {
                        for i in 0..batch {
                            let mut o = limit_buy(
                                base + sent + i,
                                market.symbol,
                                market.category,
                                price,
                                market.qty,
                            );
                            o.time_in_force = TimeInForce::Ioc;
                            o.encode_frame(b);
                        }
                    });
                    if let Err(e) = r {
                        error = Some(e.to_string());
                        break;
                    }
                    sent += batch;
                }
                written.store(true, Ordering::Release);
                (sent, start.elapsed(), error)
            })
            .map_err(|e| e.to_string())?
    };
    let reader = std::thread::Builder::new()
        .name("flood-read".into())
        .spawn(move || {
            let mut client = client;
            let mut s = FloodStats::default();
            let mut seen = vec![false; usize::try_from(n).unwrap_or(0)];
            let mut written_at: Option<Instant> = None;
            while s.answered < n {
                if written_at.is_none() && written.load(Ordering::Acquire) {
                    written_at = Some(Instant::now());
                }
                if written_at.is_some_and(|t| t.elapsed() > Duration::from_secs(30)) {
                    break;
                }
                let first = |cl: u64, seen: &mut Vec<bool>| -> bool {
                    let Some(i) = cl.checked_sub(base).and_then(|i| usize::try_from(i).ok()) else {
                        return false;
                    };
                    match seen.get_mut(i) {
                        Some(b) if !*b => {
                            *b = true;
                            true
                        }
                        _ => false,
                    }
                };
                match client.recv(Duration::from_millis(50)) {
                    Ok(Some(Received::Exec(er))) => {
                        if first(er.cl_ord_id, &mut seen) {
                            s.answered += 1;
                            s.answer_time = start.elapsed();
                            match er.exec_type {
                                ExecType::New | ExecType::PendingNew => s.new += 1,
                                ExecType::Rejected => {
                                    if er.ord_rej_reason
                                        == Some(OrdRejReason::ThrottleLimitExceeded)
                                    {
                                        s.throttled += 1;
                                    } else {
                                        s.other_rejected += 1;
                                    }
                                }
                                _ => s.other_first += 1,
                            }
                        }
                    }
                    Ok(Some(Received::BusinessReject(r))) => {
                        if first(r.business_reject_ref_id, &mut seen) {
                            s.answered += 1;
                            s.answer_time = start.elapsed();
                            s.other_rejected += 1;
                        }
                    }
                    Ok(Some(Received::Terminate(t))) => {
                        s.read_error = Some(format!("terminated: {}", t.reason.as_str()));
                        break;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        s.read_error = Some(e.to_string());
                        break;
                    }
                }
            }
            over.store(true, Ordering::Release);
            let (sent, write_time, write_error) =
                writer
                    .join()
                    .unwrap_or((0, Duration::ZERO, Some("writer panicked".into())));
            s.sent = sent;
            s.write_time = write_time;
            s.write_error = write_error;
            let _ = client.terminate();
            s
        })
        .map_err(|e| e.to_string())?;
    Ok(reader)
}

/// Figures of the fairness section, one probe.
struct Fairness {
    kind: ProbeKind,
    flood: u64,
    base: ProbeStats,
    during: ProbeStats,
    /// How long the during-flood phase lasted (first probe → the flood's last answer).
    during_time: Duration,
    after: ProbeStats,
    flood_stats: FloodStats,
    /// CPU times when the flood started and when the during-flood phase ended.
    cpu: (CpuSnap, CpuSnap),
    state: String,
}

impl Fairness {
    /// During-flood minus no-flood round trip at quantile `q`, µs.
    fn added_us(&self, q: f64) -> f64 {
        self.during.us(q) - self.base.us(q)
    }

    /// During-flood over no-flood round trip at quantile `q`.
    fn ratio(&self, q: f64) -> f64 {
        self.during.us(q) / self.base.us(q).max(1e-9)
    }
}

fn fairness(sim: &SimProc, opts: &HostileOptions, kind: ProbeKind) -> Result<Fairness, String> {
    let asks = match kind {
        ProbeKind::Gateway => format!(
            "a NewOrderSingle for {UNLISTED}, a symbol the exchange does not list: the gateway \
             answers it itself, ExecutionReport Rejected UnknownSymbol from order entry on the io \
             thread, no exchange"
        ),
        ProbeKind::Exchange => {
            "a limit buy at half the mid, then its cancel, through the exchange simulator".into()
        }
    };
    println!(
        "\n== 3. Fairness, probe `{}`: session 1 floods {} NewOrderSingle (IOC at half the mid, \
         pipelined) while session 2 sends one request at a time ({asks}; at most one per {} µs; \
         round trip = request written → answer read)",
        kind.name(),
        opts.flood,
        opts.probe_interval_us
    );
    println!(
        "  accounts: flood -> `main`, probe -> `b`: separate rate budgets and exchange \
         connections; the gateway's io thread is shared. [rate] tier default, overrides \
         place_order = cancel_order = {} per account per 1.1 s, connection unlimited",
        opts.rate
    );
    let cfg = gateway_toml(sim, StrategyLimits::default(), opts.rate);
    let name = format!("gw-fairness-{}", kind.name());
    let mut gw = start_gateway(&opts.work_dir, &name, &cfg, NoFile::Raised, "warn")?;
    let market = futures_market()?;
    let mut probe = Probe::new(
        gw.session(PROBE_SESSION, 1_000)?,
        market,
        opts.probe_interval_us,
        kind,
    )?;
    // Warm-up: connections, caches, the venue's book.
    probe.run_n(200.min(opts.probe_requests))?;
    let base = probe.run_n(opts.probe_requests)?;
    let flooder = gw.session(FLOOD_SESSION, 30_000)?;
    let over = Arc::new(AtomicBool::new(false));
    let cpu0 = CpuSnap::take(gw.proc.pid(), sim.proc.pid());
    let reader = flood(flooder, market, opts.flood, Arc::clone(&over))?;
    let mut during = ProbeStats::new()?;
    let mut probe_error = None;
    let t_during = Instant::now();
    while !over.load(Ordering::Acquire) {
        if let Err(e) = probe.step(&mut during) {
            probe_error = Some(e);
            break;
        }
    }
    let during_time = t_during.elapsed();
    let cpu1 = CpuSnap::take(gw.proc.pid(), sim.proc.pid());
    let flood_stats = reader
        .join()
        .map_err(|_| "the flood's reader panicked".to_owned())?;
    if let Some(e) = probe_error {
        return Err(e);
    }
    let after = probe.run_n(opts.probe_requests)?;
    if probe.open.is_some() {
        let mut tail = ProbeStats::new()?;
        let _ = probe.step(&mut tail);
    }
    let _ = probe.client.terminate();
    let state = gw.state();
    let fair = Fairness {
        kind,
        flood: opts.flood,
        base,
        during,
        during_time,
        after,
        flood_stats,
        cpu: (cpu0, cpu1),
        state,
    };
    print_fairness(&fair, opts);
    Ok(fair)
}

/// The table of one fairness run.
fn print_fairness(fair: &Fairness, opts: &HostileOptions) {
    let f = &fair.flood_stats;
    println!(
        "  flood: {} written in {:.2} s; answers {} within {:.2} s of the first write: New {}, \
         ThrottleLimitExceeded {}, other rejects {}, other {}",
        f.sent,
        f.write_time.as_secs_f64(),
        f.answered,
        f.answer_time.as_secs_f64(),
        f.new,
        f.throttled,
        f.other_rejected,
        f.other_first
    );
    if let Some(e) = &f.write_error {
        println!("  flood write error: {e}");
    }
    if let Some(e) = &f.read_error {
        println!("  flood read error: {e}");
    }
    let other = match fair.kind {
        ProbeKind::Gateway => "unexpected",
        ProbeKind::Exchange => "rejected",
    };
    println!(
        "  {:<16} {:>7} {:>9} {:>9} {:>9} {:>10} {:>10} {:>10}",
        format!("{} (µs)", fair.kind.name()),
        "count",
        "p50",
        "p90",
        "p99",
        "max",
        "throttled",
        other
    );
    for (name, s) in [
        ("no flood", &fair.base),
        ("during flood", &fair.during),
        ("after flood", &fair.after),
    ] {
        println!(
            "  {:<16} {:>7} {:>9.1} {:>9.1} {:>9.1} {:>10.1} {:>10} {:>10}",
            name,
            s.hist.len(),
            s.us(0.5),
            s.us(0.9),
            s.us(0.99),
            s.hist.max() as f64 / 1e3,
            s.throttled,
            s.rejected
        );
    }
    if fair.kind == ProbeKind::Gateway {
        println!(
            "  {:<16} {:>16} {:>9} {:>10} {:>16} {:>9} {:>10}",
            "split (µs)", "written→decided", "p99", "max", "decided→read", "p99", "max"
        );
        for (name, s) in [
            ("no flood", &fair.base),
            ("during flood", &fair.during),
            ("after flood", &fair.after),
        ] {
            println!(
                "  {:<16} {:>16} {:>9.1} {:>10.1} {:>16} {:>9.1} {:>10.1}",
                name,
                format!("p50 {:.1}", us_at(&s.decided, 0.5)),
                us_at(&s.decided, 0.99),
                s.decided.max() as f64 / 1e3,
                format!("p50 {:.1}", us_at(&s.answered, 0.5)),
                us_at(&s.answered, 0.99),
                s.answered.max() as f64 / 1e3
            );
        }
        println!(
            "  (decided = the TransactTime the gateway stamps when order entry starts on the \
             request: written→decided is the io thread's wait to reach it, decided→read the \
             answer's way back including the probe's wake-up)"
        );
    }
    let during = &fair.during;
    println!(
        "  ratio during/no flood: p50 ×{:.2}, p99 ×{:.2}; probe throttled {:.2} % of its answers \
         during the flood; gateway {}",
        fair.ratio(0.5),
        fair.ratio(0.99),
        100.0 * during.throttled as f64 / during.hist.len().max(1) as f64,
        fair.state
    );
    let p99 = fair.added_us(0.99);
    let goal = match fair.kind {
        ProbeKind::Gateway => {
            if p99 <= ADDED_P99_GOAL_US {
                format!("goal ≤ {ADDED_P99_GOAL_US:.0} µs p99: met")
            } else {
                format!("goal ≤ {ADDED_P99_GOAL_US:.0} µs p99: NOT met")
            }
        }
        ProbeKind::Exchange => "includes the simulator's and the machine's contention; the \
                                goal applies to probe `gateway`"
            .to_owned(),
    };
    println!(
        "  added delay (during − no flood): p50 {:+.1} µs, p99 {:+.1} µs ({goal})",
        fair.added_us(0.5),
        p99
    );
    let secs = fair.during_time.as_secs_f64();
    let n = during.hist.len();
    let most = (secs * 1e6 / opts.probe_interval_us.max(1) as f64).floor();
    println!(
        "  during-flood samples: {n} in {secs:.2} s (one per {:.0} µs on average; at most \
         {most:.0} at one per {} µs)",
        secs * 1e6 / n.max(1) as f64,
        opts.probe_interval_us
    );
    if n < 100 {
        println!(
            "  (only {n} probe samples during the flood: its p99 is its max; a larger --flood \
             lasts longer)"
        );
    }
    print_cpu(fair);
}

/// Where the CPU time of the during-flood phase went (the gateway shares the machine with the
/// simulator, this bench and whatever else runs).
fn print_cpu(fair: &Fairness) {
    let (a, b) = &fair.cpu;
    let secs = |x: Option<f64>| x.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.2} s"));
    let io = cpu_secs(a.io, b.io);
    let per_order = io.map_or_else(
        || "n/a".to_owned(),
        |v| format!("{:.1}", v * 1e6 / fair.flood_stats.sent.max(1) as f64),
    );
    let machine = match (a.machine, b.machine) {
        (Some((busy0, all0, cpus)), Some((busy1, all1, _))) => {
            let busy = busy1.saturating_sub(busy0) as f64 / CLK_TCK;
            let all = all1.saturating_sub(all0) as f64 / CLK_TCK;
            let ours = [
                cpu_secs(a.gateway, b.gateway),
                cpu_secs(a.sim, b.sim),
                cpu_secs(a.bench, b.bench),
            ]
            .iter()
            .map(|v| v.unwrap_or(0.0))
            .sum::<f64>();
            format!(
                "; machine ({cpus} CPUs) busy {:.0} %, other processes {:.2} s",
                100.0 * busy / all.max(1e-9),
                (busy - ours).max(0.0)
            )
        }
        _ => String::new(),
    };
    println!(
        "  CPU time in the during-flood phase ({:.2} s): gateway {} (io thread {} = {per_order} \
         µs per flood order, tracker {}), bitget-sim {}, this bench {}{machine}",
        fair.during_time.as_secs_f64(),
        secs(cpu_secs(a.gateway, b.gateway)),
        secs(io),
        secs(cpu_secs(a.tracker, b.tracker)),
        secs(cpu_secs(a.sim, b.sim)),
        secs(cpu_secs(a.bench, b.bench)),
    );
}

// ---------------------------------------------------------------------------------------------
// 4. Descriptor exhaustion

/// Figures of the exhaustion section.
#[derive(Debug)]
struct Exhaustion {
    secs: u64,
    opened: usize,
    lines: usize,
    bytes: u64,
    accept_failed: usize,
    accept_errors: Option<f64>,
    session: Result<f64, String>,
    state: String,
}

fn exhaustion(sim: &SimProc, opts: &HostileOptions) -> Result<Exhaustion, String> {
    let cap = opts.exhaust_conns + 16;
    println!(
        "\n== 4. Descriptor exhaustion: gateway under `ulimit -n {EXHAUST_NOFILE}` (soft and \
         hard), max_connections = max_unauthenticated = {cap} (so descriptors, not admission, \
         run out), RUST_LOG=info; {} idle connections held {} s, then closed",
        opts.exhaust_conns, opts.exhaust_secs
    );
    let limits = StrategyLimits {
        max_connections: Some(cap),
        max_unauthenticated: Some(cap),
        handshake_timeout_ms: None,
    };
    let cfg = gateway_toml(sim, limits, opts.rate);
    let mut gw = start_gateway(
        &opts.work_dir,
        "gw-exhaustion",
        &cfg,
        NoFile::Limit(EXHAUST_NOFILE),
        "info",
    )?;
    if let Some((soft, hard)) = gw.nofile() {
        println!(
            "  gateway descriptor limit: soft {soft}, hard {hard}; open at start: {}",
            gw.open_fds()
                .map_or_else(|| "n/a".into(), |n| n.to_string())
        );
    }
    std::thread::sleep(Duration::from_millis(500));
    let (out_before, err_before) = gw.output();
    let t = Instant::now();
    let burst = open_idle(gw.addr, opts.exhaust_conns);
    let fds_held = gw.open_fds();
    let during = gw.check_session_within(Duration::from_secs(2));
    let left = Duration::from_secs(opts.exhaust_secs).saturating_sub(t.elapsed());
    std::thread::sleep(left);
    let c = census(&burst.conns);
    let opened = opts.exhaust_conns - burst.failed;
    drop(burst.conns);
    std::thread::sleep(Duration::from_secs(1));
    let session = gw.check_session();
    let accept_errors = gw.metric("bgw_strategy_accept_errors_total");
    std::thread::sleep(Duration::from_millis(200));
    let window = t.elapsed();
    let (out_after, err_after) = gw.output();
    let mut new = out_after
        .get(out_before.len()..)
        .unwrap_or_default()
        .to_vec();
    new.extend_from_slice(err_after.get(err_before.len()..).unwrap_or_default());
    let text = String::from_utf8_lossy(&new);
    let lines = text.lines().count();
    let accept_failed = text.lines().filter(|l| l.contains("accept failed")).count();
    let state = gw.state();
    let row = |k: &str, v: String| println!("  {k:<44} {v:>12}");
    row(
        "connections opened",
        format!("{opened}/{}", opts.exhaust_conns),
    );
    row(
        "gateway descriptors open while flooded",
        fds_held.map_or_else(|| "n/a".into(), |n| n.to_string()),
    );
    row(
        "at the end: open / closed / Terminate",
        format!("{} / {} / {}", c.held, c.closed, c.answered),
    );
    row("log window (s)", format!("{:.1}", window.as_secs_f64()));
    row("log lines written", lines.to_string());
    row("log bytes written", new.len().to_string());
    row("lines with \"accept failed\"", accept_failed.to_string());
    row("bgw_strategy_accept_errors_total", opt_num(accept_errors));
    row(
        "new session while they run out (2 s)",
        session_text(&during),
    );
    row("new session after the close", session_text(&session));
    row("gateway afterwards", state.clone());
    Ok(Exhaustion {
        secs: opts.exhaust_secs,
        opened,
        lines,
        bytes: new.len() as u64,
        accept_failed,
        accept_errors,
        session,
        state,
    })
}

// ---------------------------------------------------------------------------------------------
// The run

/// Runs the sections `opts` asks for, printing each table as it is measured and a summary.
///
/// Errors: a child that did not start, a session that could not connect, as text.
pub fn run(opts: &HostileOptions) -> Result<(), String> {
    std::fs::create_dir_all(&opts.work_dir)
        .map_err(|e| format!("{}: {e}", opts.work_dir.display()))?;
    let want = |s: Section| opts.only.is_none_or(|o| o == s);
    let sim = start_sim(&opts.work_dir)?;
    println!(
        "hostile: bitget-sim at {}, gateway children from {}, logs in {}",
        sim.rest_url,
        sibling("gateway")?
            .parent()
            .map_or_else(String::new, |p| p.display().to_string()),
        opts.work_dir.display()
    );
    let adm = if want(Section::Admission) {
        Some(admission(&sim, opts)?)
    } else {
        None
    };
    let mem = if want(Section::Memory) {
        Some(memory(&sim, opts)?)
    } else {
        None
    };
    let mut fair = Vec::new();
    if want(Section::Fairness) {
        for &kind in opts.probe.kinds() {
            fair.push(fairness(&sim, opts, kind)?);
        }
    }
    let exh = if want(Section::Exhaustion) {
        Some(exhaustion(&sim, opts)?)
    } else {
        None
    };
    println!("\n== Summary");
    println!(
        "{}",
        summary(adm.as_ref(), mem.as_ref(), &fair, exh.as_ref())
    );
    let failed = failures(adm.as_ref(), mem.as_ref(), &fair, exh.as_ref());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("FAILED: {}", failed.join("; ")))
    }
}

/// What makes the bench fail (empty: it passed): what the gateway must do under hostile load
/// whatever the machine, never a figure. Every section's gateway still running at its end; a
/// session established before the idle burst keeps trading during it, and a new session is
/// admitted within 15 s of it (the handshake timeout, 5 s, ends the idle ones); a session is
/// established after the descriptors ran out and the idle connections closed.
fn failures(
    adm: Option<&Admission>,
    mem: Option<&Memory>,
    fair: &[Fairness],
    exh: Option<&Exhaustion>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut alive = |section: &str, state: &str| {
        if state != "running" {
            out.push(format!("{section}: the gateway {state}"));
        }
    };
    if let Some(a) = adm {
        alive("admission", &a.state);
    }
    if let Some(m) = mem {
        alive("memory", &m.state);
    }
    for f in fair {
        alive(&format!("fairness ({})", f.kind.name()), &f.state);
    }
    if let Some(e) = exh {
        alive("exhaustion", &e.state);
    }
    if let Some(a) = adm {
        if let Err(e) = &a.trades {
            out.push(format!(
                "admission: the session established before the burst could not trade ({e})"
            ));
        }
        if a.admitted_after.is_none() {
            out.push("admission: no new session admitted within 15 s of the burst".into());
        }
    }
    if let Some(e) = exh {
        if let Err(err) = &e.session {
            out.push(format!(
                "exhaustion: no session established afterwards ({err})"
            ));
        }
    }
    out
}

/// One paragraph over whatever ran.
fn summary(
    adm: Option<&Admission>,
    mem: Option<&Memory>,
    fair: &[Fairness],
    exh: Option<&Exhaustion>,
) -> String {
    let mut parts = Vec::new();
    if let Some(a) = adm {
        parts.push(format!(
            "Of {} idle connections ({} opened) the gateway at its default limits held {} and \
             closed {} at once; a session established before the burst {}, a new session {} \
             during it{} (gateway {}).",
            a.burst,
            a.opened,
            a.held,
            a.closed,
            match &a.trades {
                Ok(ms) => format!("kept trading (worst round trip {ms:.2} ms)"),
                Err(e) => format!("could NOT trade ({e})"),
            },
            match &a.session {
                Ok(ms) => format!("established in {ms:.1} ms"),
                Err(_) => "was refused".to_owned(),
            },
            match (&a.session, a.admitted_after) {
                (Ok(_), _) => String::new(),
                (Err(_), Some(s)) => format!(" and first got in {s:.1} s after the burst began"),
                (Err(_), None) => " and still not 15 s after it began".to_owned(),
            },
            a.state
        ));
    }
    if let Some(m) = mem {
        let peaks: Vec<String> = m
            .rounds
            .iter()
            .map(|r| format!("{:.1}", mib(r.peak)))
            .collect();
        let afters: Vec<String> = m
            .rounds
            .iter()
            .map(|r| format!("{:.1}", mib(r.after)))
            .collect();
        let per_conn = m
            .rounds
            .iter()
            .filter(|r| r.held > 0)
            .map(|r| r.peak.saturating_sub(m.idle) as f64 / 1024.0 / r.held as f64)
            .fold(0.0f64, f64::max);
        let last_ratio = m
            .rounds
            .last()
            .map_or(1.0, |r| r.after as f64 / m.idle.max(1) as f64);
        parts.push(format!(
            "Holding {} idle connections cost up to {per_conn:.1} KiB each: RSS idle {:.1} MiB, \
             peaks {} MiB, 2 s after closing {} MiB (last round ×{last_ratio:.2} of idle; gateway {}).",
            m.burst,
            mib(m.idle),
            peaks.join(" / "),
            afters.join(" / "),
            m.state
        ));
    }
    for f in fair {
        let what = match f.kind {
            ProbeKind::Gateway => "round trip answered by the gateway itself (unknown symbol)",
            ProbeKind::Exchange => "round trip through the exchange (place, cancel)",
        };
        let goal = match f.kind {
            ProbeKind::Gateway if f.added_us(0.99) <= ADDED_P99_GOAL_US => {
                format!("; goal ≤ {ADDED_P99_GOAL_US:.0} µs p99 met")
            }
            ProbeKind::Gateway => format!("; goal ≤ {ADDED_P99_GOAL_US:.0} µs p99 NOT met"),
            ProbeKind::Exchange => String::new(),
        };
        parts.push(format!(
            "Under a {}-order flood from another session ({} throttled, {} sent on), the \
             well-behaved session's {what} went from p50 {:.0} / p99 {:.0} µs to p50 {:.0} / \
             p99 {:.0} µs (×{:.2} / ×{:.2}, added {:+.0} / {:+.0} µs{goal}; max {:.0} µs, {} \
             samples, {} throttled) and was p50 {:.0} / p99 {:.0} µs afterwards (gateway {}).",
            f.flood,
            f.flood_stats.throttled,
            f.flood_stats.new,
            f.base.us(0.5),
            f.base.us(0.99),
            f.during.us(0.5),
            f.during.us(0.99),
            f.ratio(0.5),
            f.ratio(0.99),
            f.added_us(0.5),
            f.added_us(0.99),
            f.during.hist.max() as f64 / 1e3,
            f.during.hist.len(),
            f.during.throttled,
            f.after.us(0.5),
            f.after.us(0.99),
            f.state
        ));
    }
    if let Some(e) = exh {
        parts.push(format!(
            "With {} descriptors and {} idle connections held {} s the gateway wrote {} log \
             lines ({} bytes), {} of them \"accept failed\" ({} failed accepts counted); a \
             session {} afterwards (gateway {}).",
            EXHAUST_NOFILE,
            e.opened,
            e.secs,
            e.lines,
            e.bytes,
            e.accept_failed,
            opt_num(e.accept_errors),
            match &e.session {
                Ok(ms) => format!("established in {ms:.1} ms"),
                Err(err) => format!("could NOT establish ({err})"),
            },
            e.state
        ));
    }
    parts.join(" ")
}
