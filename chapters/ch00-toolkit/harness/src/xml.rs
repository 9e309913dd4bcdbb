//! Text safe in the SVG files the course writes. Standard library only: the workspace
//! rules compile this file (with `diagram.rs`) without MPI.

/// `text` safe in XML text and attribute values: the characters XML gives a meaning
/// (`&`, `<`, `>`, `"`) escaped, control characters (which XML 1.0 forbids) as spaces.
/// The one escaper of every SVG the course writes (plots, diagrams, ch07's timelines).
pub fn xml_escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' => "&amp;".into(),
            '<' => "&lt;".into(),
            '>' => "&gt;".into(),
            '"' => "&quot;".into(),
            c if c.is_control() => " ".into(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escape_leaves_no_markup_and_no_control_character() {
        assert_eq!(
            xml_escape("a<b & \"c\">\u{7}d"),
            "a&lt;b &amp; &quot;c&quot;&gt; d"
        );
    }
}
