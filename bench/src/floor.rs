//! Same-run floor: the best any gateway could do in this topology. It pays the same hops as
//! the gateway (strategy → loopback TCP → a relay → TLS WebSocket → the venue, and back) and
//! none of the gateway's protocol work.
//!
//! `strategy → relay → TLS WebSocket → simulator → relay → strategy`: the strategy writes a
//! SOFH frame (64 bytes, about a NewOrderSingle) and waits for one back (200 bytes, about an
//! ExecutionReport), one request in flight, as [`crate::relay`]'s strategy does. The relay
//! runs like the gateway's io thread (one thread, a tokio current-thread runtime), logged in
//! to the simulator's private WebSocket with its own account ([`FLOOR_ACCOUNT`]) and
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

/// The simulator account the floor trades on (UID, API key, secret, passphrase): not the
/// gateway's, so neither sees the other's pushes. [`add_floor_account`] adds it.
pub const FLOOR_ACCOUNT: (&str, &str, &str, &str) =
    ("1000000077", "bg_floor_key", "floor-secret", "floor-pass");

/// Adds [`FLOOR_ACCOUNT`] to a simulator configuration: a copy of its first account (the same
/// balances) under the floor's UID and key.
pub fn add_floor_account(cfg: &mut sim::SimConfig) {
    let Some(first) = cfg.accounts.first() else {
        return;
    };
    let (uid, key, secret, pass) = FLOOR_ACCOUNT;
    let mut a = first.clone();
    a.uid = uid.into();
    a.api_key = key.into();
    a.secret = secret.into();
    a.passphrase = pass.into();
    a.api_keys.clear();
    a.master_uid = None;
    cfg.accounts.push(a);
}

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
        let (mut sink, mut source, _early) = ws.split();
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
            add_floor_account(&mut sim_cfg);
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
