//! The layer-3 stylesheet checked in a real Chromium, not against its own
//! text: a page with images in the nesting cases is rendered headless with
//! and without the filter, and pixels are sampled.
//!
//! Needs `chromium` (or `$APERTURE_CHROMIUM`) and ImageMagick's `convert`
//! to decode the PNG; without them the test says so and passes.

#![forbid(unsafe_code)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use aperture_ui::dark::{FilterCss, MARK_BACKGROUND_IMAGES_JS, filter_css};
use common::{Shot, lum};

/// Light blue (#add8e6): light enough that a net inversion shows as dark.
const IMG: [u8; 3] = [0xAD, 0xD8, 0xE6];
const SVG: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='10' height='10'%3E%3Crect width='10' height='10' fill='%23add8e6'/%3E%3C/svg%3E";

/// Absolutely placed boxes so sampling points are known. Each case is
/// 100×100 at a fixed spot; the nested `img`s fill their container.
fn page(css: &str) -> String {
    format!(
        r#"<!doctype html><html><head><style>
body {{ margin: 0; background: #fff; color: #000; font: 16px sans-serif; }}
.box {{ position: absolute; top: 20px; width: 100px; height: 100px; }}
.box img, .box canvas {{ display: block; width: 100px; height: 100px; }}
.sheet-bg {{ background-image: url("{SVG}"); }}
</style><style>{css}</style></head><body>
<p style="position:absolute; top:200px; left:20px">Some ordinary page text on white.</p>
<img class="box" style="left:20px" src="{SVG}">
<picture class="box" style="left:140px"><img src="{SVG}"></picture>
<div class="box" style="left:260px; background-image:url(&quot;{SVG}&quot;)"><img src="{SVG}" style="width:50px;height:50px"></div>
<canvas class="box" style="left:380px" width="100" height="100"></canvas>
<div class="box sheet-bg" style="left:500px"><img src="{SVG}" style="width:50px;height:50px"></div>
<script>
const c = document.querySelector('canvas').getContext('2d');
c.fillStyle = '#add8e6'; c.fillRect(0, 0, 100, 100);
{MARK_BACKGROUND_IMAGES_JS}
</script></body></html>"#
    )
}

fn render(chromium: &Path, dir: &Path, name: &str, html: &str) -> Shot {
    let html_path = dir.join(format!("{name}.html"));
    let png = dir.join(format!("{name}.png"));
    std::fs::write(&html_path, html).unwrap();
    // Debian's Chromium sometimes never exits after `--screenshot` on a loaded machine: each
    // try gets its own profile and a minute, and a hung one is killed and tried again.
    let mut stderr = String::new();
    for attempt in 0..3 {
        let _ = std::fs::remove_file(&png);
        let profile = dir.join(format!("{name}-profile-{attempt}"));
        let err_path = dir.join(format!("{name}-{attempt}.err"));
        let mut child = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=800,400",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("--run-all-compositor-stages-before-draw")
            .arg("--virtual-time-budget=2000")
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", html_path.display()))
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&err_path).unwrap())
            .spawn()
            .expect("run chromium");
        let t = std::time::Instant::now();
        let exited = loop {
            if child.try_wait().expect("wait for chromium").is_some() {
                break true;
            }
            if t.elapsed() > std::time::Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        if exited && png.exists() {
            break;
        }
    }
    assert!(png.exists(), "chromium made no screenshot: {stderr}");
    common::decode_png(&png)
}

fn close(a: [u8; 3], b: [u8; 3]) -> bool {
    (0..3).all(|i| a[i].abs_diff(b[i]) <= 24)
}

/// Centres of the five image cases (inner image for the nested ones).
const CASES: [(&str, usize, usize); 5] = [
    ("plain img", 70, 70),
    ("img in picture", 190, 70),
    ("img in inline background-image div", 285, 45),
    ("canvas", 430, 70),
    ("img in stylesheet background div (marked by JS)", 525, 45),
];

#[test]
fn filter_darkens_page_keeps_images_and_guards_nesting() {
    let Some(chromium) = common::tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Keep the screenshots for a human to look at when asked to.
    let dir =
        std::env::var_os("APERTURE_FILTER_SHOTS").map_or_else(|| dir.path().to_path_buf(), PathBuf::from);
    let dir = dir.as_path();
    let css = filter_css(&FilterCss {
        invert: true,
        brightness: 1.0,
        contrast: 1.0,
    });

    let plain = render(&chromium, dir, "plain", &page(""));
    assert!(lum(plain.at(700, 300)) > 0.95, "control page should be white");
    for (name, x, y) in CASES {
        assert!(
            close(plain.at(x, y), IMG),
            "control: {name} is {:?}",
            plain.at(x, y)
        );
    }

    let dark = render(&chromium, dir, "dark", &page(&css));
    assert!(
        lum(dark.at(700, 300)) < 0.1,
        "page background not darkened: {:?}",
        dark.at(700, 300)
    );
    for (name, x, y) in CASES {
        assert!(
            close(dark.at(x, y), IMG),
            "{name} should look unchanged, is {:?}",
            dark.at(x, y)
        );
    }
    // The background-image containers themselves (outside the inner img).
    assert!(
        close(dark.at(345, 105), IMG),
        "inline background image inverted: {:?}",
        dark.at(345, 105)
    );
    assert!(
        close(dark.at(585, 105), IMG),
        "stylesheet background image inverted: {:?}",
        dark.at(585, 105)
    );

    // Sabotage: without the nesting guard the nested images come out as
    // negatives. This is what shows the guard, not its text, does the work.
    let unguarded: String = css
        .lines()
        .filter(|l| !l.contains("filter: none"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(unguarded, css);
    let broken = render(&chromium, dir, "broken", &page(&unguarded));
    assert!(close(broken.at(70, 70), IMG), "plain img needs no guard");
    for (name, x, y) in &CASES[1..] {
        if name.starts_with("canvas") {
            continue;
        }
        assert!(
            lum(broken.at(*x, *y)) < 0.35,
            "{name} should be net-inverted without the guard: {:?}",
            broken.at(*x, *y)
        );
    }
}

#[test]
fn brightness_only_dims_without_inverting() {
    let Some(chromium) = common::tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let css = filter_css(&FilterCss {
        invert: false,
        brightness: 0.5,
        contrast: 1.0,
    });
    let shot = render(&chromium, dir.path(), "dim", &page(&css));
    let bg = lum(shot.at(700, 300));
    assert!(
        (0.4..0.6).contains(&bg),
        "white at brightness 0.5 should be mid grey, is {bg}"
    );
    let img = shot.at(70, 70);
    assert!(img[2] > img[0], "image keeps its hue when only dimmed: {img:?}");
}
