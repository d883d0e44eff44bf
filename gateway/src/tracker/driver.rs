//! The tracker's driver: the core's [`TrackerDrive`] (the sans-I/O [`Tracker`] and its
//! sequencing) with what surrounds it on its thread in the shell: the sessions' writers
//! ([`SessionSink`]), the clocks, the recording of inputs, the metrics hand-over. The tracker
//! thread ([`super::spawn`]) and the inline tracker on the io thread
//! ([`super::port::InlineTracker`]) both drive it: inputs through [`Driver::handle_input`],
//! the watchdog and the periodic hand-overs through [`Driver::idle_work`].

use std::sync::Arc;

use super::sink::SessionSink;
use super::{
    recorded, risk_feed, ResolveSender, Tracker, TrackerDrive, TrackerInput, TrackerSummary,
    TrackerThreadConfig,
};
use crate::metrics::state::MetricsState;
use crate::metrics::{now_ns, utc_now_ns, LegHistograms, SnapshotTx};

/// Inputs handled back to back before the watchdog ticks anyway.
const TICK_EVERY_INPUTS: u32 = 1024;

/// The tracker and its surroundings, driven by one thread at a time.
pub(crate) struct Driver {
    /// The tracker, its parser, risk feed and sequencing (gateway-core).
    drive: TrackerDrive,
    /// Where its outputs go: the sessions' writers, the recorder, the resolution driver.
    sink: SessionSink,
    /// Where latency snapshots go every `interval_ns` (the reporter thread).
    metrics_tx: Option<SnapshotTx>,
    interval_ns: u64,
    next_report_ns: u64,
    publish_ns: u64,
    next_publish_ns: u64,
    /// Inputs handled since start (the watchdog ticks every [`TICK_EVERY_INPUTS`] of them).
    busy: u32,
}

impl Driver {
    /// A driver for `cfg`: latency snapshots (interval histograms) to `metrics_tx` every
    /// `cfg.report_interval_ms`; fills and ended orders update `risk`; every input and output
    /// recorded to `recorder`; orders of unknown outcome sent to `resolve_tx`; reports counted
    /// and counters published in `observe`.
    pub(crate) fn new(
        cfg: &TrackerThreadConfig,
        metrics_tx: Option<SnapshotTx>,
        risk: Option<Arc<crate::risk::RiskBook>>,
        recorder: Option<crate::replay::Recorder>,
        resolve_tx: Option<ResolveSender>,
        observe: Option<Arc<MetricsState>>,
    ) -> Driver {
        let mut tracker = Tracker::with_retention(cfg.order_capacity, cfg.retention);
        tracker.set_deadlines(cfg.deadlines);
        let risk = risk.map(|book| risk_feed::RiskFeed::with_capacity(book, cfg.order_capacity));
        let interval_ns = cfg.report_interval_ms.saturating_mul(1_000_000);
        Driver {
            drive: TrackerDrive::new(tracker, risk),
            sink: SessionSink::new(recorder, resolve_tx, observe),
            metrics_tx,
            interval_ns,
            next_report_ns: now_ns().saturating_add(interval_ns),
            publish_ns: u64::try_from(crate::metrics::state::PUBLISH_PERIOD.as_nanos())
                .unwrap_or(u64::MAX),
            next_publish_ns: 0,
            busy: 0,
        }
    }

    /// Handles one input; false once it was [`TrackerInput::Shutdown`]. Under sustained
    /// input the watchdog still ticks and the counters are still published, every
    /// [`TICK_EVERY_INPUTS`] inputs.
    pub(crate) fn handle_input(&mut self, input: TrackerInput) -> bool {
        let running = self.handle(input);
        self.busy = self.busy.wrapping_add(1);
        if self.busy.is_multiple_of(TICK_EVERY_INPUTS) {
            self.tick();
            self.publish();
        }
        running
    }

    /// What the driver does when no input waits: watchdog tick, flush of the sessions'
    /// backlogs, counters published, a latency snapshot sent when due.
    pub(crate) fn idle_work(&mut self) {
        self.tick();
        self.sink.flush();
        self.publish();
        if self.interval_ns > 0 {
            let now = now_ns();
            if now >= self.next_report_ns {
                self.next_report_ns = now.saturating_add(self.interval_ns);
                if let Some(tx) = &self.metrics_tx {
                    // Two O(1) swaps with cleared sets the reporter returned: no allocation
                    // and no merge on this thread (the reporter merges).
                    tx.send_swap(self.drive.legs_mut());
                    tx.send_swap(&mut self.sink.push_legs);
                }
            }
        }
    }

    /// The summary the driver ends with: counters, the legs since the last snapshot, the
    /// orders still in the table.
    pub(crate) fn finish(mut self) -> TrackerSummary {
        let legs = self.snapshot();
        let tracker = self.drive.tracker();
        TrackerSummary {
            stats: tracker.stats(),
            json_errors: self.drive.json_errors(),
            legs,
            orders: tracker.orders().cloned().collect(),
        }
    }

    fn handle(&mut self, input: TrackerInput) -> bool {
        // The one wall-clock reading per input that needs one (the core and the list reports
        // use it); a recording stores it so a replay feeds the same.
        let utc = match &input {
            TrackerInput::Sent(_)
            | TrackerInput::SentBatch(_)
            | TrackerInput::SessionOpened { .. }
            | TrackerInput::SessionClosed { .. }
            | TrackerInput::LinkDown { .. }
            | TrackerInput::LinkUp { .. }
            | TrackerInput::Shutdown => 0,
            _ => utc_now_ns(),
        };
        let mono = match &input {
            TrackerInput::ExchangeState { .. } => now_ns(),
            _ => 0,
        };
        if let Some(rec) = &self.sink.recorder {
            if let Some(recorded) = recorded(&input, mono) {
                rec.input(recorded, utc);
            }
        }
        let (drive, sink) = (&mut self.drive, &mut self.sink);
        match input {
            TrackerInput::Sent(req) => drive.on_sent(sink, req),
            TrackerInput::SentBatch(batch) => drive.on_sent_batch(sink, batch),
            TrackerInput::ListDone(done) => drive.on_list_done(sink, done, utc),
            TrackerInput::Frame {
                account,
                text,
                t_read_ns,
            } => drive.on_frame(sink, account, &text, t_read_ns, utc),
            TrackerInput::SessionOpened {
                session_id,
                account,
                role,
                out,
            } => {
                // The writer first: what the input hands over may go to it.
                sink.open(session_id, account, role, out);
                drive.on_session_opened(sink, session_id, account);
            }
            TrackerInput::OpenOrders {
                filter,
                exchange,
                reply,
            } => {
                drive.open_orders(sink, &filter, exchange.as_deref(), utc, |sink, views| {
                    if let Some(rec) = &sink.recorder {
                        for v in &views {
                            rec.open_order(v.session_id, v.root, |b| v.report.encode_frame(b));
                        }
                    }
                    let _ = reply.send(views);
                });
            }
            TrackerInput::MassCancel(ev) => drive.on_mass_cancel(sink, ev, utc),
            TrackerInput::ExchangeState { state, reply } => {
                drive.on_exchange_state(sink, mono, utc, &state, |_, summary| {
                    if let Some(reply) = reply {
                        let _ = reply.send(summary);
                    }
                });
            }
            TrackerInput::Restore {
                session_id,
                roots,
                reports,
                unanswered_since_ms,
                unanswered_amends,
            } => drive.on_restore(
                sink,
                session_id,
                &roots,
                &reports,
                &unanswered_since_ms,
                &unanswered_amends,
            ),
            TrackerInput::Epoch {
                session_id,
                epoch,
                order_epochs,
                started,
            } => drive.on_epoch(sink, session_id, epoch, &order_epochs, started, utc),
            TrackerInput::LinkDown { account, t_ns } => drive.on_link_down(sink, account, t_ns),
            TrackerInput::LinkUp { account, t_ns } => drive.on_link_up(sink, account, t_ns),
            TrackerInput::SessionClosed { session_id } => drive.on_session_closed(sink, session_id),
            TrackerInput::Shutdown => return false,
        }
        true
    }

    /// Watchdog tick, with the hand-over of what it made (see [`TrackerDrive::on_tick`]; the
    /// sink records a tick that queued reports before them).
    fn tick(&mut self) {
        let (mono, utc) = (now_ns(), utc_now_ns());
        self.drive.on_tick(&mut self.sink, mono, utc);
    }

    /// Publishes the tracker's counters and order gauges to the metrics endpoint's state once
    /// every [`crate::metrics::state::PUBLISH_PERIOD`].
    fn publish(&mut self) {
        let Some(m) = &self.sink.observe else {
            return;
        };
        let now = now_ns();
        if now >= self.next_publish_ns {
            self.next_publish_ns = now.saturating_add(self.publish_ns);
            m.set_tracker(&self.drive.tracker().stats());
            m.set_tracker_orders(&self.drive.tracker().order_counts());
            m.set_unresolved(self.drive.tracker().unresolved());
        }
    }

    fn snapshot(&mut self) -> LegHistograms {
        let mut legs = std::mem::take(self.drive.legs_mut());
        let _ = legs.merge(&self.sink.push_legs);
        self.sink.push_legs = LegHistograms::default();
        legs
    }
}
