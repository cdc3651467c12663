//! How a series looks: a colour, a marker and a dash pattern per series index, chosen so that
//! no two series of a chart look alike.
//!
//! The 13 colours are Okabe & Ito's eight (yellow left out: it vanishes on white) and five from
//! Paul Tol's qualitative schemes, ordered so that the first few are the most distinct. Colours,
//! [`MARKERS`] (7) and [`DASHES`] (4) cycle with coprime periods, so series `i` and `j < 364`
//! differ in at least one of the three, and any two of the first 13 differ in colour.

use plotters::style::RGBColor;

/// The colours, most distinct first (their CIELAB ΔE76 are at least 25 apart, measured by the
/// palette test).
pub const PALETTE: [RGBColor; 13] = [
    RGBColor(0, 114, 178),   // Okabe–Ito blue
    RGBColor(213, 94, 0),    // Okabe–Ito vermillion
    RGBColor(0, 158, 115),   // Okabe–Ito bluish green
    RGBColor(0, 0, 0),       // black
    RGBColor(204, 121, 167), // Okabe–Ito reddish purple
    RGBColor(230, 159, 0),   // Okabe–Ito orange
    RGBColor(86, 180, 233),  // Okabe–Ito sky blue
    RGBColor(136, 34, 85),   // Tol wine
    RGBColor(153, 153, 51),  // Tol olive
    RGBColor(51, 34, 136),   // Tol indigo
    RGBColor(128, 128, 128), // grey
    RGBColor(140, 86, 45),   // brown
    RGBColor(200, 30, 45),   // red
];

/// A point marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// Filled circle.
    Circle,
    /// Hollow square.
    Square,
    /// Filled upward triangle.
    Triangle,
    /// Diagonal cross.
    Cross,
    /// Hollow diamond.
    Diamond,
    /// Filled downward triangle.
    TriangleDown,
    /// Upright plus.
    Plus,
}

/// The markers, in cycling order.
pub const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Cross,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Plus,
];

/// A line pattern: `None` solid, else `(dash, gap)` in pixels.
pub type Dash = Option<(u32, u32)>;

/// The dash patterns, in cycling order: solid, long dash, short dash, dotted.
pub const DASHES: [Dash; 4] = [None, Some((12, 6)), Some((6, 4)), Some((2, 4))];

/// The look of one series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// Line and marker colour.
    pub color: RGBColor,
    /// Marker.
    pub marker: Marker,
    /// Line pattern.
    pub dash: Dash,
}

/// The look of series `i` of a chart.
pub fn look(i: usize) -> Look {
    Look {
        color: PALETTE[i % PALETTE.len()],
        marker: MARKERS[i % MARKERS.len()],
        dash: DASHES[i % DASHES.len()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CIELAB (D65) of an sRGB colour, from the sRGB and CIE 1976 definitions.
    fn lab(c: RGBColor) -> [f64; 3] {
        let lin = |u: u8| {
            let u = f64::from(u) / 255.0;
            if u > 0.04045 {
                ((u + 0.055) / 1.055).powf(2.4)
            } else {
                u / 12.92
            }
        };
        let (r, g, b) = (lin(c.0), lin(c.1), lin(c.2));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 216.0 / 24389.0 {
                t.cbrt()
            } else {
                (24389.0 / 27.0 * t + 16.0) / 116.0
            }
        };
        let (fx, fy, fz) = (f(x), f(y), f(z));
        [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
    }

    fn delta_e(a: RGBColor, b: RGBColor) -> f64 {
        let (a, b) = (lab(a), lab(b));
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    }

    /// Twelve series: pairwise distinct colours at least ΔE 25 apart, none too light to see on
    /// white (L* ≤ 75).
    #[test]
    fn twelve_series_have_distinct_visible_colours() {
        let looks: Vec<Look> = (0..12).map(look).collect();
        for (i, a) in looks.iter().enumerate() {
            assert!(
                lab(a.color)[0] <= 75.0,
                "series {i} too light: {:?}",
                a.color
            );
            for (j, b) in looks.iter().enumerate().skip(i + 1) {
                let d = delta_e(a.color, b.color);
                assert!(d >= 25.0, "series {i} and {j}: ΔE {d:.1}");
            }
        }
    }

    /// Beyond the palette, no two of the first 100 series share colour, marker and dash.
    #[test]
    fn a_hundred_series_have_distinct_looks() {
        let looks: Vec<Look> = (0..100).map(look).collect();
        for (i, a) in looks.iter().enumerate() {
            for (j, b) in looks.iter().enumerate().skip(i + 1) {
                assert_ne!(a, b, "series {i} and {j} look alike");
            }
        }
    }
}
