//! Message diagrams as SVG: one horizontal line per rank, one column per round, one arrow
//! per message, from its sender in the column's left edge to its receiver at the right
//! edge. The book's figures of chapters 2 and 3 are drawn with it from traced messages
//! ([`crate::trace`]), so they show what the code really sent.
//!
//! The output is plain text with integer coordinates: the same messages give the same
//! bytes, so a test can compare a committed figure with a fresh one.

use crate::xml::xml_escape;
use std::fmt::Write;

/// One message of the diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// Its round, from 1.
    pub round: usize,
    /// The sender.
    pub from: usize,
    /// The receiver.
    pub to: usize,
    /// A short text drawn on the arrow near its start (what it carries), or empty.
    pub label: String,
}

const LEFT: usize = 70;
const COL: usize = 120;
const ROW: usize = 44;
const TOP: usize = 56;
const PAD: usize = 14;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Draws `arrows` between `ranks` lifelines; `round_name` heads the columns ("round",
/// "step"). Each arrow takes its sender's colour.
pub fn rounds_svg(title: &str, round_name: &str, ranks: usize, arrows: &[Arrow]) -> String {
    let rounds = arrows.iter().map(|a| a.round).max().unwrap_or(1);
    let (w, h) = (LEFT + rounds * COL + 20, TOP + ranks * ROW + 10);
    let y = |r: usize| TOP + r * ROW + ROW / 2;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"13\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <defs>"
    );
    for (i, c) in COLORS.iter().enumerate() {
        let _ = write!(
            svg,
            "<marker id=\"head{i}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
             markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">\
             <path d=\"M0,0 L10,5 L0,10 z\" fill=\"{c}\"/></marker>"
        );
    }
    let _ = writeln!(
        svg,
        "</defs>\n<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">{}</text>",
        w / 2,
        xml_escape(title)
    );
    for k in 0..rounds {
        let x = LEFT + k * COL;
        let _ = writeln!(
            svg,
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#ccc\" \
             stroke-dasharray=\"3,3\"/>\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" \
             fill=\"#555\">{} {}</text>",
            TOP - 8,
            h - 6,
            x + COL / 2,
            TOP - 12,
            xml_escape(round_name),
            k + 1
        );
    }
    for r in 0..ranks {
        let _ = writeln!(
            svg,
            "<text x=\"8\" y=\"{}\">rank {r}</text>\n<line x1=\"{LEFT}\" y1=\"{0}\" \
             x2=\"{}\" y2=\"{0}\" stroke=\"#999\"/>",
            y(r) + 4,
            LEFT + rounds * COL,
        );
    }
    for a in arrows {
        let c = a.from % COLORS.len();
        let (x1, x2) = (LEFT + (a.round - 1) * COL + PAD, LEFT + a.round * COL - PAD);
        let (y1, y2) = (y(a.from), y(a.to));
        let _ = writeln!(
            svg,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{}\" \
             stroke-width=\"2\" marker-end=\"url(#head{c})\"/>",
            COLORS[c]
        );
    }
    // Labels after every line, so no line covers one: at the arrow's start, on the side of
    // the sender's line the arrow leaves (above for an arrow down, below for one up), where
    // no other arrow of the sender's can be in that round.
    for a in arrows.iter().filter(|a| !a.label.is_empty()) {
        let c = a.from % COLORS.len();
        let lx = LEFT + (a.round - 1) * COL + PAD + 2;
        let ly = if a.to >= a.from {
            y(a.from) - 6
        } else {
            y(a.from) + 16
        };
        // A white halo under the text keeps it readable where lines cross it.
        let text = xml_escape(&a.label);
        let _ = writeln!(
            svg,
            "<text x=\"{lx}\" y=\"{ly}\" font-weight=\"bold\" fill=\"white\" \
             stroke=\"white\" stroke-width=\"4\">{text}</text>\n\
             <text x=\"{lx}\" y=\"{ly}\" font-weight=\"bold\" fill=\"{}\">{text}</text>",
            COLORS[c],
        );
    }
    svg + "</svg>\n"
}

/// Arrows from the rounds of a trace ([`crate::trace::rounds`]), labelled by `label`
/// (given the sender and the index of the send in its log).
pub fn arrows_from_rounds(
    rounds: &[(usize, usize, usize, usize)],
    label: impl Fn(usize, usize) -> String,
) -> Vec<Arrow> {
    rounds
        .iter()
        .map(|&(round, from, to, i)| Arrow {
            round,
            from,
            to,
            label: label(from, i),
        })
        .collect()
}

/// A traced diagram as text, the form labs print and the book captures: a header
/// `traced: NAME, P ranks, by ROUND`, then one line per round, `  ROUND k: a->b label | ..`.
/// [`from_text`] reads it back, so a test can redraw a figure from captured output.
pub fn to_text(name: &str, ranks: usize, round_name: &str, arrows: &[Arrow]) -> String {
    let mut out = format!("traced: {name}, {ranks} ranks, by {round_name}\n");
    let rounds = arrows.iter().map(|a| a.round).max().unwrap_or(0);
    for k in 1..=rounds {
        let line: Vec<String> = arrows
            .iter()
            .filter(|a| a.round == k)
            .map(|a| {
                format!("{}->{} {}", a.from, a.to, a.label)
                    .trim_end()
                    .to_string()
            })
            .collect();
        let _ = writeln!(out, "  {round_name} {k}: {}", line.join(" | "));
    }
    out
}

/// Every diagram [`to_text`] printed in `text` (other lines are skipped), as
/// (name, ranks, round name, arrows).
pub fn from_text(text: &str) -> Vec<(String, usize, String, Vec<Arrow>)> {
    let mut found: Vec<(String, usize, String, Vec<Arrow>)> = vec![];
    for line in text.lines() {
        if let Some(head) = line.strip_prefix("traced: ") {
            let mut parts = head.rsplitn(3, ", ");
            let by = parts.next().unwrap_or("").trim_start_matches("by ");
            let ranks = parts.next().unwrap_or("").trim_end_matches(" ranks");
            let name = parts.next().unwrap_or("");
            found.push((
                name.to_string(),
                ranks.parse().unwrap_or(0),
                by.to_string(),
                vec![],
            ));
            continue;
        }
        let Some((_, _, by, arrows)) = found.last_mut() else {
            continue;
        };
        let Some(rest) = line.trim_start().strip_prefix(by.as_str()) else {
            continue;
        };
        let Some((k, list)) = rest.trim_start().split_once(": ") else {
            continue;
        };
        let Ok(round) = k.parse() else { continue };
        for item in list.split(" | ") {
            let (pair, label) = item.split_once(' ').unwrap_or((item, ""));
            let Some((from, to)) = pair.split_once("->") else {
                continue;
            };
            if let (Ok(from), Ok(to)) = (from.parse(), to.parse()) {
                arrows.push(Arrow {
                    round,
                    from,
                    to,
                    label: label.to_string(),
                });
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_is_one_arrow_in_its_round_and_labels_are_escaped() {
        let arrows = [
            Arrow {
                round: 1,
                from: 0,
                to: 1,
                label: "c0".into(),
            },
            Arrow {
                round: 2,
                from: 1,
                to: 0,
                label: "a<b".into(),
            },
        ];
        let svg = rounds_svg("ring & co", "step", 2, &arrows);
        assert_eq!(svg.matches("marker-end").count(), 2, "{svg}");
        assert!(
            svg.contains(">step 2<") && !svg.contains(">step 3<"),
            "{svg}"
        );
        assert!(
            svg.contains("ring &amp; co") && svg.contains("a&lt;b"),
            "{svg}"
        );
        // The second arrow starts in column 2 on rank 1's line and ends on rank 0's.
        let (x1, x2) = (LEFT + COL + PAD, LEFT + 2 * COL - PAD);
        let (y0, y1) = (TOP + ROW / 2, TOP + ROW + ROW / 2);
        assert!(
            svg.contains(&format!("x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y0}\"")),
            "{svg}"
        );
        assert_eq!(svg, rounds_svg("ring & co", "step", 2, &arrows));
    }

    #[test]
    fn the_text_form_reads_back_as_the_same_arrows() {
        let arrows = vec![
            Arrow {
                round: 1,
                from: 0,
                to: 4,
                label: String::new(),
            },
            Arrow {
                round: 2,
                from: 4,
                to: 6,
                label: "B4, B5".into(),
            },
        ];
        let text = to_text("broadcast, binomial (ex 2.2)", 8, "round", &arrows);
        assert!(text.contains("  round 2: 4->6 B4, B5\n"), "{text}");
        let noise = format!("some output\n{text}more output\n");
        let back = from_text(&noise);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].0, "broadcast, binomial (ex 2.2)");
        assert_eq!((back[0].1, back[0].2.as_str()), (8, "round"));
        assert_eq!(back[0].3, arrows);
    }
}
