//! The small sections: `[record]`, `[journal]`, `[moves]`, `[tracker]`, `[io]`, `[metrics]`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::idle::IdleStrategy;

/// `[record]`: record the tracker's inputs and outputs for replay (see [`crate::replay`]).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordConfig {
    /// File to write (created or truncated at start). Absent: no recording.
    pub path: Option<std::path::PathBuf>,
}

/// `[journal]`: the session journal (recoverable flow, restarts; see `crate::journal`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct JournalConfig {
    /// Directory of the per-session journals (`session-<id>/e<epoch>-s<index>.journal`
    /// segments; a legacy `session-<id>.journal` is read and moved in), created if missing.
    /// Default none: journals are kept in memory only (a restart starts afresh).
    pub dir: Option<PathBuf>,
    /// Bytes of records (after its checkpoint) after which a session's journal segment is
    /// closed and the next one started (with a checkpoint: a restart reads the newest segment
    /// only; what a restart reads per session, so it bounds the restart time). Default 4194304
    /// (4 MiB); at least [`MIN_SEGMENT_BYTES`].
    pub segment_bytes: Option<u64>,
    /// Segments kept per session in `dir`, the current one included; older ones are deleted
    /// (or moved to `archive_dir`). Bounds the journal's disk to about `keep_segments ×
    /// (segment_bytes + a checkpoint)` per session, and how far back a RetransmitRequest reaches. Default 16;
    /// at least 2.
    pub keep_segments: Option<usize>,
    /// Directory the segments beyond `keep_segments` are moved to (`<archive_dir>/session-<id>/`)
    /// instead of being deleted. Default none (deleted).
    pub archive_dir: Option<PathBuf>,
}

/// Smallest `[journal] segment_bytes` accepted.
pub const MIN_SEGMENT_BYTES: u64 = 4096;

impl JournalConfig {
    /// The segment policy these fields give (defaults filled in).
    pub fn segment_policy(&self) -> crate::journal::segments::SegmentPolicy {
        use crate::journal::segments::{DEFAULT_KEEP_SEGMENTS, DEFAULT_SEGMENT_BYTES};
        crate::journal::segments::SegmentPolicy {
            segment_bytes: self.segment_bytes.unwrap_or(DEFAULT_SEGMENT_BYTES),
            keep_segments: self.keep_segments.unwrap_or(DEFAULT_KEEP_SEGMENTS),
            archive_dir: self.archive_dir.clone(),
        }
    }
}

/// `[moves]`: who may move positions (MovePositions).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MovesConfig {
    /// Names of the master accounts (e.g. `["main"]`): only their keys may move positions.
    /// Default none (every MovePositions is refused NotMasterAccount).
    pub master_accounts: Vec<String>,
    /// UIDs of further accounts of the master-sub system without a key in the gateway.
    pub extra_uids: Vec<u64>,
}

/// `[tracker]`: the thread that owns order state.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrackerConfig {
    /// CPU index to pin the thread to. Default none (not pinned).
    pub core: Option<usize>,
    /// Idle strategy: `"spin"`, `"spin_yield"` or `"park"`. Default `"park"`.
    pub idle: IdleStrategy,
    /// Where the tracker runs: `"own_thread"` (its own thread, fed through a queue: each
    /// hand-off may wake it) or `"io_thread"` (on the io thread, where each input is made: no
    /// hand-off; `core` and `idle` above then do not apply, `[io]`'s do). Default
    /// `"io_thread"`.
    pub placement: crate::tracker::port::TrackerPlacement,
    /// A trade op without reply after this many ms has an unknown outcome (the order is
    /// queried by clientOid, never resent). Default 5000.
    pub reply_timeout_ms: Option<u64>,
    /// Watchdog: a trade reply without the order's push, or the reverse, after this many ms
    /// is flagged and the order queried. Default 3000.
    pub push_deadline_ms: Option<u64>,
    /// Open orders the tracker's table holds before it first grows (growing stalls the
    /// tracker: 7-32 ms at 16 384, ~100 ms at 65 536 on a 2-vCPU machine; each slot costs about
    /// 400 bytes once used). The table is sized for these plus `retention_orders` ended ones.
    /// Default 16384.
    pub order_capacity: Option<usize>,
    /// An ended order (Filled, Canceled, Rejected) leaves the tracker's table once it has been
    /// ended this many ms (a tombstone still recognises anything late about it). 0: at the
    /// next idle tick. Default 60000.
    pub retention_ms: Option<u64>,
    /// At most this many ended orders stay in the tracker's table; one more ending evicts the
    /// oldest. 0: each leaves as soon as nothing waits on it. At most 16777216. Default 16384.
    pub retention_orders: Option<usize>,
    /// Evicted orders still recognised by a tombstone (oldest forgotten first; a push for a
    /// forgotten one counts as unknown). 1 to 67108864. Default 65536.
    pub tombstones: Option<usize>,
    /// An ended order whose end its strategy may not have seen stays, whatever the retention,
    /// until a session rollover reports it (OrderStatus) or the strategy has had this many ms
    /// to read it: after the order ended while the strategy is connected, or after the strategy
    /// connected again; while the strategy is away, always. 0: only while it is away. Default
    /// 5000.
    pub unseen_tail_ms: Option<u64>,
}

/// Most `[tracker] retention_orders` (16 Mi: ~6.7 GB of table slots).
pub const MAX_RETENTION_ORDERS: usize = 1 << 24;

/// Most `[tracker] tombstones` (64 Mi: ~4 GB).
pub const MAX_TOMBSTONES: usize = 1 << 26;

impl TrackerConfig {
    /// The retention of ended orders these fields give (defaults for the absent ones).
    pub fn retention(&self) -> gateway_core::tracker::Retention {
        let d = gateway_core::tracker::Retention::default();
        gateway_core::tracker::Retention {
            retention_ms: self.retention_ms.unwrap_or(d.retention_ms),
            retention_orders: self.retention_orders.unwrap_or(d.retention_orders),
            tombstones: self.tombstones.unwrap_or(d.tombstones),
            unseen_tail_ms: self.unseen_tail_ms.unwrap_or(d.unseen_tail_ms),
        }
    }
}

/// `[io]`: the network I/O thread (strategy sockets and the exchange WebSocket).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct IoConfig {
    /// CPU index to pin the thread to. Default none (not pinned).
    pub core: Option<usize>,
    /// `"spin"` busy-polls the io thread's event loop (lowest latency, burns a core); any
    /// other value lets it sleep in epoll. Default `"park"`.
    pub idle: IdleStrategy,
}

/// `[metrics]`: latency reports and the metrics endpoint.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Interval between percentile log lines and interval-log entries, ms; also how often the
    /// latency summaries of the metrics endpoint are refreshed. Default 10000; must be ≥ 1.
    pub report_interval_ms: u64,
    /// HdrHistogram interval log (V2) to write. Default none (no file).
    pub hlog_path: Option<PathBuf>,
    /// Address (`ip:port`) of the metrics endpoint: `GET /metrics` (Prometheus text format
    /// 0.0.4), `/healthz`, `/readyz` (see [`crate::metrics::http`]). Absent or empty: off
    /// (the default).
    pub listen: Option<String>,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            report_interval_ms: 10_000,
            hlog_path: None,
            listen: None,
        }
    }
}

impl MetricsConfig {
    /// `report_interval_ms` as a `Duration`.
    pub fn report_interval(&self) -> Duration {
        Duration::from_millis(self.report_interval_ms)
    }

    /// The metrics endpoint's address: `None` when `listen` is absent or empty.
    ///
    /// Errors: `listen` is not an `ip:port` socket address ([`super::error::ConfigError::Invalid`]).
    pub fn listen_addr(&self) -> Result<Option<std::net::SocketAddr>, super::error::ConfigError> {
        match self.listen.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(s) => s.parse().map(Some).map_err(|e| {
                super::error::invalid(
                    "metrics.listen",
                    format!("{s:?} is not an ip:port address ({e})"),
                )
            }),
        }
    }
}
