//! Where the io thread hands the tracker its inputs: the tracker's own thread (a crossbeam
//! queue, [`super::spawn`]) or the io thread itself ([`InlineTracker`], `[tracker] placement =
//! "io_thread"`).
//!
//! On its own thread the tracker takes work off the io thread, but every hand-off to a parked
//! tracker is a cross-thread wake-up (a futex wake on the io thread, then 20-25 µs before the
//! tracker runs on this 2-vCPU machine: `shared/reference/latency-on-this-machine.md`), paid
//! twice per order (the `Sent` after the write, the push that makes the report). Inline, the
//! io thread runs the tracker's step right where it would have queued the input: no queue, no
//! wake-up, the same calls in the same order (the queue was FIFO and had one producer).
//! Issue 24 item 4/5: the figures are in the README's Latency section.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use crossbeam_channel::Sender;

use super::driver::Driver;
pub use super::input::TrackerPlacement;
use super::input::{TrackerInput, TrackerSummary};

/// The tracker is gone (its thread ended, or the inline tracker finished).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackerGone;

/// The io thread's handle to the tracker (cloned into its tasks).
#[derive(Clone)]
pub enum TrackerTx {
    /// The tracker's thread, through its input queue.
    Thread(Sender<TrackerInput>),
    /// The tracker on this (the io) thread.
    Inline(Rc<InlineTracker>),
}

impl std::fmt::Debug for TrackerTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrackerTx::Thread(_) => f.write_str("TrackerTx::Thread"),
            TrackerTx::Inline(_) => f.write_str("TrackerTx::Inline"),
        }
    }
}

impl TrackerTx {
    /// Hands `input` to the tracker: queued for its thread (a full queue waits: nothing is
    /// dropped), or handled now on this thread.
    pub fn send(&self, input: TrackerInput) -> Result<(), TrackerGone> {
        match self {
            TrackerTx::Thread(tx) => tx.send(input).map_err(|_| TrackerGone),
            TrackerTx::Inline(t) => t.send(input),
        }
    }
}

/// How the io thread sets the tracker up ([`crate::engine::Gateway::start`]).
pub(crate) enum TrackerSetup {
    /// The tracker thread was spawned; this is its queue.
    Thread(Sender<TrackerInput>),
    /// The io thread runs this driver.
    Inline(Box<Driver>),
}

impl TrackerSetup {
    /// The io thread's handle to the tracker, and the inline tracker when the io thread runs it
    /// (whose [`InlineTracker::finish`] gives the summary at the end).
    pub(crate) fn into_tx(self) -> (TrackerTx, Option<Rc<InlineTracker>>) {
        match self {
            TrackerSetup::Thread(tx) => (TrackerTx::Thread(tx), None),
            TrackerSetup::Inline(driver) => {
                let t = InlineTracker::new(*driver);
                (TrackerTx::Inline(Rc::clone(&t)), Some(t))
            }
        }
    }
}

/// The tracker run by the io thread: its [`Driver`], stepped synchronously by
/// [`InlineTracker::send`] and ticked by [`InlineTracker::run_idle`].
pub struct InlineTracker {
    driver: RefCell<Option<Driver>>,
    /// Inputs sent while the driver was already running (an input made inside a step): handled
    /// by that step, in order, before it returns. Empty in practice: nothing the driver calls
    /// sends to the tracker.
    reentrant: RefCell<VecDeque<TrackerInput>>,
}

impl InlineTracker {
    /// Wraps `driver` for the io thread.
    pub(crate) fn new(driver: Driver) -> Rc<InlineTracker> {
        Rc::new(InlineTracker {
            driver: RefCell::new(Some(driver)),
            reentrant: RefCell::new(VecDeque::new()),
        })
    }

    /// Handles `input` now (and any input its handling sent).
    pub fn send(&self, input: TrackerInput) -> Result<(), TrackerGone> {
        let Ok(mut slot) = self.driver.try_borrow_mut() else {
            self.reentrant.borrow_mut().push_back(input);
            return Ok(());
        };
        let Some(driver) = slot.as_mut() else {
            return Err(TrackerGone);
        };
        driver.handle_input(input);
        loop {
            let next = self.reentrant.borrow_mut().pop_front();
            match next {
                Some(input) => {
                    driver.handle_input(input);
                }
                None => return Ok(()),
            }
        }
    }

    /// The tracker's idle work (watchdog tick, backlog flush, counters, latency snapshots)
    /// every `period`, as its own thread does when parked ([`crate::idle::PARK_TIMEOUT`]),
    /// until [`InlineTracker::finish`]. Spawn it on the io thread's `LocalSet`.
    pub async fn run_idle(self: Rc<Self>, period: Duration) {
        let mut every = tokio::time::interval(period);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let Ok(mut slot) = self.driver.try_borrow_mut() else {
                continue;
            };
            match slot.as_mut() {
                Some(driver) => driver.idle_work(),
                None => return,
            }
        }
    }

    /// Stops the tracker: the summary it ends with (`None` if already finished).
    pub fn finish(&self) -> Option<TrackerSummary> {
        let mut driver = self.driver.try_borrow_mut().ok()?.take()?;
        while let Some(input) = self.reentrant.borrow_mut().pop_front() {
            driver.handle_input(input);
        }
        Some(driver.finish())
    }
}
