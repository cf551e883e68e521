//! A bound on the requests that wait (`wait_ms`) for a job at once: in all, and per
//! client.
//!
//! Invariants: a slot is held exactly as long as its [`WaitSlot`] lives (it is released
//! on drop, so a client that disconnects mid-wait frees its slot); the counts never
//! exceed the configured caps; a client's entry is removed when it holds no slot, so
//! the map holds only clients that are waiting now.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The caps and the slots held now.
#[derive(Debug)]
pub struct WaitSlots {
    total_cap: usize,
    per_client_cap: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    by_client: HashMap<String, usize>,
}

/// One held slot; dropping it releases it.
#[derive(Debug)]
pub struct WaitSlot {
    slots: Arc<WaitSlots>,
    client: String,
}

impl WaitSlots {
    /// At most `total_cap` waits at once, at most `per_client_cap` from one client.
    pub fn new(total_cap: usize, per_client_cap: usize) -> Arc<WaitSlots> {
        Arc::new(WaitSlots {
            total_cap,
            per_client_cap,
            held: Mutex::default(),
        })
    }

    /// A slot for `client`, or `None` when either cap is reached.
    pub fn try_take(self: &Arc<Self>, client: &str) -> Option<WaitSlot> {
        let mut held = self.held.lock().expect("wait slots");
        let mine = held.by_client.get(client).copied().unwrap_or(0);
        if held.total >= self.total_cap || mine >= self.per_client_cap {
            return None;
        }
        held.total += 1;
        *held.by_client.entry(client.to_string()).or_default() += 1;
        Some(WaitSlot {
            slots: self.clone(),
            client: client.to_string(),
        })
    }

    /// Slots held now, in all.
    pub fn held(&self) -> usize {
        self.held.lock().expect("wait slots").total
    }
}

impl Drop for WaitSlot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().expect("wait slots");
        held.total -= 1;
        if let Some(mine) = held.by_client.get_mut(&self.client) {
            *mine -= 1;
            if *mine == 0 {
                held.by_client.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_hold_and_dropped_slots_come_back() {
        let slots = WaitSlots::new(3, 2);
        let a1 = slots.try_take("a").unwrap();
        let _a2 = slots.try_take("a").unwrap();
        assert!(slots.try_take("a").is_none(), "per-client cap");
        let _b1 = slots.try_take("b").unwrap();
        assert!(slots.try_take("c").is_none(), "total cap");
        assert_eq!(slots.held(), 3);
        drop(a1);
        assert_eq!(slots.held(), 2);
        let _c1 = slots.try_take("c").unwrap();
        assert!(slots.try_take("a").is_none(), "total cap again");
    }

    #[test]
    fn a_client_holding_nothing_leaves_no_entry() {
        let slots = WaitSlots::new(10, 10);
        drop(slots.try_take("a").unwrap());
        assert!(slots.held.lock().unwrap().by_client.is_empty());
    }
}
