//! Spellcheck languages in the real windowed browser under X, with real clicks: with only
//! American English, German words in a field are marked; ticking German in the settings view
//! makes its dictionary from the machine's hunspell files (here the ones `DICPATH` names) and
//! the German words lose their marks at once, while a word neither language knows keeps its
//! mark.

#[path = "support/window.rs"]
mod window;

use aperture_ui::chrome::{controls, spell_language_control};
use aperture_ui::egui::{Key, Rect, pos2, vec2};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;
use window::{Layout, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

/// An editable line whose title gives each word's box (`W:x,y,w,h;…|`, CSS px).
const PAGE: &str = r#"<!doctype html><html><head><title>-</title></head>
<body style="margin:0;background:#fff">
<div id=e contenteditable spellcheck=true style="position:absolute;left:40px;top:40px;width:700px;height:60px;font:28px sans-serif;color:#000;outline:none;border:1px solid #ccc">Ths Straße und Haus</div>
<div style="position:absolute;left:40px;top:300px;width:300px;height:150px;background:rgb(230,20,140)"></div>
<script>
const t = document.getElementById('e').firstChild;
const words = [];
const re = /\S+/g;
let m;
while ((m = re.exec(t.data))) {
  const r = document.createRange();
  r.setStart(t, m.index);
  r.setEnd(t, m.index + m[0].length);
  const b = r.getBoundingClientRect();
  words.push([b.x, b.y, b.width, b.height].map(Math.round).join(','));
}
document.title = 'W:' + words.join(';') + '|';
</script></body></html>"#;

fn word_boxes(list: &str) -> Option<Vec<Rect>> {
    let t = &list[list.find("W:")? + 2..];
    let (words, _) = t.split_once('|')?;
    Some(
        words
            .split(';')
            .map(|w| {
                let v: Vec<f32> = w.split(',').map(|n| n.parse().unwrap()).collect();
                Rect::from_min_size(pos2(v[0], v[1]), vec2(v[2], v[3]))
            })
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ticking_a_language_in_settings_checks_its_words() {
    if !window::can_run("spell_languages") {
        return;
    }
    let system = Path::new("/usr/share/hunspell");
    let files = ["en_US.aff", "en_US.dic", "de_DE.aff", "de_DE.dic"];
    if files.iter().any(|f| !system.join(f).is_file()) {
        eprintln!("spell_languages: SKIPPED: needs hunspell-en-us and hunspell-de-de in /usr/share/hunspell");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Just these two, so the settings view lists exactly them.
    let dics = dir.path().join("dics");
    std::fs::create_dir(&dics).unwrap();
    for f in files {
        std::fs::copy(system.join(f), dics.join(f)).unwrap();
    }
    let server = aperture_testkit::Server::start(HashMap::from([("/".to_string(), PAGE.to_string())]), None);
    let url = server.url("/");
    let dicpath = dics.display().to_string();
    // No user language: American English alone, as on a machine set to C.
    let env = [
        ("DICPATH", dicpath.as_str()),
        ("LC_ALL", "C.UTF-8"),
        ("LANGUAGE", ""),
    ];
    let (_browser, c, w, size) = window::start_showing_env(&url, dir.path(), MAGENTA, &[], &env).await;
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area")
        .min;
    let list = tabs_until(&c, "the field's words", |t| word_boxes(t).is_some()).await;
    let words = word_boxes(&list).unwrap();
    let focus = || {
        // Out of the field and back in: Chromium checks a field as it gains focus.
        window::click(&w, pos2(page.x + 600.0, page.y + 250.0), 1);
        std::thread::sleep(Duration::from_millis(300));
        window::click(&w, pos2(page.x + 600.0, page.y + words[0].center().y), 1);
    };
    window::xdo(&["windowfocus", "--sync", &w]);
    focus();
    window::wait_spell_marks(&w, page, &words, &[true, true, true, true], "english only").await;

    // Settings (Ctrl+,): tick German.
    let mut model = Layout::one_tab(&url);
    model.settings.spelling_available = vec!["de-DE".into(), "en-US".into()];
    model.settings.spelling_languages = vec!["en-US".into()];
    let mut layout = Layout::new(size, model);
    let before = window::capture(&w);
    window::xdo(&["key", "--window", &w, "ctrl+comma"]);
    layout.ctrl(Key::Comma);
    let rect = layout
        .chrome
        .control_rect(&spell_language_control("de-DE"))
        .expect("German in the settings view");
    window::wait_drawn(&w, rect, &before, "the settings view");
    assert!(layout.chrome.control_rect(controls::SETTINGS).is_some());
    let german = layout.click(&spell_language_control("de-DE"));
    window::click(&w, german, 1);
    std::thread::sleep(Duration::from_millis(500));
    window::keep(&window::capture(&w), "settings-german");
    window::xdo(&["key", "--window", &w, "ctrl+comma"]);
    std::thread::sleep(Duration::from_millis(500));
    // The dictionary is made and loaded in the background; the field is checked again as it
    // next gains focus once it is in.
    let win = w.clone();
    tokio::task::spawn_blocking(move || {
        aperture_testkit::eventually_blocking(Duration::from_secs(30), "the German words unmarked", || {
            window::click(&win, pos2(page.x + 600.0, page.y + 250.0), 1);
            std::thread::sleep(Duration::from_millis(300));
            window::click(&win, pos2(page.x + 600.0, page.y + words[0].center().y), 1);
            std::thread::sleep(Duration::from_millis(700));
            let img = window::capture(&win);
            window::keep(&img, "german-too");
            let marks = window::spell_marks(&img, page, &words);
            (marks == [true, false, false, false], marks)
        })
    })
    .await
    .unwrap();
}
