//! Which MPI call is each thread blocked in? The PMPI profiling interface answers it.
//!
//! The MPI standard (section 15.2 of MPI 4.1, "Profiling Interface") gives every function
//! two names: `MPI_Send` and `PMPI_Send`. A program may define its own `MPI_Send`; the
//! linker then binds every call in the program (rsmpi's included) to it, and our version
//! forwards to the library's `PMPI_Send`. Each wrapper here notes the call it is in: which
//! call and four plain numbers (peer, tag, bytes...), in a slot of the calling thread, with
//! no lock and no text. Only when the watchdog reports a hang does [`blocked_calls`] turn
//! the slots into text. `WORKBOOK_RECORD=0` (or [`set_recording`]) switches it off.
//!
//! The wrappers themselves, one line per MPI function, are in [`crate::wrappers`].

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One blocking MPI call in progress, as text (made only when a report needs it).
#[derive(Clone, Debug)]
pub struct Call {
    /// The MPI function, e.g. `"MPI_Recv"`.
    pub name: &'static str,
    /// What it waits for, e.g. `"source=1 tag=0 up to 400 bytes"`.
    pub detail: String,
    /// How long it has been waiting (to the watchdog's [`TICK`]).
    pub waited: Duration,
    /// The thread that made it (`main`, or the thread's name).
    pub thread: String,
}

/// What a wrapper notes: the call's name and how to print its four numbers.
pub struct Kind {
    pub(crate) name: &'static str,
    pub(crate) describe: fn(&[i64; 4]) -> String,
}

/// One thread's slot. Written only by its thread, read by the watchdog.
struct Slot {
    thread: String,
    active: AtomicBool,
    kind: AtomicPtr<Kind>,
    fields: [AtomicI64; 4],
    /// The [`TICKS`] count when the call started.
    since_tick: AtomicU64,
}

static SLOTS: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());
static RECORDING: AtomicBool = AtomicBool::new(true);
/// A coarse clock: the watchdog adds one every [`TICK`]. Reading it costs a load, where
/// reading the system clock on every MPI call cost 20% of a ping-pong's latency.
static TICKS: AtomicU64 = AtomicU64::new(0);
/// The [`TICKS`] count when a thread of this process last entered a blocking call
/// (`u64::MAX`: none yet). A case past its deadline whose ranks still enter calls is slow,
/// not stuck.
static LAST_ENTERED: AtomicU64 = AtomicU64::new(u64::MAX);
/// How often the watchdog advances [`TICKS`].
pub const TICK: Duration = Duration::from_millis(50);

/// Removes the thread's slot when the thread ends.
struct Registered(Arc<Slot>);
impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut slots) = SLOTS.lock() {
            slots.retain(|s| !Arc::ptr_eq(s, &self.0));
        }
    }
}

thread_local! {
    static MINE: Registered = register();
}

fn register() -> Registered {
    let current = std::thread::current();
    let slot = Arc::new(Slot {
        thread: current.name().unwrap_or("unnamed").to_string(),
        active: AtomicBool::new(false),
        kind: AtomicPtr::new(std::ptr::null_mut()),
        fields: Default::default(),
        since_tick: AtomicU64::new(0),
    });
    SLOTS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(slot.clone());
    Registered(slot)
}

/// Advances the coarse clock by one [`TICK`] (the watchdog's loop calls it).
pub(crate) fn tick() {
    TICKS.fetch_add(1, Ordering::Relaxed);
}

/// Switches the recorder on or off for the whole process (labs measure its cost).
pub fn set_recording(on: bool) {
    RECORDING.store(on, Ordering::Relaxed);
}

/// Whether the recorder is on (the flight recorder, [`crate::flight`], follows it).
pub(crate) fn is_recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
}

/// Every thread's blocking MPI call in progress, as text; empty when none is.
pub fn blocked_calls() -> Vec<Call> {
    let slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    slots.iter().filter_map(|s| s.call()).collect()
}

/// How long the longest-waiting blocking call in progress has waited, if any. Reads only
/// numbers (no text is made): the watchdog asks it every [`TICK`].
pub fn longest_wait() -> Option<Duration> {
    let slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
    let now = TICKS.load(Ordering::Relaxed);
    let waits = slots
        .iter()
        .filter(|s| s.active.load(Ordering::Acquire))
        .map(|s| {
            let ticks = now.saturating_sub(s.since_tick.load(Ordering::Relaxed));
            TICK * ticks as u32
        });
    waits.max()
}

/// How long ago a thread of this process last entered a blocking MPI call (to the
/// [`TICK`]), if one ever did.
pub fn since_last_call() -> Option<Duration> {
    let last = LAST_ENTERED.load(Ordering::Relaxed);
    let now = TICKS.load(Ordering::Relaxed);
    (last != u64::MAX).then(|| TICK * now.saturating_sub(last) as u32)
}

/// The calling thread's own call in progress (the MPI error handler names it).
pub fn my_call() -> Option<Call> {
    MINE.with(|r| r.0.call())
}

impl Slot {
    /// The call in progress in this slot, as text.
    fn call(&self) -> Option<Call> {
        if !self.active.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: `kind` only ever holds a pointer to one of the wrappers' `static` Kinds.
        let kind = unsafe { self.kind.load(Ordering::Acquire).as_ref() }?;
        let fields = self.fields.each_ref().map(|f| f.load(Ordering::Relaxed));
        let now = TICKS.load(Ordering::Relaxed);
        let ticks = now.saturating_sub(self.since_tick.load(Ordering::Relaxed));
        Some(Call {
            name: kind.name,
            detail: (kind.describe)(&fields),
            waited: TICK * ticks as u32,
            thread: self.thread.clone(),
        })
    }
}

/// Notes `kind` with its numbers in this thread's slot while `f` runs.
pub(crate) fn enter<R>(
    kind: &'static Kind,
    fields: impl FnOnce() -> [i64; 4],
    f: impl FnOnce() -> R,
) -> R {
    if !RECORDING.load(Ordering::Relaxed) {
        return f();
    }
    let values = fields();
    MINE.with(|r| {
        let slot = &r.0;
        for (f, v) in slot.fields.iter().zip(values) {
            f.store(v, Ordering::Relaxed);
        }
        slot.kind
            .store(kind as *const Kind as *mut Kind, Ordering::Relaxed);
        let now = TICKS.load(Ordering::Relaxed);
        slot.since_tick.store(now, Ordering::Relaxed);
        LAST_ENTERED.store(now, Ordering::Relaxed);
        slot.active.store(true, Ordering::Release);
    });
    let result = f();
    MINE.with(|r| r.0.active.store(false, Ordering::Release));
    result
}

/// Makes sure the wrappers are linked in and sets the recorder from `WORKBOOK_RECORD`.
pub(crate) fn keep_linked() {
    crate::wrappers::keep_linked();
    crate::arrivals::keep_linked();
    crate::flight::keep_linked();
    RECORDING.store(
        workbook_settings::settings::record_calls(),
        Ordering::Relaxed,
    );
}
