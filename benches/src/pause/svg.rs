//! The pause-distribution plot (`--svg`): for each workload, heap and mode (repeats
//! merged), the pause totals sorted ascending against their percentile, on a
//! logarithmic time axis, so each curve shows the median, the tail and the maximum.

use super::record::RunRecord;
use flipgc_heap::fmt_bytes;
use plotters::prelude::*;
use std::path::Path;

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

/// Writes the plot of `runs` to `path` (an SVG file).
pub fn write(path: &Path, runs: &[RunRecord]) -> Result<(), String> {
    let curves = series(runs);
    let all = curves.iter().flat_map(|(_, v)| v.iter().copied());
    let lo = all.clone().fold(f64::INFINITY, f64::min).max(0.1);
    let hi = all.fold(0.0, f64::max).max(lo * 10.0);
    let (lo, hi) = if lo.is_finite() {
        (lo / 2.0, hi * 2.0)
    } else {
        (1.0, 1000.0)
    };
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());

    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("pause distribution per run", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..100f64, (lo..hi).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("percentile of pauses")
        .y_desc("pause (us)")
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
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
