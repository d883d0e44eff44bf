//! Same-run floor: the best any gateway could do in this topology. It pays the same hops as
//! the gateway (strategy → loopback TCP → a relay → TLS WebSocket → the venue, and back) and
//! none of the gateway's protocol work.
//!
//! `strategy → relay → TLS WebSocket → simulator → relay → strategy`: the strategy writes a
//! SOFH frame (64 bytes, about a NewOrderSingle) and waits for one back (200 bytes, about an
//! ExecutionReport), one request in flight, as [`crate::relay`]'s strategy does. The relay
//! runs like the gateway's io thread (one thread, a tokio current-thread runtime), logged in
//! to the simulator's private WebSocket with its own account ([`crate::rig::FLOOR_ACCOUNT`]) and
//! subscribed to the `order` topic. For the k-th strategy frame it sends the k-th of a list
//! of trade ops rendered before the run (no encoding on the path: a resting limit buy far below
//! the market, then its cancel by clientOid, alternating, as the `load` bench's sessions do),
//! and for each `order` push it reads it writes a pre-made 200-byte frame back. The gateway's
//! first report of a request is made from that push too (`first_push` then `push_to_report`),
//! so both paths answer on the same event. The venue's reply frame is read and dropped.
//!
//! Design reference: DESIGN.md §6 (baselines measured in the same run); issue 24 item 1.

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::thread;
use std::time::SystemTime;

use futures_util::{SinkExt, StreamExt};
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::{connect_private_with, ConnectOptions, ExchangeCredentials};
use hdrhistogram::Histogram;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tungstenite::{Message, Utf8Bytes};

use crate::relay::{make_frame, peek_frame, run_strategy, MAX_FRAME_LEN};
use crate::rig::FLOOR_ACCOUNT;

/// Where the floor's relay connects, and what it trades.
#[derive(Debug, Clone)]
pub struct FloorConfig {
    /// The simulator's private WebSocket URL (`wss://…/v3/ws/private`).
    pub ws_private_url: String,
    /// The simulator's CA certificate (PEM).
    pub ca_pem: String,
    /// Symbol of the resting orders (usdt-futures).
    pub symbol: String,
    /// Their limit price: far below the market, so they rest (a decimal on the symbol's tick).
    pub price: String,
    /// Their quantity (a decimal on the symbol's lot).
    pub qty: String,
}

impl FloorConfig {
    /// The floor against a rig's simulator, trading the demo's resting limit: the first
    /// usdt-futures market, at 0.9 × its mid, the market's order size.
    ///
    /// Errors: the rig has no usdt-futures market.
    pub fn for_rig(rig: &crate::rig::Rig) -> Result<FloorConfig, String> {
        let m = rig
            .markets
            .iter()
            .find(|m| m.category == codec::sbe::Category::UsdtFutures)
            .ok_or("no usdt-futures market for the floor")?;
        Ok(FloorConfig {
            ws_private_url: rig.ws_private_url.clone(),
            ca_pem: rig.ca_pem.clone(),
            symbol: m.symbol.as_str().to_string(),
            price: crate::rig::price_at(m, "0.9").to_string(),
            qty: m.qty.to_string(),
        })
    }
}

/// The trade ops of a run, rendered before it: op `i` (from 0) places `fl<i>` when `i` is
/// even and cancels `fl<i-1>` when it is odd. Request ids are `i + 1`.
pub fn render_ops(cfg: &FloorConfig, count: usize) -> Vec<Utf8Bytes> {
    (0..count)
        .map(|i| {
            let text = if i % 2 == 0 {
                format!(
                    r#"{{"op":"trade","id":"{}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"{}","side":"buy","orderType":"limit","price":"{}","qty":"{}","timeInForce":"gtc","clientOid":"fl{i}"}}]}}"#,
                    i + 1,
                    cfg.symbol,
                    cfg.price,
                    cfg.qty
                )
            } else {
                format!(
                    r#"{{"op":"trade","id":"{}","category":"usdt-futures","topic":"cancel-order","args":[{{"symbol":"{}","clientOid":"fl{}"}}]}}"#,
                    i + 1,
                    cfg.symbol,
                    i - 1
                )
            };
            Utf8Bytes::from(text)
        })
        .collect()
}

/// Runs `warmup` unrecorded then `n` recorded round trips through the floor relay and returns
/// the strategy-side round-trip histogram (ns, 1 ns..60 s, 3 significant digits). `warmup + n`
/// is rounded up to an even count so that every order placed is cancelled.
///
/// Errors: the loopback sockets, the TLS WebSocket connect / login / subscribe, or a peer
/// failed; a venue that answers an op with an error frame instead of a push stalls the run,
/// so the relay gives up after 10 s without a push (`TimedOut`).
pub fn run_floor(cfg: &FloorConfig, n: usize, warmup: usize) -> io::Result<Histogram<u64>> {
    let total = (warmup + n).div_ceil(2) * 2;
    let ops = render_ops(cfg, total);
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let addr = listener.local_addr()?;
    let relay_cfg = cfg.clone();
    let relay = thread::Builder::new()
        .name("floor-io".into())
        .spawn(move || run_relay(listener, &relay_cfg, ops))?;
    // The relay connects to the venue before it accepts: the strategy's connect waits in the
    // listener's backlog meanwhile, and its first round trip starts after the accept.
    let result = run_strategy(addr, 64, total - warmup.min(total), warmup.min(total));
    let relay_result = relay
        .join()
        .map_err(|_| io::Error::other("floor relay thread panicked"))?;
    let hist = result?;
    relay_result?;
    Ok(hist)
}

fn run_relay(listener: TcpListener, cfg: &FloorConfig, ops: Vec<Utf8Bytes>) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let (mut sink, mut source) = connect_venue(cfg).await?;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let (strategy, _): (tokio::net::TcpStream, SocketAddr) = listener.accept().await?;
        strategy.set_nodelay(true)?;
        let (mut s_read, mut s_write) = strategy.into_split();
        let reply = make_frame(200);
        let mut buf = vec![0u8; 16 * MAX_FRAME_LEN];
        let mut filled = 0usize;
        let mut next_op = 0usize;
        let patience = std::time::Duration::from_secs(10);
        loop {
            tokio::select! {
                read = s_read.read(buf.get_mut(filled..).unwrap_or_default()) => {
                    let got = read?;
                    if got == 0 {
                        break;
                    }
                    filled += got;
                    let mut start = 0usize;
                    while let Some(len) = peek_frame(buf.get(start..filled).unwrap_or_default())? {
                        let op = ops.get(next_op).cloned().ok_or_else(|| {
                            io::Error::other("the strategy sent more frames than ops rendered")
                        })?;
                        next_op += 1;
                        sink.send(Message::Text(op))
                            .await
                            .map_err(|e| io::Error::other(format!("floor send: {e}")))?;
                        start += len;
                    }
                    buf.copy_within(start..filled, 0);
                    filled -= start;
                }
                msg = tokio::time::timeout(patience, source.next()) => {
                    let msg = msg.map_err(|_| {
                        io::Error::new(io::ErrorKind::TimedOut, "floor: no frame from the venue for 10 s")
                    })?;
                    match msg {
                        Some(Ok(Message::Text(t))) => {
                            if is_order_push(t.as_str()) {
                                s_write.write_all(&reply).await?;
                            }
                        }
                        Some(Ok(_)) => {}
                        Some(Err(e)) => return Err(io::Error::other(format!("floor read: {e}"))),
                        None => return Err(io::Error::other("the venue closed the floor's WebSocket")),
                    }
                }
            }
        }
        let _ = sink.close().await;
        Ok(())
    })
}

/// The open-loop floor (the `load` bench's baseline): `sessions` strategy connections through
/// one relay thread and one TLS WebSocket to the simulator, any number of requests in flight.
///
/// A strategy frame is [`LOAD_FRAME_LEN`] bytes with its session (u16 LE, bytes 6..8) and its
/// arrival number k (u64 LE, bytes 8..16) after the SOFH header. The relay turns it into a
/// place (k even, clientOid `f<ss><kkkkkkkkkk>`) or the cancel of arrival k − 1 (k odd), by
/// writing the digits into a template rendered at start (no formatting on the path), and sends
/// it; the `order` push for that clientOid is answered with a [`LOAD_REPLY_LEN`]-byte frame to
/// the session's connection carrying k at the same place.
#[derive(Debug)]
pub struct FloorLoad {
    /// Where the strategy connections go.
    pub addr: SocketAddr,
    relay: thread::JoinHandle<io::Result<()>>,
}

/// Length of an open-loop floor request frame, bytes.
pub const LOAD_FRAME_LEN: usize = 64;
/// Length of an open-loop floor answer frame, bytes.
pub const LOAD_REPLY_LEN: usize = 200;

/// Writes session `s` and arrival `k` into a floor frame (`frame.len() ≥ 16`).
pub fn stamp(frame: &mut [u8], s: u16, k: u64) {
    if let Some(dst) = frame.get_mut(6..8) {
        dst.copy_from_slice(&s.to_le_bytes());
    }
    if let Some(dst) = frame.get_mut(8..16) {
        dst.copy_from_slice(&k.to_le_bytes());
    }
}

/// Reads the session and arrival a floor frame carries.
pub fn stamped(frame: &[u8]) -> Option<(u16, u64)> {
    let s = u16::from_le_bytes(frame.get(6..8)?.try_into().ok()?);
    let k = u64::from_le_bytes(frame.get(8..16)?.try_into().ok()?);
    Some((s, k))
}

/// A trade op template with fixed-width digit fields to write into.
struct Template {
    text: Vec<u8>,
    /// Offsets of the `id` digits (10), the session digits (2) and the arrival digits (10).
    id_at: usize,
    oid_at: usize,
}

impl Template {
    fn new(text: String) -> Option<Template> {
        let id_at = text.find(r#""id":""#)? + 6;
        let oid_at = text.find(r#""clientOid":"f"#)? + 14;
        Some(Template {
            text: text.into_bytes(),
            id_at,
            oid_at,
        })
    }

    /// The op for session `s`, arrival `k` (the order's clientOid names arrival `order_k`).
    fn render(&mut self, s: u16, k: u64, order_k: u64) -> Option<Utf8Bytes> {
        write_digits(self.text.get_mut(self.id_at..self.id_at + 10)?, k);
        write_digits(
            self.text.get_mut(self.oid_at..self.oid_at + 2)?,
            u64::from(s),
        );
        write_digits(
            self.text.get_mut(self.oid_at + 2..self.oid_at + 12)?,
            order_k,
        );
        Utf8Bytes::try_from(self.text.clone()).ok()
    }
}

/// Writes `v` as zero-padded decimal digits filling `out` (the low digits when it is wider).
fn write_digits(out: &mut [u8], mut v: u64) {
    for b in out.iter_mut().rev() {
        *b = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

/// Reads the session and arrival from a floor clientOid in a push (`"clientOid":"f<ss><k×10>"`).
fn push_target(text: &str) -> Option<(u16, u64)> {
    let at = text.find(r#""clientOid":"f"#)? + 14;
    let digits = text.get(at..at + 12)?;
    let s = digits.get(..2)?.parse().ok()?;
    let k = digits.get(2..)?.parse().ok()?;
    Some((s, k))
}

impl FloorLoad {
    /// Connects the relay to the simulator (login, `order` subscription) and waits for
    /// `sessions` strategy connections (at most 100) on the returned address.
    ///
    /// Errors: TLS or WebSocket set-up, or the listener, as `io::Error`.
    pub fn start(cfg: &FloorConfig, sessions: usize) -> io::Result<FloorLoad> {
        if sessions == 0 || sessions > 100 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the floor takes 1 to 100 sessions",
            ));
        }
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let place = Template::new(format!(
            r#"{{"op":"trade","id":"0000000000","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"{}","side":"buy","orderType":"limit","price":"{}","qty":"{}","timeInForce":"gtc","clientOid":"f000000000000"}}]}}"#,
            cfg.symbol, cfg.price, cfg.qty
        ))
        .ok_or_else(|| io::Error::other("place template"))?;
        let cancel = Template::new(format!(
            r#"{{"op":"trade","id":"0000000000","category":"usdt-futures","topic":"cancel-order","args":[{{"symbol":"{}","clientOid":"f000000000000"}}]}}"#,
            cfg.symbol
        ))
        .ok_or_else(|| io::Error::other("cancel template"))?;
        let cfg = cfg.clone();
        let relay = thread::Builder::new()
            .name("floor-io".into())
            .spawn(move || run_load_relay(listener, &cfg, sessions, place, cancel))?;
        Ok(FloorLoad { addr, relay })
    }

    /// Waits for the relay to end (after every strategy connection closed).
    ///
    /// Errors: the relay's error.
    pub fn finish(self) -> io::Result<()> {
        self.relay
            .join()
            .map_err(|_| io::Error::other("floor relay thread panicked"))?
    }
}

fn run_load_relay(
    listener: TcpListener,
    cfg: &FloorConfig,
    sessions: usize,
    mut place: Template,
    mut cancel: Template,
) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let (mut sink, mut source) = connect_venue(cfg).await?;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let mut writers = Vec::with_capacity(sessions);
        let (ops_tx, mut ops_rx) = tokio::sync::mpsc::unbounded_channel::<(u16, u64)>();
        let local = tokio::task::LocalSet::new();
        for _ in 0..sessions {
            let (conn, _) = listener.accept().await?;
            conn.set_nodelay(true)?;
            let (mut r, w) = conn.into_split();
            writers.push(w);
            let tx = ops_tx.clone();
            // Each connection's frames, in order, to the one writer below.
            local.spawn_local(async move {
                let mut buf = vec![0u8; 16 * MAX_FRAME_LEN];
                let mut filled = 0usize;
                loop {
                    let got = match r.read(buf.get_mut(filled..).unwrap_or_default()).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    filled += got;
                    let mut start = 0usize;
                    while let Ok(Some(len)) = peek_frame(buf.get(start..filled).unwrap_or_default()) {
                        if let Some(sk) = buf.get(start..start + len).and_then(stamped) {
                            let _ = tx.send(sk);
                        }
                        start += len;
                    }
                    buf.copy_within(start..filled, 0);
                    filled -= start;
                }
            });
        }
        drop(ops_tx);
        let mut reply = make_frame(LOAD_REPLY_LEN);
        local
            .run_until(async move {
                loop {
                    tokio::select! {
                        op = ops_rx.recv() => {
                            // Every strategy connection closed: the run is over.
                            let Some((s, k)) = op else { break };
                            let text = if k % 2 == 0 {
                                place.render(s, k, k)
                            } else {
                                cancel.render(s, k, k - 1)
                            };
                            let Some(text) = text else { continue };
                            sink.send(Message::Text(text))
                                .await
                                .map_err(|e| io::Error::other(format!("floor send: {e}")))?;
                        }
                        msg = source.next() => {
                            match msg {
                                Some(Ok(Message::Text(t))) => {
                                    let t = t.as_str();
                                    if !is_order_push(t) {
                                        continue;
                                    }
                                    let Some((s, order_k)) = push_target(t) else { continue };
                                    // A place's push answers arrival k, a cancel's push k + 1.
                                    let k = if t.contains(r#""orderStatus":"cancelled""#) {
                                        order_k + 1
                                    } else {
                                        order_k
                                    };
                                    if let Some(w) = writers.get_mut(usize::from(s)) {
                                        stamp(&mut reply, s, k);
                                        w.write_all(&reply).await?;
                                    }
                                }
                                Some(Ok(_)) => {}
                                Some(Err(e)) => return Err(io::Error::other(format!("floor read: {e}"))),
                                None => return Err(io::Error::other("the venue closed the floor's WebSocket")),
                            }
                        }
                    }
                }
                let _ = sink.close().await;
                Ok(())
            })
            .await
    })
}

/// The relay's WebSocket to the venue: TLS with the simulator's CA, logged in as
/// [`FLOOR_ACCOUNT`], subscribed to `order` (what the gateway's primary link does).
///
/// Errors: TLS set-up, connect, login or subscribe, as `io::Error`.
async fn connect_venue(
    cfg: &FloorConfig,
) -> io::Result<(
    gateway::exchange::ws::WsSink,
    gateway::exchange::ws::WsSource,
)> {
    let tls = gateway::exchange::tls::client_config(Some(&cfg.ca_pem))
        .map_err(|e| io::Error::other(format!("floor TLS: {e}")))?;
    let (_, key, secret, pass) = FLOOR_ACCOUNT;
    let creds = ExchangeCredentials {
        api_key: key.into(),
        secret: Secret::new(secret),
        passphrase: Secret::new(pass),
    };
    let opts = ConnectOptions {
        topics: vec!["order".into()],
        ..ConnectOptions::default()
    };
    let ws = connect_private_with(&cfg.ws_private_url, &tls, &creds, SystemTime::now(), &opts)
        .await
        .map_err(|e| io::Error::other(format!("floor WebSocket: {e}")))?;
    let (sink, source, _early) = ws.split();
    Ok((sink, source))
}

/// True for an `order` topic push (`{"action":…,"arg":{…"topic":"order"},"data":[…]}`), not
/// a trade reply (`{"event":"trade",…}`) or anything else. A prefix check: no parsing on the
/// path.
fn is_order_push(text: &str) -> bool {
    text.starts_with(r#"{"action":"#) && text.contains(r#""topic":"order""#)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> FloorConfig {
        FloorConfig {
            ws_private_url: String::new(),
            ca_pem: String::new(),
            symbol: "BTCUSDT".into(),
            price: "30000".into(),
            qty: "0.001".into(),
        }
    }

    #[test]
    fn ops_alternate_a_place_and_its_cancel() {
        let ops = render_ops(&cfg(), 4);
        assert_eq!(ops.len(), 4);
        assert!(ops[0].as_str().contains(r#""topic":"place-order""#));
        assert!(ops[0].as_str().contains(r#""clientOid":"fl0""#));
        assert!(ops[1].as_str().contains(r#""topic":"cancel-order""#));
        assert!(ops[1].as_str().contains(r#""clientOid":"fl0""#));
        assert!(ops[3].as_str().contains(r#""clientOid":"fl2""#));
        for (i, op) in ops.iter().enumerate() {
            let v: serde_json::Value = serde_json::from_str(op.as_str()).expect("JSON");
            assert_eq!(v["id"], (i + 1).to_string());
        }
    }

    #[test]
    fn only_order_pushes_answer() {
        assert!(is_order_push(
            r#"{"action":"snapshot","arg":{"instType":"UTA","topic":"order"},"data":[]}"#
        ));
        assert!(!is_order_push(
            r#"{"action":"snapshot","arg":{"instType":"UTA","topic":"fill"},"data":[]}"#
        ));
        assert!(!is_order_push(
            r#"{"event":"trade","id":"1","topic":"place-order","args":[]}"#
        ));
    }

    /// The whole floor against the real simulator (TLS, both venues): every round trip comes
    /// back, and every order placed was cancelled.
    #[test]
    fn round_trips_through_the_simulator_over_tls() {
        for venue in [sim::config::VenueMode::Full, sim::config::VenueMode::Fast] {
            let mut sim_cfg = sim::SimConfig::demo();
            sim_cfg.liquidity.symbols.clear();
            sim_cfg.venue = venue;
            crate::rig::add_floor_account(&mut sim_cfg);
            let rt = crate::rig::sim_runtime().expect("runtime");
            let sim = rt.block_on(sim::Sim::start(sim_cfg)).expect("simulator");
            let cfg = FloorConfig {
                ws_private_url: sim.ws_private_url(),
                ca_pem: sim.ca_cert_pem(),
                ..cfg()
            };
            let h = run_floor(&cfg, 100, 10).expect("floor");
            assert_eq!(h.len(), 100);
            let stats = sim.stats();
            assert_eq!(stats.orders_placed, 55, "{venue:?}");
            assert_eq!(stats.orders_cancelled, 55, "{venue:?}");
            rt.block_on(sim.shutdown());
        }
    }
}
