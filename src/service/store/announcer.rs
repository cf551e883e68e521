//! Announcements to the other nodes of a PostgreSQL database (`NOTIFY`), sent by one
//! task in as few statements as the traffic allows.
//!
//! Why: PostgreSQL takes one global lock per committing transaction that notifies, so a
//! `NOTIFY` per queued job made every `POST` wait for the others' commits. Here a caller
//! only records what to announce and returns; the task sends everything recorded since
//! its last statement in one statement: at most one "work" notification and the ids of
//! ended or cancelled jobs, comma-separated, a few hundred per notification.
//!
//! Invariants: an announcement is recorded after the change it announces has committed,
//! and is sent after it is recorded, so a node woken by it sees the change; while one
//! statement is in flight, later announcements wait for the next one (never lost while
//! the task runs, never more than one statement at a time). Announcements are best
//! effort: a failed statement is logged and dropped, since every node also polls.

use super::Announce;
use sqlx::PgPool;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Longest payload of one notification (PostgreSQL's limit is 8000 bytes).
const MAX_PAYLOAD: usize = 7000;

/// What is waiting to be sent.
#[derive(Debug, Default)]
struct Pending {
    work: bool,
    done: Vec<String>,
    cancel: Vec<String>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        !self.work && self.done.is_empty() && self.cancel.is_empty()
    }

    /// The (channel, payload) pairs that carry these announcements.
    fn into_notifications(self) -> (Vec<&'static str>, Vec<String>) {
        let mut channels = Vec::new();
        let mut payloads = Vec::new();
        if self.work {
            channels.push(Announce::Work.channel());
            payloads.push(String::new());
        }
        for (channel, ids) in [
            (Announce::Done("").channel(), self.done),
            (Announce::Cancel("").channel(), self.cancel),
        ] {
            for payload in join_ids(&ids) {
                channels.push(channel);
                payloads.push(payload);
            }
        }
        (channels, payloads)
    }
}

/// `ids` joined by commas into payloads of at most [`MAX_PAYLOAD`] bytes.
fn join_ids(ids: &[String]) -> Vec<String> {
    let mut payloads = Vec::new();
    let mut current = String::new();
    for id in ids {
        if !current.is_empty() && current.len() + 1 + id.len() > MAX_PAYLOAD {
            payloads.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(',');
        }
        current.push_str(id);
    }
    if !current.is_empty() {
        payloads.push(current);
    }
    payloads
}

/// Records announcements and wakes the sending task; shared by a store's clones.
#[derive(Debug, Default)]
pub(crate) struct Announcer {
    pending: Mutex<Pending>,
    wake: Notify,
}

impl Announcer {
    /// Starts the task that sends `announcer`'s announcements on `pool`; it ends when
    /// the pool is closed.
    pub fn start(pool: PgPool) -> Arc<Announcer> {
        let announcer = Arc::new(Announcer::default());
        tokio::spawn(send_loop(announcer.clone(), pool));
        announcer
    }

    /// Records `event` to be sent with the next statement.
    pub fn record(&self, event: Announce<'_>) {
        {
            let mut pending = self.pending.lock().expect("announcer lock");
            match event {
                Announce::Work => pending.work = true,
                Announce::Done(id) => pending.done.push(id.to_owned()),
                Announce::Cancel(id) => pending.cancel.push(id.to_owned()),
            }
        }
        self.wake.notify_one();
    }

    fn take(&self) -> Pending {
        std::mem::take(&mut *self.pending.lock().expect("announcer lock"))
    }
}

/// Sends what was recorded, one statement at a time, until the pool closes.
async fn send_loop(announcer: Arc<Announcer>, pool: PgPool) {
    loop {
        announcer.wake.notified().await;
        if pool.is_closed() {
            return;
        }
        loop {
            let pending = announcer.take();
            if pending.is_empty() {
                break;
            }
            let (channels, payloads) = pending.into_notifications();
            let sent = sqlx::query(
                "SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS t(c, p)",
            )
            .bind(&channels)
            .bind(&payloads)
            .execute(&pool)
            .await;
            match sent {
                Ok(_) => {}
                Err(sqlx::Error::PoolClosed) => return,
                Err(e) => tracing::debug!(error = %e, "NOTIFY failed; the nodes poll"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_joined_into_payloads_under_the_limit() {
        let ids: Vec<String> = (0..500).map(|i| format!("{i:036}")).collect();
        let payloads = join_ids(&ids);
        assert!(payloads.len() > 1);
        assert!(payloads.iter().all(|p| p.len() <= MAX_PAYLOAD));
        let back: Vec<&str> = payloads.iter().flat_map(|p| p.split(',')).collect();
        assert_eq!(back, ids.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(join_ids(&[]).is_empty());
    }

    #[test]
    fn one_work_notification_however_many_were_recorded() {
        let pending = Pending {
            work: true,
            done: vec!["a".into(), "b".into()],
            cancel: vec!["c".into()],
        };
        let (channels, payloads) = pending.into_notifications();
        assert_eq!(channels, ["gaps_work", "gaps_done", "gaps_cancel"]);
        assert_eq!(payloads, ["", "a,b", "c"]);
    }
}
