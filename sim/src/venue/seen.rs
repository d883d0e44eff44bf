//! The clientOids each account has placed, for the repeated-clientOid counter
//! (`Counters::repeated_client_oids`, the soak's and the tests' proof that no clientOid reached
//! the venue twice).
//!
//! Bitget itself refuses a clientOid only while its order is open (`25212`; the venue does too)
//! and keeps finished orders queryable for a window, not for ever; the counter is the
//! simulator's own instrument. Keeping every (account, clientOid) as a `String` in a hash set
//! cost ~90 bytes an order for the process's whole life (331 MiB of simulator RSS after
//! 2 000 000 orders in the endurance bench). This keeps, per clientOid, a 64-bit fingerprint
//! (std's SipHash with fixed keys, of the account and the text) in two generations of at most
//! [`SeenClientOids::GENERATION`] (917 504) each: when the current one is full, the older one
//! is cleared (its allocation kept) and becomes the current one. So a repeat is counted when
//! its first use is among the last 917 504 to 1 835 008 clientOids placed (the resends the
//! counter exists for come within seconds).
//!
//! Both generations are allocated full-sized when the venue starts: 917 504 is 7/8 of 2^20,
//! the most a table of 2^20 slots holds before it grows, so a generation never rehashes
//! (rehashing a table of ~900 000 fingerprints under the venue lock stalled the venue 24-37 ms
//! in the `venue_growth` example, and the generations grew the process by 2 × 18 MiB over the
//! first 2 000 000 orders). Memory is 2 × 9 MiB of address space from the start; the pages
//! are touched as fingerprints land in them (the first generation's within the first
//! 100 000 orders, the second's after the first switch), nothing is allocated per order, and
//! clearing a generation writes its 1 MiB of control bytes. Two different clientOids share a fingerprint with
//! probability about n² / 2^65 (n = 1 835 008: 1 in 11 million per run), which would count
//! one false repeat.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use crate::matching::AccountId;

/// The clientOids placed recently, as fingerprints (see the module docs).
#[derive(Debug)]
pub(super) struct SeenClientOids {
    current: HashSet<u64>,
    older: HashSet<u64>,
}

impl SeenClientOids {
    /// Fingerprints a generation holds before the older one is dropped: 7/8 of 2^20, what a
    /// hash table of 2^20 slots holds without growing.
    pub(super) const GENERATION: usize = (1 << 20) / 8 * 7;

    /// Both generations allocated full-sized (2 × 9 MiB of address space; see the module
    /// docs).
    pub(super) fn new() -> SeenClientOids {
        SeenClientOids {
            current: HashSet::with_capacity(Self::GENERATION),
            older: HashSet::with_capacity(Self::GENERATION),
        }
    }

    fn fingerprint(owner: AccountId, client_oid: &str) -> u64 {
        // `DefaultHasher::new()` has fixed keys: the same fingerprint in every run.
        let mut h = std::hash::DefaultHasher::new();
        owner.0.hash(&mut h);
        client_oid.hash(&mut h);
        h.finish()
    }

    /// Notes that `owner` placed `client_oid`; false when it was placed before (within the
    /// window).
    pub(super) fn insert(&mut self, owner: AccountId, client_oid: &str) -> bool {
        let f = Self::fingerprint(owner, client_oid);
        if self.older.contains(&f) || self.current.contains(&f) {
            return false;
        }
        if self.current.len() >= Self::GENERATION {
            std::mem::swap(&mut self.current, &mut self.older);
            self.current.clear();
        }
        self.current.insert(f)
    }

    /// Fingerprints held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.current.len() + self.older.len()
    }

    /// Fingerprints both generations hold without growing.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.current.capacity() + self.older.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_seen_per_account_and_memory_stays_bounded() {
        let mut s = SeenClientOids::new();
        let a = AccountId(1);
        // Sized at start: no generation ever grows (no rehash under the venue lock).
        let capacity = s.capacity();
        assert_eq!(capacity, 2 * SeenClientOids::GENERATION);
        assert!(s.insert(a, "1:7"));
        assert!(!s.insert(a, "1:7"), "a repeat");
        assert!(s.insert(AccountId(2), "1:7"), "another account's");
        let n = SeenClientOids::GENERATION;
        for i in 0..(2 * n + 10) {
            assert!(s.insert(a, &format!("x{i}")));
            assert!(s.len() <= 2 * n);
        }
        assert_eq!(s.capacity(), capacity, "a generation grew");
        // The last generation's clientOids are still seen; the first ones have left.
        assert!(!s.insert(a, &format!("x{}", 2 * n + 9)));
        assert!(!s.insert(a, &format!("x{}", n + 20)));
        assert!(s.insert(a, "1:7"), "older than two generations: forgotten");
    }
}
