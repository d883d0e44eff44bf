//! The resolution of unknown outcomes without I/O: the tracker hands out a
//! [`ResolveRequest`] (clientOid, account) for every order whose request's outcome is unknown;
//! the [`Resolver`] decides which REST queries learn the order's state at the exchange, in
//! which order and when, and turns their answers into the [`ExchangeState`]s the tracker
//! applies (`Tracker::apply_exchange_state`, then every change is reported exactly once).
//! Nothing is ever resent. The shell (`gateway::engine::resolve`) and the deterministic
//! simulator only run the queries it names, at the times it names, and feed the answers back.
//!
//! Every time is an argument: monotonic ns (`now_ns`) for due times, gathering, pacing and
//! retries; gateway UTC ms (`utc_ms`) where the exchange's lists need it (their `startTime`,
//! the clock offset's samples).
//!
//! The rules (reference §7 for the queries), per account (each account has one worker, one
//! queue, one query out at a time):
//! - **Gathering.** Once a request is due the worker waits [`GATHER_MS`] for others (a link
//!   drop or a burst of outcome-unknown replies makes them arrive within it), then takes every
//!   due request; requests for one clientOid are merged (a place if any was, the oldest write).
//! - **Sweep or one by one.** With [`SWEEP_MIN`] or more due (a link drop leaves every request
//!   in flight unknown: up to sessions × window of them) the worker lists the account instead
//!   of querying each order: `history-orders` per category, `unfilled-orders` and `fills`
//!   since the oldest request's write ([`ResolveRequest::written_ms`]) moved onto the
//!   exchange's clock by a bound of its offset ([`ClockOffset::list_since_ms`]; the bound is
//!   sampled from `GET /api/v3/public/time` when none is known and from every listing's
//!   newest `updatedTime`). An order listed is settled by the lists (its fills: those of the
//!   fills list, or its own `fills` query when that list was cut); an order the lists cannot
//!   vouch for (not a place, write time unknown, or lists cut at the pager's limit) is queried
//!   on its own after the sweep. Fewer than [`SWEEP_MIN`]: each order by `order-info`, then
//!   its fills when it shows an executed quantity.
//! - **Not found.** A place not found (in the lists or by `order-info`) is asked again after
//!   the grace period (2 × push deadline in the shell: it may still be on its way through the
//!   exchange); still not found, it was never created (`not_found`).
//! - **Retries.** A failed `order-info` is asked again after `attempts` × [`RETRY_BACKOFF_MS`]
//!   and given up (left unresolved, logged) after [`MAX_ATTEMPTS`]; a failed listing puts all
//!   its requests back after [`RETRY_BACKOFF_MS`], one by one from [`MAX_ATTEMPTS`] / 2
//!   failures on. A failed fills query gives no fills (the tracker completes a finished
//!   order's quantity with one synthetic fill).
//! - **Pacing.** One query per account per [`QUERY_INTERVAL_MS`] (half the 20/s/UID quota;
//!   reconciliation has the other half). Each page of a list still takes a token of the
//!   account's query budget in the shell (`crate::budget::queries`).
//!
//! Files: `rules.rs` the constants, `query.rs` what is asked and answered, `pending.rs` a
//! queued request and the merge, `sweep.rs` one sweep, `single.rs` one order queried on its
//! own, `worker.rs` one account's worker; this file the [`Resolver`] over every account.

mod pending;
pub mod query;
pub mod rules;
mod single;
mod sweep;
#[cfg(test)]
mod tests;
mod worker;

use codec::sbe::Category;

use self::pending::Pending;
use self::worker::Worker;
use crate::tracker::{ExchangeState, ResolveRequest};
pub use query::{Answer, Query, QueryKind};
pub use rules::{cut, GATHER_MS, MAX_ATTEMPTS, QUERY_INTERVAL_MS, RETRY_BACKOFF_MS, SWEEP_MIN};

#[cfg(doc)]
use crate::tracker::ClockOffset;

/// The unknown-outcome resolver of every account (see the module's rules).
///
/// Driving it: [`Resolver::push`] each request as the tracker queues it; call
/// [`Resolver::poll`] until it returns `None` and run each [`Query`] it returns (at most one
/// per account is out at a time); feed each outcome to [`Resolver::on_answer`] and hand the
/// state it may return to the tracker; call `poll` again after every push and answer, and at
/// [`Resolver::next_wake_ns`].
#[derive(Debug)]
pub struct Resolver {
    /// One worker per account, by account index.
    workers: Vec<Worker>,
    /// How long a place not found waits before it is asked again, ns.
    grace_ns: u64,
}

impl Resolver {
    /// A resolver for `categories.len()` accounts: `categories[i]` are the categories account
    /// `i` trades (its sweeps list `history-orders` of each, in this order); `grace_ms` how
    /// long a place not found waits before it is asked again (the shell: 2 ×
    /// `[tracker] push_deadline_ms`).
    pub fn new(categories: Vec<Vec<Category>>, grace_ms: u64) -> Self {
        Resolver {
            workers: categories
                .into_iter()
                .enumerate()
                .map(|(account, c)| Worker::new(account, c))
                .collect(),
            grace_ns: grace_ms.saturating_mul(rules::NS_PER_MS),
        }
    }

    /// Queues a request, due at monotonic `now_ns`. A request for an account the resolver
    /// does not have is dropped.
    pub fn push(&mut self, req: ResolveRequest, now_ns: u64) {
        if let Some(w) = self.workers.get_mut(req.account) {
            w.push(Pending::new(req, now_ns));
        }
    }

    /// The next query to make now (monotonic `now_ns`, gateway UTC `utc_ms`), if an account
    /// has one due whose slot has come; `None` when there is nothing more to do before
    /// [`Resolver::next_wake_ns`] or an answer. Call it until it returns `None`: accounts are
    /// tried in index order, each gives at most one query until it is answered.
    pub fn poll(&mut self, now_ns: u64, utc_ms: u64) -> Option<Query> {
        self.workers
            .iter_mut()
            .enumerate()
            .find_map(|(account, w)| w.poll(now_ns, utc_ms).map(|kind| Query { account, kind }))
    }

    /// The earliest monotonic ns at which [`Resolver::poll`] may have something to do
    /// (`None`: nothing until a push or an answer). It may be in the past: poll now.
    pub fn next_wake_ns(&self) -> Option<u64> {
        self.workers.iter().filter_map(Worker::next_wake_ns).min()
    }

    /// Takes the answer to the query out for `account`, at monotonic `now_ns` and gateway
    /// UTC `utc_ms`; returns the state to hand to the tracker when the answer completes one
    /// (`source` [`crate::tracker::StateSource::Resolution`]). An answer of another kind than
    /// the query counts as a failure; an answer for an account with no query out is ignored.
    pub fn on_answer(
        &mut self,
        account: usize,
        answer: Answer,
        now_ns: u64,
        utc_ms: u64,
    ) -> Option<ExchangeState> {
        let grace_ns = self.grace_ns;
        self.workers
            .get_mut(account)?
            .on_answer(answer, now_ns, utc_ms, grace_ns)
    }

    /// Requests held (queued, waiting to be asked again, or being settled), every account.
    /// Zero once everything pushed is settled or given up.
    pub fn pending(&self) -> usize {
        self.workers.iter().map(Worker::pending).sum()
    }
}
