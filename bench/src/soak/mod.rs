//! The soak test: the venue simulator (in this process, TLS), the real `gateway` binary as a child
//! process, and several strategy sessions sending orders while a conductor breaks things: it
//! drops the exchange connections again and again, duplicates and reorders pushes, answers trade
//! ops with outcome-unknown errors (applied and not), delays replies, makes strategies drop
//! their connections, and kills the gateway once with SIGKILL and starts it again on the same
//! journal. At the end every order as the strategy saw it is compared with the simulator's
//! record, and the run prints: orders equal, ExecutionReports repeated and missing at the
//! strategy, orders sent twice to the exchange (clientOids repeated), orphans.

pub mod gateway_proc;
pub mod repeats;
pub mod session;
pub mod sweep;
pub mod verify;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codec::sbe::Category;
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::ExchangeCredentials;
use sim::Scope;

use self::gateway_proc::GatewayProc;
use self::session::{Controls, OrderModel, SessionStats, SoakSession};

/// Options of one soak run.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Orders to have accepted (ExecutionReport New) over all sessions.
    pub orders: u64,
    /// Strategy sessions (threads), each with its own FIXP session.
    pub sessions: usize,
    /// Orders each session keeps open at most.
    pub window: usize,
    /// Symbols the sessions trade (the first of the demo markets; 0 = all of them).
    pub symbols: usize,
    /// Exchange connection drops to cause (spread over the run).
    pub drops: u64,
    /// Kill the gateway with SIGKILL once (at half way) and start it again.
    pub kill: bool,
    /// Strategy-side disconnects (no Terminate) to cause.
    pub strategy_drops: u64,
    /// Seed of the order mix.
    pub seed: u64,
    /// Directory for the gateway's configuration, journal and log.
    pub work_dir: PathBuf,
    /// The `gateway` binary.
    pub gateway_exe: PathBuf,
    /// Print progress.
    pub verbose: bool,
    /// Record each gateway process's tracker inputs and outputs for replay, to
    /// `<work_dir>/record-<n>.bgwrec` (`n` = 1, then 2 after the restart).
    pub record: bool,
    /// Session rollover every this many seconds (`[strategy] rollover = "every Ns"`; 0 = none):
    /// each session's epoch ends on schedule while orders and pushes are in flight.
    pub rollover_every_s: u64,
    /// `[tracker] retention_ms` (ms an ended order stays in the tracker; `None` = the
    /// gateway's default, 60 000). 0 evicts ended orders at the next idle tick, while their
    /// duplicated and reordered pushes are still in flight.
    pub retention_ms: Option<u64>,
    /// `[tracker] retention_orders` (ended orders kept in full at most; `None` = the default,
    /// 16 384).
    pub retention_orders: Option<u64>,
    /// `[tracker] placement = "own_thread"`: the tracker on its own thread behind a queue,
    /// not on the io thread (the default).
    pub own_tracker_thread: bool,
    /// Disk-full episodes (issue 37): the gateway's journal is on a tmpfs of its own, filled
    /// to the last byte this many times during the run (at 20 %, 40 %, 75 %, ... of the
    /// orders, never across the SIGKILL) for [`DISK_FULL_MS`] each, then freed. Sessions see
    /// new orders and replaces refused NotApplied and their reports held until the journal
    /// takes them again. Needs root to mount the tmpfs (without it the run has none, and says
    /// so). The journal is copied to `<work_dir>/journal-kept` at the end (the tmpfs is
    /// unmounted).
    pub disk_faults: u64,
}

/// How long each disk-full episode lasts (ms): past the gateway's longest retry backoff.
pub const DISK_FULL_MS: u64 = 1_500;

/// The journal's tmpfs of a soak with disk faults: mounted at `<work_dir>/journal`, unmounted
/// on drop.
struct JournalDisk {
    dir: PathBuf,
    filler: PathBuf,
}

impl JournalDisk {
    fn mount(dir: PathBuf) -> Result<JournalDisk, String> {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256m", "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(format!(
                "disk faults: cannot mount a tmpfs at {} (needs root)",
                dir.display()
            ));
        }
        Ok(JournalDisk {
            filler: dir.join("filler"),
            dir,
        })
    }

    /// Fills the file system to its last byte.
    fn fill(&self) {
        use std::io::Write;
        let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.filler)
        else {
            return;
        };
        let chunk = vec![0u8; 1 << 20];
        while f.write_all(&chunk).is_ok() {}
        while f.write_all(&chunk[..4096]).is_ok() {}
        while f.write_all(&chunk[..1]).is_ok() {}
    }

    fn free(&self) {
        let _ = std::fs::remove_file(&self.filler);
    }

    /// Copies the journal (every session's segments) to `to`, replacing what is there: the
    /// tmpfs is unmounted when the run ends.
    fn keep(&self, to: &std::path::Path) {
        let _ = std::fs::remove_dir_all(to);
        let _ = std::process::Command::new("cp")
            .arg("-a")
            .arg(&self.dir)
            .arg(to)
            .status();
    }
}

impl Drop for JournalDisk {
    fn drop(&mut self) {
        self.free();
        // Lazily: a gateway process that still holds a journal file must not keep it mounted.
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.dir)
            .status();
    }
}

/// What the run counted.
#[derive(Debug, Default)]
pub struct SoakOutcome {
    /// Summed per-session counters.
    pub strategy: SessionStats,
    /// Orders accepted.
    pub accepted: u64,
    /// Comparison with the simulator.
    pub verdict: verify::Verdict,
    /// Place requests the simulator saw with a clientOid already used (orders sent twice).
    pub exchange_duplicates: u64,
    /// Exchange connection drops caused.
    pub drops: u64,
    /// Gateway SIGKILL + restart cycles.
    pub kills: u64,
    /// Fault phases run (duplicate, reorder, unknown outcome, delayed replies).
    pub fault_phases: Vec<String>,
    /// Simulator WebSocket connections accepted (every gateway reconnect is one).
    pub ws_connections_total: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The order flow stopped making progress (see [`STALL`]).
    pub stalled: bool,
    /// Each repeated report explained (see [`repeats::describe`]).
    pub repeat_lines: Vec<String>,
    /// Ended orders evicted from the tracker (`bgw_tracker_evictions_total`, summed over both
    /// gateway processes; `None` when /metrics could not be read).
    pub evicted: Option<u64>,
    /// Pushes for evicted orders recognised by their tombstones (`bgw_evicted_late_pushes_total`,
    /// summed over both gateway processes).
    pub late_pushes: Option<u64>,
    /// Disk-full episodes run (the journal's tmpfs filled, then freed).
    pub disk_full: u64,
}

impl SoakOutcome {
    /// True when nothing was lost, repeated or sent twice and every order is equal.
    pub fn passed(&self) -> bool {
        !self.stalled
            && self.verdict.different == 0
            && self.verdict.orphans == 0
            && self.verdict.reports_missing == 0
            && self.strategy.repeated == 0
            && self.strategy.unknown == 0
            && self.strategy.seq_regressions == 0
            && self.exchange_duplicates == 0
            && self.strategy.amends_unanswered_count == 0
            && self.verdict.fills_equal()
    }
}

fn credentials(session_id: u64) -> String {
    format!("soak-{session_id}")
}

/// The gateway's configuration for its `process`-th start (1, then 2 after the SIGKILL).
fn gateway_config(
    opts: &SoakOptions,
    sim: &sim::SimHandle,
    ca_path: &std::path::Path,
    process: u32,
) -> String {
    let mut s = String::new();
    s.push_str("[strategy]\nlisten = \"127.0.0.1:0\"\nkeepalive_min_ms = 100\n");
    if opts.rollover_every_s > 0 {
        s.push_str(&format!(
            "rollover = \"every {}s\"\n",
            opts.rollover_every_s
        ));
    }
    s.push('\n');
    for i in 1..=opts.sessions as u64 {
        // Half the sessions keep their orders when they drop, half have them cancelled.
        s.push_str(&format!(
            "[[session]]\nsession_id = {i}\ncredentials = \"{}\"\ncancel_on_disconnect = {}\n\n",
            credentials(i),
            i % 2 == 0
        ));
    }
    s.push_str(
        "[[account]]\nname = \"main\"\napi_key = \"bg_demo_key\"\nsecret = \"demo-secret\"\n\
         passphrase = \"demo-pass\"\nposition_updates = false\n\n",
    );
    s.push_str(&format!(
        "[exchange]\nws_private_url = \"{}\"\nrest_url = \"{}\"\nca_cert_pem_path = \"{}\"\n\
         ping_interval_ms = 2000\npong_timeout_ms = 2000\nrequest_timeout_ms = 3000\n\
         categories = [\"USDT-FUTURES\", \"SPOT\"]\n\n",
        sim.ws_private_url(),
        sim.rest_url(),
        ca_path.display()
    ));
    s.push_str("[rate]\ntier = \"unlimited\"\n\n[risk]\nmark_refresh_ms = 0\n\n");
    s.push_str("[metrics]\nreport_interval_ms = 60000\nlisten = \"127.0.0.1:0\"\n\n");
    if opts.retention_ms.is_some() || opts.retention_orders.is_some() || opts.own_tracker_thread {
        s.push_str("[tracker]\n");
        if opts.own_tracker_thread {
            s.push_str("placement = \"own_thread\"\n");
        }
        if let Some(ms) = opts.retention_ms {
            s.push_str(&format!("retention_ms = {ms}\n"));
        }
        if let Some(n) = opts.retention_orders {
            s.push_str(&format!("retention_orders = {n}\n"));
        }
        s.push('\n');
    }
    // Segments of 16 KiB (tens of rolls per session; the SIGKILL's restart reads a checkpoint),
    // 256 kept (4 MiB): a reconnecting strategy's RetransmitRequest stays within the retention.
    s.push_str(&format!(
        "[journal]\ndir = \"{}\"\nsegment_bytes = 16384\nkeep_segments = 256\n",
        opts.work_dir.join("journal").display()
    ));
    if opts.record {
        s.push_str(&format!(
            "\n[record]\npath = \"{}\"\n",
            opts.work_dir
                .join(format!("record-{process}.bgwrec"))
                .display()
        ));
    }
    s
}

/// No order accepted for this long ends the order flow early (the comparison still runs).
pub const STALL: Duration = Duration::from_secs(30);

/// Runs the soak; `Err` only when it could not run (start-up, a session that could not
/// reconnect for 90 s).
pub fn run(opts: &SoakOptions) -> Result<SoakOutcome, String> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.work_dir).map_err(|e| e.to_string())?;
    let _ = std::process::Command::new("umount")
        .arg(opts.work_dir.join("journal"))
        .stderr(std::process::Stdio::null())
        .status();
    let _ = std::fs::remove_dir_all(opts.work_dir.join("journal"));
    let disk = if opts.disk_faults > 0 {
        match JournalDisk::mount(opts.work_dir.join("journal")) {
            Ok(d) => Some(d),
            Err(e) => {
                // Where mounting is refused (not root) the run goes on without them, and says so.
                eprintln!("SKIPPED {e}: this run has no disk-full episodes");
                None
            }
        }
    } else {
        None
    };
    let rt = crate::rig::sim_runtime()?;
    let sim_cfg = sim::SimConfig::demo();
    let mut markets = crate::rig::markets(&sim_cfg);
    if opts.symbols > 0 {
        markets.truncate(opts.symbols);
    }
    if markets.is_empty() {
        return Err("the simulator configuration has no liquid symbol".into());
    }
    let sim = rt
        .block_on(sim::Sim::start(sim_cfg))
        .map_err(|e| format!("simulator: {e}"))?;
    let since_ms = sim::now_ms().saturating_sub(5_000);
    let ca_path = opts.work_dir.join("sim-ca.pem");
    std::fs::write(&ca_path, sim.ca_cert_pem()).map_err(|e| e.to_string())?;
    let config_path = opts.work_dir.join("gateway.toml");
    std::fs::write(&config_path, gateway_config(opts, &sim, &ca_path, 1))
        .map_err(|e| e.to_string())?;
    let log_path = opts.work_dir.join("gateway.log");
    let _ = std::fs::remove_file(&log_path);
    let gw = GatewayProc::start_with_metrics(&opts.gateway_exe, &config_path, &log_path)?;

    let ctl = Arc::new(Controls::new(gw.addr, opts.sessions));
    let done = Arc::new(AtomicUsize::new(0));
    let quota = opts.orders.div_ceil(opts.sessions.max(1) as u64);
    let mut threads = Vec::new();
    for i in 0..opts.sessions {
        let session_id = i as u64 + 1;
        let mut s = SoakSession::new(
            i,
            session_id,
            credentials(session_id),
            markets.clone(),
            Arc::clone(&ctl),
            opts.seed.wrapping_add(session_id),
            opts.window,
        );
        let ctl = Arc::clone(&ctl);
        let done = Arc::clone(&done);
        threads.push(
            std::thread::Builder::new()
                .name(format!("soak-{session_id}"))
                .spawn(move || -> Result<SoakSession, String> {
                    let r = s.run(quota);
                    done.fetch_add(1, Ordering::Relaxed);
                    r?;
                    while !ctl.wind_down.load(Ordering::Relaxed) {
                        s.idle(Duration::from_millis(20))?;
                    }
                    // Unknown outcomes of places take two push deadlines (6 s) to settle.
                    s.wind_down(Duration::from_secs(10))?;
                    Ok(s)
                })
                .map_err(|e| e.to_string())?,
        );
    }

    // The conductor.
    let faults = sim.faults();
    let total = opts.orders.max(1);
    let drop_every = (total / opts.drops.max(1)).max(1);
    let strategy_drop_every = (total / opts.strategy_drops.max(1)).max(1);
    let mut out = SoakOutcome::default();
    let mut gw = Some(gw);
    let mut next_drop = drop_every;
    let mut next_strategy_drop = strategy_drop_every;
    let mut phase = 0usize;
    let mut last_print = Instant::now();
    let mut strategy_drop_ix = 0usize;
    // Fault phases at fractions of the run: (start, end, name).
    let phases: [(u64, u64, &str); 5] = [
        (10, 20, "duplicate pushes"),
        (25, 35, "reordered pushes"),
        (40, 45, "outcome unknown (applied and not)"),
        (60, 65, "delayed replies"),
        (70, 75, "delayed pushes"),
    ];
    let mut active: Option<usize> = None;
    // Disk-full episodes at these percentages of the run (away from the SIGKILL at 50 %).
    let disk_at: Vec<u64> = [20, 40, 75, 90, 30, 65, 85, 10]
        .into_iter()
        .take(usize::try_from(opts.disk_faults).unwrap_or(0))
        .collect();
    let mut disk_full_until: Option<Instant> = None;
    let mut killed = false;
    let mut last_progress = (0u64, Instant::now());
    while done.load(Ordering::Relaxed) < opts.sessions {
        std::thread::sleep(Duration::from_millis(5));
        let progress = ctl.accepted.load(Ordering::Relaxed);
        if progress != last_progress.0 {
            last_progress = (progress, Instant::now());
        } else if last_progress.1.elapsed() > STALL {
            // Orders that never finish hold every session's window: stop and compare.
            out.stalled = true;
            break;
        }
        let pct = progress * 100 / total;
        if progress >= next_drop && out.drops < opts.drops {
            next_drop += drop_every;
            if faults.close_connections(Scope::All).is_ok() {
                out.drops += 1;
                *ctl.last_drop.lock() = (out.drops, Some(Instant::now()));
            }
        }
        if progress >= next_strategy_drop && opts.strategy_drops > 0 {
            next_strategy_drop += strategy_drop_every;
            if let Some(f) = ctl.drop_now.get(strategy_drop_ix % opts.sessions.max(1)) {
                f.store(true, Ordering::Relaxed);
            }
            strategy_drop_ix += 1;
        }
        if let Some(ix) = active {
            if pct >= phases[ix].1 {
                faults.clear();
                active = None;
                *ctl.phase.lock() = "none";
            }
        }
        if active.is_none() && phase < phases.len() && pct >= phases[phase].0 {
            let (_, _, name) = phases[phase];
            match phase {
                0 => {
                    let _ = faults.duplicate_pushes(Scope::All, true);
                }
                1 => {
                    let _ = faults.reorder_pushes(Scope::All, 5);
                }
                2 => {
                    for k in 0..10 {
                        let _ = faults.unknown_outcome(Scope::All, 1, None, k % 2 == 0);
                    }
                }
                3 => {
                    let _ = faults.delay_replies(Scope::All, 30);
                }
                _ => {
                    let _ = faults.delay_pushes(Scope::All, 30);
                }
            }
            out.fault_phases.push(name.to_owned());
            *ctl.phase.lock() = name;
            active = Some(phase);
            phase += 1;
        }
        if let Some(d) = &disk {
            match disk_full_until {
                Some(t) if Instant::now() >= t => {
                    d.free();
                    disk_full_until = None;
                }
                Some(_) => {}
                None if disk_at
                    .get(usize::try_from(out.disk_full).unwrap_or(usize::MAX))
                    .is_some_and(|&at| pct >= at) =>
                {
                    d.fill();
                    out.disk_full += 1;
                    disk_full_until = Some(Instant::now() + Duration::from_millis(DISK_FULL_MS));
                }
                None => {}
            }
        }
        if opts.kill && !killed && pct >= 50 && disk_full_until.is_none() {
            killed = true;
            if let Some(g) = gw.take() {
                add_metrics(&mut out, g.metrics);
                g.kill9();
                out.kills += 1;
                ctl.restarted.store(true, Ordering::Relaxed);
                if opts.record {
                    std::fs::write(&config_path, gateway_config(opts, &sim, &ca_path, 2))
                        .map_err(|e| e.to_string())?;
                }
                let g =
                    GatewayProc::start_with_metrics(&opts.gateway_exe, &config_path, &log_path)?;
                *ctl.addr.lock() = g.addr;
                gw = Some(g);
            }
        }
        if opts.verbose && last_print.elapsed() > Duration::from_secs(2) {
            last_print = Instant::now();
            println!(
                "  {progress} orders accepted, {} drops, {:?}",
                out.drops,
                started.elapsed()
            );
        }
    }
    faults.clear();
    if let Some(d) = &disk {
        d.free();
    }
    std::thread::sleep(Duration::from_secs(2));
    ctl.wind_down.store(true, Ordering::Relaxed);
    let mut models: HashMap<u64, HashMap<u64, OrderModel>> = HashMap::new();
    let mut errors = Vec::new();
    for t in threads {
        match t.join() {
            Ok(Ok(s)) => {
                add_stats(&mut out.strategy, &s.stats);
                out.accepted += s.accepted();
                models.insert(s.session_id, s.orders);
            }
            Ok(Err(e)) => errors.push(e),
            Err(_) => errors.push("a session thread panicked".into()),
        }
    }
    if let Some(g) = gw.take() {
        add_metrics(&mut out, g.metrics);
        g.stop();
    }
    if let Some(d) = &disk {
        // The tmpfs goes with the run: its journal is kept for the post-mortem.
        d.keep(&opts.work_dir.join("journal-kept"));
    }
    let origins = repeats::journal_origins(&opts.work_dir.join("journal"), models.keys().copied());
    out.repeat_lines = repeats::describe(&out.strategy.repeats, &origins, 60);
    if !errors.is_empty() {
        rt.block_on(sim.shutdown());
        return Err(errors.join("; "));
    }
    let tls = gateway::exchange::tls::client_config(Some(&sim.ca_cert_pem()))
        .map_err(|e| e.to_string())?;
    let rest = gateway::exchange::rest::RestClient::new(
        &sim.rest_url(),
        &tls,
        Duration::from_secs(10),
        Some(ExchangeCredentials {
            api_key: "bg_demo_key".into(),
            secret: Secret::new("demo-secret"),
            passphrase: Secret::new("demo-pass"),
        }),
    )
    .map_err(|e| e.to_string())?;
    out.verdict = rt.block_on(verify::compare(
        &rest,
        &[Category::UsdtFutures, Category::Spot],
        since_ms,
        &models,
    ))?;
    let stats = sim.stats();
    out.exchange_duplicates = stats.repeated_client_oids;
    out.ws_connections_total = stats.ws_connections_total;
    rt.block_on(sim.shutdown());
    out.elapsed = started.elapsed();
    Ok(out)
}

/// Adds a gateway process's eviction counters (from its /metrics) to the outcome.
fn add_metrics(out: &mut SoakOutcome, addr: Option<std::net::SocketAddr>) {
    let Some(text) = addr.and_then(scrape) else {
        return;
    };
    let value = |name: &str| -> Option<u64> {
        text.lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|v| v as u64)
    };
    if let Some(v) = value("bgw_tracker_evictions_total") {
        out.evicted = Some(out.evicted.unwrap_or(0) + v);
    }
    if let Some(v) = value("bgw_evicted_late_pushes_total") {
        out.late_pushes = Some(out.late_pushes.unwrap_or(0) + v);
    }
}

/// The gateway's /metrics text (HTTP/1.0 GET), or `None`.
fn scrape(addr: std::net::SocketAddr) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: soak\r\n\r\n")
        .ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    Some(body)
}

fn add_stats(a: &mut SessionStats, b: &SessionStats) {
    a.orders_sent += b.orders_sent;
    a.resent += b.resent;
    a.amends_sent += b.amends_sent;
    a.app_messages += b.app_messages;
    a.execution_reports += b.execution_reports;
    a.rollovers += b.rollovers;
    a.rollover_terminates += b.rollover_terminates;
    a.order_status += b.order_status;
    a.order_status_mismatch += b.order_status_mismatch;
    a.repeated += b.repeated;
    a.unknown += b.unknown;
    a.not_applied += b.not_applied;
    a.duplicate_rejects += b.duplicate_rejects;
    a.cancel_rejects += b.cancel_rejects;
    a.reconnects += b.reconnects;
    a.own_drops += b.own_drops;
    a.retransmit_requests += b.retransmit_requests;
    a.retransmitted += b.retransmitted;
    a.seq_regressions += b.seq_regressions;
    a.seq_duplicates += b.seq_duplicates;
    a.repeats.extend(b.repeats.iter().cloned());
    a.open_at_wind_down
        .extend(b.open_at_wind_down.iter().cloned());
    a.amends_unanswered_count += b.amends_unanswered_count;
    a.amends_unanswered
        .extend(b.amends_unanswered.iter().copied());
    a.filled_qty = a
        .filled_qty
        .checked_add(b.filled_qty)
        .unwrap_or(a.filled_qty);
}

/// Prints the counts and the verdict.
pub fn print(o: &SoakOutcome) {
    let s = &o.strategy;
    let v = &o.verdict;
    println!(
        "== soak: {} orders accepted in {:.1?}",
        o.accepted, o.elapsed
    );
    println!(
        "faults: {} exchange connection drops ({} WebSocket connections in all), {} gateway SIGKILL + restart, {} strategy drops, {} journal disk-full episodes, phases: {}",
        o.drops,
        o.ws_connections_total,
        o.kills,
        s.own_drops,
        o.disk_full,
        o.fault_phases.join(", ")
    );
    println!(
        "strategy: {} orders sent, {} replaces/cancels, {} ExecutionReports, {} OrderCancelRejects, {} NotApplied, {} reconnects, {} RetransmitRequests ({} messages retransmitted, {} already had), {} resent ({} refused as duplicates)",
        s.orders_sent,
        s.amends_sent,
        s.execution_reports,
        s.cancel_rejects,
        s.not_applied,
        s.reconnects,
        s.retransmit_requests,
        s.retransmitted,
        s.seq_duplicates,
        s.resent,
        s.duplicate_rejects
    );
    println!(
        "rollovers: {} epoch changes seen by the sessions ({} Terminate SessionRollover), {} OrderStatus reports ({} differing from the model); tracker: {} ended orders evicted, {} pushes for evicted orders (tombstones)",
        s.rollovers,
        s.rollover_terminates,
        s.order_status,
        s.order_status_mismatch,
        o.evicted.map_or("?".to_owned(), |v| v.to_string()),
        o.late_pushes.map_or("?".to_owned(), |v| v.to_string())
    );
    println!(
        "compare: {} orders, {} at the exchange, {} equal, {} different, {} refused before the exchange, {} orphans",
        v.orders, v.at_exchange, v.equal, v.different, v.refused_not_at_exchange, v.orphans
    );
    println!(
        "ExecutionReports lost (orders with missing reports): {}; repeated: {}; for unknown ClOrdIDs: {}; sequence regressions: {}",
        v.reports_missing, s.repeated, s.unknown, s.seq_regressions
    );
    println!(
        "orders sent twice to the exchange (repeated clientOids): {}",
        o.exchange_duplicates
    );
    println!(
        "cancels and replaces never answered (no ExecutionReport or OrderCancelReject with their ClOrdID): {}",
        s.amends_unanswered_count
    );
    for (session, cl, root) in s.amends_unanswered.iter().take(20) {
        println!(
            "  unanswered: session {session} ClOrdID {cl} of order {root} (clientOid {})",
            gateway::ids::ClientOid::new(*session, *root).as_str()
        );
    }
    println!(
        "fills: {} orders whose reported fills differ from the exchange's cumExecQty; Σ LastQty reported {} / Σ execQty at the exchange {} ({} fills): {}",
        v.fills_different,
        v.filled_reported.normalized(),
        v.filled_at_exchange.normalized(),
        v.exchange_fills,
        if v.fills_equal() { "equal" } else { "DIFFERENT" }
    );
    for l in &o.repeat_lines {
        println!("{l}");
    }
    for e in &v.examples {
        println!("  differs: {e}");
    }
    if o.stalled {
        println!("the order flow stalled: no order accepted for {STALL:?}");
        println!(
            "orders open when the wind-down began: {}",
            s.open_at_wind_down.len()
        );
        for l in s.open_at_wind_down.iter().take(40) {
            println!("  {l}");
        }
    }
    println!("RESULT: {}", if o.passed() { "PASS" } else { "FAIL" });
}
