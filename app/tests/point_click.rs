//! A point of an element, against the real browser: `browser_capture` with `ref` shows just
//! that element and says how its pixels map to the element's own CSS pixels, and
//! `browser_act` `click` with `x`/`y` lands on that point (a canvas, whose shapes have no refs
//! of their own). A point outside the element, or covered, is refused with nothing sent.

use aperture_testkit::mcp::{call, goto, ref_for, text, tool};
use aperture_testkit::{Server, local_browser};
use base64::Engine as _;
use serde_json::json;

/// A 300×200 canvas with a red square at (200, 50)–(250, 100) and a blue one at (20, 120)–
/// (70, 170); a click says where it landed and on which colour. A strip covers its top-left.
const PAGE: &str = r#"<!doctype html><html><head><title>Board</title></head>
<body style="margin:0;background:#fff">
<div style="height:40px">Pick the red square</div>
<canvas id="c" aria-label="Board" width="300" height="200" style="display:block;margin-left:30px"></canvas>
<div style="position:absolute;left:30px;top:40px;width:60px;height:20px;background:#888">lid</div>
<p id="out">nothing yet</p>
<p id="over">not over it</p>
<p id="stroke">no stroke</p>
<script>
const c = document.getElementById('c'), g = c.getContext('2d');
g.fillStyle = '#fff'; g.fillRect(0, 0, 300, 200);
g.fillStyle = 'rgb(220,20,20)'; g.fillRect(200, 50, 50, 50);
g.fillStyle = 'rgb(20,20,220)'; g.fillRect(20, 120, 50, 50);
c.addEventListener('click', e => {
  const [r, , b] = g.getImageData(e.offsetX, e.offsetY, 1, 1).data;
  const what = r > 200 && b < 60 ? 'red' : b > 200 && r < 60 ? 'blue' : 'nothing';
  document.getElementById('out').textContent = `hit ${what} at ${e.offsetX},${e.offsetY}`;
});
let down = null;
c.addEventListener('mousedown', e => { down = `${e.offsetX},${e.offsetY}`; });
document.addEventListener('mouseup', e => {
  if (down === null) return;
  const r = c.getBoundingClientRect();
  document.getElementById('stroke').textContent = `stroke ${down} to ${Math.round(e.clientX - r.left)},${Math.round(e.clientY - r.top)}`;
  down = null;
});
c.addEventListener('mousemove', e => {
  const [r, , b] = g.getImageData(e.offsetX, e.offsetY, 1, 1).data;
  const what = r > 200 && b < 60 ? 'red' : b > 200 && r < 60 ? 'blue' : 'nothing';
  document.getElementById('over').textContent = `over ${what} at ${e.offsetX},${e.offsetY}`;
});
</script></body></html>"#;

#[tokio::test]
async fn a_point_of_a_canvas_is_seen_and_clicked() {
    let browser = local_browser(env!("CARGO_BIN_EXE_aperture")).await;
    let server = Server::page(PAGE);
    let c = browser.connect().await;
    let page = goto(&c, &server.url("/")).await;
    let board = ref_for(&page, "Board");

    // The element alone, 1:1.
    let shot = call(&c, "browser_capture", json!({"ref": board})).await;
    let said = text(&shot);
    assert_ne!(shot.is_error, Some(true), "{said}");
    assert!(
        said.contains(&format!("screenshot of {board} in tab"))
            && said.contains("(300x200 CSS px), 300x200 px")
            && said.contains("1 image px is 1 CSS px"),
        "{said}"
    );
    let png = shot
        .content
        .iter()
        .find_map(|b| b.as_image().map(|i| i.data.clone()))
        .expect("an image");
    let img = image::load_from_memory(&base64::engine::general_purpose::STANDARD.decode(png).unwrap())
        .unwrap()
        .to_rgb8();
    assert_eq!(img.dimensions(), (300, 200));
    let red = img.get_pixel(225, 75).0;
    assert!(
        red[0] > 200 && red[2] < 60,
        "the red square where the canvas has it: {red:?}"
    );
    let blue = img.get_pixel(45, 145).0;
    assert!(blue[2] > 200 && blue[0] < 60, "{blue:?}");

    // A point read off the image, clicked.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": board, "x": 225, "y": 75}),
    )
    .await;
    assert!(
        !err && ans.contains(&format!("clicked {board} at x 225, y 75")),
        "{ans}"
    );
    assert!(ans.contains("hit red at 225,75"), "{ans}");
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": board, "x": 45, "y": 145}),
    )
    .await;
    assert!(!err && ans.contains("hit blue at 45,145"), "{ans}");

    // Outside the element, half a point, or under the strip: refused, nothing sent.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": board, "x": 310, "y": 20}),
    )
    .await;
    assert!(
        err && ans.contains("is outside") && ans.contains("300x200") && ans.contains("nothing was sent"),
        "{ans}"
    );
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": board, "x": 10}),
    )
    .await;
    assert!(err && ans.contains("`x` and `y` go together"), "{ans}");
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": board, "x": 10, "y": 10}),
    )
    .await;
    assert!(err && ans.contains("covered"), "{ans}");
    let (_, read) = tool(&c, "browser_read", json!({})).await;
    assert!(read.contains("hit blue at 45,145"), "no click since: {read}");
}

/// The pointer rests on a point of an element without a click (a chart's tooltip, a hot/cold
/// game, a map): the page sees it move there, and nothing is clicked. The view's screenshot
/// says how it was scaled down to the image.
#[tokio::test]
async fn a_hover_rests_on_a_point_of_an_element() {
    let browser = local_browser(env!("CARGO_BIN_EXE_aperture")).await;
    let server = Server::page(PAGE);
    let c = browser.connect().await;
    let page = goto(&c, &server.url("/")).await;
    let board = ref_for(&page, "Board");
    for (x, y, what) in [(225, 75, "red"), (45, 145, "blue")] {
        let (err, ans) = tool(
            &c,
            "browser_act",
            json!({"action": "hover", "ref": board, "x": x, "y": y}),
        )
        .await;
        assert!(
            !err && ans.contains(&format!("hovering {board} at x {x}, y {y}")),
            "{ans}"
        );
        assert!(ans.contains(&format!("over {what} at {x},{y}")), "{ans}");
    }
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "hover", "ref": board, "x": 310, "y": 20}),
    )
    .await;
    assert!(err && ans.contains("is outside"), "{ans}");
    let (_, read) = tool(&c, "browser_read", json!({})).await;
    assert!(read.contains("nothing yet"), "nothing was clicked: {read}");

    // A drag pressed at a point of it (a line drawn from a dot), released that far away.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "drag", "ref": board, "x": 100, "y": 150, "dx": 120, "dy": -60}),
    )
    .await;
    assert!(
        !err && ans.contains(&format!("dragged {board} from x 100, y 150 by (120, -60)")),
        "{ans}"
    );
    assert!(ans.contains("stroke 100,150 to 220,90"), "{ans}");

    // The 1280x800 view in an image capped at 1024 px: the caption gives the scale.
    let said = text(&call(&c, "browser_capture", json!({})).await);
    assert!(
        said.contains("1024x640 px: its 1280x800 CSS px view scaled by 0.80"),
        "{said}"
    );
}

/// A canvas wider than the view: the capture shows its visible part, scaled down, and the
/// answer's mapping from image pixels to the element's CSS pixels is the one a click lands by;
/// a point past the view's edge is scrolled into view and clicked there.
#[tokio::test]
async fn a_scaled_capture_says_how_its_pixels_map_to_the_element() {
    let browser = local_browser(env!("CARGO_BIN_EXE_aperture")).await;
    let server = Server::page(
        r#"<!doctype html><html><head><title>Wide</title></head><body style="margin:0">
<canvas id="c" aria-label="Strip" width="3000" height="400" style="display:block"></canvas>
<p id="out">nothing yet</p>
<script>
document.getElementById('c').addEventListener('click', e => {
  document.getElementById('out').textContent = `hit at ${e.offsetX},${e.offsetY}`;
});
</script></body></html>"#,
    );
    let c = browser.connect().await;
    let page = goto(&c, &server.url("/")).await;
    let strip = ref_for(&page, "Strip");
    let shot = call(&c, "browser_capture", json!({"ref": strip})).await;
    let said = text(&shot);
    assert!(
        said.contains("the visible part of") && said.contains("of its 3000x400 CSS px"),
        "{said}"
    );
    // "x = A + image x * K, y = B + image y * K"
    let num = |after: &str| -> f32 {
        let rest = &said[said.find(after).unwrap_or_else(|| panic!("{after} in {said}")) + after.len()..];
        rest.split(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (a, k, b) = (num("x = "), num("image x * "), num("y = "));
    assert!(k > 1.0, "scaled down to the 1024 px cap: {said}");
    let (ix, iy) = (700.0, 100.0);
    let (x, y) = ((a + ix * k).round(), (b + iy * k).round());
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": strip, "x": x, "y": y}),
    )
    .await;
    assert!(!err && ans.contains(&format!("hit at {x},{y}")), "{said}\n{ans}");
    // Past the view's right edge: the page scrolls that part of the strip into view, and the
    // click lands on that very point.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": strip, "x": 2900, "y": 10}),
    )
    .await;
    assert!(!err && ans.contains("hit at 2900,10"), "{ans}");
    // Outside the element: refused, nothing sent.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "click", "ref": strip, "x": 3100, "y": 10}),
    )
    .await;
    assert!(err && ans.contains("outside"), "{ans}");
    let (_, read) = tool(&c, "browser_read", json!({})).await;
    assert!(read.contains("hit at 2900,10"), "no click since: {read}");
}
