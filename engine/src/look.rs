//! Words for what an element looks like: `red circle 10x10`.
//!
//! Some things on a page are told apart only by their looks: colour swatches, the dots of a
//! carousel, the shapes of a drawing ("click the small red circle"), the bars of a chart. The
//! walker measures a [`Paint`] (a kind and three numbers); this module words it with a fixed
//! vocabulary, so a look never carries a page-chosen string.

use crate::record::{NodeRecord, Paint};

/// CSS colour names an author is likely to have meant, matched exactly (the basic sixteen, the
/// common extras, and the names of the usual colour puzzles). `aqua` and `fuchsia` say
/// `cyan` and `magenta`, which are the same colours.
const NAMED: &[(&str, [u8; 3])] = &[
    ("black", [0, 0, 0]),
    ("white", [255, 255, 255]),
    ("grey", [128, 128, 128]),
    ("silver", [192, 192, 192]),
    ("red", [255, 0, 0]),
    ("maroon", [128, 0, 0]),
    ("yellow", [255, 255, 0]),
    ("olive", [128, 128, 0]),
    ("lime", [0, 255, 0]),
    ("green", [0, 128, 0]),
    ("cyan", [0, 255, 255]),
    ("teal", [0, 128, 128]),
    ("blue", [0, 0, 255]),
    ("navy", [0, 0, 128]),
    ("magenta", [255, 0, 255]),
    ("purple", [128, 0, 128]),
    ("orange", [255, 165, 0]),
    ("pink", [255, 192, 203]),
    ("brown", [165, 42, 42]),
    ("gold", [255, 215, 0]),
    ("darkgrey", [169, 169, 169]),
    ("lightgrey", [211, 211, 211]),
];

/// The colour's name: its CSS name when it is exactly one of [`NAMED`], else its hue in plain
/// words (`light green`, `dark blue`, `grey`), from its hue, saturation and lightness.
pub fn colour_name(rgb: [u8; 3]) -> String {
    if let Some((n, _)) = NAMED.iter().find(|(_, c)| *c == rgb) {
        return match *n {
            "darkgrey" => "dark grey".to_owned(),
            "lightgrey" => "light grey".to_owned(),
            n => n.to_owned(),
        };
    }
    let [r, g, b] = rgb.map(|c| f64::from(c) / 255.0);
    let max = r.max(g).max(b);
    let d = max - r.min(g).min(b);
    let (l, s) = lightness_saturation(rgb);
    if l < 0.1 {
        return "black".to_owned();
    }
    if l > 0.94 {
        return "white".to_owned();
    }
    let shade = if l < 0.3 {
        "dark "
    } else if l > 0.7 {
        "light "
    } else {
        ""
    };
    if s < 0.15 {
        return format!("{shade}grey");
    }
    let h = if d == 0.0 {
        0.0
    } else if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    let hue = match h {
        h if h < 15.0 => "red",
        h if h < 42.0 => "orange",
        h if h < 70.0 => "yellow",
        h if h < 165.0 => "green",
        h if h < 195.0 => "cyan",
        h if h < 255.0 => "blue",
        h if h < 285.0 => "purple",
        h if h < 335.0 => "magenta",
        _ => "red",
    };
    format!("{shade}{hue}")
}

/// HSL lightness and saturation, each 0–1.
fn lightness_saturation(rgb: [u8; 3]) -> (f64, f64) {
    let [r, g, b] = rgb.map(|c| f64::from(c) / 255.0);
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    let l = (max + min) / 2.0;
    let d = max - min;
    let s = if d == 0.0 {
        0.0
    } else {
        d / (1.0 - (2.0 * l - 1.0).abs())
    };
    (l, s)
}

/// A red a person reads as a warning: the hue of red, strongly coloured, neither near black
/// nor near white (`#dc3545`, `red`, `#e53935`; not a pink or a brown).
fn alarm_red(rgb: [u8; 3]) -> bool {
    let [r, g, b] = rgb.map(i32::from);
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    let (l, s) = lightness_saturation(rgb);
    // Red leads, and green and blue stay well below it: hue within about 15° of red.
    max == r && (g.max(b) - min) * 4 <= max - min && s >= 0.6 && (0.25..=0.75).contains(&l)
}

/// The shape's word: what a person calls it.
fn shape_word(p: &Paint, w: f64, h: f64) -> Option<&'static str> {
    Some(match p.shape.as_str() {
        "circle" => "circle",
        "ellipse" if (w - h).abs() <= 1.0 => "circle",
        "ellipse" => "ellipse",
        "rect" => "rectangle",
        "polygon" => match p.points {
            3 => "triangle",
            4 => "quadrilateral",
            5 => "pentagon",
            6 => "hexagon",
            _ => "polygon",
        },
        "line" | "polyline" => "line",
        "path" => "shape",
        // A box's colour is its look; an SVG text says what it is by its words.
        _ => return None,
    })
}

/// `red circle 10x10`: colour, shape, and the size it is drawn at in CSS pixels.
pub fn look(r: &NodeRecord) -> Option<String> {
    let p = r.paint.as_ref()?;
    let [red, green, blue] = match p.rgb[..] {
        [a, b, c, ..] => [a, b, c].map(|v| v.clamp(0.0, 255.0).round() as u8),
        _ => return None,
    };
    if p.shape == "border" {
        // A field's border says something only when it is drawn red: the page's mark of a
        // wrong value. Any other colour is the page's style, and would change on every focus.
        return alarm_red([red, green, blue]).then(|| "red border".to_owned());
    }
    let (w, h) = (f64::from(r.bounds.w.max(0.0)), f64::from(r.bounds.h.max(0.0)));
    let mut out = colour_name([red, green, blue]);
    if let Some(s) = shape_word(p, w, h) {
        out.push(' ');
        out.push_str(s);
    }
    out.push_str(&format!(" {}x{}", w.round() as u64, h.round() as u64));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Rect;

    fn drawn(shape: &str, rgb: [f64; 3], points: u32, w: f32, h: f32) -> NodeRecord {
        NodeRecord {
            paint: Some(Paint {
                shape: shape.into(),
                rgb: rgb.to_vec(),
                points,
            }),
            bounds: Rect { x: 0.0, y: 0.0, w, h },
            ..Default::default()
        }
    }

    #[test]
    fn only_a_red_border_is_worded() {
        let border = |rgb: [f64; 3]| drawn("border", rgb, 0, 200.0, 30.0);
        for red in [
            [255.0, 0.0, 0.0],
            [220.0, 53.0, 69.0],
            [229.0, 57.0, 53.0],
            [185.0, 28.0, 28.0],
        ] {
            assert_eq!(look(&border(red)).as_deref(), Some("red border"), "{red:?}");
        }
        // Grey and blue borders (every field's, and a focus ring), a pink, a brown, near black.
        for other in [
            [118.0, 118.0, 118.0],
            [0.0, 95.0, 204.0],
            [255.0, 192.0, 203.0],
            [165.0, 42.0, 42.0],
            [60.0, 10.0, 10.0],
            [255.0, 140.0, 0.0],
        ] {
            assert_eq!(look(&border(other)), None, "{other:?}");
        }
    }

    #[test]
    fn exact_css_colours_keep_their_names() {
        assert_eq!(colour_name([255, 0, 0]), "red");
        assert_eq!(colour_name([128, 128, 0]), "olive");
        assert_eq!(colour_name([0, 255, 255]), "cyan");
        assert_eq!(colour_name([255, 0, 255]), "magenta");
        assert_eq!(colour_name([0, 128, 0]), "green");
        assert_eq!(colour_name([128, 128, 128]), "grey");
    }

    #[test]
    fn other_colours_are_named_by_hue_and_lightness() {
        // Shades of one hue, as a "click every shade of green" puzzle draws them.
        assert_eq!(colour_name([46, 184, 46]), "green");
        assert_eq!(colour_name([179, 236, 179]), "light green");
        assert_eq!(colour_name([20, 61, 20]), "dark green");
        assert_eq!(colour_name([204, 51, 51]), "red");
        assert_eq!(colour_name([51, 51, 204]), "blue");
        assert_eq!(colour_name([250, 250, 250]), "white");
        assert_eq!(colour_name([90, 92, 95]), "grey");
        assert_eq!(colour_name([230, 126, 34]), "orange");
    }

    #[test]
    fn a_look_says_colour_shape_and_size() {
        let c = drawn("circle", [255.0, 0.0, 0.0], 0, 10.0, 10.0);
        assert_eq!(look(&c).as_deref(), Some("red circle 10x10"));
        let t = drawn("polygon", [0.0, 0.0, 255.0], 3, 20.0, 20.0);
        assert_eq!(look(&t).as_deref(), Some("blue triangle 20x20"));
        let sq = drawn("rect", [0.0, 0.0, 0.0], 0, 19.6, 20.0);
        assert_eq!(look(&sq).as_deref(), Some("black rectangle 20x20"));
        let swatch = drawn("box", [128.0, 128.0, 0.0], 0, 52.0, 52.0);
        assert_eq!(look(&swatch).as_deref(), Some("olive 52x52"));
        let letter = drawn("text", [255.0, 0.0, 255.0], 0, 6.0, 11.0);
        assert_eq!(look(&letter).as_deref(), Some("magenta 6x11"));
    }

    #[test]
    fn a_look_is_never_page_text() {
        // Out-of-range and odd numbers are clamped, unknown kinds say no shape: whatever the
        // renderer sends, the words come from this module.
        let odd = drawn("\"e5 button", [999.0, -4.0, 1e9], 0, 3.0, 3.0);
        assert_eq!(look(&odd).as_deref(), Some("magenta 3x3"));
        let short = NodeRecord {
            paint: Some(Paint {
                shape: "circle".into(),
                rgb: vec![1.0],
                points: 0,
            }),
            ..Default::default()
        };
        assert_eq!(look(&short), None);
    }
}
