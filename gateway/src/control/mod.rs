//! The operator's control surface (issue 26), served under `/control/` on the metrics
//! listener (`[metrics] listen`, loopback by default):
//!
//! | route | does |
//! |---|---|
//! | `GET /control/sessions` | every configured session: account, established, draining, kill switch, open orders |
//! | `POST /control/kill-switch` `{"action":"pull"\|"release","account":"A"\|null}` | pull: new orders in scope refused (KillSwitch), every open order in scope cancelled (cancel-all); release: new orders pass |
//! | `POST /control/sessions/{session}/drain` `{"cancel_open":bool}` | the session's new orders refused (BrokerOption, "session draining"); modifies and cancels pass; with `cancel_open` its open orders are cancelled |
//! | `POST /control/sessions/{session}/resume` | undoes a drain |
//!
//! `{session}` is the SessionID or the configured name. Authentication: the token of
//! `BGW_CONTROL_TOKEN` (read once at start, [`auth`]) as `Authorization: Bearer <token>`;
//! without a configured token every route answers 403. Answers are JSON ([`api`]): 200 done;
//! 400 bad body; 401 no or wrong token; 403 disabled; 404 unknown session, account or route;
//! 502 a pulled kill switch whose cancel-all failed somewhere (the switch is on); 503 the io
//! thread did not answer in time.
//!
//! Threads: the routes ([`routes`]) run on the metrics endpoint's thread; they never touch the
//! order path's state. Each action is a [`ControlCommand`] sent to the io thread
//! (`crate::engine`), which acts (risk flags, the kill switch's cancel-all, the session's
//! mass cancel, the tracker's open-order query) and answers on a oneshot. Every action is
//! logged (target `gateway::control::routes`, fields `action`, `session`, `account`,
//! `result`, `status`, `detail`) and counted (`bgw_control_actions_total`, see
//! [`crate::metrics::control`]).

pub mod api;
pub mod auth;
pub mod routes;

use tokio::sync::{mpsc, oneshot};

pub use api::Directory;
pub use auth::{ControlAuth, TOKEN_ENV};

/// What the io thread is asked to do (names already resolved by the routes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlCommand {
    /// List the sessions and their open orders.
    List,
    /// Pull (`pull`) or release the kill switch of one account (`Some(index)`) or all.
    KillSwitch {
        /// Pull (true) or release.
        pull: bool,
        /// Account index; `None`: every account.
        account: Option<usize>,
    },
    /// Drain a session (and cancel its open orders with `cancel_open`).
    Drain {
        /// SessionID.
        session_id: u64,
        /// Cancel its open orders too.
        cancel_open: bool,
    },
    /// Undo a drain.
    Resume {
        /// SessionID.
        session_id: u64,
    },
}

/// The io thread's answer to a [`ControlCommand`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlReply {
    /// To [`ControlCommand::List`].
    Sessions(api::SessionsJson),
    /// To [`ControlCommand::KillSwitch`].
    KillSwitch(api::KillSwitchJson),
    /// To [`ControlCommand::Drain`] and [`ControlCommand::Resume`].
    Drain(api::DrainJson),
}

/// A command and where its answer goes.
#[derive(Debug)]
pub struct ControlRequest {
    /// What to do.
    pub command: ControlCommand,
    /// Where the answer goes (dropped: the HTTP side answers 503).
    pub reply: oneshot::Sender<ControlReply>,
}

/// The HTTP thread's end of the command channel.
pub type ControlTx = mpsc::UnboundedSender<ControlRequest>;
/// The io thread's end of the command channel.
pub type ControlRx = mpsc::UnboundedReceiver<ControlRequest>;

/// A new command channel.
pub fn channel() -> (ControlTx, ControlRx) {
    mpsc::unbounded_channel()
}
