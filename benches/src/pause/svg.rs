//! The plot (`--svg`), in one SVG file:
//!
//! - the pause distribution: for each workload, heap and mode (repeats merged), the
//!   pause totals sorted ascending against their percentile, on a logarithmic time
//!   axis, so each curve shows the median, the tail and the maximum;
//! - below it, a timeline per run (as GCViewer draws one): over the time since the
//!   heap was created, every pause as a bar coloured by its kind, the hiccup
//!   meter's lateness, each cycle's longest fault stall across its compaction (all
//!   on a logarithmic axis), and the heap's used bytes (right axis).

use super::record::{Pause, RunRecord};
use flipgc_heap::fmt_bytes;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// The plot's width, and the heights of the distribution, the legend strip and one
/// run's timeline panel (pixels).
const WIDTH: u32 = 1100;
const DIST_HEIGHT: u32 = 600;
const LEGEND_HEIGHT: u32 = 56;
const PANEL_HEIGHT: u32 = 320;

/// Hiccups are drawn as the largest per time bucket, this many buckets per panel
/// (about one per pixel column).
const HICCUP_BUCKETS: usize = 900;

/// The colour of a pause kind.
pub fn kind_color(kind: &str) -> RGBColor {
    match kind {
        "full" => RGBColor(200, 30, 30),
        "mark-start" => RGBColor(30, 150, 60),
        "mark-end" => RGBColor(20, 90, 210),
        "flip" => RGBColor(235, 125, 0),
        _ => RGBColor(0, 0, 0),
    }
}
const HICCUP_COLOR: RGBColor = RGBColor(150, 150, 150);
const FAULT_COLOR: RGBColor = RGBColor(150, 40, 170);
const HEAP_COLOR: RGBColor = RGBColor(0, 150, 160);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn text_err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The caption of a run's timeline panel.
pub fn timeline_title(r: &RunRecord) -> String {
    format!(
        "timeline: {} {} {} #{}",
        r.workload,
        fmt_bytes(r.heap_bytes),
        r.mode,
        r.repeat
    )
}

/// One curve: a label and its pause totals in microseconds, ascending.
pub type Series = (String, Vec<f64>);

/// The curves of `runs`: one per (workload, heap, mode), in first-seen order.
pub fn series(runs: &[RunRecord]) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in runs {
        let label = format!("{} {} {}", r.workload, fmt_bytes(r.heap_bytes), r.mode);
        let values = r.pauses.iter().map(|p| p.total_ns as f64 / 1000.0);
        match out.iter_mut().find(|(l, _)| *l == label) {
            Some((_, v)) => v.extend(values),
            None => out.push((label, values.collect())),
        }
    }
    for (_, v) in &mut out {
        v.sort_by(f64::total_cmp);
    }
    out
}

/// Writes the plot of `runs` to `path` (an SVG file): the distribution, then a
/// legend strip and one timeline panel per run.
pub fn write(path: &Path, runs: &[RunRecord]) -> Result<(), String> {
    let n = runs.len() as u32;
    let timelines = if n > 0 {
        LEGEND_HEIGHT + n * PANEL_HEIGHT
    } else {
        0
    };
    let root = SVGBackend::new(path, (WIDTH, DIST_HEIGHT + timelines)).into_drawing_area();
    let err = |e: String| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(text_err).map_err(err)?;
    let (top, rest) = root.split_vertically(DIST_HEIGHT);
    distribution(&top, runs).map_err(err)?;
    if n > 0 {
        let (legend, panels) = rest.split_vertically(LEGEND_HEIGHT);
        timeline_legend(&legend).map_err(err)?;
        for (area, run) in panels.split_evenly((runs.len(), 1)).iter().zip(runs) {
            timeline(area, run).map_err(err)?;
        }
    }
    root.present().map_err(text_err).map_err(err)
}

/// The pause-distribution plot.
fn distribution(root: &Area<'_>, runs: &[RunRecord]) -> Result<(), String> {
    let curves = series(runs);
    let all = curves.iter().flat_map(|(_, v)| v.iter().copied());
    let lo = all.clone().fold(f64::INFINITY, f64::min).max(0.1);
    let hi = all.fold(0.0, f64::max).max(lo * 10.0);
    let (lo, hi) = if lo.is_finite() {
        (lo / 2.0, hi * 2.0)
    } else {
        (1.0, 1000.0)
    };
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let mut chart = ChartBuilder::on(root)
        .caption("pause distribution per run", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..100f64, (lo..hi).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("percentile of pauses")
        .y_desc("pause")
        .y_label_formatter(&fmt_us)
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (label, values)) in curves.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let n = values.len() as f64;
        let points: Vec<(f64, f64)> = values
            .iter()
            .enumerate()
            .map(|(k, &v)| ((k as f64 + 1.0) / n * 100.0, v))
            .collect();
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(format!("{label} ({} pauses)", values.len()))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))
}

/// The strip above the timelines: what each colour is, in two rows (pause kinds;
/// the other series).
fn timeline_legend(area: &Area<'_>) -> Result<(), String> {
    let font = ("sans-serif", 14).into_font();
    let kinds: Vec<(String, ShapeStyle)> = flipgc_core::PAUSE_KINDS
        .iter()
        .map(|k| (format!("{k} pause"), kind_color(k).stroke_width(3)))
        .collect();
    let others: Vec<(String, ShapeStyle)> = vec![
        (
            "hiccup (the latest wake-up per time bucket)".into(),
            HICCUP_COLOR.stroke_width(1),
        ),
        (
            "fault stalls (each cycle's longest, across its compaction)".into(),
            FAULT_COLOR.stroke_width(3),
        ),
        (
            "heap used (right axis)".into(),
            HEAP_COLOR.mix(0.8).stroke_width(2),
        ),
    ];
    for (row, items) in [kinds, others].into_iter().enumerate() {
        let (y, mut x) = (14 + 24 * row as i32, 16);
        for (label, style) in items {
            area.draw(&PathElement::new([(x, y), (x + 22, y)], style))
                .map_err(text_err)?;
            area.draw(&Text::new(label.clone(), (x + 28, y - 8), font.clone()))
                .map_err(text_err)?;
            x += 28 + 7 * label.len() as i32 + 24;
        }
    }
    Ok(())
}

/// A duration in microseconds as an axis label: `50us`, `2ms`, `1.5s`.
fn fmt_us(v: &f64) -> String {
    let trim = |x: f64| {
        let s = format!("{x:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    if *v >= 1e6 {
        format!("{}s", trim(v / 1e6))
    } else if *v >= 1e3 {
        format!("{}ms", trim(v / 1e3))
    } else {
        format!("{}us", trim(*v))
    }
}

/// One run's timeline panel.
fn timeline(area: &Area<'_>, run: &RunRecord) -> Result<(), String> {
    let secs = |ns: u64| ns as f64 / 1e9;
    let us = |ns: u64| ns as f64 / 1e3;
    let end = |p: &Pause| p.at_ns + p.total_ns - p.ttsp_ns;
    let tl = &run.timeline;
    let last = run
        .pauses
        .iter()
        .map(end)
        .chain(tl.hiccups.iter().map(|h| h.0 + h.1))
        .chain(tl.heap_used.iter().map(|u| u.0))
        .chain(run.cycles.iter().map(|c| c.done_at_ns))
        .max()
        .unwrap_or(0);
    let t_max = (secs(last) * 1.02).max(1e-3);

    // The latest wake-up per bucket: at most one point per pixel column.
    let width = t_max / HICCUP_BUCKETS as f64;
    let mut buckets = vec![0u64; HICCUP_BUCKETS];
    for &(at, late) in &tl.hiccups {
        let b = ((secs(at) / width) as usize).min(HICCUP_BUCKETS - 1);
        buckets[b] = buckets[b].max(late);
    }
    let stalls: Vec<(f64, f64, f64)> = run
        .cycles
        .iter()
        .filter(|c| c.fault_stalls > 0)
        .map(|c| {
            let max = us(c.fault_stall_max_ns);
            (secs(c.flipped_at_ns), secs(c.done_at_ns), max)
        })
        .collect();
    let values = run
        .pauses
        .iter()
        .map(|p| us(p.total_ns))
        .chain(buckets.iter().map(|&b| us(b)))
        .chain(stalls.iter().map(|s| s.2))
        .filter(|v| *v > 0.0);
    let lo = (values.clone().fold(f64::INFINITY, f64::min) / 2.0).max(0.1);
    let hi = values.fold(0.0, f64::max) * 2.0;
    let (lo, hi) = if lo.is_finite() {
        (lo, hi.max(lo * 10.0))
    } else {
        (1.0, 1000.0)
    };
    let clamp = |v: f64| v.max(lo);
    let cap_mib = run.heap_bytes as f64 / (1u64 << 20) as f64;
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;

    // Whole-run figures (the pause list holds the last pauses the log kept).
    let pauses = run.summary.pauses;
    let max_pause = run.summary.max_pause_ns;
    let caption = format!(
        "{}: {pauses} pauses, longest {:.3} ms; wall {:.2} s",
        timeline_title(run),
        max_pause as f64 / 1e6,
        secs(run.wall_ns)
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(8)
        .margin_left(16)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .right_y_label_area_size(70)
        .build_cartesian_2d(0f64..t_max, (lo..hi).log_scale())
        .map_err(text_err)?
        .set_secondary_coord(0f64..t_max, 0f64..cap_mib.max(1.0));
    chart
        .configure_mesh()
        .x_desc("time since the heap was created (s)")
        .y_desc("pause, hiccup, stall")
        .y_label_formatter(&fmt_us)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(text_err)?;
    chart
        .configure_secondary_axes()
        .y_desc("heap used (MiB)")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(text_err)?;

    // Back to front: heap used, hiccups, fault stalls, pauses.
    let used = tl.heap_used.iter().map(|&(t, b)| (secs(t), mib(b)));
    chart
        .draw_secondary_series(
            AreaSeries::new(used, 0.0, HEAP_COLOR.mix(0.12))
                .border_style(HEAP_COLOR.mix(0.8).stroke_width(2)),
        )
        .map_err(text_err)?;
    let hiccups = buckets
        .iter()
        .enumerate()
        .map(|(i, &b)| ((i as f64 + 0.5) * width, clamp(us(b))));
    if !tl.hiccups.is_empty() {
        chart
            .draw_series(LineSeries::new(hiccups, HICCUP_COLOR.stroke_width(1)))
            .map_err(text_err)?;
    }
    chart
        .draw_series(stalls.iter().map(|&(from, to, max)| {
            PathElement::new(
                [(from, max), (to.max(from), max)],
                FAULT_COLOR.stroke_width(3),
            )
        }))
        .map_err(text_err)?;
    // Thinner bars where there are many, so the heap stays visible behind them.
    let (bar, dot) = if pauses > 150 { (1, 2) } else { (2, 3) };
    for p in &run.pauses {
        let (t, v) = (secs(p.at_ns), clamp(us(p.total_ns)));
        let color = kind_color(&p.kind);
        chart
            .draw_series([
                PathElement::new([(t, lo), (t, v)], color.stroke_width(bar)).into_dyn(),
                Circle::new((t, v), dot, color.filled()).into_dyn(),
            ])
            .map_err(text_err)?;
    }
    Ok(())
}
