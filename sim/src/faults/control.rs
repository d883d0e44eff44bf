//! [`FaultControl`]: the test-facing control API of a running simulator
//! (`SimHandle::faults()`).

use std::sync::Arc;

use super::{Control, Scope, Target, TradeFault};
use crate::render::control_error;
use crate::state::AppState;

/// Why a fault could not be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultError {
    /// No configured account has this uid.
    #[error("unknown uid {0}")]
    UnknownUid(String),
}

/// Sets and clears faults on a running simulator (see [`crate::faults`] for what each does).
#[derive(Clone)]
pub struct FaultControl {
    pub(crate) state: Arc<AppState>,
}

impl std::fmt::Debug for FaultControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultControl").finish_non_exhaustive()
    }
}

/// The message of the `30033` notice (the live text is not in the reference; this is ours).
pub const SERVICE_UPGRADE_MSG: &str = "The service will be upgraded soon, please reconnect";

impl FaultControl {
    pub(crate) fn target(&self, scope: &Scope) -> Result<Target, FaultError> {
        match scope {
            Scope::All => Ok(Target::All),
            Scope::Uid(uid) => self
                .state
                .faults
                .account_of(uid)
                .map(Target::Account)
                .ok_or_else(|| FaultError::UnknownUid(uid.clone())),
        }
    }

    fn signal(&self, scope: &Scope, ctl: Control) -> Result<usize, FaultError> {
        let target = self.target(scope)?;
        let sh = self.state.shared.lock();
        let mut n = 0;
        for c in sh.conns.values() {
            if target.matches(c.owner) && c.ctl.send(ctl.clone()).is_ok() {
                n += 1;
            }
        }
        Ok(n)
    }

    /// Closes the WebSocket connections of `scope` now (close frame, then the socket is
    /// dropped). Returns how many connections were told to close.
    pub fn close_connections(&self, scope: Scope) -> Result<usize, FaultError> {
        self.signal(&scope, Control::Close)
    }

    /// Sends the service-upgrade notice `{"event":"error","code":30033,"msg":..}` to the
    /// connections of `scope` and closes them `close_after_ms` later (Bitget: about 60 s).
    pub fn service_upgrade(&self, scope: Scope, close_after_ms: u64) -> Result<usize, FaultError> {
        let frame = control_error(None, 30033, SERVICE_UPGRADE_MSG);
        self.signal(
            &scope,
            Control::Notice {
                frame,
                close_after_ms,
            },
        )
    }

    /// Writes replies `ms` milliseconds late (0 = no delay). Pushes are not held back.
    pub fn delay_replies(&self, scope: Scope, ms: u64) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.update(t, |f| f.reply_delay_ms = ms);
        Ok(())
    }

    /// Writes pushes `ms` milliseconds late (0 = no delay).
    pub fn delay_pushes(&self, scope: Scope, ms: u64) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.update(t, |f| f.push_delay_ms = ms);
        Ok(())
    }

    /// Writes every push twice (`on`) or once.
    pub fn duplicate_pushes(&self, scope: Scope, on: bool) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.update(t, |f| f.duplicate = on);
        Ok(())
    }

    /// Swaps pushes pairwise; a push without a successor goes out after `window_ms`
    /// (0 = off).
    pub fn reorder_pushes(&self, scope: Scope, window_ms: u64) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state
            .faults
            .update(t, |f| f.reorder_window_ms = window_ms);
        Ok(())
    }

    /// Stops pushing (pushes are dropped); the socket stays open and replies continue.
    pub fn pause_pushes(&self, scope: Scope) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.update(t, |f| f.paused = true);
        Ok(())
    }

    /// Resumes pushing (what was dropped while paused is not sent).
    pub fn resume_pushes(&self, scope: Scope) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.update(t, |f| f.paused = false);
        Ok(())
    }

    /// Drops every frame to `scope` (pushes, replies, `pong`) while `on`; the socket stays
    /// open and inbound frames are still handled (a silent stream).
    pub fn silence(&self, scope: Scope, on: bool) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.update(t, |f| f.silent = on);
        Ok(())
    }

    /// Answers the next `count` trade ops of `scope` (of `topic` when given, e.g.
    /// `place-order`) with `{"event":"error","id":..,"code":"<code>","msg":..}` without applying
    /// them.
    pub fn reject_trade_ops(
        &self,
        scope: Scope,
        count: u32,
        topic: Option<&str>,
        code: u32,
        msg: &str,
    ) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.add_rule(
            t,
            topic.map(str::to_string),
            count,
            TradeFault::Reject {
                code,
                msg: msg.to_string(),
            },
        );
        Ok(())
    }

    /// Answers the next `count` trade ops of `scope` (of `topic` when given) with the
    /// outcome-unknown error `{"event":"error","id":..,"code":"40010","msg":"Request timed out"}`,
    /// after applying the op (`applied`: the order exists, its pushes follow) or without.
    pub fn unknown_outcome(
        &self,
        scope: Scope,
        count: u32,
        topic: Option<&str>,
        applied: bool,
    ) -> Result<(), FaultError> {
        let t = self.target(&scope)?;
        self.state.faults.add_rule(
            t,
            topic.map(str::to_string),
            count,
            TradeFault::UnknownOutcome { applied },
        );
        Ok(())
    }

    /// Removes every fault (connections already closing still close).
    pub fn clear(&self) {
        self.state.faults.clear();
    }
}
