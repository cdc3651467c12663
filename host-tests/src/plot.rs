//! Line charts of the paper figures (`reproduce --plot DIR`) and the CSV of their curves
//! (`reproduce --csv DIR`).
//!
//! PNGs are drawn with `plotters`' bitmap backend; text uses the DejaVu Sans font shipped in
//! `host-tests/assets/` (through plotters' `ab_glyph` feature), so no system font library is
//! needed.

use crate::csv::{self, Column};
use crate::report::Output;
use plotters::coord::combinators::{LogCoord, WithKeyPoints};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// One curve: a legend label and its points `(x, y)`.
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A curve labelled `label` through `points`.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            label: label.into(),
            points,
        }
    }
}

/// A chart: its file stem (`<experiment>.<what>`), texts, axis scales and curves.
pub struct Chart {
    /// File stem: the PNG is `<stem>.png`, the CSV `<stem>.csv`.
    pub stem: String,
    /// Title above the plot.
    pub title: String,
    /// x-axis label, with units.
    pub x_label: String,
    /// y-axis label, with units.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis (non-positive values are dropped from the drawing, not the CSV).
    pub log_y: bool,
    /// The curves.
    pub series: Vec<Series>,
}

/// Writes the chart's CSV and PNG to the directories `out` names (`--csv` / `--plot`), if any;
/// reports a failure on stderr and goes on (a figure file is a by-product of the run).
pub fn emit(out: &Output, chart: &Chart) {
    if let Some(dir) = &out.csv {
        if let Err(e) = write_csv(dir, chart) {
            eprintln!("warning: could not write {}.csv: {e}", chart.stem);
        }
    }
    if let Some(dir) = &out.plot {
        if let Err(e) = write_png(dir, chart) {
            eprintln!("warning: could not draw {}.png: {e}", chart.stem);
        }
    }
}

/// One pair of columns `<label> x`, `<label> y` per series.
fn write_csv(dir: &Path, chart: &Chart) -> std::io::Result<()> {
    let cols: Vec<(String, Vec<f64>, String, Vec<f64>)> = chart
        .series
        .iter()
        .map(|s| {
            (
                format!("{} x", s.label),
                s.points.iter().map(|p| p.0).collect(),
                format!("{} y", s.label),
                s.points.iter().map(|p| p.1).collect(),
            )
        })
        .collect();
    let columns: Vec<Column<'_>> = cols
        .iter()
        .flat_map(|(xn, xs, yn, ys)| {
            [
                Column {
                    name: xn,
                    values: xs,
                },
                Column {
                    name: yn,
                    values: ys,
                },
            ]
        })
        .collect();
    csv::write(dir, &format!("{}.csv", chart.stem), &columns)
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let font: &'static [u8] = include_bytes!("../assets/DejaVuSans.ttf");
        // The bytes are a valid TrueType font, checked by the plot test.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, font);
    });
}

/// Points that can be drawn on the chart's axes (finite, positive on a log axis).
fn drawable(chart: &Chart, p: &(f64, f64)) -> bool {
    p.0.is_finite() && p.1.is_finite() && (!chart.log_x || p.0 > 0.0) && (!chart.log_y || p.1 > 0.0)
}

/// The data range of one axis, widened so a flat curve still has a visible extent (a log axis
/// spanning less than a decade by 3× each way when `widen_log`, else by a few per cent).
fn range(values: impl Iterator<Item = f64>, log: bool, widen_log: bool) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !lo.is_finite() {
        return if log { (1e-3, 1.0) } else { (0.0, 1.0) };
    }
    if log {
        let (lo, hi) = if !widen_log {
            let pad = (hi / lo).powf(0.02).max(1.02);
            (lo / pad, hi * pad)
        } else if hi / lo < 10.0 {
            (lo / 3.0, hi * 3.0)
        } else {
            (lo, hi)
        };
        (lo, hi)
    } else if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
        (lo - 0.5 * lo.abs().max(1.0), hi + 0.5 * hi.abs().max(1.0))
    } else {
        let pad = 0.05 * (hi - lo);
        (lo - pad, hi + pad)
    }
}

/// A logarithmic axis on `lo..hi` with its ticks chosen here: plotters labels only the whole
/// decades inside the range (none in a partial decade at either end, and it can lose the one at
/// an exact power of ten to rounding). Labelled ticks at every integer multiple of 10ᵏ on a range
/// of about a decade, at 1, 2, 5 × 10ᵏ up to three decades, at the powers of ten beyond (every
/// few over wide ranges); grid lines at every integer multiple of 10ᵏ.
fn log_axis(lo: f64, hi: f64) -> WithKeyPoints<LogCoord<f64>> {
    let decades = (hi / lo).log10();
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let inside = |v: f64| v >= lo * (1.0 - 1e-12) && v <= hi * (1.0 + 1e-12);
    let every = (decades / 10.0).ceil().max(1.0) as i32;
    let mantissas: &[f64] = if decades <= 1.2 {
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    } else if decades <= 3.0 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut bold = vec![];
    let mut light = vec![];
    for k in first..=last {
        let p = 10f64.powi(k);
        if k.rem_euclid(every) == 0 {
            bold.extend(mantissas.iter().map(|m| m * p).filter(|&v| inside(v)));
        }
        if decades <= 10.0 {
            light.extend((1..10).map(|m| f64::from(m) * p).filter(|&v| inside(v)));
        }
    }
    (lo..hi)
        .log_scale()
        .with_key_points(bold)
        .with_light_points(light)
}

/// Colours told apart in print and by most colour-blind readers (ColorBrewer Set1, with black).
const PALETTE: [RGBColor; 7] = [
    RGBColor(228, 26, 28),
    RGBColor(55, 126, 184),
    RGBColor(77, 175, 74),
    RGBColor(152, 78, 163),
    RGBColor(255, 127, 0),
    RGBColor(0, 0, 0),
    RGBColor(166, 86, 40),
];

/// Series with at most this many points are sweeps (one point per run): their points are marked.
const MARKED: usize = 40;

/// A tick label: plain decimals for moderate magnitudes, scientific notation otherwise.
fn tick(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if (1e-2..1e4).contains(&a) {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').into()
    } else {
        format!("{v:.0e}")
    }
}

/// Draws `chart` to `dir/<stem>.png`.
pub fn write_png(dir: &Path, chart: &Chart) -> Result<(), Box<dyn std::error::Error>> {
    register_font();
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.png", chart.stem));
    let pts = || {
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| drawable(chart, p))
    };
    let (x0, x1) = range(pts().map(|p| p.0), chart.log_x, false);
    let (y0, y1) = range(pts().map(|p| p.1), chart.log_y, true);
    // Headroom above the data for the legend box.
    let y1 = if chart.log_y {
        y1 * (y1 / y0).powf(0.3)
    } else {
        y1 + 0.3 * (y1 - y0)
    };
    match (chart.log_x, chart.log_y) {
        (false, false) => draw(&path, chart, x0..x1, y0..y1),
        (false, true) => draw(&path, chart, x0..x1, log_axis(y0, y1)),
        (true, false) => draw(&path, chart, log_axis(x0, x1), y0..y1),
        (true, true) => draw(&path, chart, log_axis(x0, x1), log_axis(y0, y1)),
    }
}

fn draw<X, Y>(path: &Path, chart: &Chart, x: X, y: Y) -> Result<(), Box<dyn std::error::Error>>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let root = BitMapBackend::new(path, (1000, 650)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut ctx = ChartBuilder::on(&root)
        .caption(&chart.title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(90)
        .build_cartesian_2d(x, y)?;
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .y_label_formatter(&|v| tick(*v))
        .x_label_formatter(&|v| tick(*v))
        .draw()?;
    for (i, s) in chart.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| drawable(chart, p))
            .collect();
        if points.len() <= MARKED {
            ctx.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
        }
        // Segment by segment: a thick polyline gets mitred joins, which shoot far past the data
        // (and out of the plotting area) where a dense curve zigzags.
        let style = color.stroke_width(2);
        ctx.draw_series(
            points
                .windows(2)
                .map(|w| PathElement::new(vec![w[0], w[1]], style)),
        )?
        .label(&s.label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3)));
    }
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::log_axis;

    fn labels(lo: f64, hi: f64) -> Vec<f64> {
        log_axis(lo, hi).bold_points().to_vec()
    }

    fn has(ticks: &[f64], v: f64) -> bool {
        ticks.iter().any(|t| (t - v).abs() <= 1e-12 * v)
    }

    /// A partial decade at the bottom gets its labels (plotters' own ticks left 0.2 … 1 bare).
    #[test]
    fn log_axis_labels_a_partial_decade() {
        let t = labels(0.199, 6.0);
        for v in [0.2, 0.5, 1.0, 2.0, 5.0] {
            assert!(has(&t, v), "{v} missing from {t:?}");
        }
    }

    /// A range that starts at an exact power of ten labels it (plotters lost 0.01 to rounding).
    #[test]
    fn log_axis_labels_an_exact_lower_power_of_ten() {
        let t = labels(0.01, 10.0);
        assert!(has(&t, 0.01) && has(&t, 10.0), "{t:?}");
        assert!(t
            .iter()
            .all(|&v| (0.01 * (1.0 - 1e-12)..=10.0 * (1.0 + 1e-12)).contains(&v)));
    }

    /// Over about one decade every integer multiple is labelled; over many, only some decades.
    #[test]
    fn log_axis_label_density_follows_the_span() {
        let t = labels(50.0, 400.0);
        for v in [50.0, 60.0, 100.0, 300.0, 400.0] {
            assert!(has(&t, v), "{v} missing from {t:?}");
        }
        let t = labels(1e-16, 1e2);
        assert!(t.len() <= 11, "{} labels over 18 decades: {t:?}", t.len());
        assert!(!has(&t, 2e-3), "{t:?}");
    }
}
