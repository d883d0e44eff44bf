//! What a run found wrong: each broken invariant with the simulated time, the session and the
//! order it concerns.

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Simulated time it was seen, ns since the run's start.
    pub t_ns: u64,
    /// Which invariant (a short fixed name, for grouping).
    pub invariant: &'static str,
    /// SessionID (0: none).
    pub session_id: u64,
    /// Root ClOrdID of the order (0: none).
    pub root: u64,
    /// What was seen.
    pub detail: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[{:.3} ms] {}: session {} order {}: {}",
            self.t_ns as f64 / 1e6,
            self.invariant,
            self.session_id,
            self.root,
            self.detail
        )
    }
}

/// The violations of a run, in the order seen.
#[derive(Debug, Clone, Default)]
pub struct Violations(pub Vec<Violation>);

impl Violations {
    /// Notes one.
    pub fn add(
        &mut self,
        t_ns: u64,
        invariant: &'static str,
        session_id: u64,
        root: u64,
        detail: String,
    ) {
        self.0.push(Violation {
            t_ns,
            invariant,
            session_id,
            root,
            detail,
        });
    }

    /// None seen.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
