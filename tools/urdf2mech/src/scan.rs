//! A plain text scan of `<joint … type="…">` tags, used only when `urdf-rs` refuses a file, to
//! name a joint of unknown type instead of passing on the XML deserialiser's message.

use crate::error::Error;

/// The joint types the URDF format defines.
const KNOWN: [&str; 7] = [
    "revolute",
    "continuous",
    "prismatic",
    "fixed",
    "floating",
    "planar",
    "spherical",
];

/// The first `<joint>` whose `type` attribute is not a URDF joint type, if any.
pub fn unknown_joint_type(urdf: &str) -> Option<Error> {
    let mut rest = urdf;
    while let Some(at) = rest.find("<joint") {
        rest = &rest[at + "<joint".len()..];
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        if let Some(kind) = attribute(tag, "type") {
            if !KNOWN.contains(&kind) {
                let joint = attribute(tag, "name").unwrap_or("?").to_string();
                return Some(Error::UnknownJointType {
                    joint,
                    kind: kind.to_string(),
                });
            }
        }
    }
    None
}

/// The value of `name="…"` (or `name='…'`) in a tag's text.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    loop {
        let at = rest.find(name)?;
        let before = rest[..at].chars().next_back();
        let after = rest[at + name.len()..].trim_start();
        rest = &rest[at + name.len()..];
        if before.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let Some(after) = after.strip_prefix('=') else {
            continue;
        };
        let after = after.trim_start();
        let quote = after.chars().next()?;
        if quote != '"' && quote != '\'' {
            continue;
        }
        let value = &after[1..];
        return value.find(quote).map(|end| &value[..end]);
    }
}
