//! The set of positions on the current search path, for games with cycles.
//!
//! Invariants:
//! - Keys are inserted and removed in stack (LIFO) order, so a linear-probing table can
//!   delete by clearing the slot: any key whose probe chain crosses that slot was
//!   inserted later, and so has already been removed.
//! - The load factor stays at most 1/2; growing re-inserts the keys in path order, which
//!   keeps the LIFO property. Growth allocates, but only when the path gets deeper than
//!   ever before in this solver, so not per node in steady state.

use crate::zobrist::{index_hash, Key};

/// Keys of the positions on the current path (see module invariants).
pub struct PathSet {
    slots: Vec<Key>,
    order: Vec<Key>,
}

impl Default for PathSet {
    fn default() -> Self {
        PathSet {
            slots: vec![0; 1024],
            order: Vec::with_capacity(512),
        }
    }
}

impl PathSet {
    #[inline(always)]
    fn slot_of(&self, key: Key) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = index_hash(key) as usize & mask;
        loop {
            match self.slots[i] {
                0 => return Err(i),
                k if k == key => return Ok(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Whether `key` is on the path.
    #[inline(always)]
    pub fn contains(&self, key: Key) -> bool {
        self.slot_of(key.max(1)).is_ok()
    }

    /// Pushes `key` (not already present) onto the path.
    #[inline(always)]
    pub fn push(&mut self, key: Key) {
        let key = key.max(1);
        if (self.order.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        if let Err(i) = self.slot_of(key) {
            self.slots[i] = key;
        }
        self.order.push(key);
    }

    /// Pops the most recently pushed key.
    #[inline(always)]
    pub fn pop(&mut self) {
        if let Some(key) = self.order.pop() {
            if let Ok(i) = self.slot_of(key) {
                self.slots[i] = 0;
            }
        }
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        while !self.order.is_empty() {
            self.pop();
        }
    }

    #[cold]
    fn grow(&mut self) {
        self.slots = vec![0; self.slots.len() * 2];
        for &key in &self.order {
            if let Err(i) = self.slot_of(key) {
                self.slots[i] = key;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifo_membership_survives_collisions_and_growth() {
        let mut p = PathSet::default();
        // Keys that all share low bits collide on purpose.
        let keys: Vec<Key> = (1..3000u128).map(|i| i << 64).collect();
        for (n, &k) in keys.iter().enumerate() {
            assert!(!p.contains(k));
            p.push(k);
            assert!(keys[..=n].iter().all(|&x| p.contains(x)));
            if n > 40 {
                break;
            }
        }
        p.clear();
        for &k in &keys {
            p.push(k);
        }
        for (n, &k) in keys.iter().enumerate().rev() {
            assert!(p.contains(k));
            p.pop();
            assert!(!p.contains(k));
            if n > 0 {
                assert!(p.contains(keys[n - 1]));
            }
        }
    }
}
