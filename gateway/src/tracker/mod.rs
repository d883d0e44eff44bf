//! Order tracking on a pinned thread.
//!
//! [`Tracker`] (sans-I/O, in `core`) owns every order's ids and state. [`spawn`] runs it on its
//! own thread, pinned to a core when configured, polling a crossbeam channel with the configured
//! [`IdleStrategy`]. The io thread sends it each trade op right after writing it
//! ([`TrackerInput::Sent`]) and each text frame of the private WebSocket
//! ([`TrackerInput::Frame`]); the tracker parses the frame (simd-json, reused buffers), updates
//! the orders and writes the resulting ExecutionReports straight to the strategy sockets.
//!
//! Where the tracker runs is `[tracker] placement` ([`port`]): by default the io thread runs
//! the same step ([`driver`]) where it would have queued the input, with no hand-off; on its
//! own thread ([`start`] spawns it) it takes its inputs from the queue. Either way the step is
//! the core's [`TrackerDrive`] (the sequence of calls and hand-overs), handing its outputs to
//! the sessions' writers through `sink.rs` (`SessionSink`).

pub use gateway_core::tracker::{
    core, drive, frames, mass, order, reconcile, request, resolve, restore, retention, risk_feed,
    routing,
};
mod driver;
pub mod frame_pool;
mod input;
pub mod port;
mod sink;

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError};

use crate::idle::{IdleStep, Idler};
use crate::metrics::state::MetricsState;
use crate::metrics::SnapshotTx;
use driver::Driver;
pub use gateway_core::tracker::{
    ApplySummary, BatchItem, ClockOffset, Deadlines, ExchangeState, ListDone, ListReport,
    MassCancelEvent, NewOrder, Order, OrderFilter, OrderScope, OrderView, Report, ReportMsg,
    RequestKind, ResolveRequest, Retention, SentBatch, SentRequest, StateSource, Tracker,
    TrackerDrive, TrackerSink, TrackerStats, UnknownCause, OUTCOME_UNKNOWN_CODES,
};
pub(crate) use input::recorded;
pub use input::{ResolveSender, TrackerInput, TrackerSummary, TrackerThreadConfig};

/// Handle to the running tracker thread.
#[derive(Debug)]
pub struct TrackerHandle {
    /// Send inputs here.
    pub tx: Sender<TrackerInput>,
    join: JoinHandle<TrackerSummary>,
}

impl TrackerHandle {
    /// Asks the thread to stop and waits for its summary (`None` if it panicked).
    pub fn shutdown(self) -> Option<TrackerSummary> {
        let _ = self.tx.send(TrackerInput::Shutdown);
        self.join.join().ok()
    }
}

/// How many inputs may wait for the tracker thread. The queue is one preallocated ring
/// (crossbeam's array flavour), so passing an input never allocates (an unbounded channel
/// allocates a block every 31 messages on the sending thread, the io thread's order path); a
/// sender that finds it full waits for the tracker to drain it (back-pressure, nothing is
/// dropped). 16 384 inputs cover every burst the gateway makes (a mass cancel's pushes, a
/// batch's replies) many times over.
pub const INPUT_QUEUE_CAPACITY: usize = 16_384;

/// Starts the tracker thread. Latency snapshots (interval histograms) go to `metrics_tx`;
/// fills and ended orders update `risk` when given. Unknown outcomes are detected but not
/// queried (see [`spawn_recording`]).
pub fn spawn(
    cfg: TrackerThreadConfig,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
) -> std::io::Result<TrackerHandle> {
    spawn_recording(cfg, metrics_tx, risk, None, None)
}

/// [`spawn`], recording every input and output to `recorder` when given (see
/// [`crate::replay`]), and sending the orders whose outcome is unknown to `resolve_tx` (the io
/// thread's resolution driver).
pub fn spawn_recording(
    cfg: TrackerThreadConfig,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
) -> std::io::Result<TrackerHandle> {
    spawn_observed(cfg, metrics_tx, risk, recorder, resolve_tx, None)
}

/// [`spawn_recording`], counting every report written in `observe` (the metrics endpoint's
/// state) and publishing the tracker's counters there every
/// [`crate::metrics::state::PUBLISH_PERIOD`] while idle.
pub fn spawn_observed(
    cfg: TrackerThreadConfig,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
    observe: Option<Arc<MetricsState>>,
) -> std::io::Result<TrackerHandle> {
    let (tx, rx) = crossbeam_channel::bounded(INPUT_QUEUE_CAPACITY);
    let join = std::thread::Builder::new()
        .name("bgw-tracker".into())
        .spawn(move || {
            crate::idle::init_parking();
            if let Some(core) = cfg.core {
                let pinned = core_affinity::set_for_current(core_affinity::CoreId { id: core });
                if !pinned {
                    tracing::warn!(core, "tracker: could not pin to core");
                }
            }
            run(cfg, rx, metrics_tx, risk, recorder, resolve_tx, observe)
        })?;
    Ok(TrackerHandle { tx, join })
}

/// Sets the tracker up where `cfg.placement` says, with [`spawn_observed`]'s arguments: its
/// thread spawned (and the handle that stops it), or a driver the io thread runs
/// ([`port::InlineTracker`]).
pub(crate) fn start(
    cfg: TrackerThreadConfig,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
    observe: Option<Arc<MetricsState>>,
) -> std::io::Result<(Option<TrackerHandle>, port::TrackerSetup)> {
    match cfg.placement {
        port::TrackerPlacement::OwnThread => {
            let h = spawn_observed(cfg, metrics_tx, risk, recorder, resolve_tx, observe)?;
            let tx = h.tx.clone();
            Ok((Some(h), port::TrackerSetup::Thread(tx)))
        }
        port::TrackerPlacement::IoThread => {
            let d = Driver::new(&cfg, metrics_tx, risk, recorder, resolve_tx, observe);
            Ok((None, port::TrackerSetup::Inline(Box::new(d))))
        }
    }
}

fn run(
    cfg: TrackerThreadConfig,
    rx: Receiver<TrackerInput>,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
    observe: Option<Arc<MetricsState>>,
) -> TrackerSummary {
    let mut d = Driver::new(&cfg, metrics_tx, risk, recorder, resolve_tx, observe);
    let mut idler = Idler::new(cfg.idle);
    let mut running = true;
    while running {
        match rx.try_recv() {
            Ok(input) => {
                idler.reset();
                running = d.handle_input(input);
                continue;
            }
            Err(TryRecvError::Disconnected) => break,
            Err(TryRecvError::Empty) => {}
        }
        // Idle: watchdog, flush backlogs, send a latency snapshot when due, then wait.
        d.idle_work();
        if let IdleStep::Park(timeout) = idler.idle() {
            match rx.recv_timeout(timeout) {
                Ok(input) => {
                    idler.reset();
                    running = d.handle_input(input);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }
    d.finish()
}

/// Upper bound on how long [`TrackerHandle::shutdown`] may take when the thread is parked.
pub const SHUTDOWN_LATENCY: Duration = crate::idle::PARK_TIMEOUT;
