//! The machine's own hiccups, measured beside the gateway's legs (after jHiccup and rigtorp's
//! `hiccups`): a thread that sleeps [`PERIOD`] again and again and records how late each
//! wake-up is. Nothing else runs on it, so its lateness is what the scheduler, other processes
//! and the hypervisor cost any thread of this machine in the same interval. A gateway leg's
//! interval max that the probe's max matches is bounded by the machine, not by the gateway's
//! growth (a rehash, a journal roll under a lock).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use parking_lot::Mutex;

use super::session::latency_histogram;

/// How long the probe sleeps between wake-ups.
pub const PERIOD: Duration = Duration::from_millis(1);

/// The name of the probe's column among the legs of a row.
pub const HICCUP: &str = "machine_hiccup";

/// A running probe; stopped when dropped.
pub struct HiccupProbe {
    hist: Arc<Mutex<Histogram<u64>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl HiccupProbe {
    /// Starts the probe thread. Errors: the thread could not be spawned.
    pub fn start() -> std::io::Result<HiccupProbe> {
        let hist = Arc::new(Mutex::new(latency_histogram()));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, s) = (Arc::clone(&hist), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("hiccup-probe".into())
            .spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    let t0 = Instant::now();
                    std::thread::sleep(PERIOD);
                    let late = t0.elapsed().saturating_sub(PERIOD);
                    let ns = u64::try_from(late.as_nanos()).unwrap_or(u64::MAX).max(1);
                    h.lock().saturating_record(ns);
                }
            })?;
        Ok(HiccupProbe {
            hist,
            stop,
            thread: Some(thread),
        })
    }

    /// The wake-up lateness recorded since the last call (ns), and a fresh start.
    pub fn take(&self) -> Histogram<u64> {
        let mut h = self.hist.lock();
        let out = h.clone();
        h.reset();
        out
    }
}

impl Drop for HiccupProbe {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_records_its_wake_ups_and_starts_afresh() {
        let p = HiccupProbe::start().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let h = p.take();
        assert!(h.len() >= 5, "{} wake-ups in 100 ms", h.len());
        // Taken afresh: the next take holds only what came after (a stall between the two
        // takes is counted with its missed wake-ups, so the bound is the first take's count,
        // not a fixed small number: on a loaded machine a 2-sample bound failed).
        let next = p.take();
        assert!(
            next.len() < h.len(),
            "taken afresh: {} then {}",
            h.len(),
            next.len()
        );
    }
}
