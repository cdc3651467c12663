//! Line charts of the paper figures (`reproduce --plot DIR`: a PNG and an SVG per chart) and the
//! long-format CSV of their curves (`reproduce --csv DIR`).
//!
//! Every output file is named `<experiment>.<figure>.<ext>`, `<experiment>` as `reproduce list`
//! prints it. Each series gets its own colour, marker and dash pattern ([`style`]); the legend
//! sits in a panel right of the plot, so it hides no data; points are joined in x order; the
//! first series is drawn on top (list the reference or the headline method first).
//!
//! PNGs are drawn with `plotters`' bitmap backend; text uses the DejaVu Sans font shipped in
//! `host-tests/assets/` (through plotters' `ab_glyph` feature), so no system font library is
//! needed. SVGs name the font family `sans-serif` and leave it to the viewer.

mod axes;
mod draw;
pub mod style;

use crate::report::Output;
use std::path::{Path, PathBuf};

/// One curve: a legend label and its points `(x, y)`.
pub struct Series {
    /// Legend label: the method's name as a reader knows it, with the paper's notation.
    pub label: String,
    /// Points, in any order: the chart joins them in increasing x.
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

    /// The points sorted by x (stable: points with equal x keep their order).
    pub fn in_x_order(&self) -> Vec<(f64, f64)> {
        let mut p = self.points.clone();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        p
    }
}

/// A chart: its file stem (`<experiment>.<figure>`), texts, axis scales and curves.
pub struct Chart {
    /// File stem `<experiment>.<figure>`: the files are `<stem>.png`, `<stem>.svg`, `<stem>.csv`.
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

impl Chart {
    /// The experiment part of the stem (up to the first `.`).
    pub fn experiment(&self) -> &str {
        self.stem.split('.').next().unwrap_or(&self.stem)
    }
}

/// Writes the chart's CSV and its PNG and SVG to the directories `out` names (`--csv` /
/// `--plot`), if any; reports a failure on stderr and goes on (a figure file is a by-product of
/// the run).
pub fn emit(out: &Output, chart: &Chart) {
    debug_assert!(
        chart.stem.contains('.') && crate::experiments::find(chart.experiment()).is_some(),
        "chart stem `{}` is not `<experiment>.<figure>`",
        chart.stem
    );
    if let Some(dir) = &out.csv {
        if let Err(e) = write_csv(dir, chart) {
            eprintln!("warning: could not write {}.csv: {e}", chart.stem);
        }
    }
    if let Some(dir) = &out.plot {
        if let Err(e) = write_png(dir, chart) {
            eprintln!("warning: could not draw {}.png: {e}", chart.stem);
        }
        if let Err(e) = write_svg(dir, chart) {
            eprintln!("warning: could not draw {}.svg: {e}", chart.stem);
        }
    }
}

/// Writes `dir/<stem>.csv` in long format ([`crate::csv::long_to_string`]); returns its path.
pub fn write_csv(dir: &Path, chart: &Chart) -> std::io::Result<PathBuf> {
    let series: Vec<(&str, &[(f64, f64)])> = chart
        .series
        .iter()
        .map(|s| (s.label.as_str(), s.points.as_slice()))
        .collect();
    let text =
        crate::csv::long_to_string(chart.experiment(), &chart.x_label, &chart.y_label, &series);
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.csv", chart.stem));
    std::fs::write(&path, text)?;
    Ok(path)
}

/// Draws `chart` to `dir/<stem>.png`; returns its path.
pub fn write_png(dir: &Path, chart: &Chart) -> Result<PathBuf, Box<dyn std::error::Error>> {
    draw::register_font();
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.png", chart.stem));
    let size = draw::canvas_size(chart)?;
    let root = plotters::prelude::BitMapBackend::new(&path, size);
    draw::render(root, chart)?;
    Ok(path)
}

/// Draws `chart` to `dir/<stem>.svg`; returns its path.
pub fn write_svg(dir: &Path, chart: &Chart) -> Result<PathBuf, Box<dyn std::error::Error>> {
    draw::register_font();
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.svg", chart.stem));
    let size = draw::canvas_size(chart)?;
    let root = plotters::prelude::SVGBackend::new(&path, size);
    draw::render(root, chart)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep recorded in run order (a zigzag in x) is joined in x order.
    #[test]
    fn points_are_joined_in_x_order() {
        let s = Series::new(
            "tol sweep",
            vec![(3.0, 1.0), (1.0, 5.0), (2.0, 2.0), (0.5, 9.0)],
        );
        let p = s.in_x_order();
        assert_eq!(p, vec![(0.5, 9.0), (1.0, 5.0), (2.0, 2.0), (3.0, 1.0)]);
    }

    /// Equal x keep their recorded order (a vertical step stays as recorded).
    #[test]
    fn x_order_is_stable() {
        let s = Series::new("step", vec![(1.0, 2.0), (0.0, 0.0), (1.0, 1.0)]);
        assert_eq!(s.in_x_order(), vec![(0.0, 0.0), (1.0, 2.0), (1.0, 1.0)]);
    }

    fn chart(n: usize) -> Chart {
        Chart {
            stem: "zs-order.test_chart".into(),
            title: "test chart".into(),
            x_label: "step size h [s]".into(),
            y_label: "max |q − q_ref| [m]".into(),
            log_x: true,
            log_y: true,
            series: (0..n)
                .map(|i| {
                    let pts = (1..=6)
                        .rev()
                        .map(|k| {
                            let h = 0.5f64.powi(k);
                            (h, (i + 1) as f64 * h * h)
                        })
                        .collect();
                    Series::new(format!("method {i} (eq {i}.1)"), pts)
                })
                .collect(),
        }
    }

    /// PNG, SVG and CSV of a 12-series chart are written, non-trivial, and the CSV holds every
    /// point.
    #[test]
    fn writes_png_svg_and_long_csv() {
        let dir = std::env::temp_dir().join(format!("plot-test-{}", std::process::id()));
        let c = chart(12);
        let png = write_png(&dir, &c).expect("png");
        let svg = write_svg(&dir, &c).expect("svg");
        let csv = write_csv(&dir, &c).expect("csv");
        assert!(std::fs::metadata(&png).unwrap().len() > 10_000);
        let svg_text = std::fs::read_to_string(&svg).unwrap();
        assert!(svg_text.starts_with("<svg") && svg_text.contains("method 11 (eq 11.1)"));
        let table = crate::csv::parse_long(&std::fs::read_to_string(&csv).unwrap()).unwrap();
        assert_eq!(table.rows.len(), 12 * 6);
        std::fs::remove_dir_all(&dir).ok();
    }
}
