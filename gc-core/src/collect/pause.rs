//! A stop-the-world pause, as the GC driver (or, for a mark-start pause, the mutator
//! that started the cycle) runs it: stop every mutator, time each
//! phase (each also a `tracing` span), record the pause in the pause log, resume,
//! and write the pause's GC log lines (`gclog.rs`) once the world runs again.
//! Every pause kind uses it: `"full"`, `"mark-start"`, `"mark-end"`, `"flip"`.

use super::heap_inner::HeapInner;
use crate::pauselog::{FlipSummary, PauseRecord};
use crate::safepoint::{Stopped, DRIVER};
use std::time::Instant;

/// A pause in progress: the world is stopped until [`Pause::end`].
pub struct Pause<'a> {
    inner: &'a HeapInner,
    kind: &'static str,
    /// Whether a mutator coordinates it.
    by_mutator: bool,
    /// Proof that the world is stopped, and every mutator's shared state.
    pub stopped: Stopped<'a>,
    start: Instant,
    last: Instant,
    current: Option<(&'static str, tracing::span::EnteredSpan)>,
    phases: Vec<(&'static str, u64)>,
    used_before: usize,
    span: tracing::span::EnteredSpan,
}

/// What a pause records besides its timing.
#[derive(Default)]
pub struct Details {
    /// Live bytes and objects in the moving space after the collection.
    pub live: (usize, usize),
    /// Bytes held by live large objects, and large-object bytes freed.
    pub los: (usize, usize),
    /// The heap's move, for pauses that flip.
    pub flip: Option<FlipSummary>,
}

impl<'a> Pause<'a> {
    /// Stops the world for a pause of `kind`, coordinated by the driver (waiting out
    /// a stop some mutator holds, the verifier's). The time to safepoint counts in
    /// the pause.
    pub fn stop(inner: &'a HeapInner, kind: &'static str) -> Pause<'a> {
        Pause::stop_as(inner, kind, DRIVER)
    }

    /// [`Pause::stop`], coordinated by `me`: the driver, or a mutator (which must
    /// have retired its allocation buffer and handed in its barrier log, as before
    /// any stop).
    pub fn stop_as(inner: &'a HeapInner, kind: &'static str, me: u64) -> Pause<'a> {
        let span = tracing::info_span!("pause", kind).entered();
        let stopped = loop {
            if let Some(s) = inner.safepoints.stop_the_world(me) {
                break s;
            }
        };
        let now = Instant::now();
        // The caller takes the space lock only after this returns.
        let used_before = inner.space.lock().used();
        Pause {
            inner,
            kind,
            by_mutator: me != DRIVER,
            stopped,
            start: now,
            last: now,
            current: None,
            phases: Vec::with_capacity(8),
            used_before,
            span,
        }
    }

    /// Ends the current phase (if any) and starts phase `name`.
    pub fn phase(&mut self, name: &'static str) {
        self.end_phase();
        self.current = Some((name, tracing::info_span!("phase", name).entered()));
    }

    fn end_phase(&mut self) {
        if let Some((name, span)) = self.current.take() {
            let now = Instant::now();
            self.phases
                .push((name, (now - self.last).as_nanos() as u64));
            self.last = now;
            drop(span);
        }
    }

    /// Ends the pause: records it, then resumes the world (mutators apply their
    /// pending root work as they resume), then writes its GC log lines. Takes the
    /// space lock (for the bytes used after the pause): call it with that released.
    pub fn end(mut self, d: Details) {
        self.end_phase();
        let ttsp = self.stopped.time_to_safepoint;
        let used_after = self.inner.space.lock().used();
        let cycle = self.inner.gclog.cycle();
        let record = PauseRecord {
            kind: self.kind,
            cycle,
            at_ns: (self.start - self.inner.started).as_nanos() as u64,
            total_ns: (ttsp + self.start.elapsed()).as_nanos() as u64,
            ttsp_ns: ttsp.as_nanos() as u64,
            used_before_bytes: self.used_before as u64,
            used_after_bytes: used_after as u64,
            phases: std::mem::take(&mut self.phases),
            live_bytes: d.live.0 as u64,
            live_objects: d.live.1 as u64,
            large_object_bytes: d.los.0 as u64,
            large_object_freed_bytes: d.los.1 as u64,
            flip: d.flip.unwrap_or_else(FlipSummary::none),
            by_mutator: self.by_mutator,
            waited_for: self.stopped.waited_for.as_deref().map(String::from),
        };
        tracing::debug!(kind = self.kind, total_ns = record.total_ns, "pause done");
        let logged = self.inner.gclog.spec.any().then(|| record.clone());
        let round = {
            let mut log = self.inner.log.lock();
            log.record(record);
            // A mark-end pause's round: the mark-end pauses of this cycle so far
            // (counted by the log as they come, not read back from its ring).
            (self.kind == "mark-end").then(|| log.mark_end_round(cycle))
        };
        let Pause {
            inner,
            stopped,
            span,
            ..
        } = self;
        drop(stopped); // the world resumes
        drop(span);
        if let Some(r) = logged {
            inner.gclog.pause(&r, round, inner.config.capacity as u64);
        }
    }
}
