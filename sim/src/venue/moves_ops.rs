//! The venue's side of position moves ([`crate::moves`], Bitget "Move Positions"): the refusal
//! rules in order, then the effects:
//!
//! 1. pending orders of every moved symbol are cancelled in both accounts (`cancelled` /
//!    `normal_cancel` order pushes), before anything moves;
//! 2. each item closes the source position and opens the target's at the mark price, without
//!    fee and without touching the book (no public trade, no depth change, no `fill` push,
//!    no last-price update); the target keeps its own position mode (one-way: the received
//!    quantity nets against an opposite position first) and its own leverage;
//! 3. `position` and `account` pushes to both accounts; a history record per item.
//!
//! Items failing their own checks (unknown symbol, bad side/qty, no position, qty above the
//! position) get their code in both the close and the open result and do not move; the other
//! items move. Pacing ([`rules::Pacer`], P4: "Users can trigger up to 50 position move requests
//! per day (counting from a successful call). Each request must be at least 1 minute apart."):
//! a request that passes the spacing rule is the one the next request's minute is measured
//! from, even when the MMR rule then refuses it or all its items fail; it counts towards the
//! daily limit only when at least one item moved.

use std::collections::{BTreeMap, HashMap};

use codec::{Decimal, Rounding};
use serde_json::Value;

use super::{Push, Topic, TradeOutcome, Venue};
use crate::accounts::num::{add, sub};
use crate::accounts::positions::Position;
use crate::matching::{AccountId, CancelReason, Event, InstrumentSpec, PosSide, Side};
use crate::moves::{rules, HistoryQuery, MoveError, MoveRecord, MoveRequest};
use crate::render::push_json_str;

/// Result of one item: its ids, or its refusal.
type ItemOutcome = Result<(u64, u64), MoveError>;

/// A checked item ready to move.
struct Ready {
    index: usize,
    book: usize,
    side: Side,
    pos_side: PosSide,
    qty: Decimal,
}

impl Venue {
    fn account_by_uid(&self, uid: &str) -> Option<(AccountId, AccountId)> {
        (0u32..)
            .map(AccountId)
            .map_while(|id| self.accounts.get(id).map(|a| (id, a)))
            .find(|(_, a)| a.uid == uid)
            .map(|(id, a)| (id, a.master))
    }

    /// `POST /api/v3/account/move-positions` with the key of `key_account` (its trade
    /// permission already checked) at `now_ms`: the `data` JSON and the pushes, or the
    /// request-level refusal.
    pub fn move_positions(
        &mut self,
        key_account: AccountId,
        body: &Value,
        now_ms: u64,
    ) -> Result<TradeOutcome, MoveError> {
        let key = self
            .accounts
            .get(key_account)
            .ok_or(MoveError::NotMasterKey)?;
        rules::check_key(key.master == key_account, key.move_whitelist)?;
        let req = MoveRequest::parse(body)?;
        let from = self.account_by_uid(&req.from_uid);
        let to = self.account_by_uid(&req.to_uid);
        rules::check_system(key_account, from, to)?;
        let (Some((from, _)), Some((to, _))) = (from, to) else {
            return Err(MoveError::NotSameSystem);
        };
        rules::check_blackout(now_ms)?;
        // Daily count, then spacing; from here on this request is "the previous request" of
        // the next one, whatever happens below.
        self.moves.pacer.admit(key_account, now_ms)?;
        let marks = self.marks();
        let sm = self.accounts.summary(from, &self.instruments, &marks);
        rules::check_mmr(sm.mm, sm.total_equity)?;

        // Item checks against the source positions (several items may draw on one position).
        let mut results: Vec<ItemOutcome> = Vec::with_capacity(req.items.len());
        let mut ready = Vec::new();
        let mut drawn: HashMap<(usize, PosSide), Decimal> = HashMap::new();
        for (index, it) in req.items.iter().enumerate() {
            let checked = (|| {
                let book = self
                    .book_index(req.category, &it.symbol)
                    .ok_or_else(|| MoveError::UnknownSymbol(it.symbol.clone()))?;
                let side = it.side.clone()?;
                let qty = it.qty.clone()?;
                let inst = self
                    .instruments
                    .get(book)
                    .ok_or_else(|| MoveError::UnknownSymbol(it.symbol.clone()))?;
                let exp = InstrumentSpec::exp_of(inst.quantity_multiplier);
                if qty.round_to(exp, Rounding::Down).map(Decimal::normalized)
                    != Some(qty.normalized())
                {
                    return Err(MoveError::Param(format!("qty={qty}")));
                }
                let pos_side = crate::moves::MoveItem::pos_side(side);
                let held = self
                    .accounts
                    .get(from)
                    .and_then(|a| {
                        a.positions
                            .get(&(req.category, it.symbol.clone(), pos_side))
                            .map(|p| p.size)
                    })
                    .unwrap_or(Decimal::ZERO);
                let used = drawn.get(&(book, pos_side)).copied().unwrap_or_default();
                rules::check_item_qty(sub(held, used), qty)?;
                drawn.insert((book, pos_side), add(used, qty));
                Ok(Ready {
                    index,
                    book,
                    side,
                    pos_side,
                    qty,
                })
            })();
            match checked {
                Ok(r) => {
                    ready.push(r);
                    results.push(Ok((0, 0)));
                }
                Err(e) => results.push(Err(e)),
            }
        }

        let mut outcome = TradeOutcome::default();
        // 1. Cancel the pending orders of the moved symbols in both accounts.
        let mut books: Vec<usize> = ready.iter().map(|r| r.book).collect();
        books.sort_unstable();
        books.dedup();
        for b in books {
            self.cancel_pending(&[from, to], b, now_ms, &mut outcome);
        }

        // 2. Move at the mark price (marks after the cancellations), no fee.
        let marks = self.marks();
        let mut changed: [BTreeMap<(usize, PosSide), Position>; 2] = Default::default();
        for r in &ready {
            let Some(inst) = self.instruments.get(r.book).cloned() else {
                continue;
            };
            let price = marks
                .get(&(inst.category, inst.symbol.clone()))
                .copied()
                .or_else(|| {
                    self.accounts.get(from).and_then(|a| {
                        a.positions
                            .get(&(inst.category, inst.symbol.clone(), r.pos_side))
                            .map(|p| p.avg_price)
                    })
                })
                .unwrap_or(Decimal::ZERO);
            let close_id = self.ids.next_id();
            let open_id = self.ids.next_id();
            let close_exec = self.ids.next_id();
            let open_exec = self.ids.next_id();
            let legs = [(from, r.side, true), (to, r.side.opposite(), false)];
            for (slot, (acct, side, reduce_only)) in legs.into_iter().enumerate() {
                let eff = self.accounts.apply_fill(
                    acct,
                    &inst,
                    side,
                    Some(r.pos_side),
                    reduce_only,
                    price,
                    r.qty,
                    Decimal::ZERO,
                    now_ms,
                );
                if let Some(map) = changed.get_mut(slot) {
                    for p in eff.positions {
                        map.insert((r.book, p.pos_side), p);
                    }
                }
            }
            if let Some(res) = results.get_mut(r.index) {
                *res = Ok((close_id, open_id));
            }
            let rec_id = self.moves.next_id();
            self.moves.push(MoveRecord {
                id: rec_id,
                master: key_account,
                category: inst.category,
                from_uid: req.from_uid.clone(),
                to_uid: req.to_uid.clone(),
                order_id: close_id,
                open_order_id: open_id,
                close_exec_id: close_exec,
                open_exec_id: open_exec,
                symbol: inst.symbol.clone(),
                pos_side: r.pos_side,
                qty: r.qty,
                price,
                ts_ms: now_ms,
            });
        }

        // 3. Pushes to both accounts.
        if !ready.is_empty() {
            self.moves.pacer.record_success(key_account, now_ms);
            for (slot, acct) in [from, to].into_iter().enumerate() {
                let ps: Vec<Position> = changed
                    .get(slot)
                    .map(|m| m.values().cloned().collect())
                    .unwrap_or_default();
                if !ps.is_empty() {
                    outcome.pushes.push(Push {
                        owner: acct,
                        topic: Topic::Position,
                        json: self.accounts.position_push(
                            acct,
                            &ps,
                            &self.instruments,
                            &marks,
                            now_ms,
                        ),
                    });
                }
                outcome.pushes.push(Push {
                    owner: acct,
                    topic: Topic::Account,
                    json: self
                        .accounts
                        .account_push(acct, &self.instruments, &marks, now_ms),
                });
            }
        }
        outcome.reply = reply_json(&results);
        Ok(outcome)
    }

    /// Cancels the pending orders of `owners` in book `b` (`normal_cancel`).
    fn cancel_pending(
        &mut self,
        owners: &[AccountId],
        b: usize,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) {
        let mut ids: Vec<u64> = self
            .open
            .iter()
            .filter(|(_, l)| l.book == b && owners.contains(&l.owner))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        let mut events: Vec<Event> = Vec::new();
        for id in ids {
            events.clear();
            let Some(entry) = self.books.get_mut(b) else {
                return;
            };
            if entry
                .book
                .cancel(id, CancelReason::Normal, now_ms, &mut events)
                .is_ok()
            {
                self.route(b, &events, now_ms, outcome);
            }
        }
    }

    /// `GET /api/v3/account/move-position-history` data for the master `key_account`.
    pub fn move_history_json(&self, key_account: AccountId, q: &HistoryQuery<'_>) -> String {
        let mine: Vec<MoveRecord> = self
            .moves
            .records
            .iter()
            .filter(|r| r.master == key_account)
            .cloned()
            .collect();
        crate::moves::history_json(&mine, q)
    }

    /// True when `id` is a master account (its own master).
    pub fn is_master(&self, id: AccountId) -> bool {
        self.accounts.get(id).is_some_and(|a| a.master == id)
    }
}

/// `{"closePosition":[{orderId,clientOid,code,msg}],"openPosition":[..]}`: one close and one
/// open result per item, in item order; `code`/`msg` empty on success (fixture
/// `rest_move_positions_ok.json`), the refusal's code and message otherwise (ids empty).
fn reply_json(results: &[ItemOutcome]) -> String {
    let mut s = String::from("{");
    for (name, open) in [("closePosition", false), ("openPosition", true)] {
        if open {
            s.push(',');
        }
        push_json_str(&mut s, name);
        s.push_str(":[");
        for (i, r) in results.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let (id, oid, code, msg) = match r {
                Ok((close_id, open_id)) => {
                    let id = if open { *open_id } else { *close_id };
                    let tag = if open { "dst" } else { "src" };
                    (
                        id.to_string(),
                        format!("mv:{tag}:{id}"),
                        String::new(),
                        String::new(),
                    )
                }
                Err(e) => (
                    String::new(),
                    String::new(),
                    e.code().to_string(),
                    e.to_string(),
                ),
            };
            s.push_str("{\"orderId\":");
            push_json_str(&mut s, &id);
            s.push_str(",\"clientOid\":");
            push_json_str(&mut s, &oid);
            s.push_str(",\"code\":");
            push_json_str(&mut s, &code);
            s.push_str(",\"msg\":");
            push_json_str(&mut s, &msg);
            s.push('}');
        }
        s.push(']');
    }
    s.push('}');
    s
}
