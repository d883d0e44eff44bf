//! The legs of the order path that are timed.

/// One timed leg of the order path (`shared/DESIGN.md` §5). All values are nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Leg {
    /// Strategy frame read → exchange (WebSocket) frame written.
    StrategyToExchange,
    /// Exchange frame written → trade reply (`event:"trade"` or error) read.
    ExchangeReply,
    /// Exchange frame written → first `order` push for that order read.
    FirstPush,
    /// Push read → ExecutionReport written to the strategy.
    PushToReport,
    /// Strategy-side round trip (order sent → report received), recorded by the load generator.
    RoundTrip,
}

impl Leg {
    /// Every leg, in table order.
    pub const ALL: [Leg; 5] = [
        Leg::StrategyToExchange,
        Leg::ExchangeReply,
        Leg::FirstPush,
        Leg::PushToReport,
        Leg::RoundTrip,
    ];

    /// Number of legs.
    pub const COUNT: usize = Leg::ALL.len();

    /// Position in [`Leg::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        match self {
            Leg::StrategyToExchange => 0,
            Leg::ExchangeReply => 1,
            Leg::FirstPush => 2,
            Leg::PushToReport => 3,
            Leg::RoundTrip => 4,
        }
    }

    /// Short name, used as the interval-log tag and in tables (no spaces or commas).
    pub const fn tag(self) -> &'static str {
        match self {
            Leg::StrategyToExchange => "strategy_to_exchange",
            Leg::ExchangeReply => "exchange_reply",
            Leg::FirstPush => "first_push",
            Leg::PushToReport => "push_to_report",
            Leg::RoundTrip => "round_trip",
        }
    }

    /// The leg from a [`tag`](Self::tag).
    pub fn from_tag(tag: &str) -> Option<Leg> {
        Leg::ALL.into_iter().find(|l| l.tag() == tag)
    }

    /// Human description of where the leg starts and ends.
    pub const fn description(self) -> &'static str {
        match self {
            Leg::StrategyToExchange => "strategy frame read → exchange frame written",
            Leg::ExchangeReply => "exchange frame written → trade reply",
            Leg::FirstPush => "exchange frame written → first order push",
            Leg::PushToReport => "push read → ExecutionReport written",
            Leg::RoundTrip => "strategy-side round trip",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_and_tags_are_consistent() {
        for (i, l) in Leg::ALL.into_iter().enumerate() {
            assert_eq!(l.index(), i);
            assert_eq!(Leg::from_tag(l.tag()), Some(l));
            assert!(hdrhistogram::serialization::interval_log::Tag::new(l.tag()).is_some());
        }
        assert_eq!(Leg::from_tag("nope"), None);
    }
}
