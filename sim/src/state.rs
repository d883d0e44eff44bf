//! The simulator's shared state: the venue behind its lock, the WebSocket connections the push
//! router knows, order-book subscriptions, the rate limiter and the clock. Every server part
//! (REST handlers, WebSocket tasks, depth feed, fault control) reads it; it imports none of them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::{mpsc, watch};

use crate::clock::Clock;
use crate::config::{AccountConfig, Permission};
use crate::liquidity::LiquiditySource;
use crate::matching::AccountId;
use crate::ratelimit::RateLimiter;
use crate::venue::{Counters, Push, Topic, TradeOutcome, Venue};

/// Milliseconds since the Unix epoch from the simulator's clock (see [`crate::clock::now_ms`]:
/// the injected clock inside handlers and connection tasks, the system clock elsewhere).
pub fn now_ms() -> u64 {
    crate::clock::now_ms()
}

/// A WebSocket connection as the push router sees it.
pub(crate) struct ConnEntry {
    pub(crate) owner: Option<AccountId>,
    pub(crate) sub_order: bool,
    pub(crate) sub_fill: bool,
    pub(crate) sub_account: bool,
    pub(crate) sub_position: bool,
    /// The logged-in key may trade (`trade` / `uta-trade` permission).
    pub(crate) can_trade: bool,
    /// Public depth subscriptions: (book index, levels, instType, topic, symbol).
    pub(crate) books: Vec<crate::depth::BookSub>,
    pub(crate) tx: mpsc::UnboundedSender<String>,
    /// Fault control messages (close, service-upgrade notice).
    pub(crate) ctl: mpsc::UnboundedSender<crate::faults::Control>,
}

/// Everything behind the one lock.
pub(crate) struct Shared {
    pub(crate) venue: Venue,
    pub(crate) liquidity: LiquiditySource,
    pub(crate) conns: BTreeMap<u64, ConnEntry>,
    /// Sequence number of public depth pushes.
    pub(crate) book_seq: u64,
    /// Clock time of the last random-walk step (manual clock).
    pub(crate) walk_ms: u64,
}

impl Shared {
    /// Publishes depth ([`crate::depth::next_frame`]): a snapshot to every subscription not
    /// served yet, and what changed to the others (`only` = one connection).
    pub(crate) fn push_books(&mut self, now_ms: u64, only: Option<u64>) {
        let mut seq = self.book_seq;
        for (id, c) in self.conns.iter_mut() {
            if only.is_some_and(|o| o != *id) {
                continue;
            }
            for sub in &mut c.books {
                let Some(book) = self.venue.book(sub.book) else {
                    continue;
                };
                if let Some(text) = crate::depth::next_frame(sub, book, &mut seq, now_ms) {
                    // A closed receiver means the connection is going away.
                    let _ = c.tx.send(text);
                }
            }
        }
        self.book_seq = seq;
    }

    /// True when some connection subscribed to a depth channel.
    pub(crate) fn has_book_subs(&self) -> bool {
        self.conns.values().any(|c| !c.books.is_empty())
    }

    /// Sends each push to the connections of its owner that subscribed to its topic, then
    /// publishes what changed in the public depth ([`crate::depth`]).
    pub(crate) fn dispatch(&mut self, pushes: &[Push]) {
        for p in pushes {
            for c in self.conns.values() {
                if c.owner != Some(p.owner) {
                    continue;
                }
                let wanted = match p.topic {
                    Topic::Order => c.sub_order,
                    Topic::Fill => c.sub_fill,
                    Topic::Account => c.sub_account,
                    Topic::Position => c.sub_position,
                };
                if wanted {
                    // A closed receiver means the connection is going away; nothing to do.
                    let _ = c.tx.send(p.json.clone());
                }
            }
        }
        if self.has_book_subs() {
            self.push_books(now_ms(), None);
        }
    }

    /// Runs a liquidity refresh and routes what it caused.
    pub(crate) fn refresh_liquidity(&mut self, walk: bool, now_ms: u64) {
        let mut out = TradeOutcome::default();
        self.liquidity
            .refresh(&mut self.venue, walk, now_ms, &mut out);
        self.dispatch(&out.pushes);
    }
}

/// State shared by all handlers.
pub(crate) struct AppState {
    pub(crate) shared: Mutex<Shared>,
    /// One entry per API key (every account's `api_key`, then its `api_keys`), for the
    /// signature checks; `key_owner` has the same index.
    pub(crate) accounts: Vec<AccountConfig>,
    /// Account and permissions of each entry of `accounts`.
    pub(crate) key_owner: Vec<(AccountId, Vec<Permission>)>,
    pub(crate) login_window_s: u64,
    pub(crate) idle_timeout_s: u64,
    pub(crate) max_msgs_per_s: u32,
    /// Per-UID REST / WS trade quotas.
    pub(crate) limiter: Mutex<RateLimiter>,
    pub(crate) counters: Arc<Counters>,
    pub(crate) next_conn: AtomicU64,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Faults on demand.
    pub(crate) faults: crate::faults::Faults,
    /// The clock every emitted timestamp comes from.
    pub(crate) clock: Arc<dyn Clock>,
    /// Liquidity refresh period (ms), for the manual-clock catch-up.
    pub(crate) refresh_ms: u64,
}

impl AppState {
    pub(crate) fn conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// The account and permissions of the key entry `key` (as returned by the signature
    /// checks).
    pub(crate) fn resolve(&self, key: AccountId) -> (AccountId, &[Permission]) {
        match self.key_owner.get(key.0 as usize) {
            Some((a, p)) => (*a, p.as_slice()),
            None => (key, &[]),
        }
    }

    /// With a manual clock: runs the liquidity random-walk steps due by the clock's time (one
    /// per `refresh_ms`), before the request at hand is handled.
    pub(crate) fn catch_up(&self) {
        if self.clock.is_real_time() {
            return;
        }
        let now = self.clock.now_ms();
        let mut sh = self.shared.lock();
        let mut steps = 0;
        while sh.walk_ms.saturating_add(self.refresh_ms) <= now {
            sh.walk_ms = sh.walk_ms.saturating_add(self.refresh_ms);
            steps += 1;
            if steps > 10_000 {
                sh.walk_ms = now;
            }
            let at = sh.walk_ms;
            if !sh.liquidity.is_empty() {
                sh.refresh_liquidity(true, at);
            }
        }
    }
}
