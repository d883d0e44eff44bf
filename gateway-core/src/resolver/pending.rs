//! A resolution request as it waits in an account's queue ([`Pending`]: due time, retries,
//! whether the lists may settle it) and the merge of the requests due for one order.

use std::collections::HashMap;

use crate::tracker::ResolveRequest;

/// A request waiting in an account's queue, or being settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pending {
    /// The tracker's request.
    pub req: ResolveRequest,
    /// Not before this, monotonic ns.
    pub due_ns: u64,
    /// A place already found missing once (the second miss settles it as never created).
    pub asked_again: bool,
    /// Query this order on its own (the lists cannot vouch for it: its write time is unknown,
    /// it is not a place, the lists were cut, or listing failed often).
    pub single: bool,
    /// Failed queries so far.
    pub attempts: u32,
}

impl Pending {
    /// A new request, due at `now_ns`; one whose write time is unknown (`written_ms` 0) is
    /// queried on its own.
    pub fn new(req: ResolveRequest, now_ns: u64) -> Self {
        Pending {
            req,
            due_ns: now_ns,
            asked_again: false,
            single: req.written_ms == 0,
            attempts: 0,
        }
    }
}

/// One entry per order (requests for the same clientOid are settled together), in the order
/// of their first request: a place if any was, asked again only if all were, single if any
/// was, the oldest `written_ms`; due time and attempts of the first.
pub(crate) fn merge_by_order(due: Vec<Pending>) -> Vec<Pending> {
    let mut at: HashMap<String, usize> = HashMap::with_capacity(due.len());
    let mut out: Vec<Pending> = Vec::with_capacity(due.len());
    for p in due {
        match at.get(p.req.client_oid.as_str()) {
            Some(&i) => {
                let m = &mut out[i];
                m.req.place |= p.req.place;
                m.asked_again &= p.asked_again;
                m.single |= p.single;
                m.req.written_ms = m.req.written_ms.min(p.req.written_ms);
            }
            None => {
                at.insert(p.req.client_oid.as_str().to_owned(), out.len());
                out.push(p);
            }
        }
    }
    out
}
