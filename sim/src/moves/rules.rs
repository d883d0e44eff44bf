//! The refusal rules of `POST /api/v3/account/move-positions` (Bitget page "Move Positions",
//! reference §7 P4), without I/O: every time-dependent rule takes `now_ms` (ms since the Unix
//! epoch, UTC) as an argument. Codes: see [`super::MoveError`].

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
/// Successful moves per master account per UTC day.
pub const MAX_MOVES_PER_DAY: u32 = 50;
/// Least time between two successful moves of a master account, ms: 1 minute.
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

/// Successful moves of one master account.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pace {
    /// UTC day number (`now_ms / DAY_MS`) of `count`.
    pub day: u64,
    /// Successful moves on `day`.
    pub count: u32,
    /// Time of the last successful move, ms.
    pub last_ms: Option<u64>,
}

/// Per-master pacing: at most [`MAX_MOVES_PER_DAY`] successful moves per UTC day, at least
/// [`MIN_SPACING_MS`] apart. Refused requests do not count ("counting from a successful
/// call").
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    by_master: HashMap<AccountId, Pace>,
}

impl Pacer {
    /// Daily-count and spacing rules for `master` at `now_ms`.
    pub fn check(&self, master: AccountId, now_ms: u64) -> Result<(), MoveError> {
        let Some(p) = self.by_master.get(&master) else {
            return Ok(());
        };
        if p.day == now_ms / DAY_MS && p.count >= MAX_MOVES_PER_DAY {
            return Err(MoveError::DailyLimit);
        }
        if let Some(last) = p.last_ms {
            if now_ms < last.saturating_add(MIN_SPACING_MS) {
                return Err(MoveError::TooSoon);
            }
        }
        Ok(())
    }

    /// Counts a successful move of `master` at `now_ms`.
    pub fn record(&mut self, master: AccountId, now_ms: u64) {
        let p = self.by_master.entry(master).or_default();
        let day = now_ms / DAY_MS;
        if p.day != day {
            p.day = day;
            p.count = 0;
        }
        p.count = p.count.saturating_add(1);
        p.last_ms = Some(now_ms);
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
    fn spacing_of_one_minute_between_successful_moves() {
        let m = AccountId(0);
        let mut p = Pacer::default();
        let t = TEN + 600_000;
        assert_eq!(p.check(m, t), Ok(()));
        p.record(m, t);
        assert_eq!(p.check(m, t + 59_999), Err(MoveError::TooSoon));
        assert_eq!(p.check(m, t + 60_000), Ok(()));
        // Another master is paced on its own.
        assert_eq!(p.check(AccountId(3), t + 1), Ok(()));
    }

    #[test]
    fn fifty_successful_moves_per_utc_day() {
        let m = AccountId(0);
        let mut p = Pacer::default();
        let day_start = TEN - 10 * HOUR_MS; // 2026-11-28 00:00 UTC
        assert_eq!(day_start % DAY_MS, 0);
        let mut t = day_start + 600_000;
        for _ in 0..MAX_MOVES_PER_DAY {
            assert_eq!(p.check(m, t), Ok(()));
            p.record(m, t);
            t += 120_000;
        }
        assert_eq!(p.pace(m).count, 50);
        assert_eq!(p.check(m, t), Err(MoveError::DailyLimit));
        assert_eq!(
            p.check(m, day_start + DAY_MS - 1),
            Err(MoveError::DailyLimit)
        );
        // The next UTC day starts a new count.
        assert_eq!(p.check(m, day_start + DAY_MS + 600_000), Ok(()));
        p.record(m, day_start + DAY_MS + 600_000);
        assert_eq!(p.pace(m).count, 1);
    }
}
