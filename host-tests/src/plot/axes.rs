//! The axes of a chart: data ranges, logarithmic ticks and tick labels.

use super::Chart;
use plotters::coord::combinators::{LogCoord, WithKeyPoints};
use plotters::prelude::*;

/// Points that can be drawn on the chart's axes (finite, positive on a log axis).
pub(super) fn drawable(chart: &Chart, p: &(f64, f64)) -> bool {
    p.0.is_finite() && p.1.is_finite() && (!chart.log_x || p.0 > 0.0) && (!chart.log_y || p.1 > 0.0)
}

/// The data range of one axis, widened so a flat curve still has a visible extent (a log axis
/// spanning less than a decade by 3× each way when `widen_log`, else by a few per cent).
pub(super) fn range(values: impl Iterator<Item = f64>, log: bool, widen_log: bool) -> (f64, f64) {
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
            // A few per cent, so markers at the extremes are not cut by the frame.
            let pad = (hi / lo).powf(0.03);
            (lo / pad, hi * pad)
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
pub(super) fn log_axis(lo: f64, hi: f64) -> WithKeyPoints<LogCoord<f64>> {
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

/// A tick label: plain decimals for moderate magnitudes, scientific notation otherwise.
pub(super) fn tick(v: f64) -> String {
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
