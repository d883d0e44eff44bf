//! When a session's epoch ends by the operator's schedule (`[strategy] rollover`), in UTC, like
//! QuickFIX's session times (`StartTime` / `StartDay`: the message store is reset at the
//! session's start) and CME iLink 3's weekly new UUID.
//!
//! A schedule is a boundary repeated daily or weekly; an epoch that started before the latest
//! boundary is due to end (also when the gateway was stopped across the boundary: it rolls over
//! at start). The decision takes the times as arguments (`utc_ms`); the shell asks it once a
//! second.

use std::fmt;
use std::str::FromStr;

const MINUTE_MS: u64 = 60_000;
const DAY_MS: u64 = 24 * 60 * MINUTE_MS;
const WEEK_MS: u64 = 7 * DAY_MS;
/// 1970-01-01 was a Thursday: Monday 1970-01-05 is 4 days after the Unix epoch.
const FIRST_MONDAY_MS: u64 = 4 * DAY_MS;

/// Weekday names as the configuration writes them, Monday first.
pub const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// An operator's rollover schedule. In a configuration file it is the string form
/// (`"none"`, `"daily HH:MM"`, `"weekly DAY HH:MM"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(try_from = "String", into = "String")]
pub enum RolloverSchedule {
    /// Epochs end only when a strategy asks (Negotiate with a higher SessionVerID).
    #[default]
    Never,
    /// Every day at `minute` minutes after 00:00 UTC.
    Daily {
        /// Minutes after midnight UTC (0..1440).
        minute: u32,
    },
    /// Every `period_ms`, at multiples of it since the Unix epoch (`"every 30s"`, `"every 5m"`,
    /// `"every 1h"`): for tests, soaks and endurance runs that roll over often.
    Every {
        /// The period, ms (at least 1 000).
        period_ms: u64,
    },
    /// Every week on `weekday` (0 = Monday) at `minute` minutes after 00:00 UTC.
    Weekly {
        /// 0 = Monday .. 6 = Sunday.
        weekday: u8,
        /// Minutes after midnight UTC (0..1440).
        minute: u32,
    },
}

/// Why a schedule did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rollover schedule {0:?}: expected \"none\", \"daily HH:MM\" or \"weekly DAY HH:MM\" (UTC; DAY one of mon tue wed thu fri sat sun) or \"every N(s|m|h)\" (N ≥ 1 s)")]
pub struct BadSchedule(pub String);

fn parse_hh_mm(s: &str) -> Option<u32> {
    let (h, m) = s.split_once(':')?;
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60 && s.len() == 5).then_some(h * 60 + m)
}

impl FromStr for RolloverSchedule {
    type Err = BadSchedule;

    /// `"none"`, `"daily HH:MM"` or `"weekly DAY HH:MM"` (UTC, 24-hour clock).
    fn from_str(s: &str) -> Result<Self, BadSchedule> {
        let bad = || BadSchedule(s.to_owned());
        let words: Vec<&str> = s.split_whitespace().collect();
        match words.as_slice() {
            ["none"] => Ok(RolloverSchedule::Never),
            ["every", period] => {
                let (n, unit) = period.split_at(period.len().saturating_sub(1));
                let unit_ms = match unit {
                    "s" => 1_000,
                    "m" => MINUTE_MS,
                    "h" => 60 * MINUTE_MS,
                    _ => return Err(bad()),
                };
                let n: u64 = n.parse().map_err(|_| bad())?;
                let period_ms = n
                    .checked_mul(unit_ms)
                    .filter(|p| *p >= 1_000)
                    .ok_or_else(bad)?;
                Ok(RolloverSchedule::Every { period_ms })
            }
            ["daily", at] => Ok(RolloverSchedule::Daily {
                minute: parse_hh_mm(at).ok_or_else(bad)?,
            }),
            ["weekly", day, at] => {
                let weekday = WEEKDAYS
                    .iter()
                    .position(|d| d.eq_ignore_ascii_case(day))
                    .ok_or_else(bad)?;
                Ok(RolloverSchedule::Weekly {
                    weekday: weekday as u8,
                    minute: parse_hh_mm(at).ok_or_else(bad)?,
                })
            }
            _ => Err(bad()),
        }
    }
}

/// The configuration's string form (what [`fmt::Display`] writes; parses back to the same
/// schedule).
impl From<RolloverSchedule> for String {
    fn from(s: RolloverSchedule) -> String {
        s.to_string()
    }
}

impl TryFrom<String> for RolloverSchedule {
    type Error = BadSchedule;

    fn try_from(s: String) -> Result<Self, BadSchedule> {
        s.parse()
    }
}

impl fmt::Display for RolloverSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RolloverSchedule::Never => write!(f, "none"),
            RolloverSchedule::Daily { minute } => {
                write!(f, "daily {:02}:{:02}", minute / 60, minute % 60)
            }
            RolloverSchedule::Every { period_ms } => match period_ms {
                p if p % (60 * MINUTE_MS) == 0 => write!(f, "every {}h", p / (60 * MINUTE_MS)),
                p if p % MINUTE_MS == 0 => write!(f, "every {}m", p / MINUTE_MS),
                p => write!(f, "every {}s", p / 1_000),
            },
            RolloverSchedule::Weekly { weekday, minute } => write!(
                f,
                "weekly {} {:02}:{:02}",
                WEEKDAYS.get(usize::from(weekday)).unwrap_or(&"?"),
                minute / 60,
                minute % 60
            ),
        }
    }
}

impl RolloverSchedule {
    /// (period, offset of the first boundary after the Unix epoch), ms; `None` for `Never`.
    fn period(&self) -> Option<(u64, u64)> {
        match *self {
            RolloverSchedule::Never => None,
            RolloverSchedule::Daily { minute } => Some((DAY_MS, u64::from(minute) * MINUTE_MS)),
            RolloverSchedule::Every { period_ms } => Some((period_ms.max(1_000), 0)),
            RolloverSchedule::Weekly { weekday, minute } => Some((
                WEEK_MS,
                (FIRST_MONDAY_MS + u64::from(weekday) * DAY_MS + u64::from(minute) * MINUTE_MS)
                    % WEEK_MS,
            )),
        }
    }

    /// The first boundary strictly after `utc_ms` (UTC ms), `None` for `Never`.
    pub fn next_after(&self, utc_ms: u64) -> Option<u64> {
        let (period, offset) = self.period()?;
        let since = utc_ms.checked_sub(offset);
        Some(match since {
            None => offset,
            Some(s) => offset + (s / period + 1) * period,
        })
    }

    /// True when an epoch that started at `epoch_start_ms` must end at `now_ms` (UTC ms): a
    /// boundary lies in `(epoch_start_ms, now_ms]`.
    pub fn due(&self, epoch_start_ms: u64, now_ms: u64) -> bool {
        self.next_after(epoch_start_ms)
            .is_some_and(|next| next <= now_ms)
    }

    /// True when a due epoch ends now (UTC ms), given where the session's strategy is: a
    /// strategy connected for [`CATCH_UP_MS`] gets its rollover Terminate at once (it has had
    /// the time to ask for what it missed: the old epoch's messages can no longer be asked for
    /// once it ends); a session whose strategy is away is kept in the old epoch for
    /// [`AWAY_GRACE_MS`] (a dropped connection or a restarted gateway: the strategy comes back,
    /// catches up in the old epoch, then rolls), and rolled after that without it (it then
    /// learns the orders the tracker still holds, from their OrderStatus).
    pub fn ends_now(&self, epoch_start_ms: u64, now_ms: u64, presence: Presence) -> bool {
        self.due(epoch_start_ms, now_ms)
            && match presence {
                Presence::Connected { since_ms } => now_ms.saturating_sub(since_ms) >= CATCH_UP_MS,
                Presence::Away { since_ms } => now_ms.saturating_sub(since_ms) >= AWAY_GRACE_MS,
            }
    }
}

/// How long a strategy that establishes in an epoch the schedule has ended stays in it before
/// its rollover Terminate, ms: time to ask for the old epoch's messages it missed
/// (RetransmitRequest right after the EstablishmentAck).
pub const CATCH_UP_MS: u64 = 1_000;

/// How long an ended epoch waits for its strategy to come back and catch up before it is
/// rolled without it, ms (from the end of its last connection, or from the gateway's start).
pub const AWAY_GRACE_MS: u64 = 10_000;

/// Where a session's strategy is, for [`RolloverSchedule::ends_now`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Established since UTC ms `since_ms`.
    Connected {
        /// When the connection was established, UTC ms.
        since_ms: u64,
    },
    /// Without a connection since UTC ms `since_ms` (its last one ended, or the gateway
    /// started).
    Away {
        /// When the last connection ended (or the gateway started), UTC ms.
        since_ms: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-26 (a Thursday) 12:00:00 UTC.
    const THU_NOON: u64 = 1_795_694_400_000;

    #[test]
    fn schedules_parse_and_print_back() {
        for s in [
            "none",
            "daily 00:00",
            "daily 21:59",
            "weekly sun 22:00",
            "weekly mon 00:05",
            "every 2s",
            "every 5m",
            "every 1h",
        ] {
            assert_eq!(s.parse::<RolloverSchedule>().unwrap().to_string(), s);
        }
        for s in [
            "",
            "daily",
            "daily 24:00",
            "daily 7:00",
            "weekly xyz 10:00",
            "hourly 10:00",
            "every 0s",
            "every 5",
            "every xs",
        ] {
            assert!(s.parse::<RolloverSchedule>().is_err(), "{s}");
        }
    }

    #[test]
    fn boundaries_fall_on_the_utc_day_and_weekday() {
        assert_eq!(THU_NOON % DAY_MS, 12 * 60 * MINUTE_MS);
        let daily: RolloverSchedule = "daily 22:00".parse().unwrap();
        assert_eq!(daily.next_after(THU_NOON), Some(THU_NOON + 10 * 3_600_000));
        let at = THU_NOON + 10 * 3_600_000;
        assert_eq!(daily.next_after(at), Some(at + DAY_MS), "strictly after");
        let weekly: RolloverSchedule = "weekly sun 22:00".parse().unwrap();
        // Thursday noon → Sunday 22:00 is 3 days and 10 hours later.
        assert_eq!(
            weekly.next_after(THU_NOON),
            Some(THU_NOON + 3 * DAY_MS + 10 * 3_600_000)
        );
        let thu: RolloverSchedule = "weekly thu 12:00".parse().unwrap();
        assert_eq!(thu.next_after(THU_NOON - 1), Some(THU_NOON));
        assert_eq!(RolloverSchedule::Never.next_after(THU_NOON), None);
        let every: RolloverSchedule = "every 2s".parse().unwrap();
        assert_eq!(every.next_after(THU_NOON), Some(THU_NOON + 2_000));
        assert_eq!(every.next_after(THU_NOON + 1), Some(THU_NOON + 2_000));
    }

    #[test]
    fn an_epoch_is_due_once_a_boundary_passed_even_while_stopped() {
        let daily: RolloverSchedule = "daily 00:00".parse().unwrap();
        let midnight = THU_NOON + 12 * 3_600_000;
        assert!(!daily.due(THU_NOON, midnight - 1));
        assert!(daily.due(THU_NOON, midnight));
        // Started at the boundary itself: the next one ends it.
        assert!(!daily.due(midnight, midnight + DAY_MS - 1));
        // Stopped for three days: due at once.
        assert!(daily.due(THU_NOON, THU_NOON + 3 * DAY_MS));
        assert!(!RolloverSchedule::Never.due(0, u64::MAX));
    }

    /// A strategy gets time to catch up on the ended epoch (it connected late, or the gateway
    /// restarted across the boundary) before the epoch ends behind it.
    #[test]
    fn a_due_epoch_waits_for_its_strategy_to_catch_up() {
        let every: RolloverSchedule = "every 8s".parse().unwrap();
        let start = THU_NOON;
        let boundary = start + 8_000;
        let connected = |since_ms| Presence::Connected { since_ms };
        let away = |since_ms| Presence::Away { since_ms };
        // Not due: nothing ends, whoever is there.
        assert!(!every.ends_now(start, boundary - 1, connected(start)));
        assert!(!every.ends_now(start, boundary - 1, away(0)));
        // Connected long before the boundary: at once.
        assert!(every.ends_now(start, boundary, connected(start)));
        // Established just after it: CATCH_UP_MS later.
        assert!(!every.ends_now(start, boundary + 500, connected(boundary + 100)));
        assert!(every.ends_now(
            start,
            boundary + 100 + CATCH_UP_MS,
            connected(boundary + 100)
        ));
        // Away since just before the boundary (a drop, a restart): kept for its return...
        assert!(!every.ends_now(start, boundary + 5_000, away(boundary - 200)));
        // ...and rolled without it after AWAY_GRACE_MS.
        assert!(every.ends_now(start, boundary - 200 + AWAY_GRACE_MS, away(boundary - 200)));
        // Away for long before the boundary: at once.
        assert!(every.ends_now(start, boundary, away(start - AWAY_GRACE_MS)));
    }
}
