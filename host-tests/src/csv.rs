//! The CSV behind the figures (`reproduce --csv DIR`), in long format: one row per point,
//!
//! ```text
//! # x: step size h [s]; y: max |q − q_ref| [m]
//! experiment,series,x,y
//! zs-order,"Z&S (000 eq 1.3)",1e-1,2.5e-3
//! ```
//!
//! a header comment naming the axes with their units, then `experiment,series,x,y`; numbers in
//! full precision (`{:e}`, `inf`/`NaN` for a failed run), cells quoted per RFC 4180 when needed.

use std::fmt::Write as _;

/// The column header of the long format.
pub const HEADER: &str = "experiment,series,x,y";

/// The long-format CSV of `series` (`(label, points)`) of `experiment`, axes described by
/// `x_desc` and `y_desc` (labels with units).
pub fn long_to_string(
    experiment: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[(&str, &[(f64, f64)])],
) -> String {
    let one_line = |s: &str| s.replace(['\n', '\r'], " ");
    let mut out = format!(
        "# x: {}; y: {}\n{HEADER}\n",
        one_line(x_desc),
        one_line(y_desc)
    );
    let exp = quote(experiment);
    for (label, points) in series {
        let label = quote(label);
        for (x, y) in points.iter() {
            let _ = writeln!(out, "{exp},{label},{x:e},{y:e}");
        }
    }
    out
}

/// A cell, quoted (RFC 4180) when it holds a comma, quote or newline.
pub fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

/// A long-format CSV read back.
#[derive(Debug, PartialEq)]
pub struct LongTable {
    /// The header comments, without `# `.
    pub comments: Vec<String>,
    /// `(experiment, series, x, y)` rows.
    pub rows: Vec<(String, String, f64, f64)>,
}

/// Splits one CSV line into cells (RFC 4180 quoting, no embedded newlines).
fn cells(line: &str) -> Result<Vec<String>, String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (false, '"') if cur.is_empty() => quoted = true,
            (false, ',') => out.push(std::mem::take(&mut cur)),
            (_, c) => cur.push(c),
        }
    }
    if quoted {
        return Err(format!("unterminated quote in `{line}`"));
    }
    out.push(cur);
    Ok(out)
}

/// Parses a long-format CSV (`#` comment lines, the [`HEADER`], then rows).
pub fn parse_long(text: &str) -> Result<LongTable, String> {
    let mut lines = text.lines();
    let mut comments = vec![];
    let header = loop {
        match lines.next() {
            Some(l) if l.starts_with('#') => comments.push(l.trim_start_matches('#').trim().into()),
            Some(l) => break l,
            None => return Err("no header".into()),
        }
    };
    if header != HEADER {
        return Err(format!("header `{header}`, expected `{HEADER}`"));
    }
    let mut rows = vec![];
    for line in lines {
        let c = cells(line)?;
        let [e, s, x, y] = <[String; 4]>::try_from(c).map_err(|c| format!("{} cells", c.len()))?;
        let num = |v: &str| v.parse::<f64>().map_err(|e| format!("`{v}`: {e}"));
        rows.push((e, s, num(&x)?, num(&y)?));
    }
    Ok(LongTable { comments, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels with commas and quotes, extreme and non-finite values survive a round trip, and
    /// the units line comes first.
    #[test]
    fn long_format_parses_back() {
        let a = [(1e-300, 0.1), (0.5, f64::INFINITY), (2.0, -3.25e7)];
        let b = [(1.0, f64::MIN_POSITIVE)];
        let text = long_to_string(
            "zs-order",
            "step size h [s]",
            "max |q − q_ref| [m]",
            &[("Z&S, β = 0.4 (000 eq 1.3)", &a), ("\"RATTLE\"", &b)],
        );
        assert!(text.starts_with("# x: step size h [s]; y: max |q − q_ref| [m]\n"));
        let t = parse_long(&text).unwrap();
        assert_eq!(
            t.comments,
            vec!["x: step size h [s]; y: max |q − q_ref| [m]"]
        );
        let expected: Vec<(String, String, f64, f64)> = a
            .iter()
            .map(|&(x, y)| ("zs-order".into(), "Z&S, β = 0.4 (000 eq 1.3)".into(), x, y))
            .chain(
                b.iter()
                    .map(|&(x, y)| ("zs-order".into(), "\"RATTLE\"".into(), x, y)),
            )
            .collect();
        assert_eq!(t.rows, expected);
    }

    #[test]
    fn rejects_a_wide_csv() {
        assert!(parse_long("t,err\n1,2\n").is_err());
        assert!(parse_long(&format!("{HEADER}\na,b,1\n")).is_err());
    }
}
