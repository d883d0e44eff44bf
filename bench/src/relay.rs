//! Same-run baseline: a raw TCP relay with the gateway's topology and no protocol work.
//!
//! `strategy → relay → echo → relay → strategy`, every hop a loopback TCP connection with
//! TCP_NODELAY, frames carrying a SOFH header (4-byte big-endian total length + 2-byte
//! encoding type `0xEB50`). The relay runs like the gateway's I/O thread: one thread with a tokio
//! current-thread runtime, one task per direction, frame boundaries found from the SOFH length
//! and each whole frame written with one `write`. The echo ("exchange") and the strategy are
//! blocking std sockets. The strategy measures the round trip of each request into an HDR
//! histogram (ns), one request in flight at a time.
//!
//! The gateway's own round trip measured in the same run, divided by this baseline, gives the
//! cost of the gateway's protocol work (DESIGN.md §6: ratios measured side by side).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::Instant;

use hdrhistogram::Histogram;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// SOFH header length, bytes.
pub const SOFH_LEN: usize = 6;
/// SOFH encoding type of SBE little-endian messages.
pub const SBE_LE_ENCODING: u16 = 0xEB50;
/// Largest frame the relay forwards, bytes (the gateway's default `max_frame_len`).
pub const MAX_FRAME_LEN: usize = 4096;

/// Frame sizes of the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelayConfig {
    /// Strategy → exchange frame length including the SOFH header, bytes (≥ 6). Default 64
    /// (about a NewOrderSingle).
    pub request_len: usize,
    /// Exchange → strategy frame length including the SOFH header, bytes (≥ 6). Default 200
    /// (about an ExecutionReport).
    pub reply_len: usize,
}

impl Default for RelayConfig {
    fn default() -> Self {
        RelayConfig {
            request_len: 64,
            reply_len: 200,
        }
    }
}

/// Runs `warmup` unrecorded then `n` recorded round trips with [`RelayConfig::default`] and
/// returns the strategy-side round-trip histogram (ns, 1 ns..60 s, 3 significant digits).
///
/// Panics if the loopback sockets cannot be set up or a peer fails (use
/// [`try_run_relay_baseline`] to get the error instead).
pub fn run_relay_baseline(n: usize, warmup: usize) -> Histogram<u64> {
    match try_run_relay_baseline(&RelayConfig::default(), n, warmup) {
        Ok(h) => h,
        Err(e) => panic!("relay baseline failed: {e}"),
    }
}

/// [`run_relay_baseline`] with explicit frame sizes, returning I/O errors.
///
/// Errors: `InvalidInput` if a frame length is outside 6..=[`MAX_FRAME_LEN`]; any socket error
/// of the strategy, the relay or the echo.
pub fn try_run_relay_baseline(
    cfg: &RelayConfig,
    n: usize,
    warmup: usize,
) -> io::Result<Histogram<u64>> {
    for len in [cfg.request_len, cfg.reply_len] {
        if !(SOFH_LEN..=MAX_FRAME_LEN).contains(&len) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("frame length {len} not in {SOFH_LEN}..={MAX_FRAME_LEN}"),
            ));
        }
    }

    // The "exchange": answers every frame with a reply_len frame.
    let echo_listener = TcpListener::bind(("127.0.0.1", 0))?;
    let echo_addr = echo_listener.local_addr()?;
    let reply_len = cfg.reply_len;
    let echo = thread::Builder::new()
        .name("relay-echo".into())
        .spawn(move || run_echo(&echo_listener, reply_len))?;

    // The relay: tokio current-thread runtime on its own thread, like the gateway's I/O thread.
    let relay_listener = TcpListener::bind(("127.0.0.1", 0))?;
    let relay_addr = relay_listener.local_addr()?;
    let relay = thread::Builder::new()
        .name("relay-io".into())
        .spawn(move || run_relay(relay_listener, echo_addr))?;

    let result = run_strategy(relay_addr, cfg.request_len, n, warmup);

    // The strategy's socket is closed by now: the relay and the echo see EOF and finish.
    let relay_result = relay
        .join()
        .map_err(|_| io::Error::other("relay thread panicked"))?;
    let echo_result = echo
        .join()
        .map_err(|_| io::Error::other("echo thread panicked"))?;
    let hist = result?;
    relay_result?;
    echo_result?;
    Ok(hist)
}

/// Writes a SOFH header for a frame of `total_len` bytes into `out[..6]`.
fn write_sofh(out: &mut [u8], total_len: usize) {
    let len = u32::try_from(total_len).unwrap_or(u32::MAX).to_be_bytes();
    let enc = SBE_LE_ENCODING.to_be_bytes();
    for (dst, src) in out.iter_mut().zip(len.iter().chain(enc.iter())) {
        *dst = *src;
    }
}

/// A frame of `len` bytes: SOFH header then a repeating payload.
pub(crate) fn make_frame(len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    write_sofh(&mut f, len);
    f
}

/// `Ok(None)`: need more bytes; `Ok(Some(len))`: a whole frame of `len` bytes is at the start.
pub(crate) fn peek_frame(buf: &[u8]) -> io::Result<Option<usize>> {
    let Some(header) = buf.get(..SOFH_LEN) else {
        return Ok(None);
    };
    let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
    let enc = u16::from_be_bytes([header[4], header[5]]);
    if enc != SBE_LE_ENCODING || !(SOFH_LEN..=MAX_FRAME_LEN).contains(&len) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("bad SOFH header: len {len}, encoding {enc:#06x}"),
        ));
    }
    Ok((buf.len() >= len).then_some(len))
}

/// Reads one whole frame into `buf` (blocking). `Ok(false)` on a clean EOF before a frame.
fn read_frame(stream: &mut TcpStream, buf: &mut [u8]) -> io::Result<bool> {
    let (header, rest) = buf.split_at_mut(SOFH_LEN);
    match stream.read_exact(header) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
        Err(e) => return Err(e),
    }
    let len = match peek_frame(header) {
        Ok(_) => u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize,
        Err(e) => return Err(e),
    };
    let body = rest
        .get_mut(..len - SOFH_LEN)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "frame too long"))?;
    stream.read_exact(body)?;
    Ok(true)
}

fn run_echo(listener: &TcpListener, reply_len: usize) -> io::Result<()> {
    let (mut stream, _) = listener.accept()?;
    stream.set_nodelay(true)?;
    let reply = make_frame(reply_len);
    let mut buf = vec![0u8; MAX_FRAME_LEN];
    while read_frame(&mut stream, &mut buf)? {
        stream.write_all(&reply)?;
    }
    Ok(())
}

/// The baseline strategy: `warmup` unrecorded then `n` recorded round trips of a
/// `request_len`-byte frame through `relay`, one in flight (also the floor's, [`crate::floor`]).
pub(crate) fn run_strategy(
    relay: SocketAddr,
    request_len: usize,
    n: usize,
    warmup: usize,
) -> io::Result<Histogram<u64>> {
    let mut hist = gateway::metrics::new_histogram();
    let mut stream = TcpStream::connect(relay)?;
    stream.set_nodelay(true)?;
    let request = make_frame(request_len);
    let mut buf = vec![0u8; MAX_FRAME_LEN];
    for i in 0..warmup.saturating_add(n) {
        let t0 = Instant::now();
        stream.write_all(&request)?;
        if !read_frame(&mut stream, &mut buf)? {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "relay closed the connection",
            ));
        }
        let ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if i >= warmup {
            hist.saturating_record(ns);
        }
    }
    Ok(hist)
}

fn run_relay(listener: TcpListener, exchange: SocketAddr) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    rt.block_on(async move {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let upstream = tokio::net::TcpStream::connect(exchange).await?;
        upstream.set_nodelay(true)?;
        let (strategy, _) = listener.accept().await?;
        strategy.set_nodelay(true)?;
        let (s_read, s_write) = strategy.into_split();
        let (x_read, x_write) = upstream.into_split();
        let outbound = forward(s_read, x_write);
        let inbound = forward(x_read, s_write);
        let (a, b) = tokio::join!(outbound, inbound);
        a.and(b)
    })
}

/// Copies whole SOFH frames from `r` to `w`, one `write_all` per frame, until EOF on `r`; then
/// drops `w` (closing that direction).
async fn forward(
    mut r: tokio::net::tcp::OwnedReadHalf,
    mut w: tokio::net::tcp::OwnedWriteHalf,
) -> io::Result<()> {
    let mut buf = vec![0u8; 16 * MAX_FRAME_LEN];
    let mut filled = 0usize;
    loop {
        let mut start = 0usize;
        while let Some(len) = peek_frame(buf.get(start..filled).unwrap_or_default())? {
            let frame = buf
                .get(start..start + len)
                .ok_or_else(|| io::Error::other("frame bounds"))?;
            w.write_all(frame).await?;
            start += len;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        let free = buf.get_mut(filled..).unwrap_or_default();
        let n = r.read(free).await?;
        if n == 0 {
            w.shutdown().await?;
            return Ok(());
        }
        filled += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_n_samples() {
        let h = run_relay_baseline(200, 20);
        assert_eq!(h.len(), 200);
        assert!(h.min() > 0);
    }

    #[test]
    fn other_sizes() {
        let cfg = RelayConfig {
            request_len: SOFH_LEN,
            reply_len: MAX_FRAME_LEN,
        };
        let h = try_run_relay_baseline(&cfg, 10, 0).expect("run");
        assert_eq!(h.len(), 10);
    }

    #[test]
    fn bad_sizes_are_refused() {
        let cfg = RelayConfig {
            request_len: 5,
            reply_len: 200,
        };
        assert!(try_run_relay_baseline(&cfg, 1, 0).is_err());
    }

    #[test]
    fn sofh_round_trip() {
        let f = make_frame(64);
        assert_eq!(peek_frame(&f).expect("ok"), Some(64));
        assert_eq!(peek_frame(&f[..10]).expect("ok"), None);
        let mut bad = f.clone();
        bad[4] = 0;
        assert!(peek_frame(&bad).is_err());
    }
}
