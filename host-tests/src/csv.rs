//! A minimal CSV writer for the curves behind the figures (`reproduce --csv DIR`): one file
//! per curve set, a header row, numbers in full precision (`{:e}`), columns of equal length or
//! padded with empty cells.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// One named column of numbers.
pub struct Column<'a> {
    /// Header cell.
    pub name: &'a str,
    /// Values, top to bottom.
    pub values: &'a [f64],
}

/// The CSV text of `columns` (shorter columns padded with empty cells).
pub fn to_string(columns: &[Column<'_>]) -> String {
    let mut out = String::new();
    let header: Vec<String> = columns.iter().map(|c| quote(c.name)).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    let rows = columns.iter().map(|c| c.values.len()).max().unwrap_or(0);
    for r in 0..rows {
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if let Some(v) = c.values.get(r) {
                let _ = write!(out, "{v:e}");
            }
        }
        out.push('\n');
    }
    out
}

/// A header cell, quoted (RFC 4180) when it holds a comma, quote or newline.
fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

/// Writes `columns` to `dir/file`, creating `dir` if needed.
pub fn write(dir: &Path, file: &str, columns: &[Column<'_>]) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(file), to_string(columns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_short_columns_and_round_trips_values() {
        let a = [1.0, 0.5];
        let b = [1e-12];
        let text = to_string(&[
            Column {
                name: "t",
                values: &a,
            },
            Column {
                name: "err, abs",
                values: &b,
            },
        ]);
        assert_eq!(text, "t,\"err, abs\"\n1e0,1e-12\n5e-1,\n");
        let parsed: f64 = "1e-12".parse().unwrap();
        assert_eq!(parsed, 1e-12);
    }
}
