//! The output format of `reproduce`: a human table and `figure <experiment>.<name> <value>` lines.

/// Prints a machine-readable figure line: `figure <name> <value>`.
pub fn figure(name: &str, value: f64) {
    println!("figure {name} {value:.6e}");
}

/// Prints a machine-readable integer figure line: `figure <name> <value>`.
pub fn figure_int(name: &str, value: i64) {
    println!("figure {name} {value}");
}

/// A simple fixed-width table printer for the human-readable part of an experiment.
pub struct Table {
    widths: Vec<usize>,
}

impl Table {
    /// Prints the header row and remembers column widths.
    pub fn new(headers: &[&str]) -> Self {
        let widths: Vec<usize> = headers.iter().map(|h| h.len().max(12)).collect();
        let row: Vec<String> = headers
            .iter()
            .zip(&widths)
            .map(|(h, w)| format!("{h:>w$}"))
            .collect();
        println!("{}", row.join("  "));
        println!(
            "{}",
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join("  ")
        );
        Self { widths }
    }

    /// Prints one row of preformatted cells.
    pub fn row(&self, cells: &[String]) {
        let row: Vec<String> = cells
            .iter()
            .zip(&self.widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        println!("{}", row.join("  "));
    }
}

/// Formats a float compactly for tables.
pub fn sci(x: f64) -> String {
    format!("{x:.3e}")
}
