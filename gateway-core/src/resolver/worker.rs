//! One account's worker: its queue of requests, its pacing slot, its clock offset bound and
//! the batch it is settling. Idle until a request is due; then it gathers for
//! [`GATHER_MS`], takes every due request, merges those of one order, and settles them:
//! with [`SWEEP_MIN`] or more that the lists may vouch for, a sweep first
//! ([`super::sweep`]), then the rest one by one (`order-info`, and the order's fills when it
//! shows an executed quantity). Each query waits for the account's next slot
//! ([`QUERY_INTERVAL_MS`] after the previous one); one query at a time.

use std::collections::VecDeque;

use codec::sbe::Category;

use super::pending::{merge_by_order, Pending};
use super::query::{Answer, QueryKind};
use super::rules::{GATHER_MS, NS_PER_MS, QUERY_INTERVAL_MS, SWEEP_MIN};
use super::single::{Single, SingleNext};
use super::sweep::Sweep;
use crate::tracker::{ClockOffset, ExchangeState};

/// What a worker does.
#[derive(Debug)]
enum Job {
    /// Waits for a request to be due.
    Idle,
    /// A request is due: waits until `until_ns` (monotonic) for others.
    Gather {
        /// End of the gathering, monotonic ns.
        until_ns: u64,
    },
    /// Settles the requests taken at the end of a gathering.
    Batch(Box<Batch>),
}

/// The requests taken at the end of a gathering, being settled: the sweep (if any) first,
/// then the singles in order.
#[derive(Debug)]
struct Batch {
    /// The sweep in progress.
    sweep: Option<Sweep>,
    /// The order queried on its own now.
    single: Option<Single>,
    /// The orders to query one by one after it.
    singles: VecDeque<Pending>,
}

/// One account's worker.
#[derive(Debug)]
pub(crate) struct Worker {
    /// Its account's index.
    account: usize,
    /// The categories its sweeps list `history-orders` of, in order.
    categories: Vec<Category>,
    /// Requests waiting (due or not).
    queue: Vec<Pending>,
    /// The account's next free query slot, monotonic ns.
    next_slot_ns: u64,
    /// The bound of the exchange's clock offset (server time, lists' `updatedTime`s).
    offset: ClockOffset,
    /// Since when the worker has been ready for its next step (monotonic ns: the last answer,
    /// the end of the gathering, the end of its last batch).
    ready_ns: u64,
    /// What it does.
    job: Job,
    /// The query handed out whose answer it waits for.
    asked: Option<QueryKind>,
}

/// Whether `answer` is of the kind `kind` expects (a failure answers any query).
fn answers(kind: &QueryKind, answer: &Answer) -> bool {
    matches!(
        (kind, answer),
        (_, Answer::Failed(_))
            | (QueryKind::ServerTime, Answer::ServerTime(_))
            | (
                QueryKind::HistoryOrders { .. } | QueryKind::OpenOrders,
                Answer::Orders(_)
            )
            | (QueryKind::Fills { .. }, Answer::Fills(_))
            | (QueryKind::OrderInfo { .. }, Answer::Order(_))
    )
}

impl Worker {
    /// The worker of account `account`, listing `categories` in its sweeps.
    pub fn new(account: usize, categories: Vec<Category>) -> Self {
        Worker {
            account,
            categories,
            queue: Vec::new(),
            next_slot_ns: 0,
            offset: ClockOffset::default(),
            ready_ns: 0,
            job: Job::Idle,
            asked: None,
        }
    }

    /// Queues a request.
    pub fn push(&mut self, p: Pending) {
        self.queue.push(p);
    }

    /// Requests held: queued, or in the batch being settled.
    pub fn pending(&self) -> usize {
        let batch = match &self.job {
            Job::Batch(b) => {
                b.sweep.as_ref().map_or(0, |s| s.items.len())
                    + usize::from(b.single.is_some())
                    + b.singles.len()
            }
            _ => 0,
        };
        self.queue.len() + batch
    }

    /// When [`Worker::poll`] next has something to do (monotonic ns); `None` while a query's
    /// answer is awaited or nothing is queued.
    pub fn next_wake_ns(&self) -> Option<u64> {
        if self.asked.is_some() {
            return None;
        }
        match &self.job {
            Job::Idle => self.queue.iter().map(|p| p.due_ns).min(),
            Job::Gather { until_ns } => Some(*until_ns),
            Job::Batch(_) => Some(self.next_slot_ns.max(self.ready_ns)),
        }
    }

    /// Advances to monotonic `now_ns` (gateway UTC `utc_ms`): starts gathering when a request
    /// is due, takes the due requests when the gathering ends, and returns the next query
    /// once the account's slot has come (the slot is then taken).
    pub fn poll(&mut self, now_ns: u64, utc_ms: u64) -> Option<QueryKind> {
        if self.asked.is_some() {
            return None;
        }
        if let Job::Idle = self.job {
            let due = self.queue.iter().map(|p| p.due_ns).min()?;
            if due > now_ns {
                return None;
            }
            self.job = Job::Gather {
                until_ns: due.max(self.ready_ns) + GATHER_MS * NS_PER_MS,
            };
        }
        if let Job::Gather { until_ns } = self.job {
            if until_ns > now_ns {
                return None;
            }
            self.start_batch(now_ns, utc_ms);
        }
        let Job::Batch(b) = &self.job else {
            return None;
        };
        let slot = self.next_slot_ns.max(self.ready_ns);
        if slot > now_ns {
            return None;
        }
        let kind = match (&b.sweep, &b.single) {
            (Some(s), _) => s.query(&self.categories),
            (None, Some(single)) => single.query(),
            (None, None) => return None,
        };
        self.next_slot_ns = slot + QUERY_INTERVAL_MS * NS_PER_MS;
        self.asked = Some(kind);
        Some(kind)
    }

    /// Takes every request due at `now_ns`, merged by order, into a batch: a sweep when
    /// [`SWEEP_MIN`] or more may be settled from the lists, the rest (or all) one by one.
    fn start_batch(&mut self, now_ns: u64, utc_ms: u64) {
        let (due, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|p| p.due_ns <= now_ns);
        self.queue = rest;
        self.ready_ns = now_ns;
        let (single, listed): (Vec<_>, Vec<_>) =
            merge_by_order(due).into_iter().partition(|p| p.single);
        let mut batch = Batch {
            sweep: None,
            single: None,
            singles: single.into(),
        };
        if listed.len() >= SWEEP_MIN {
            batch.sweep = Some(Sweep::new(
                self.account,
                listed,
                &self.offset,
                &self.categories,
                now_ns,
                utc_ms,
            ));
        } else {
            batch.singles.extend(listed);
        }
        self.job = Job::Batch(Box::new(batch));
        self.next_single(now_ns);
    }

    /// With no sweep and no order in hand, takes the next single; with none left the batch
    /// is over and the worker idle from `now_ns`.
    fn next_single(&mut self, now_ns: u64) {
        let Job::Batch(b) = &mut self.job else {
            return;
        };
        if b.sweep.is_some() || b.single.is_some() {
            return;
        }
        match b.singles.pop_front() {
            Some(p) => b.single = Some(Single::new(p)),
            None => {
                self.job = Job::Idle;
                self.ready_ns = now_ns;
            }
        }
    }

    /// Takes the answer to the query handed out, at monotonic `now_ns` and gateway UTC
    /// `utc_ms`; returns the state to hand to the tracker when it completes one.
    /// `grace_ns`: how long a place not found waits to be asked again. An answer with no query
    /// out is ignored.
    pub fn on_answer(
        &mut self,
        answer: Answer,
        now_ns: u64,
        utc_ms: u64,
        grace_ns: u64,
    ) -> Option<ExchangeState> {
        let Some(kind) = self.asked.take() else {
            tracing::warn!(
                account_ix = self.account,
                "resolve: an answer with no query out; ignored"
            );
            return None;
        };
        self.ready_ns = now_ns;
        let answer = if answers(&kind, &answer) {
            answer
        } else {
            Answer::Failed(format!("answer of another kind than the query {kind:?}"))
        };
        let Job::Batch(b) = &mut self.job else {
            return None;
        };
        let out = if let Some(sweep) = &mut b.sweep {
            match sweep.on_answer(
                &mut self.offset,
                &self.categories,
                answer,
                now_ns,
                utc_ms,
                grace_ns,
            ) {
                Err(again) => {
                    self.queue.extend(again);
                    b.sweep = None;
                    None
                }
                Ok(settled) => {
                    self.queue.extend(settled.again);
                    b.singles.extend(settled.single);
                    if sweep.done() {
                        let out = sweep.finish(&self.offset, now_ns);
                        b.sweep = None;
                        out
                    } else {
                        None
                    }
                }
            }
        } else if let Some(single) = b.single.take() {
            match single.on_answer(answer, now_ns, utc_ms, grace_ns) {
                SingleNext::Settled(state) => Some(state),
                SingleNext::Fills(s) => {
                    b.single = Some(s);
                    None
                }
                SingleNext::Again(p) => {
                    self.queue.push(p);
                    None
                }
                SingleNext::GivenUp => None,
            }
        } else {
            None
        };
        self.next_single(now_ns);
        out
    }
}
