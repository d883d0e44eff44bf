//! The refusal rules of `POST /api/v3/account/move-positions` (Bitget page "Move Positions",
//! reference §7 P4), without I/O: every time-dependent rule takes `now_ms` (ms since the Unix
//! epoch, UTC) as an argument. Codes: see [`super::MoveError`].
//!
//! The page's limits (P4, https://www.bitget.com/api-doc/uta/trade/Move-Positions, read via the
//! mirror bjxnyj.com), quoted:
//!
//! > Users can trigger up to 50 position move requests per day (counting from a successful
//! > call). Each request must be at least 1 minute apart. A maximum of 10 positions can be
//! > moved per request.
//!
//! > Rate limit: 1/sec/UID
//!
//! - Daily count ([`Pacer::record_success`], [`MAX_MOVES_PER_DAY`]): "counting from a
//!   successful call" — only requests that moved at least one item count, per master account
//!   and UTC day.
//! - Spacing ([`Pacer::admit`], [`MIN_SPACING_MS`]): the page qualifies only the daily count
//!   with "successful"; the spacing sentence says "each request". So the minute runs from the
//!   previous *request* of the master account, whatever its outcome — a request refused for
//!   the source MMR, or one whose items all failed, counts as much as a successful one. A
//!   request counts once it has passed every check before the spacing rule (key, body,
//!   master-sub system, blackout, daily count) and the spacing rule itself; requests refused
//!   before that (HTTP 429, authentication, a malformed body, …) and requests refused *by*
//!   the spacing rule do not restart the minute (otherwise a client retrying every 30 s would
//!   never get through: "at least 1 minute apart" would become "1 minute of silence").
//! - The 1/s/UID quota is not here: it is the per-UID token bucket of
//!   [`crate::ratelimit`] (always on for this endpoint, see
//!   [`crate::ratelimit::RateLimiter::always_on`]), taken before the body is read.

use std::collections::HashMap;

use codec::Decimal;

use super::MoveError;
use crate::accounts::num::div;
use crate::config::Category;
use crate::matching::AccountId;

/// One hour, ms.
pub const HOUR_MS: u64 = 3_600_000;
/// One UTC day, ms.
pub const DAY_MS: u64 = 86_400_000;
/// Blackout either side of every full hour (funding settlement), ms: 5 minutes.
pub const BLACKOUT_MS: u64 = 300_000;
/// Successful move requests per master account per UTC day (P4: "up to 50 position move
/// requests per day (counting from a successful call)").
pub const MAX_MOVES_PER_DAY: u32 = 50;
/// Least time between two move requests of a master account, ms: 1 minute (P4: "Each request
/// must be at least 1 minute apart"); measured from the previous request the spacing rule let
/// through ([`Pacer::admit`]).
pub const MIN_SPACING_MS: u64 = 60_000;
/// Most items in `positionList`.
pub const MAX_ITEMS: usize = 10;

/// True inside the blackout: from `hh:55:00.000` (inclusive) to `hh+1:05:00.000` (exclusive)
/// around every full UTC hour. The page says "within 5 minutes before or after each hour
/// (funding fee settlement period)"; funding intervals differ per symbol (`fundInterval`), the
/// simulator refuses around every hour, as the page's wording.
pub fn in_blackout(now_ms: u64) -> bool {
    let into = now_ms % HOUR_MS;
    !(BLACKOUT_MS..HOUR_MS - BLACKOUT_MS).contains(&into)
}

/// Blackout rule.
pub fn check_blackout(now_ms: u64) -> Result<(), MoveError> {
    if in_blackout(now_ms) {
        return Err(MoveError::Blackout);
    }
    Ok(())
}

/// Key rules: the key must belong to a master account, and that account must be on the
/// move-positions whitelist.
pub fn check_key(key_is_master: bool, whitelisted: bool) -> Result<(), MoveError> {
    if !key_is_master {
        return Err(MoveError::NotMasterKey);
    }
    if !whitelisted {
        return Err(MoveError::NotWhitelisted);
    }
    Ok(())
}

/// Both uids must be known accounts of the master system of the key (`key_master`), and
/// differ. `from_master` / `to_master`: the master of each uid (`None` = unknown uid).
pub fn check_system(
    key_master: AccountId,
    from: Option<(AccountId, AccountId)>,
    to: Option<(AccountId, AccountId)>,
) -> Result<(), MoveError> {
    match (from, to) {
        (Some((f, fm)), Some((t, tm))) if fm == key_master && tm == key_master => {
            if f == t {
                Err(MoveError::Param("fromUid and toUid must differ".into()))
            } else {
                Ok(())
            }
        }
        _ => Err(MoveError::NotSameSystem),
    }
}

/// Only USDT and USDC futures.
pub fn check_category(c: Category) -> Result<(), MoveError> {
    match c {
        Category::UsdtFutures | Category::UsdcFutures => Ok(()),
        other => Err(MoveError::Category(other.rest_str().to_string())),
    }
}

/// Cross margin only: an optional `marginMode` in the request must be `crossed` (the
/// simulator's accounts are always cross margin, so this is the only way to ask for another).
pub fn check_margin_mode(mode: Option<&str>) -> Result<(), MoveError> {
    match mode {
        None | Some("") | Some("crossed") => Ok(()),
        Some(m) => Err(MoveError::NotCross(m.to_string())),
    }
}

/// 1 to [`MAX_ITEMS`] items.
pub fn check_item_count(n: usize) -> Result<(), MoveError> {
    if n == 0 || n > MAX_ITEMS {
        return Err(MoveError::ItemCount(n));
    }
    Ok(())
}

/// Source account maintenance-margin ratio must stay below 80 %: `mm` maintenance margin and
/// `equity` total equity (both USD). Without positive equity any maintenance margin counts as
/// at risk.
pub fn check_mmr(mm: Decimal, equity: Decimal) -> Result<(), MoveError> {
    let limit = Decimal::new(8, -1).unwrap_or(Decimal::ONE);
    let at_risk = if equity.is_positive() {
        div(mm, equity) >= limit
    } else {
        mm.is_positive()
    };
    if at_risk {
        return Err(MoveError::MmrTooHigh);
    }
    Ok(())
}

/// An item against the source position of its side: `held` its size (0 = none).
pub fn check_item_qty(held: Decimal, qty: Decimal) -> Result<(), MoveError> {
    if !held.is_positive() {
        return Err(MoveError::NoPosition);
    }
    if qty > held {
        return Err(MoveError::QtyTooLarge);
    }
    Ok(())
}

/// The pacing state of one master account.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pace {
    /// UTC day number (`now_ms / DAY_MS`) of `count`.
    pub day: u64,
    /// Successful move requests (at least one item moved) on `day`.
    pub count: u32,
    /// Time of the previous request that passed the spacing rule ([`Pacer::admit`]), ms since
    /// the Unix epoch; `None` before the first.
    pub last_ms: Option<u64>,
}

/// Per-master pacing (P4: "Users can trigger up to 50 position move requests per day (counting
/// from a successful call). Each request must be at least 1 minute apart."):
///
/// - at most [`MAX_MOVES_PER_DAY`] *successful* requests per UTC day ([`Pacer::record_success`]);
/// - at least [`MIN_SPACING_MS`] since the previous request that [`Pacer::admit`] let through,
///   whether that request then moved anything or not.
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    by_master: HashMap<AccountId, Pace>,
}

impl Pacer {
    /// Daily-count then spacing rule for a request of `master` at `now_ms` (ms since the Unix
    /// epoch), checked and recorded in one step: `Ok` makes this request "the previous request"
    /// of the next one (whatever the later rules and items make of it); a refusal records
    /// nothing. `DailyLimit` when [`MAX_MOVES_PER_DAY`] successful requests were counted on
    /// the UTC day of `now_ms`; `TooSoon` when `now_ms` is less than [`MIN_SPACING_MS`] after
    /// the previous admitted request (also when the clock went back before it).
    pub fn admit(&mut self, master: AccountId, now_ms: u64) -> Result<(), MoveError> {
        let p = self.by_master.entry(master).or_default();
        if p.day == now_ms / DAY_MS && p.count >= MAX_MOVES_PER_DAY {
            return Err(MoveError::DailyLimit);
        }
        if let Some(last) = p.last_ms {
            // Before `last` (clock set back) or less than the spacing after it.
            if now_ms.checked_sub(last).is_none_or(|d| d < MIN_SPACING_MS) {
                return Err(MoveError::TooSoon);
            }
        }
        p.last_ms = Some(now_ms);
        Ok(())
    }

    /// Counts a successful request (at least one item moved) of `master` at `now_ms` (ms since
    /// the Unix epoch) towards the daily limit of its UTC day; a new UTC day starts at 0.
    pub fn record_success(&mut self, master: AccountId, now_ms: u64) {
        let p = self.by_master.entry(master).or_default();
        let day = now_ms / DAY_MS;
        if p.day != day {
            p.day = day;
            p.count = 0;
        }
        p.count = p.count.saturating_add(1);
    }

    /// The pacing state of `master`.
    pub fn pace(&self, master: AccountId) -> Pace {
        self.by_master.get(&master).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// 2026-11-28 10:00:00.000 UTC.
    const TEN: u64 = 1_795_860_000_000;

    #[test]
    fn blackout_is_five_minutes_either_side_of_every_hour() {
        assert_eq!(TEN % HOUR_MS, 0);
        assert!(in_blackout(TEN));
        assert!(in_blackout(TEN + 4 * 60_000 + 59_999));
        assert!(!in_blackout(TEN + 5 * 60_000));
        assert!(!in_blackout(TEN + 30 * 60_000));
        assert!(!in_blackout(TEN - 5 * 60_000 - 1));
        assert!(in_blackout(TEN - 5 * 60_000));
        assert!(in_blackout(TEN - 1));
        // Every hour, not only the 8-hourly funding times.
        assert!(in_blackout(TEN + 3 * HOUR_MS + 60_000));
        assert_eq!(check_blackout(TEN + 120_000), Err(MoveError::Blackout));
        assert_eq!(check_blackout(TEN + 1_200_000), Ok(()));
    }

    #[test]
    fn key_must_be_master_and_whitelisted() {
        assert_eq!(check_key(false, true), Err(MoveError::NotMasterKey));
        assert_eq!(check_key(false, false), Err(MoveError::NotMasterKey));
        assert_eq!(check_key(true, false), Err(MoveError::NotWhitelisted));
        assert_eq!(check_key(true, true), Ok(()));
    }

    #[test]
    fn uids_must_be_in_the_keys_master_system_and_differ() {
        let (m, s1, s2, x) = (AccountId(0), AccountId(1), AccountId(2), AccountId(3));
        assert_eq!(check_system(m, Some((m, m)), Some((s1, m))), Ok(()));
        assert_eq!(check_system(m, Some((s1, m)), Some((s2, m))), Ok(()));
        assert_eq!(check_system(m, Some((s1, m)), Some((m, m))), Ok(()));
        assert_eq!(
            check_system(m, Some((s1, m)), Some((x, x))),
            Err(MoveError::NotSameSystem)
        );
        assert_eq!(
            check_system(m, None, Some((s1, m))),
            Err(MoveError::NotSameSystem)
        );
        // Another master's system, even when both uids share it.
        assert_eq!(
            check_system(x, Some((s1, m)), Some((s2, m))),
            Err(MoveError::NotSameSystem)
        );
        assert!(matches!(
            check_system(m, Some((s1, m)), Some((s1, m))),
            Err(MoveError::Param(_))
        ));
    }

    #[test]
    fn only_usdt_and_usdc_futures_and_cross_margin() {
        assert_eq!(check_category(Category::UsdtFutures), Ok(()));
        assert_eq!(check_category(Category::UsdcFutures), Ok(()));
        for c in [Category::Spot, Category::Margin, Category::CoinFutures] {
            assert!(matches!(check_category(c), Err(MoveError::Category(_))));
        }
        assert_eq!(check_margin_mode(None), Ok(()));
        assert_eq!(check_margin_mode(Some("crossed")), Ok(()));
        assert_eq!(
            check_margin_mode(Some("isolated")),
            Err(MoveError::NotCross("isolated".into()))
        );
    }

    #[test]
    fn one_to_ten_items() {
        assert_eq!(check_item_count(0), Err(MoveError::ItemCount(0)));
        assert_eq!(check_item_count(1), Ok(()));
        assert_eq!(check_item_count(10), Ok(()));
        assert_eq!(check_item_count(11), Err(MoveError::ItemCount(11)));
    }

    #[test]
    fn mmr_at_or_above_eighty_percent_refuses() {
        assert_eq!(check_mmr(d("79.99"), d("100")), Ok(()));
        assert_eq!(check_mmr(d("80"), d("100")), Err(MoveError::MmrTooHigh));
        assert_eq!(check_mmr(d("95"), d("100")), Err(MoveError::MmrTooHigh));
        assert_eq!(check_mmr(d("1"), d("-5")), Err(MoveError::MmrTooHigh));
        assert_eq!(check_mmr(Decimal::ZERO, Decimal::ZERO), Ok(()));
    }

    #[test]
    fn item_needs_a_position_at_least_its_qty() {
        assert_eq!(
            check_item_qty(Decimal::ZERO, d("0.1")),
            Err(MoveError::NoPosition)
        );
        assert_eq!(
            check_item_qty(d("0.1"), d("0.2")),
            Err(MoveError::QtyTooLarge)
        );
        assert_eq!(check_item_qty(d("0.1"), d("0.1")), Ok(()));
        assert_eq!(check_item_qty(d("0.1"), d("0.05")), Ok(()));
    }

    #[test]
    fn spacing_of_one_minute_since_the_previous_admitted_request() {
        let m = AccountId(0);
        let mut p = Pacer::default();
        let t = TEN + 600_000;
        assert_eq!(p.admit(m, t), Ok(()));
        assert_eq!(p.pace(m).last_ms, Some(t));
        // Nothing succeeded (e.g. every item failed): the minute still runs from t.
        assert_eq!(p.admit(m, t + 59_999), Err(MoveError::TooSoon));
        // The refusal did not restart the minute.
        assert_eq!(p.pace(m).last_ms, Some(t));
        assert_eq!(p.admit(m, t + 60_000), Ok(()));
        assert_eq!(p.pace(m).last_ms, Some(t + 60_000));
        assert_eq!(p.admit(m, t + 60_001), Err(MoveError::TooSoon));
        // Admitted requests are not counted towards the daily limit.
        assert_eq!(p.pace(m).count, 0);
        // A clock set back before the previous request refuses until a minute after it.
        assert_eq!(p.admit(m, t), Err(MoveError::TooSoon));
        // Another master is paced on its own.
        assert_eq!(p.admit(AccountId(3), t + 60_001), Ok(()));
        // No overflow at the end of time.
        assert_eq!(p.admit(AccountId(4), u64::MAX), Ok(()));
        assert_eq!(p.admit(AccountId(4), u64::MAX), Err(MoveError::TooSoon));
        p.record_success(AccountId(4), u64::MAX);
        assert_eq!(p.pace(AccountId(4)).count, 1);
    }

    #[test]
    fn fifty_successful_moves_per_utc_day() {
        let m = AccountId(0);
        let mut p = Pacer::default();
        let day_start = TEN - 10 * HOUR_MS; // 2026-11-28 00:00 UTC
        assert_eq!(day_start % DAY_MS, 0);
        let mut t = day_start + 600_000;
        // 60 admitted requests without success do not count.
        for _ in 0..60 {
            assert_eq!(p.admit(m, t), Ok(()));
            t += 60_000;
        }
        assert_eq!(p.pace(m).count, 0);
        for _ in 0..MAX_MOVES_PER_DAY {
            assert_eq!(p.admit(m, t), Ok(()));
            p.record_success(m, t);
            t += 120_000;
        }
        assert_eq!(p.pace(m).count, 50);
        let last = p.pace(m).last_ms;
        assert_eq!(p.admit(m, t), Err(MoveError::DailyLimit));
        assert_eq!(
            p.admit(m, day_start + DAY_MS - 1),
            Err(MoveError::DailyLimit)
        );
        // A refused request is not "the previous request".
        assert_eq!(p.pace(m).last_ms, last);
        // The next UTC day starts a new count, at 00:00:00.000 exactly.
        assert_eq!(p.admit(m, day_start + DAY_MS), Ok(()));
        p.record_success(m, day_start + DAY_MS);
        assert_eq!(p.pace(m).count, 1);
        assert_eq!(p.pace(m).day, (day_start + DAY_MS) / DAY_MS);
    }
}
