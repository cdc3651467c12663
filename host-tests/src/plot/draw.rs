//! Drawing a [`Chart`] on any plotters backend (bitmap or SVG): the data on the left, the legend
//! in its own panel on the right.

use super::axes::{drawable, log_axis, range, tick};
use super::style::{look, Look, Marker};
use super::Chart;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::error::Error;
use std::sync::Once;

/// Width of the data panel (axes included), pixels.
const PLOT_W: u32 = 860;
/// Minimum canvas height, pixels.
const MIN_H: u32 = 600;
/// Legend text size, and the height of one legend row, pixels.
const LEGEND_FONT: u32 = 15;
const LEGEND_ROW: u32 = 24;
/// Legend sample: a line this long with the marker in its middle, then the label.
const SAMPLE: i32 = 44;
/// Series with at most this many points are sweeps (one point per run): every point is marked;
/// denser curves carry [`DENSE_MARKS`] evenly spaced marks so the legend's marker finds them.
const MARKED: usize = 40;
const DENSE_MARKS: usize = 8;
/// Points drawn per series at most ([`thin`]).
const MAX_DRAWN: usize = 4000;
/// Marker radius, pixels.
const MARK_R: i32 = 5;

pub(super) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let font: &'static [u8] = include_bytes!("../../assets/DejaVuSans.ttf");
        // The bytes are a valid TrueType font, checked by the plot test.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, font);
    });
}

/// The legend panel's width: the longest label plus the sample and margins.
fn legend_width(chart: &Chart) -> Result<u32, Box<dyn Error>> {
    let font = ("sans-serif", LEGEND_FONT).into_font();
    let mut w = 0;
    for s in &chart.series {
        w = w.max(font.box_size(&s.label)?.0);
    }
    Ok(w + SAMPLE as u32 + 40)
}

/// The canvas size: the data panel, the legend panel right of it, tall enough for every row.
pub(super) fn canvas_size(chart: &Chart) -> Result<(u32, u32), Box<dyn Error>> {
    let rows = chart.series.len() as u32;
    Ok((
        PLOT_W + legend_width(chart)?,
        MIN_H.max(90 + rows * LEGEND_ROW + 40),
    ))
}

/// Draws `chart` on `backend` (sized by [`canvas_size`]).
pub(super) fn render<DB>(backend: DB, chart: &Chart) -> Result<(), Box<dyn Error>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let root = backend.into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, legend) = root.split_horizontally(PLOT_W);
    let pts = || {
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| drawable(chart, p))
    };
    let (x0, x1) = range(pts().map(|p| p.0), chart.log_x, false);
    let (y0, y1) = range(pts().map(|p| p.1), chart.log_y, true);
    match (chart.log_x, chart.log_y) {
        (false, false) => draw_data(&plot, chart, x0..x1, y0..y1)?,
        (false, true) => draw_data(&plot, chart, x0..x1, log_axis(y0, y1))?,
        (true, false) => draw_data(&plot, chart, log_axis(x0, x1), y0..y1)?,
        (true, true) => draw_data(&plot, chart, log_axis(x0, x1), log_axis(y0, y1))?,
    }
    draw_legend(&legend, chart)?;
    root.present()?;
    Ok(())
}

/// The axes and the curves.
fn draw_data<DB, X, Y>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    x: X,
    y: Y,
) -> Result<(), Box<dyn Error>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut ctx = ChartBuilder::on(area)
        .caption(&chart.title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(55)
        .y_label_area_size(95)
        .build_cartesian_2d(x, y)?;
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .y_label_formatter(&|v| tick(*v))
        .x_label_formatter(&|v| tick(*v))
        .draw()?;
    // The first series is drawn last, on top: charts list the reference or the headline first.
    for (i, s) in chart.series.iter().enumerate().rev() {
        let lk = look(i);
        let points: Vec<(f64, f64)> = s
            .in_x_order()
            .into_iter()
            .filter(|p| drawable(chart, p))
            .collect();
        let points = thin(points);
        let style = lk.color.stroke_width(2);
        match lk.dash {
            // Segment by segment: a thick polyline gets mitred joins, which shoot far past the
            // data (and out of the plotting area) where a dense curve zigzags.
            None => {
                ctx.draw_series(
                    points
                        .windows(2)
                        .map(|w| PathElement::new(vec![w[0], w[1]], style)),
                )?;
            }
            Some((on, off)) => {
                ctx.draw_series(DashedLineSeries::new(
                    points.iter().copied(),
                    on,
                    off,
                    style,
                ))?;
            }
        }
        for p in marked(&points, i) {
            marker(area, ctx.backend_coord(p), lk)?;
        }
    }
    Ok(())
}

/// At most [`MAX_DRAWN`] of `points`, evenly strided, the last kept (the CSV keeps every point;
/// a bitmap cannot show more, and an SVG of every point of a long run weighs megabytes).
fn thin(points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let n = points.len();
    if n <= MAX_DRAWN {
        return points;
    }
    let stride = n.div_ceil(MAX_DRAWN);
    let mut kept: Vec<_> = points.iter().copied().step_by(stride).collect();
    if !(n - 1).is_multiple_of(stride) {
        kept.push(points[n - 1]);
    }
    kept
}

/// The points of series `i` that carry a marker: all of a sweep, a few of a dense curve (their
/// phase shifted by the series index so markers of overlapping curves do not coincide).
fn marked(points: &[(f64, f64)], i: usize) -> Vec<&(f64, f64)> {
    let n = points.len();
    if n <= MARKED {
        return points.iter().collect();
    }
    let phase = (i % 4) as f64 / 4.0;
    (0..DENSE_MARKS)
        .map(|k| {
            let at = (k as f64 + 0.25 + 0.5 * phase) / DENSE_MARKS as f64;
            &points[((n - 1) as f64 * at).round() as usize]
        })
        .collect()
}

/// One marker centred at pixel `c`.
fn marker<DB>(area: &DrawingArea<DB, Shift>, c: (i32, i32), lk: Look) -> Result<(), Box<dyn Error>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (x, y, r) = (c.0, c.1, MARK_R);
    let filled = lk.color.filled();
    let line = lk.color.stroke_width(2);
    let poly = |v: Vec<(i32, i32)>| {
        v.into_iter()
            .map(|(a, b)| (x + a, y + b))
            .collect::<Vec<_>>()
    };
    match lk.marker {
        Marker::Circle => area.draw(&Circle::new(c, r, filled))?,
        Marker::Square => {
            let mut v = poly(vec![(-r, -r), (r, -r), (r, r), (-r, r)]);
            v.push(v[0]);
            area.draw(&PathElement::new(v, line))?;
        }
        Marker::Triangle => area.draw(&Polygon::new(
            poly(vec![(0, -r - 1), (r + 1, r), (-r - 1, r)]),
            filled,
        ))?,
        Marker::TriangleDown => area.draw(&Polygon::new(
            poly(vec![(0, r + 1), (r + 1, -r), (-r - 1, -r)]),
            filled,
        ))?,
        Marker::Diamond => {
            let mut v = poly(vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)]);
            v.push(v[0]);
            area.draw(&PathElement::new(v, line))?;
        }
        Marker::Cross => {
            area.draw(&PathElement::new(poly(vec![(-r, -r), (r, r)]), line))?;
            area.draw(&PathElement::new(poly(vec![(-r, r), (r, -r)]), line))?;
        }
        Marker::Plus => {
            area.draw(&PathElement::new(poly(vec![(-r - 1, 0), (r + 1, 0)]), line))?;
            area.draw(&PathElement::new(poly(vec![(0, -r - 1), (0, r + 1)]), line))?;
        }
    }
    Ok(())
}

/// The legend panel: one row per series, its line pattern, marker and label.
fn draw_legend<DB>(area: &DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), Box<dyn Error>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let font = ("sans-serif", LEGEND_FONT).into_font();
    let x0 = 10;
    for (i, s) in chart.series.iter().enumerate() {
        let lk = look(i);
        let y = 70 + (i as i32) * LEGEND_ROW as i32;
        let ends = vec![(x0, y), (x0 + SAMPLE, y)];
        let style = lk.color.stroke_width(2);
        match lk.dash {
            None => area.draw(&PathElement::new(ends, style))?,
            Some((on, off)) => area.draw(&DashedPathElement::new(ends, on, off, style))?,
        }
        marker(area, (x0 + SAMPLE / 2, y), lk)?;
        area.draw(&Text::new(
            s.label.as_str(),
            (x0 + SAMPLE + 10, y - LEGEND_FONT as i32 / 2 - 1),
            font.clone(),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{thin, MAX_DRAWN};

    /// A long run is thinned to at most MAX_DRAWN + 1 points, its ends kept, in order.
    #[test]
    fn thin_keeps_the_ends_and_the_order() {
        for n in [MAX_DRAWN, MAX_DRAWN + 1, 3 * MAX_DRAWN + 7, 100_000] {
            let pts: Vec<(f64, f64)> = (0..n).map(|k| (k as f64, 0.0)).collect();
            let kept = thin(pts);
            assert!(kept.len() <= MAX_DRAWN + 1, "{n}: {}", kept.len());
            assert_eq!(kept[0].0, 0.0);
            assert_eq!(kept.last().unwrap().0, (n - 1) as f64);
            assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }
}
