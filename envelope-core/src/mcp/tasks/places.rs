//! The places of the task bodies running on one replica: at most a bound of them in all
//! ([`super::DEFAULT_MAX_RUNNING`]), and at most a share of them per caller (by its quota key:
//! an eighth of the bound unless set), so a few callers cannot take every place. A task is
//! created only with a place, which its body holds until it ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ErrorCode, ErrorData};

/// The places of running bodies: `max` of them, `share` (else an eighth of `max`) per caller.
#[derive(Debug)]
pub(super) struct Places {
    max: usize,
    share: Option<usize>,
    permits: Arc<tokio::sync::Semaphore>,
    /// How many places each caller (by its quota key) holds.
    held: Arc<Mutex<HashMap<String, usize>>>,
}

/// One of the places of running bodies, counted in its caller's share until dropped.
pub(super) struct RunningPlace {
    _permit: tokio::sync::OwnedSemaphorePermit,
    _share: Share,
}

/// One place counted in the share of the caller counted as `quota`, until dropped.
struct Share {
    held: Arc<Mutex<HashMap<String, usize>>>,
    quota: String,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.quota) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.quota);
            }
        }
    }
}

impl Places {
    /// `max` places (at least 1), `share` of them per caller (at least 1; `None`: an eighth).
    pub(super) fn new(max: usize, share: Option<usize>) -> Self {
        let max = max.max(1);
        Places {
            max,
            share: share.map(|s| s.max(1)),
            permits: Arc::new(tokio::sync::Semaphore::new(max)),
            held: Arc::default(),
        }
    }

    /// The same bounds, with places of their own (none held).
    pub(super) fn fresh(&self) -> Self {
        Places::new(self.max, self.share)
    }

    /// `max` places in all (at least 1), the share as it was, none held.
    pub(super) fn with_max(&self, max: usize) -> Self {
        Places::new(max, self.share)
    }

    /// `share` places per caller (at least 1), the bound as it was, none held.
    pub(super) fn with_share(&self, share: usize) -> Self {
        Places::new(self.max, Some(share))
    }

    /// The places one caller may hold: the share set, else an eighth of them (32 of 256).
    fn share(&self) -> usize {
        self.share.unwrap_or((self.max / 8).max(1))
    }

    /// A place for a body of the caller counted as `quota`, within its share; else refused
    /// `-32600`: [`busy`] when every place is taken (what a caller is told first), else
    /// [`past_share`].
    pub(super) fn take(&self, quota: &str) -> Result<RunningPlace, ErrorData> {
        let permit = Arc::clone(&self.permits).try_acquire_owned().map_err(|_| busy(self.max))?;
        let share = self.share();
        {
            let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
            let count = held.entry(quota.to_owned()).or_insert(0);
            if *count >= share {
                return Err(past_share(share));
            }
            *count += 1;
        }
        let counted = Share { held: Arc::clone(&self.held), quota: quota.to_owned() };
        Ok(RunningPlace { _permit: permit, _share: counted })
    }
}

/// `-32600` for a caller already running its share of the places.
fn past_share(share: usize) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_REQUEST,
        format!(
            "this caller runs {share} tasks, the most one caller runs at once here; no task was created and nothing ran. Try again once one of them ends"
        ),
        None,
    )
}

/// `-32600` for a task-tool call while this server runs `bound` task bodies, its bound.
fn busy(bound: usize) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_REQUEST,
        format!(
            "this server runs {bound} tasks, the most it runs at once; no task was created and nothing ran. Try again once one ends"
        ),
        None,
    )
}
