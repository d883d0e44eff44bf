//! [`KeyTable`]: a map from a small `Copy` key (by default an order key: SessionID, root
//! ClOrdID) to a value, sized at start, that neither grows nor rehashes while it holds at most
//! its capacity, however many entries come and go. The tracker keeps its orders, tombstones and
//! requests in flight in them, the risk feed its open orders, a session's order entry its live
//! ClOrdIDs: every table on the order path that entries enter and leave all day.
//!
//! Why not `std::collections::HashMap`: hashbrown keeps its allocation when entries are removed,
//! but a removal whose probe neighbourhood is full leaves a DELETED marker, and under a steady
//! churn (orders placed, ended, evicted, a FIFO of tombstones) the markers pile up until the
//! table is rehashed in place, in one insert, on the tracker thread. Measured with the retention
//! tests' workload (place, fill, evict; 1 000 live orders in a table sized for 2 000): the
//! DELETED count rose steadily (121 after 50 000 orders, 2 451 after 700 000) until the rehash,
//! and a tombstone table at half load got there after ~50 000 evictions.
//!
//! This table never leaves a marker: an index of `u32` slots with linear probing, at most half
//! full at capacity, deletes by shifting the following entries of the probe run back
//! (backward-shift deletion); the entries live in one dense `Vec` (removal swaps the last entry
//! into the hole and repoints its slot). Both are allocated at start: the index (4 bytes a
//! slot, two slots an entry) is written then, the entries' pages are touched as they are used.
//! Keys are hashed with std's randomly keyed SipHash (`RandomState`), as `HashMap` does, so a
//! strategy cannot choose ClOrdIDs that collide. Inserting beyond the capacity doubles both
//! (counted by [`KeyTable::growths`]; sized right, never).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash};

/// An order key: (SessionID, root ClOrdID).
pub type Key = (u64, u64);

const EMPTY: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Entry<K, V> {
    hash: u64,
    key: K,
    value: V,
}

/// A map from `K` (by default [`Key`]) to `V` with a fixed capacity (see the module docs).
#[derive(Debug, Clone)]
pub struct KeyTable<V, K = Key> {
    hasher: RandomState,
    /// Slot → index into `entries`, [`EMPTY`] when free. A power of two, at least twice
    /// `limit`.
    index: Vec<u32>,
    entries: Vec<Entry<K, V>>,
    /// Entries held before the table grows.
    limit: usize,
    growths: u64,
}

impl<V, K: Hash + Eq + Copy> Default for KeyTable<V, K> {
    fn default() -> Self {
        KeyTable::with_capacity(0)
    }
}

impl<V, K: Hash + Eq + Copy> KeyTable<V, K> {
    /// An empty table that holds `capacity` entries (at least 1) before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        // Slots are u32 entry indices: cap what one table may hold.
        let limit = capacity.clamp(1, (u32::MAX / 4) as usize);
        KeyTable {
            hasher: RandomState::new(),
            index: vec![EMPTY; slots_for(limit)],
            entries: Vec::with_capacity(limit),
            limit,
            growths: 0,
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No entry held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries held before the table grows (constant unless it grew).
    pub fn capacity(&self) -> usize {
        self.limit
    }

    /// How many times the table grew (an insert beyond the capacity).
    pub fn growths(&self) -> u64 {
        self.growths
    }

    fn mask(&self) -> usize {
        self.index.len() - 1
    }

    fn hash(&self, key: &K) -> u64 {
        self.hasher.hash_one(key)
    }

    /// (slot, entry index) of `key`.
    fn find(&self, key: &K) -> Option<(usize, usize)> {
        if self.entries.is_empty() {
            return None;
        }
        let h = self.hash(key);
        let mask = self.mask();
        let mut slot = (h as usize) & mask;
        loop {
            let e = *self.index.get(slot)?;
            if e == EMPTY {
                return None;
            }
            let ix = e as usize;
            if let Some(entry) = self.entries.get(ix) {
                if entry.hash == h && entry.key == *key {
                    return Some((slot, ix));
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &K) -> Option<&V> {
        let (_, ix) = self.find(key)?;
        self.entries.get(ix).map(|e| &e.value)
    }

    /// The value of `key`, mutable.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let (_, ix) = self.find(key)?;
        self.entries.get_mut(ix).map(|e| &mut e.value)
    }

    /// Whether `key` is held.
    pub fn contains_key(&self, key: &K) -> bool {
        self.find(key).is_some()
    }

    /// Inserts `value` for `key` unless `key` is held (then the held value stays and `value` is
    /// dropped); returns the value held.
    pub fn get_or_insert(&mut self, key: K, value: V) -> &mut V {
        let ix = match self.find(&key) {
            Some((_, ix)) => ix,
            None => self.push(key, value),
        };
        &mut self.entries[ix].value
    }

    /// Inserts or replaces the value of `key`; returns the value replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Some((_, ix)) => Some(std::mem::replace(&mut self.entries[ix].value, value)),
            None => {
                self.push(key, value);
                None
            }
        }
    }

    /// Appends a new entry (the key is not held); returns its index.
    fn push(&mut self, key: K, value: V) -> usize {
        if self.entries.len() >= self.limit {
            self.grow();
        }
        let hash = self.hash(&key);
        let ix = self.entries.len();
        self.entries.push(Entry { hash, key, value });
        self.place(hash, ix);
        ix
    }

    /// Points the first free slot of `hash`'s probe run at entry `ix`.
    fn place(&mut self, hash: u64, ix: usize) {
        let mask = self.mask();
        let mut slot = (hash as usize) & mask;
        while self.index[slot] != EMPTY {
            slot = (slot + 1) & mask;
        }
        self.index[slot] = ix as u32;
    }

    fn grow(&mut self) {
        self.growths += 1;
        self.limit = self.limit.saturating_mul(2).min((u32::MAX / 4) as usize);
        self.entries
            .reserve_exact(self.limit.saturating_sub(self.entries.len()));
        self.index = vec![EMPTY; slots_for(self.limit)];
        for ix in 0..self.entries.len() {
            let hash = self.entries[ix].hash;
            self.place(hash, ix);
        }
    }

    /// Removes `key`; returns its value.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let (slot, ix) = self.find(key)?;
        let mask = self.mask();
        // Backward-shift deletion: each following entry of the run whose home slot is not
        // between the hole and itself moves back into the hole.
        let mut hole = slot;
        let mut j = slot;
        loop {
            j = (j + 1) & mask;
            let e = self.index[j];
            if e == EMPTY {
                break;
            }
            let home = (self.entries[e as usize].hash as usize) & mask;
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.index[hole] = e;
                hole = j;
            }
        }
        self.index[hole] = EMPTY;
        // The last entry takes the removed one's place in `entries`.
        let last = self.entries.len() - 1;
        if ix != last {
            let hash = self.entries[last].hash;
            let mut s = (hash as usize) & mask;
            while self.index[s] != last as u32 {
                s = (s + 1) & mask;
            }
            self.index[s] = ix as u32;
        }
        Some(self.entries.swap_remove(ix).value)
    }

    /// Every value (in no particular order).
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|e| &e.value)
    }

    /// Every key and value (in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|e| (&e.key, &e.value))
    }

    /// Every key and value, values mutable (in no particular order).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|e| (&e.key, &mut e.value))
    }

    /// Keeps the entries `keep` returns true for and removes the others, visiting each once;
    /// the order of the visit depends only on the inserts and removals made (not on the
    /// hasher's random key), so a replay visits in the same order. No allocation.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let mut i = 0;
        while let Some(e) = self.entries.get_mut(i) {
            if keep(&e.key, &mut e.value) {
                i += 1;
            } else {
                // The last entry moves into `i`: visit it next.
                let key = e.key;
                self.remove(&key);
            }
        }
    }
}

/// Index slots for `limit` entries: a power of two, at least twice as many.
fn slots_for(limit: usize) -> usize {
    limit.saturating_mul(2).next_power_of_two().max(2)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::KeyTable;

    /// A small deterministic generator (xorshift).
    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn behaves_like_a_hash_map_under_random_churn_and_never_grows_within_capacity() {
        let mut t: KeyTable<u64> = KeyTable::with_capacity(64);
        let mut m: HashMap<(u64, u64), u64> = HashMap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for step in 0..200_000u64 {
            // Keys from a small space so that removals hit and runs form.
            let key = (next(&mut x) % 3, next(&mut x) % 96);
            match next(&mut x) % 3 {
                0 if m.len() < 64 => {
                    assert_eq!(t.insert(key, step), m.insert(key, step));
                }
                1 => assert_eq!(t.remove(&key), m.remove(&key)),
                _ => assert_eq!(t.get(&key), m.get(&key)),
            }
            assert_eq!(t.len(), m.len());
        }
        for (k, v) in &m {
            assert_eq!(t.get(k), Some(v));
        }
        let mut held: Vec<_> = t.iter().map(|(k, v)| (*k, *v)).collect();
        let mut want: Vec<_> = m.into_iter().collect();
        held.sort_unstable();
        want.sort_unstable();
        assert_eq!(held, want);
        assert_eq!((t.capacity(), t.growths()), (64, 0));
    }

    #[test]
    fn inserting_beyond_the_capacity_grows_and_keeps_everything() {
        let mut t: KeyTable<u64> = KeyTable::with_capacity(4);
        for i in 0..100 {
            assert!(t.insert((1, i), i).is_none());
        }
        assert_eq!(t.growths(), 5);
        assert_eq!(t.capacity(), 128);
        assert!((0..100).all(|i| t.get(&(1, i)) == Some(&i)));
        assert_eq!(*t.get_or_insert((1, 5), 99), 5);
        assert_eq!(t.remove(&(1, 5)), Some(5));
        assert!(!t.contains_key(&(1, 5)));
    }

    #[test]
    fn retain_visits_each_entry_once_and_removes_what_it_rejects() {
        let mut t: KeyTable<u64, u64> = KeyTable::with_capacity(32);
        for i in 0..32u64 {
            t.insert(i * 7, i);
        }
        let mut seen = Vec::new();
        t.retain(|k, v| {
            seen.push(*k);
            *v += 100;
            *v % 3 != 0
        });
        seen.sort_unstable();
        assert_eq!(seen, (0..32u64).map(|i| i * 7).collect::<Vec<_>>());
        assert_eq!(t.len(), 22);
        for i in 0..32u64 {
            let want = ((i + 100) % 3 != 0).then_some(i + 100);
            assert_eq!(t.get(&(i * 7)).copied(), want, "key {}", i * 7);
        }
        t.retain(|_, _| false);
        assert!(t.is_empty());
        assert_eq!((t.capacity(), t.growths()), (32, 0));
    }
}
