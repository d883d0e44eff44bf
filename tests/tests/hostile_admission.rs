//! Hostile load on the strategy port, over real sockets: idle connections that never send
//! Negotiate are held to `[strategy] max_unauthenticated` (over it the oldest is closed, so a
//! real strategy still gets in), a gateway full of established sessions refuses new
//! connections, running out of descriptors makes the accept loop back off instead of spinning,
//! and memory follows the connections held.

// setrlimit (libc) in the child process of the descriptor test.
#![allow(unsafe_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use codec::sbe::{ExecType, Side, TimeInForce};
use e2e::{quiet_sim_config, Harness, Strategy};

/// Whether the gateway closed `s` (read returns 0 or an error) rather than kept it open
/// (the read times out).
fn closed_by_peer(s: &mut TcpStream, wait: Duration) -> bool {
    s.set_read_timeout(Some(wait)).expect("read timeout");
    let mut b = [0u8; 64];
    match s.read(&mut b) {
        Ok(0) => true,
        Ok(n) => panic!("an idle connection was answered ({n} bytes)"),
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    }
}

/// A resting order gets its New report: the session trades.
fn trades(s: &mut Strategy) {
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New));
}

fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < Duration::from_secs(5), "timed out: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn idle_connections_are_held_to_max_unauthenticated() {
    let h = Harness::start_with(quiet_sim_config(), |s| {
        s.admission.max_unauthenticated = 4;
    });
    let gw = h.gateway();
    let addr = gw.strategy_addr();
    // A session established before the flood is not counted as unauthenticated.
    let mut before = h.client(1);

    // Ten idle connections, one after the other: each over the limit closes the one that has
    // waited longest, so the first six are closed and the last four held.
    let mut idle: Vec<TcpStream> = Vec::new();
    for n in 0..10u64 {
        idle.push(TcpStream::connect(addr).expect("connect"));
        let want = n.saturating_sub(3);
        wait_until("the oldest connections evicted", || {
            gw.strategy_connections_refused() == want
        });
    }
    let t = Instant::now();
    let closed: Vec<bool> = idle
        .iter_mut()
        .map(|s| closed_by_peer(s, Duration::from_millis(100)))
        .collect();
    assert_eq!(
        closed,
        [true, true, true, true, true, true, false, false, false, false],
        "the gateway keeps the 4 newest idle connections"
    );
    assert!(t.elapsed() < Duration::from_secs(2));

    // The established session still trades.
    trades(&mut before);

    // While 4 idle connections hold the unauthenticated places, a real strategy still gets in
    // (its handshake takes a millisecond): the oldest idle connection makes room.
    let mut during = h.client(2);
    trades(&mut during);
    assert!(closed_by_peer(&mut idle[6], Duration::from_secs(2)));
    assert_eq!(gw.strategy_connections_refused(), 7);
    // The metrics endpoint exports the same count.
    let exposition = gw.render_metrics();
    assert!(
        exposition.contains("\nbgw_strategy_connections_refused_total 7\n"),
        "{exposition}"
    );

    // Once they are gone, new connections are admitted without evicting anyone.
    drop(idle);
    std::thread::sleep(Duration::from_millis(100));
    let mut after = h.client(3);
    trades(&mut after);
    assert_eq!(gw.strategy_connections_refused(), 7);
    assert_eq!(gw.accept_errors(), 0);
}

/// Established sessions are never evicted: with every place taken by one, a new connection is
/// closed at once, unanswered.
#[test]
fn a_gateway_full_of_established_sessions_refuses_new_connections() {
    let h = Harness::start_with(quiet_sim_config(), |s| {
        s.admission.max_connections = 2;
    });
    let gw = h.gateway();
    let mut one = h.client(1);
    let mut two = h.client(2);
    let mut third = TcpStream::connect(gw.strategy_addr()).expect("connect");
    assert!(closed_by_peer(&mut third, Duration::from_secs(2)));
    assert_eq!(gw.strategy_connections_refused(), 1);
    trades(&mut one);
    trades(&mut two);
}

/// Lines the gateway logged that contain "accept failed".
static ACCEPT_FAILED_LINES: AtomicU64 = AtomicU64::new(0);

/// stderr, counting the "accept failed" lines.
struct CountingStderr;

impl Write for CountingStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.windows(13).any(|w| w == b"accept failed") {
            ACCEPT_FAILED_LINES.fetch_add(1, Ordering::Relaxed);
        }
        std::io::stderr().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

const CHILD_ENV: &str = "BGW_HOSTILE_ADMISSION_CHILD";
/// The child's descriptor limit (soft = hard: the gateway's start-up raise has nothing to do).
const FD_LIMIT: u64 = 96;

fn set_nofile(limit: u64) {
    let r = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: `r` is a valid rlimit that outlives the call.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &r) };
    assert_eq!(rc, 0, "setrlimit: {}", std::io::Error::last_os_error());
}

/// Runs test `name` of this binary in a child process with `env` set (where it does the real
/// work), asserts it passed and printed `marker`, and prints its "figures" lines.
fn run_in_child(name: &str, env: &str, marker: &str) {
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(env, "1")
        .output()
        .expect("child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    assert!(
        stdout.contains(marker),
        "child did not run the test\n{stdout}"
    );
    println!(
        "{}",
        stdout
            .lines()
            .filter(|l| l.contains("figures"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn running_out_of_descriptors_backs_off_the_accept_loop() {
    if std::env::var_os(CHILD_ENV).is_some() {
        descriptor_exhaustion_child();
        return;
    }
    // The descriptor limit is per process: the test runs in a child of its own.
    run_in_child(
        "running_out_of_descriptors_backs_off_the_accept_loop",
        CHILD_ENV,
        "descriptor exhaustion: ok",
    );
}

fn descriptor_exhaustion_child() {
    tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(|| CountingStderr)
        .init();
    set_nofile(FD_LIMIT);
    let h = Harness::start_with(quiet_sim_config(), |s| {
        // Descriptors, not admission, run out first.
        s.admission.max_connections = 10_000;
        s.admission.max_unauthenticated = 10_000;
    });
    let gw = h.gateway();
    let addr: SocketAddr = gw.strategy_addr();

    // Open idle connections until the gateway's accept fails. The test and the gateway share
    // the limit: when this process cannot open another socket, a reserved descriptor is given
    // back for the next connect, so that the gateway's accept is the one that finds none.
    let mut reserve: Vec<std::fs::File> = (0..32)
        .map(|_| std::fs::File::open("/dev/null").expect("reserve a descriptor"))
        .collect();
    let mut held = Vec::new();
    let t = Instant::now();
    while gw.accept_errors() == 0 {
        assert!(t.elapsed() < Duration::from_secs(5), "accept never failed");
        match TcpStream::connect(addr) {
            Ok(s) => held.push(s),
            Err(_) => drop(reserve.pop().expect("reserve left")),
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Hold them: accept keeps failing while they are open.
    std::thread::sleep(Duration::from_secs(1));
    let errors = gw.accept_errors();
    let lines = ACCEPT_FAILED_LINES.load(Ordering::Relaxed);
    println!(
        "figures: {} connections held, {errors} accept errors and {lines} \"accept failed\" lines in ~1 s",
        held.len()
    );
    // 1 ms doubling to 1 s: about 10 attempts a second (before: a million and more).
    assert!(errors <= 30, "{errors} accept errors in ~1 s");
    assert!(lines <= 4, "{lines} \"accept failed\" lines in ~1 s");

    // Descriptors back: the gateway serves a session again.
    drop(held);
    drop(reserve);
    let mut s = h.client(1);
    trades(&mut s);
    println!("descriptor exhaustion: ok");
}

/// `[strategy] handshake_timeout_ms`: a connection that never completes Negotiate + Establish
/// gets Terminate (template 8) once the configured time has passed, not before, and is closed.
#[test]
fn the_handshake_timeout_is_configurable() {
    let h = Harness::start_with(quiet_sim_config(), |s| {
        s.limits.handshake_timeout_ms = 300;
    });
    let addr = h.gateway().strategy_addr();
    let t0 = Instant::now();
    let mut idle = TcpStream::connect(addr).expect("connect");
    idle.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("read timeout");
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        match idle.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let elapsed = t0.elapsed();
    assert!(
        elapsed >= Duration::from_millis(300) && elapsed < Duration::from_secs(3),
        "closed after {elapsed:?}"
    );
    // SOFH (6 bytes), then the SBE header: blockLength u16, templateId u16.
    assert!(got.len() >= 10, "{got:?}");
    assert_eq!(
        u16::from_le_bytes([got[8], got[9]]),
        8,
        "Terminate expected: {got:?}"
    );
}

const MEMORY_CHILD_ENV: &str = "BGW_HOSTILE_MEMORY_CHILD";
/// Idle connections in the burst.
const BURST: usize = 2_000;

/// The process's resident set, in KiB.
fn rss_kib() -> u64 {
    gateway::memory::resident_kib().expect("VmRSS")
}

/// Memory follows the connections the gateway holds now, not the most it ever held: an idle
/// connection costs a few KiB (one descriptor, a 4 KiB read buffer; it allocated 128 KiB of buffers), and once a
/// burst is over the gateway gives the freed memory back (`TrimAfterBurst`: the resident size
/// stayed at the peak before). Measured in a child process of its own (RSS is per process).
#[test]
fn idle_connections_cost_little_memory_and_give_it_back() {
    if std::env::var_os(MEMORY_CHILD_ENV).is_some() {
        memory_child();
        return;
    }
    run_in_child(
        "idle_connections_cost_little_memory_and_give_it_back",
        MEMORY_CHILD_ENV,
        "memory: ok",
    );
}

fn memory_child() {
    // Both ends of every connection live in this process.
    let mut hard = 0u64;
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `r` is a valid rlimit that outlives the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } == 0 {
        hard = r.rlim_max;
    }
    let burst = BURST.min(usize::try_from(hard / 2).unwrap_or(0).saturating_sub(200));
    set_nofile(hard);
    let h = Harness::start_with(quiet_sim_config(), |s| {
        s.admission.max_connections = 100_000;
        s.admission.max_unauthenticated = 100_000;
        s.limits.handshake_timeout_ms = 60_000;
    });
    let gw = h.gateway();
    let addr = gw.strategy_addr();
    // A session trades before, during and after each burst (a new session each time: one
    // kept open would miss its keepalives while the burst connects).
    let mut session = 0;
    let mut trade = || {
        session += 1;
        trades(&mut h.client(session));
    };
    trade();
    std::thread::sleep(Duration::from_millis(200));
    let idle_kib = rss_kib();
    let mut rounds = Vec::new();
    for _ in 0..2 {
        let held: Vec<TcpStream> = (0..burst)
            .map(|_| TcpStream::connect(addr).expect("connect"))
            .collect();
        // Every connection accepted and served (the gateway answers a session after them).
        std::thread::sleep(Duration::from_millis(300));
        trade();
        let peak_kib = rss_kib();
        drop(held);
        trade();
        // The trim comes once no connection ended for 1 s (checked every 200 ms).
        std::thread::sleep(Duration::from_millis(1_800));
        rounds.push((peak_kib, rss_kib()));
    }
    let after_kib = rounds.last().map_or(0, |r| r.1);
    let per_conn = rounds
        .iter()
        .map(|r| r.0.saturating_sub(idle_kib))
        .max()
        .unwrap_or(0) as f64
        / burst as f64;
    println!(
        "figures: {burst} idle connections × 2 rounds: RSS idle {idle_kib} KiB, peak/after {rounds:?} KiB, {per_conn:.1} KiB per connection, after/idle {:.3}",
        after_kib as f64 / idle_kib as f64
    );
    assert!(
        per_conn < 32.0,
        "{per_conn:.1} KiB per idle connection (each allocated 128 KiB of buffers before)"
    );
    for (round, &(_, after)) in rounds.iter().enumerate() {
        assert!(
            after as f64 <= idle_kib as f64 * 1.10,
            "round {round}: RSS {after} KiB after the burst, idle {idle_kib} KiB"
        );
    }
    println!("memory: ok");
}
