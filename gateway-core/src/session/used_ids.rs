//! The ClOrdIDs (or ListIDs) a session used in its epoch, as an exact set of disjoint ranges.
//!
//! FIXP's idempotent flow (DESIGN §3): a ClOrdID is never used twice in an epoch, so a
//! repeated NewOrderSingle never reaches the exchange twice. Keeping every ClOrdID in a hash
//! table grows it with the epoch's whole history (16+ bytes an id, and a rehash on the order
//! path at every doubling). Strategies almost always number their requests with a counter, so
//! the set is kept as ranges `[start, end]`: a strategy that counts up holds one range whatever
//! it sends, one that interleaves a few counters holds a few. Any pattern stays exact (a
//! random id costs one range, about 40 bytes in the B-tree).
//!
//! Inserting the next id of a range extends it in place (no allocation); only an id that
//! starts a new range inserts a B-tree entry.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// An exact set of `u64` kept as disjoint, non-adjacent inclusive ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsedIds {
    /// start → end (inclusive); ranges never overlap nor touch.
    ranges: BTreeMap<u64, u64>,
    /// Ids in the set.
    len: u64,
}

impl UsedIds {
    /// An empty set.
    pub fn new() -> Self {
        UsedIds::default()
    }

    /// The range that holds `id`, if any: `(start, end)`.
    fn range_of(&self, id: u64) -> Option<(u64, u64)> {
        let (&s, &e) = self.ranges.range(..=id).next_back()?;
        (id <= e).then_some((s, e))
    }

    /// True when `id` is in the set.
    pub fn contains(&self, id: u64) -> bool {
        self.range_of(id).is_some()
    }

    /// Adds `id`; false when it was there already.
    pub fn insert(&mut self, id: u64) -> bool {
        if self.contains(id) {
            return false;
        }
        // The range ending just below `id`, and the one starting just above it.
        let below = id
            .checked_sub(1)
            .and_then(|b| self.range_of(b))
            .map(|(s, _)| s);
        let above = id
            .checked_add(1)
            .and_then(|a| self.ranges.get(&a).copied().map(|e| (a, e)));
        match (below, above) {
            (Some(s), Some((a, e))) => {
                self.ranges.remove(&a);
                self.ranges.insert(s, e);
            }
            (Some(s), None) => {
                self.ranges.insert(s, id);
            }
            (None, Some((a, e))) => {
                self.ranges.remove(&a);
                self.ranges.insert(id, e);
            }
            (None, None) => {
                self.ranges.insert(id, id);
            }
        }
        self.len += 1;
        true
    }

    /// Ids in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Ranges the set is kept as (its memory: about 40 bytes each).
    pub fn ranges(&self) -> usize {
        self.ranges.len()
    }

    /// The ranges, ascending: `(start, end)` inclusive.
    pub fn iter_ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().map(|(s, e)| (*s, *e))
    }

    /// The smallest id above `id` that is not in the set (`None` past `u64::MAX`).
    pub fn next_free_after(&self, id: u64) -> Option<u64> {
        let next = id.checked_add(1)?;
        match self.range_of(next) {
            Some((_, e)) => e.checked_add(1),
            None => Some(next),
        }
    }
}

impl FromIterator<u64> for UsedIds {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        let mut set = UsedIds::new();
        for id in iter {
            set.insert(id);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_counter_is_one_range() {
        let mut s = UsedIds::new();
        for id in 1..=100_000u64 {
            assert!(s.insert(id));
        }
        assert_eq!((s.len(), s.ranges()), (100_000, 1));
        assert!(!s.insert(5));
        assert!(s.contains(100_000) && !s.contains(100_001) && !s.contains(0));
        assert_eq!(s.next_free_after(7), Some(100_001));
    }

    #[test]
    fn ranges_merge_when_a_gap_is_filled_and_the_ends_are_exact() {
        let mut s: UsedIds = [1, 2, 4, 5, u64::MAX, 0].into_iter().collect();
        assert_eq!(s.ranges(), 3);
        assert!(s.insert(3));
        assert_eq!(
            s.iter_ranges().collect::<Vec<_>>(),
            [(0, 5), (u64::MAX, u64::MAX)]
        );
        assert_eq!(s.next_free_after(u64::MAX - 1), None);
        let bytes = postcard::to_stdvec(&s).unwrap();
        assert_eq!(postcard::from_bytes::<UsedIds>(&bytes).unwrap(), s);
    }

    proptest! {
        #[test]
        fn agrees_with_a_plain_set(ids in proptest::collection::vec(0u64..64, 0..200)) {
            let mut s = UsedIds::new();
            let mut plain = BTreeSet::new();
            for id in ids {
                prop_assert_eq!(s.insert(id), plain.insert(id));
            }
            prop_assert_eq!(s.len(), plain.len() as u64);
            for id in 0..70 {
                prop_assert_eq!(s.contains(id), plain.contains(&id));
            }
            // Disjoint, non-adjacent, ascending.
            let r: Vec<_> = s.iter_ranges().collect();
            for w in r.windows(2) {
                prop_assert!(w[0].1 + 1 < w[1].0);
            }
        }
    }
}
