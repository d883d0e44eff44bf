//! The operator's control surface in the metrics (`/control/...` on the metrics listener, see
//! `crate::control`): what it counts and the state it shows, and their metric families.
//!
//! - `bgw_control_actions_total{action, result}` (counter): every control request, by action
//!   (`kill_switch_pull`, `kill_switch_release`, `drain`, `resume`, `list`) and result (`ok`;
//!   `refused`: no or wrong token, surface disabled, bad request, unknown session or account;
//!   `error`: the io thread did not answer, or a cancel-all failed);
//! - `bgw_kill_switch_active{scope}` (gauge, 0/1): per account name, and `scope="global"`
//!   (1 while every account's switch is on);
//! - `bgw_sessions_draining` (gauge): sessions drained now.
//!
//! Written by the control path only (the HTTP thread counts, the io thread publishes the
//! state after each action): one `Relaxed` atomic each, nothing on the order path.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use prometheus::proto::{MetricFamily, MetricType};

use super::proto::{bool_f, counter, family, gauge};

/// A control action (label `action` of `bgw_control_actions_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlAction {
    /// `GET /control/sessions`.
    List = 0,
    /// `POST /control/kill-switch` with `"action": "pull"`.
    KillSwitchPull = 1,
    /// `POST /control/kill-switch` with `"action": "release"`.
    KillSwitchRelease = 2,
    /// `POST /control/sessions/{session}/drain`.
    Drain = 3,
    /// `POST /control/sessions/{session}/resume`.
    Resume = 4,
}

impl ControlAction {
    /// Every action, in label order.
    pub const ALL: [ControlAction; 5] = [
        ControlAction::List,
        ControlAction::KillSwitchPull,
        ControlAction::KillSwitchRelease,
        ControlAction::Drain,
        ControlAction::Resume,
    ];

    /// The label value (`list`, `kill_switch_pull`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ControlAction::List => "list",
            ControlAction::KillSwitchPull => "kill_switch_pull",
            ControlAction::KillSwitchRelease => "kill_switch_release",
            ControlAction::Drain => "drain",
            ControlAction::Resume => "resume",
        }
    }
}

/// How a control request ended (label `result` of `bgw_control_actions_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlResult {
    /// Done (HTTP 2xx).
    Ok = 0,
    /// Refused before acting: no or wrong token (401), surface disabled (403), bad request
    /// (400), unknown session or account (404).
    Refused = 1,
    /// Failed while acting: the io thread did not answer (503), or some cancel-all failed.
    Error = 2,
}

impl ControlResult {
    /// Every result, in label order.
    pub const ALL: [ControlResult; 3] = [
        ControlResult::Ok,
        ControlResult::Refused,
        ControlResult::Error,
    ];

    /// The label value (`ok`, `refused`, `error`).
    pub fn name(self) -> &'static str {
        match self {
            ControlResult::Ok => "ok",
            ControlResult::Refused => "refused",
            ControlResult::Error => "error",
        }
    }
}

/// The control surface's counters and published state (see the module doc).
#[derive(Debug)]
pub struct ControlMetrics {
    accounts: Vec<String>,
    /// `action * 3 + result`.
    actions: [AtomicU64; 15],
    kill: Vec<AtomicBool>,
    draining: AtomicU64,
}

impl ControlMetrics {
    /// State for the named accounts (every switch off, nothing drained, nothing counted).
    pub fn new(accounts: Vec<String>) -> ControlMetrics {
        ControlMetrics {
            kill: accounts.iter().map(|_| AtomicBool::new(false)).collect(),
            accounts,
            actions: Default::default(),
            draining: AtomicU64::new(0),
        }
    }

    /// Counts one control request.
    pub fn count(&self, action: ControlAction, result: ControlResult) {
        if let Some(c) = self.actions.get(action as usize * 3 + result as usize) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Requests counted for `action` and `result` since start.
    pub fn counted(&self, action: ControlAction, result: ControlResult) -> u64 {
        self.actions
            .get(action as usize * 3 + result as usize)
            .map_or(0, |c| c.load(Ordering::Relaxed))
    }

    /// Publishes account `ix`'s kill-switch state.
    pub fn set_kill_switch(&self, ix: usize, on: bool) {
        if let Some(k) = self.kill.get(ix) {
            k.store(on, Ordering::Relaxed);
        }
    }

    /// Publishes how many sessions are drained.
    pub fn set_draining(&self, sessions: usize) {
        self.draining.store(
            u64::try_from(sessions).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// The metric families (appended to the exposition by `super::exposition::families`).
    pub fn families(&self) -> Vec<MetricFamily> {
        let mut actions = Vec::with_capacity(15);
        for a in ControlAction::ALL {
            for r in ControlResult::ALL {
                actions.push(counter(
                    &[("action", a.name()), ("result", r.name())],
                    self.counted(a, r),
                ));
            }
        }
        let on: Vec<bool> = self
            .kill
            .iter()
            .map(|k| k.load(Ordering::Relaxed))
            .collect();
        let mut kill = vec![gauge(
            &[("scope", "global")],
            bool_f(!on.is_empty() && on.iter().all(|x| *x)),
        )];
        for (name, on) in self.accounts.iter().zip(&on) {
            kill.push(gauge(&[("scope", name)], bool_f(*on)));
        }
        let draining = gauge(&[], self.draining.load(Ordering::Relaxed) as f64);
        vec![
            family(
                "bgw_control_actions_total",
                "Operator control requests (/control/ on the metrics listener), by action (list, kill_switch_pull, kill_switch_release, drain, resume) and result (ok; refused: token missing or wrong, surface disabled, bad request, unknown session or account; error: the io thread did not answer or a cancel-all failed).",
                MetricType::COUNTER,
                actions,
            ),
            family(
                "bgw_kill_switch_active",
                "1 while the kill switch is on (new orders refused with KillSwitch), per account name; scope global: 1 while every account's is on.",
                MetricType::GAUGE,
                kill,
            ),
            family(
                "bgw_sessions_draining",
                "Strategy sessions drained by the operator (new orders refused, modifies and cancels pass).",
                MetricType::GAUGE,
                vec![draining],
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus::{Encoder, TextEncoder};

    #[test]
    fn families_render_counts_and_state() {
        let m = ControlMetrics::new(vec!["main".into(), "sub".into()]);
        m.count(ControlAction::Drain, ControlResult::Ok);
        m.count(ControlAction::Drain, ControlResult::Ok);
        m.count(ControlAction::List, ControlResult::Refused);
        m.set_kill_switch(1, true);
        m.set_draining(3);
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&m.families(), &mut buf)
            .expect("encode");
        let text = String::from_utf8(buf).expect("utf-8");
        for line in [
            "# TYPE bgw_control_actions_total counter",
            "bgw_control_actions_total{action=\"drain\",result=\"ok\"} 2",
            "bgw_control_actions_total{action=\"list\",result=\"refused\"} 1",
            "bgw_control_actions_total{action=\"kill_switch_pull\",result=\"error\"} 0",
            "bgw_kill_switch_active{scope=\"global\"} 0",
            "bgw_kill_switch_active{scope=\"main\"} 0",
            "bgw_kill_switch_active{scope=\"sub\"} 1",
            "bgw_sessions_draining 3",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
        m.set_kill_switch(0, true);
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&m.families(), &mut buf)
            .expect("encode");
        let text = String::from_utf8(buf).expect("utf-8");
        assert!(text.contains("bgw_kill_switch_active{scope=\"global\"} 1"));
    }
}
