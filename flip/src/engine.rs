//! [`Flipper`]: chooses a strategy, performs the flip, falls back to copying when
//! `mremap` fails, and reports. The contract of every strategy: after a successful
//! [`Flipper::flip`], the bytes that were in `src` are in `dst`.

use crate::copy::copy_span;
use crate::error::FlipError;
use crate::plan::{plan, FlipPlan};
use crate::report::{FlipReport, PartReport, SourceState, Strategy};
use flipgc_heap::{Capabilities, HeapError, Span};
use std::time::Instant;

/// Which strategy to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StrategyChoice {
    /// `mremap` where the host has it, else copy.
    #[default]
    Auto,
    /// `mremap`; still falls back to copy (and says so) if it fails.
    Mremap,
    /// Always copy.
    Copy,
}

/// Flip engine configuration.
#[derive(Clone, Debug)]
pub struct FlipConfig {
    /// Which strategy to use.
    pub strategy: StrategyChoice,
    /// Threads for the copy strategy (at least 1).
    pub copy_threads: usize,
    /// Fault injection for tests and benchmarks: when set, the `mremap` step fails
    /// with this errno without calling the kernel, exercising the fallback.
    pub inject_mremap_errno: Option<i32>,
}

impl Default for FlipConfig {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        FlipConfig {
            strategy: StrategyChoice::Auto,
            copy_threads: threads,
            inject_mremap_errno: None,
        }
    }
}

/// The flip engine. Cheap to create; holds the configuration and the probed capabilities.
#[derive(Clone, Debug)]
pub struct Flipper {
    config: FlipConfig,
    caps: &'static Capabilities,
}

impl Flipper {
    /// An engine for this host with `config`.
    pub fn new(config: FlipConfig) -> Result<Flipper, FlipError> {
        if config.copy_threads == 0 {
            return Err(FlipError::Config("copy_threads must be at least 1".into()));
        }
        if config.copy_threads > 1024 {
            return Err(FlipError::Config(format!(
                "copy_threads {} is absurd (max 1024)",
                config.copy_threads
            )));
        }
        Ok(Flipper {
            config,
            caps: Capabilities::probe(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &FlipConfig {
        &self.config
    }

    /// The host capabilities the engine decides by.
    pub fn capabilities(&self) -> &'static Capabilities {
        self.caps
    }

    /// Plans moving `src` to `dst` (same length) under the host geometry.
    pub fn plan(&self, src: &Span, dst: &Span) -> Result<FlipPlan, FlipError> {
        if src.len() != dst.len() {
            return Err(FlipError::LengthMismatch {
                src_len: src.len(),
                dst_len: dst.len(),
            });
        }
        plan(src.addr(), dst.addr(), src.len(), &self.caps.geometry)
    }

    /// Moves the bytes of `src` into `dst`. See [`FlipReport`] for what is recorded
    /// and [`SourceState`] for what `src` holds afterwards.
    ///
    /// The `mremap` strategy uses `MREMAP_DONTUNMAP`, so the source range stays
    /// mapped (empty) throughout. On a host without it, this copies and says why;
    /// [`Flipper::flip_unmapping`] is the plain-`mremap` alternative for such hosts.
    ///
    /// Bad requests are refused before anything is touched. An `mremap` failure is
    /// not an error: the engine copies instead and records why in
    /// [`FlipReport::fallback_reason`].
    pub fn flip(&self, src: &mut Span, dst: &mut Span) -> Result<FlipReport, FlipError> {
        self.flip_with(src, dst, Move::DontUnmap, src.len())
    }

    /// Like [`Flipper::flip`], but only the first `used` bytes (rounded up to a page)
    /// are guaranteed to arrive: the copy strategy copies just those, and leaves the
    /// rest of `dst` as it was. `mremap` still moves everything (free where no page is
    /// present). A collector flips this way: nothing above its allocation top matters.
    pub fn flip_used(
        &self,
        src: &mut Span,
        dst: &mut Span,
        used: usize,
    ) -> Result<FlipReport, FlipError> {
        let page = self.caps.geometry.page;
        let used = used.next_multiple_of(page).min(src.len());
        self.flip_with(src, dst, Move::DontUnmap, used)
    }

    /// Like [`Flipper::flip`], but the `mremap` strategy moves without
    /// `MREMAP_DONTUNMAP` (for kernels older than 5.7): the source range is unmapped
    /// by the move and then mapped again, fresh.
    ///
    /// # Safety
    /// No other thread of the process may create a mapping while this runs (see
    /// [`Span::move_to_unmapping`]); a violation is detected and aborts the process.
    pub unsafe fn flip_unmapping(
        &self,
        src: &mut Span,
        dst: &mut Span,
    ) -> Result<FlipReport, FlipError> {
        self.flip_with(src, dst, Move::Unmapping, src.len())
    }

    fn flip_with(
        &self,
        src: &mut Span,
        dst: &mut Span,
        how: Move,
        used: usize,
    ) -> Result<FlipReport, FlipError> {
        let plan = self.plan(src, dst)?;
        let use_mremap = match self.config.strategy {
            StrategyChoice::Copy => false,
            StrategyChoice::Auto => self.caps.mremap,
            StrategyChoice::Mremap => true,
        };
        let dontunmap = how == Move::DontUnmap;
        let span = tracing::info_span!("flip", bytes = plan.len, mremap = use_mremap, dontunmap);
        let _enter = span.enter();

        let start = Instant::now();
        let mut fallback_reason = None;
        if use_mremap {
            match self.try_mremap(src, dst, how) {
                Ok(source) => {
                    let parts = plan
                        .parts
                        .iter()
                        .map(|p| PartReport {
                            level: p.level,
                            bytes: p.len,
                        })
                        .collect();
                    let report = FlipReport {
                        strategy: Strategy::Mremap { dontunmap },
                        parts,
                        bytes: plan.len,
                        elapsed: start.elapsed(),
                        fallback_reason: None,
                        source,
                    };
                    tracing::debug!(%report, "flipped");
                    return Ok(report);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "mremap failed; copying instead");
                    fallback_reason = Some(e.to_string());
                }
            }
        }
        let threads = copy_span(src, dst, used, self.config.copy_threads);
        let report = FlipReport {
            strategy: Strategy::Copy { threads },
            parts: Vec::new(),
            bytes: plan.len,
            elapsed: start.elapsed(),
            fallback_reason,
            source: SourceState::Intact,
        };
        tracing::debug!(%report, "flipped");
        Ok(report)
    }

    fn try_mremap(
        &self,
        src: &mut Span,
        dst: &mut Span,
        how: Move,
    ) -> Result<SourceState, HeapError> {
        if let Some(errno) = self.config.inject_mremap_errno {
            return Err(HeapError::Os {
                op: "mremap (injected failure)",
                addr: src.addr(),
                len: src.len(),
                source: std::io::Error::from_raw_os_error(errno),
            });
        }
        #[cfg(target_os = "linux")]
        match how {
            Move::DontUnmap if !self.caps.mremap_dontunmap => Err(HeapError::Unsupported(
                "MREMAP_DONTUNMAP (a plain mremap would leave the source range free for other threads' mappings)",
            )),
            Move::DontUnmap => src.move_to(dst).map(|()| SourceState::KeptEmpty),
            // SAFETY: only reached from `flip_unmapping`, whose caller guarantees that
            // no other thread maps memory meanwhile.
            Move::Unmapping => unsafe { src.move_to_unmapping(dst) }.map(|()| SourceState::Remapped),
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (dst, how);
            Err(HeapError::Unsupported("mremap"))
        }
    }
}

/// Which kind of `mremap` move a flip uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    /// `MREMAP_DONTUNMAP`: the source stays mapped.
    DontUnmap,
    /// Plain move; the source is re-mapped afterwards.
    Unmapping,
}
