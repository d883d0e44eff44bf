//! The move-positions rules the gateway checks before sending (Bitget "Move Positions",
//! reference §7), without I/O: every time-dependent rule takes `now_ms` (UTC ms) as input.

use std::collections::HashMap;

use codec::sbe::{Category, MovePositionsRejectReason, Side};
use codec::Decimal;

/// One hour, ms.
pub const HOUR_MS: u64 = 3_600_000;
/// One UTC day, ms.
pub const DAY_MS: u64 = 86_400_000;
/// Blackout either side of every full hour (funding settlement), ms.
pub const BLACKOUT_MS: u64 = 300_000;
/// Successful moves per master account per UTC day.
pub const MAX_MOVES_PER_DAY: u32 = 50;
/// Least time between two successful moves of a master account, ms.
pub const MIN_SPACING_MS: u64 = 60_000;
/// Most positions in one request.
pub const MAX_ITEMS: usize = 10;

/// Why the gateway refused a MovePositions request without sending it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveRefusal {
    /// The session's account is not configured as a master account.
    #[error("the session's account is not a master account")]
    NotMaster,
    /// Only USDT and USDC futures can be moved.
    #[error("only USDT and USDC futures positions can be moved")]
    Category,
    /// No positions in the request.
    #[error("no positions to move")]
    NoItems,
    /// More than [`MAX_ITEMS`] positions.
    #[error("more than 10 positions")]
    TooManyItems,
    /// FromUID equals ToUID.
    #[error("FromUID equals ToUID")]
    SameUid,
    /// A UID outside the master-sub system the gateway knows.
    #[error("UID {0} is not an account of the master-sub system")]
    UnknownUid(u64),
    /// Within 5 minutes before or after a full hour.
    #[error("within 5 minutes of a full hour")]
    Blackout,
    /// 50 successful moves already this UTC day.
    #[error("50 moves per day reached")]
    DailyLimit,
    /// Less than a minute since the last successful move, or a move still in flight.
    #[error("less than 1 minute since the last move")]
    TooSoon,
    /// Source maintenance-margin ratio at or above 80 %.
    #[error("source account MMR {0} >= 80%")]
    MmrTooHigh(Decimal),
    /// The source holds no position of the item's symbol and direction.
    #[error("no {1} position of {0} on the source")]
    NoPosition(String, &'static str),
    /// The items of a symbol and direction exceed the source position.
    #[error("qty above the {1} position of {0}")]
    QtyTooLarge(String, &'static str),
    /// The source position is not in cross margin.
    #[error("{0} position is not cross margin")]
    NotCross(String),
}

impl MoveRefusal {
    /// The MoveRejectReason of the report.
    pub fn reason(&self) -> MovePositionsRejectReason {
        use MovePositionsRejectReason as R;
        match self {
            MoveRefusal::NotMaster => R::NotMasterAccount,
            MoveRefusal::Category => R::CategoryNotAllowed,
            MoveRefusal::NoItems => R::Other,
            MoveRefusal::TooManyItems => R::TooManyPositions,
            MoveRefusal::SameUid | MoveRefusal::UnknownUid(_) => R::InvalidUid,
            MoveRefusal::Blackout => R::NearFundingTime,
            MoveRefusal::DailyLimit => R::DailyLimit,
            MoveRefusal::TooSoon => R::TooFrequent,
            MoveRefusal::MmrTooHigh(_) => R::SourceMmrTooHigh,
            MoveRefusal::NoPosition(..) | MoveRefusal::QtyTooLarge(..) => R::InsufficientPosition,
            MoveRefusal::NotCross(_) => R::NotCrossMargin,
        }
    }
}

/// The MoveRejectReason of a Bitget refusal code of move-positions.
pub fn reason_of_code(code: u32) -> MovePositionsRejectReason {
    use MovePositionsRejectReason as R;
    match code {
        40014 => R::NotMasterAccount,
        25012 => R::SourceMmrTooHigh,
        25211 => R::DailyLimit,
        25004 => R::TooFrequent,
        25227 | 25231 => R::InsufficientPosition,
        _ => R::Other,
    }
}

/// True from `hh:55:00.000` (inclusive) to `hh+1:05:00.000` (exclusive) of every UTC hour.
pub fn in_blackout(now_ms: u64) -> bool {
    let into = now_ms % HOUR_MS;
    !(BLACKOUT_MS..HOUR_MS - BLACKOUT_MS).contains(&into)
}

/// What the request-level rules look at.
#[derive(Debug, Clone, Copy)]
pub struct MoveHeader<'a> {
    /// The session's account is a configured master.
    pub key_is_master: bool,
    /// Category of the request.
    pub category: Category,
    /// Source UID.
    pub from_uid: u64,
    /// Target UID.
    pub to_uid: u64,
    /// Number of positions.
    pub items: usize,
    /// UIDs of the master-sub system the gateway knows.
    pub known_uids: &'a [u64],
}

/// The request-level rules, in order: master key, category, item count, UIDs, blackout.
pub fn check_header(h: &MoveHeader<'_>, now_ms: u64) -> Result<(), MoveRefusal> {
    if !h.key_is_master {
        return Err(MoveRefusal::NotMaster);
    }
    if !matches!(h.category, Category::UsdtFutures | Category::UsdcFutures) {
        return Err(MoveRefusal::Category);
    }
    if h.items == 0 {
        return Err(MoveRefusal::NoItems);
    }
    if h.items > MAX_ITEMS {
        return Err(MoveRefusal::TooManyItems);
    }
    if h.from_uid == h.to_uid {
        return Err(MoveRefusal::SameUid);
    }
    for uid in [h.from_uid, h.to_uid] {
        if !h.known_uids.contains(&uid) {
            return Err(MoveRefusal::UnknownUid(uid));
        }
    }
    if in_blackout(now_ms) {
        return Err(MoveRefusal::Blackout);
    }
    Ok(())
}

/// Source MMR must stay below 80 %.
pub fn check_mmr(mmr: Decimal) -> Result<(), MoveRefusal> {
    let limit = Decimal::new(8, -1).unwrap_or(Decimal::ONE);
    if mmr >= limit {
        return Err(MoveRefusal::MmrTooHigh(mmr));
    }
    Ok(())
}

/// A source position: symbol, direction (`long`/`short`), size, margin mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePosition {
    /// Symbol.
    pub symbol: String,
    /// `long` or `short`.
    pub pos_side: String,
    /// Size, base units.
    pub size: Decimal,
    /// Margin mode (`crossed`).
    pub margin_mode: String,
}

/// The direction an item moves: `Sell` takes the source's long, `Buy` its short.
pub fn pos_side_of(side: Side) -> &'static str {
    match side {
        Side::Sell => "long",
        Side::Buy => "short",
    }
}

/// Items (symbol, side, qty) against the source positions: each needs a cross-margin position
/// of its direction, and the items of one position may not exceed its size.
pub fn check_items(
    items: &[(String, Side, Decimal)],
    positions: &[SourcePosition],
) -> Result<(), MoveRefusal> {
    let mut used: Vec<(&str, &str, Decimal)> = Vec::new();
    for (symbol, side, qty) in items {
        let dir = pos_side_of(*side);
        let Some(p) = positions
            .iter()
            .find(|p| &p.symbol == symbol && p.pos_side == dir && p.size.is_positive())
        else {
            return Err(MoveRefusal::NoPosition(symbol.clone(), dir));
        };
        if !p.margin_mode.is_empty() && p.margin_mode != "crossed" {
            return Err(MoveRefusal::NotCross(symbol.clone()));
        }
        let too_large = || MoveRefusal::QtyTooLarge(symbol.clone(), dir);
        let total = match used.iter_mut().find(|(s, d, _)| *s == symbol && *d == dir) {
            Some(u) => {
                u.2 = u.2.checked_add(*qty).ok_or_else(too_large)?;
                u.2
            }
            None => {
                used.push((symbol, dir, *qty));
                *qty
            }
        };
        if total > p.size {
            return Err(too_large());
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, Default)]
struct Pace {
    day: u64,
    count: u32,
    last_ms: Option<u64>,
    in_flight: bool,
}

/// Position-move pacing per master account (by account index), as the Move-Positions page
/// gives it: "up to 50 position move requests per day (counting from a successful call). Each
/// request must be at least 1 minute apart." At most [`MAX_MOVES_PER_DAY`] successful moves per
/// UTC day; at least [`MIN_SPACING_MS`] after the previous request the venue admitted (moved,
/// refused for the source MMR, or every item failed — the venue simulator's reading, see
/// `sim/README.md` "Position moves"); one in flight at a time.
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    by_master: HashMap<usize, Pace>,
}

impl Pacer {
    /// Checks the pacing of `master` at `now_ms` and, when it passes, marks a move in flight.
    pub fn begin(&mut self, master: usize, now_ms: u64) -> Result<(), MoveRefusal> {
        let p = self.by_master.entry(master).or_default();
        if p.in_flight {
            return Err(MoveRefusal::TooSoon);
        }
        if p.day == now_ms / DAY_MS && p.count >= MAX_MOVES_PER_DAY {
            return Err(MoveRefusal::DailyLimit);
        }
        if p.last_ms
            .is_some_and(|last| now_ms < last.saturating_add(MIN_SPACING_MS))
        {
            return Err(MoveRefusal::TooSoon);
        }
        p.in_flight = true;
        Ok(())
    }

    /// Ends the move begun at `now_ms`. `admitted`: the venue took the request past its pacing
    /// rules (it answered with item results, or refused it for the source MMR): the next one
    /// must wait a minute. `moved`: at least one position moved (counted for the day).
    pub fn end(&mut self, master: usize, now_ms: u64, admitted: bool, moved: bool) {
        let p = self.by_master.entry(master).or_default();
        p.in_flight = false;
        if admitted || moved {
            p.last_ms = Some(now_ms);
        }
        if moved {
            let day = now_ms / DAY_MS;
            if p.day != day {
                p.day = day;
                p.count = 0;
            }
            p.count = p.count.saturating_add(1);
        }
    }

    /// Successful moves of `master` on the UTC day of `now_ms`.
    pub fn count(&self, master: usize, now_ms: u64) -> u32 {
        self.by_master
            .get(&master)
            .filter(|p| p.day == now_ms / DAY_MS)
            .map_or(0, |p| p.count)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// 2026-11-28 10:00:00.000 UTC.
    const TEN: u64 = 1_795_860_000_000;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn blackout_five_minutes_either_side_of_every_hour() {
        assert!(in_blackout(TEN));
        assert!(in_blackout(TEN + 299_999));
        assert!(!in_blackout(TEN + 300_000));
        assert!(!in_blackout(TEN - 300_001));
        assert!(in_blackout(TEN - 300_000));
    }

    #[test]
    fn header_rules_in_order() {
        let known = [1, 2];
        let h = MoveHeader {
            key_is_master: true,
            category: Category::UsdtFutures,
            from_uid: 1,
            to_uid: 2,
            items: 1,
            known_uids: &known,
        };
        let t = TEN + 600_000;
        assert_eq!(check_header(&h, t), Ok(()));
        let with = |f: &dyn Fn(&mut MoveHeader)| {
            let mut x = h;
            f(&mut x);
            check_header(&x, t).unwrap_err()
        };
        assert_eq!(with(&|x| x.key_is_master = false), MoveRefusal::NotMaster);
        assert_eq!(
            with(&|x| x.category = Category::Spot),
            MoveRefusal::Category
        );
        assert_eq!(
            with(&|x| x.category = Category::CoinFutures),
            MoveRefusal::Category
        );
        assert_eq!(with(&|x| x.items = 0), MoveRefusal::NoItems);
        assert_eq!(with(&|x| x.items = 11), MoveRefusal::TooManyItems);
        assert_eq!(with(&|x| x.to_uid = 1), MoveRefusal::SameUid);
        assert_eq!(with(&|x| x.to_uid = 9), MoveRefusal::UnknownUid(9));
        assert_eq!(check_header(&h, TEN + 60_000), Err(MoveRefusal::Blackout));
        assert_eq!(
            MoveRefusal::UnknownUid(9).reason(),
            MovePositionsRejectReason::InvalidUid
        );
    }

    #[test]
    fn items_need_a_cross_position_of_their_direction_and_size() {
        let pos = |sym: &str, side: &str, size: &str, mm: &str| SourcePosition {
            symbol: sym.into(),
            pos_side: side.into(),
            size: d(size),
            margin_mode: mm.into(),
        };
        let ps = vec![pos("BTCUSDT", "long", "0.1", "crossed")];
        let it = |q: &str, side| vec![("BTCUSDT".to_string(), side, d(q))];
        assert_eq!(check_items(&it("0.1", Side::Sell), &ps), Ok(()));
        assert!(matches!(
            check_items(&it("0.1", Side::Buy), &ps),
            Err(MoveRefusal::NoPosition(..))
        ));
        assert!(matches!(
            check_items(&it("0.11", Side::Sell), &ps),
            Err(MoveRefusal::QtyTooLarge(..))
        ));
        let two = [it("0.06", Side::Sell), it("0.05", Side::Sell)].concat();
        assert!(matches!(
            check_items(&two, &ps),
            Err(MoveRefusal::QtyTooLarge(..))
        ));
        let iso = vec![pos("BTCUSDT", "long", "0.1", "isolated")];
        assert!(matches!(
            check_items(&it("0.1", Side::Sell), &iso),
            Err(MoveRefusal::NotCross(_))
        ));
        assert_eq!(check_mmr(d("0.79")), Ok(()));
        assert_eq!(check_mmr(d("0.8")), Err(MoveRefusal::MmrTooHigh(d("0.8"))));
    }

    #[test]
    fn pacing_spacing_daily_count_and_in_flight() {
        let mut p = Pacer::default();
        let t = TEN + 600_000;
        assert_eq!(p.begin(0, t), Ok(()));
        assert_eq!(p.begin(0, t), Err(MoveRefusal::TooSoon));
        p.end(0, t, true, true);
        assert_eq!(p.begin(0, t + 59_999), Err(MoveRefusal::TooSoon));
        assert_eq!(p.begin(1, t + 1), Ok(()));
        assert_eq!(p.begin(0, t + 60_000), Ok(()));
        // A move that moved nothing does not count for the day, but the minute restarts.
        p.end(0, t + 60_000, true, false);
        assert_eq!(p.count(0, t), 1);
        assert_eq!(p.begin(0, t + 119_999), Err(MoveRefusal::TooSoon));
        // A request the venue refused before its pacing rules restarts nothing.
        assert_eq!(p.begin(0, t + 120_000), Ok(()));
        p.end(0, t + 120_000, false, false);
        assert_eq!(p.begin(0, t + 120_001), Ok(()));
        let day0 = t - t % DAY_MS;
        let mut now = day0 + 600_000;
        let mut p = Pacer::default();
        for _ in 0..MAX_MOVES_PER_DAY {
            p.begin(0, now).unwrap();
            p.end(0, now, true, true);
            now += 120_000;
        }
        assert_eq!(p.begin(0, now), Err(MoveRefusal::DailyLimit));
        assert_eq!(p.begin(0, day0 + DAY_MS + 600_000), Ok(()));
    }
}
