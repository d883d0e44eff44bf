//! The shell of an account's query budget (`gateway_core::budget::queries`): the budget behind
//! a lock, shared by every clone of the account's [`super::RestClient`] (reconciliation,
//! resolution and mass-cancel listings run as separate tasks), and the clock it is read with.
//! The lock is held for one decision, never across an await; no query is on the order path.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gateway_core::budget::{AfterRefusal, QueryBudget, QueryEndpoint, QueryLimits};
use parking_lot::Mutex;

/// One account's query pace (see the module doc).
#[derive(Debug)]
pub struct QueryPacer {
    budget: Mutex<QueryBudget>,
    origin: Instant,
}

impl QueryPacer {
    /// A pacer with `limits`.
    pub fn new(limits: &QueryLimits) -> Arc<QueryPacer> {
        Arc::new(QueryPacer {
            budget: Mutex::new(QueryBudget::new(limits)),
            origin: Instant::now(),
        })
    }

    /// Monotonic ns since the pacer was made.
    fn now(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Waits until a request of `ep` may go, and takes its token.
    pub async fn acquire(&self, ep: QueryEndpoint) {
        loop {
            let now = self.now();
            let decision = self.budget.lock().acquire(ep, now);
            match decision {
                Ok(()) => return,
                Err(at) => tokio::time::sleep(Duration::from_nanos(at.saturating_sub(now))).await,
            }
        }
    }

    /// The venue refused a request of `ep` for rate, its `refusals`-th refusal: `true` = send
    /// it again (after [`QueryPacer::acquire`], which waits out the backoff), `false` = give up.
    pub fn refused(&self, ep: QueryEndpoint, refusals: u32) -> bool {
        let now = self.now();
        let after = self.budget.lock().refused(ep, now, refusals);
        matches!(after, AfterRefusal::RetryAt(_))
    }
}
