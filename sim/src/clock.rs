//! The simulator's clock: every timestamp it emits (order/exec id base, `createdTime`,
//! `updatedTime`, `execTime`, `cTime`, push and reply `ts`, REST `requestTime`/`serverTime`) and
//! the login / REST timestamp windows read it, so that a test or a replay can inject a
//! [`ManualClock`] and get the same ids and frames every time (with the same seed,
//! `liquidity.seed`).
//!
//! Transport code reads it through [`now_ms`]: the server runs every request handler, every
//! WebSocket connection task and the liquidity timer inside a task-local scope holding the
//! simulator's clock ([`scope`]); outside such a scope [`now_ms`] is the system clock. The
//! sans-I/O cores (matching, venue) never read it: they take `now_ms` as an argument.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of wall-clock time in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Now, in ms since the Unix epoch.
    fn now_ms(&self) -> u64;

    /// True when time moves by itself (the liquidity timer then runs on real time). A manual
    /// clock returns false: the liquidity random walk then runs one step per `refresh_ms` of
    /// clock time, caught up synchronously when the next request arrives, so that its effects
    /// land at the same place of every stream.
    fn is_real_time(&self) -> bool {
        true
    }
}

/// The system clock (`SystemTime::now()`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        system_now_ms()
    }
}

/// A clock that moves only when the test says so.
#[derive(Debug)]
pub struct ManualClock {
    ms: AtomicU64,
}

impl ManualClock {
    /// A clock standing at `start_ms` (ms since the Unix epoch).
    pub fn new(start_ms: u64) -> ManualClock {
        ManualClock {
            ms: AtomicU64::new(start_ms),
        }
    }

    /// Moves the clock forward by `ms` milliseconds.
    pub fn advance(&self, ms: u64) {
        self.ms.fetch_add(ms, Ordering::SeqCst);
    }

    /// Sets the clock to `ms` (ms since the Unix epoch).
    pub fn set(&self, ms: u64) {
        self.ms.store(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.ms.load(Ordering::SeqCst)
    }

    fn is_real_time(&self) -> bool {
        false
    }
}

/// Wall-clock milliseconds since the Unix epoch from the system clock.
pub fn system_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

tokio::task_local! {
    static CLOCK: Arc<dyn Clock>;
}

/// Runs `fut` with `clock` as the clock [`now_ms`] reads.
pub async fn scope<F: Future>(clock: Arc<dyn Clock>, fut: F) -> F::Output {
    CLOCK.scope(clock, fut).await
}

/// Now in ms: the simulator's clock inside a request handler, connection task or timer of a
/// running simulator; the system clock elsewhere.
pub fn now_ms() -> u64 {
    CLOCK
        .try_with(|c| c.now_ms())
        .unwrap_or_else(|_| system_now_ms())
}
