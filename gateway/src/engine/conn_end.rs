//! How a strategy connection the gateway ends with a Terminate (a scheduled rollover's, or a
//! cut-off for its backlog) is closed: gracefully, by the core's steps
//! ([`gateway_core::session::epoch_end`]), so that no reset drops what the strategy had not
//! read yet.

use std::io::{ErrorKind, Read};
use std::time::Duration;

use tokio::io::unix::AsyncFd;

use crate::metrics::now_ns;
use crate::session::out::{SessionOut, SharedSocket, DRAIN_GRACE_MS};
use gateway_core::session::epoch_end::{EpochEnd, EpochEndStep};

/// A connection the gateway ends with a Terminate (a scheduled rollover's, or a cut-off for
/// its backlog): written out, its write half shut down, then read (and discarded) until the
/// strategy closes its side or the grace ends, and only then closed, so that no reset drops
/// what the strategy had not read yet (the steps are the core's, [`EpochEnd`]). Returns
/// [`SessionOut::end_drain`]'s answer for a cut-off: whether the Terminate was written.
pub(super) async fn end_gracefully(
    out: &SessionOut,
    reader: &AsyncFd<SharedSocket>,
    mut end: EpochEnd,
) -> Option<bool> {
    let mut peer_closed = false;
    let mut scratch = [0u8; 4096];
    // A new connection of the session may attach meanwhile: the writer's state is then its.
    let ours = || out.holds(reader.get_ref());
    loop {
        let unwritten = ours() && out.is_draining();
        match end.step(now_ns(), unwritten, peer_closed) {
            EpochEndStep::Close => break,
            EpochEndStep::ShutdownWrite => {
                let _ = reader.get_ref().shutdown(std::net::Shutdown::Write);
            }
            EpochEndStep::Flush { until_ns } => {
                out.flush();
                peer_closed |= discard_until(reader, &mut scratch, until_ns).await;
            }
            EpochEndStep::Read { until_ns } => {
                peer_closed |= discard_until(reader, &mut scratch, until_ns).await;
            }
        }
    }
    if !ours() {
        return None;
    }
    let ended = out.end_drain();
    tracing::debug!(session = out.session_id(), "ended connection closed");
    ended
}

/// Waits for input until monotonic `until_ns` and discards what is there; true once the
/// strategy closed its side (end of stream, or an error).
async fn discard_until(reader: &AsyncFd<SharedSocket>, scratch: &mut [u8], until_ns: u64) -> bool {
    let wait = Duration::from_nanos(until_ns.saturating_sub(now_ns()));
    let Ok(ready) = tokio::time::timeout(wait, reader.readable()).await else {
        return false;
    };
    let Ok(mut guard) = ready else {
        return true;
    };
    loop {
        match guard.try_io(|s| (&**s.get_ref()).read(scratch)) {
            Ok(Ok(0)) => return true,
            Ok(Ok(_)) => continue,
            Ok(Err(e)) if e.kind() == ErrorKind::Interrupted => continue,
            Ok(Err(_)) => return true,
            Err(_would_block) => return false,
        }
    }
}

/// Logs how a connection cut off for its backlog ended: given up to [`DRAIN_GRACE_MS`] to
/// read the rest of its last frame and the Terminate (`ended`: [`SessionOut::end_drain`]).
pub(super) fn log_cut_off(out: &SessionOut, ended: Option<bool>) {
    match ended {
        Some(true) => tracing::warn!(
            session = out.session_id(),
            "strategy cut off for its backlog: Terminate delivered, connection closed"
        ),
        Some(false) => tracing::warn!(
            session = out.session_id(),
            grace_ms = DRAIN_GRACE_MS,
            "strategy cut off for its backlog: it did not read the Terminate in time, connection closed"
        ),
        None => {}
    }
}
