//! The strategy connections open on the io thread and the slot each admitted one holds, for
//! admission ([`gateway_core::admission::admit`]): how many are open, which have not completed
//! Establish (oldest first, so that admission can evict the one that waited longest).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use tokio::sync::Notify;

/// The strategy connections open on the io thread, for admission
/// ([`gateway_core::admission::admit`]).
#[derive(Debug, Default)]
pub(super) struct OpenConns {
    open: Cell<usize>,
    /// The connections that have not completed Establish, oldest first (by accept order),
    /// each with the signal that closes it.
    unauthenticated: RefCell<BTreeMap<u64, Rc<Notify>>>,
    next_id: Cell<u64>,
    /// Connections ended since start (for [`gateway_core::admission::TrimAfterBurst`]).
    closed: Cell<u64>,
}

impl OpenConns {
    /// Connections open, and of them those that have not completed Establish.
    pub(super) fn counts(&self) -> (usize, usize) {
        (self.open.get(), self.unauthenticated.borrow().len())
    }

    /// Connections that ended since start.
    pub(super) fn closed_total(&self) -> u64 {
        self.closed.get()
    }

    /// Counts a connection just admitted (unauthenticated) until the slot is dropped.
    pub(super) fn slot(self: &Rc<Self>) -> ConnSlot {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let evict = Rc::new(Notify::new());
        self.open.set(self.open.get() + 1);
        self.unauthenticated
            .borrow_mut()
            .insert(id, Rc::clone(&evict));
        ConnSlot {
            conns: Rc::clone(self),
            id,
            evict,
            unauthenticated: true,
        }
    }

    /// Closes the unauthenticated connection that has waited longest (it stops counting as
    /// unauthenticated at once; it ends at its next poll). False when there is none.
    pub(super) fn evict_oldest(&self) -> bool {
        let oldest = self.unauthenticated.borrow_mut().pop_first();
        match oldest {
            Some((_, evict)) => {
                evict.notify_one();
                true
            }
            None => false,
        }
    }
}

/// One admitted connection's place in [`OpenConns`]; given back when dropped.
pub(super) struct ConnSlot {
    conns: Rc<OpenConns>,
    id: u64,
    evict: Rc<Notify>,
    unauthenticated: bool,
}

impl ConnSlot {
    /// The connection completed Establish: it no longer counts as unauthenticated (and can no
    /// longer be evicted).
    pub(super) fn established(&mut self) {
        if self.unauthenticated {
            self.unauthenticated = false;
            self.conns.unauthenticated.borrow_mut().remove(&self.id);
        }
    }

    /// True until the connection completes Establish.
    pub(super) fn is_unauthenticated(&self) -> bool {
        self.unauthenticated
    }

    /// Completes when admission evicts this connection (the oldest unauthenticated one, to
    /// make room for a new connection).
    pub(super) async fn evicted(&self) {
        self.evict.notified().await;
    }
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        self.established();
        let o = &self.conns.open;
        o.set(o.get().saturating_sub(1));
        let c = &self.conns.closed;
        c.set(c.get().saturating_add(1));
    }
}
