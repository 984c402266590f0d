//! Spellcheck in the real windowed browser under X, with real clicks: words missing from the
//! system's hunspell dictionary (converted at start into the `.bdic` Chromium reads) are
//! underlined in red in a focused field; a right-click on one offers Chromium's replacements
//! and "Add to dictionary"; a replacement edits the field, and an added word stays unmarked
//! after a restart; the settings view's switch takes the marks away and brings them back.
//! Where the menu's items are drawn is asked of the same chrome run headless with the menu CEF
//! reports.

#[path = "support/window.rs"]
mod window;

use aperture_ui::chrome::controls;
use aperture_ui::egui::{Pos2, Rect, pos2};
use aperture_ui::{ContextMenuView, TabId};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;
use window::{Layout, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

/// An editable line whose title says its text and where each word is (`T:text|W:x,y,w,h;…`,
/// CSS px), again after every edit.
const PAGE: &str = r#"<!doctype html><html><head><title>-</title></head>
<body style="margin:0;background:#fff">
<div id=e contenteditable spellcheck=true style="position:absolute;left:40px;top:40px;width:700px;height:60px;font:28px sans-serif;color:#000;outline:none;border:1px solid #ccc">Ths mispeled wurd</div>
<div style="position:absolute;left:40px;top:300px;width:300px;height:150px;background:rgb(230,20,140)"></div>
<script>
const e = document.getElementById('e');
function report() {
  const t = e.firstChild;
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
  document.title = 'T:' + t.data + '|W:' + words.join(';') + '|';
}
e.addEventListener('input', report);
report();
</script></body></html>"#;

/// The field's text and word boxes from the title of the tab in front (after a restart, the
/// restored tab keeps its old title until it loads).
fn field(list: &str) -> Option<(String, Vec<Rect>)> {
    let front = list.split("\ntab ").find(|t| t.contains("foreground"))?;
    let t = &front[front.find("T:")? + 2..];
    let (text, rest) = t.split_once("|W:")?;
    let (words, _) = rest.split_once('|')?;
    let rects = words
        .split(';')
        .map(|w| {
            let v: Vec<f32> = w.split(',').map(|n| n.parse().unwrap()).collect();
            Rect::from_min_size(pos2(v[0], v[1]), aperture_ui::egui::vec2(v[2], v[3]))
        })
        .collect();
    Some((text.to_string(), rects))
}

fn menu(at: Pos2, word: &str, suggestions: usize) -> ContextMenuView {
    ContextMenuView {
        tab: TabId(1),
        x: at.x,
        y: at.y,
        link_url: None,
        image_url: None,
        selection: Some(word.into()),
        editable: true,
        misspelled: Some(word.into()),
        suggestions: (0..suggestions).map(|i| format!("s{i}")).collect(),
        can_back: false,
        can_forward: false,
    }
}

/// Right-clicks a word in the window and picks `control` from the menu, found where the
/// chrome draws it for a menu of `suggestions` suggestions at that point.
struct MenuPick<'a> {
    w: &'a str,
    size: (f32, f32),
    url: &'a str,
    page: Pos2,
}

impl MenuPick<'_> {
    fn choose(&self, word_box: Rect, word: &str, suggestions: usize, control: &str) {
        let at = word_box.center();
        let before = window::capture(self.w);
        window::click(self.w, self.page + at.to_vec2(), 3);
        let mut model = Layout::one_tab(self.url);
        model.context_menu = Some(menu(at, word, suggestions));
        let mut layout = Layout::new(self.size, model);
        layout.frames(vec![], 1);
        let rect = layout
            .chrome
            .control_rect(control)
            .unwrap_or_else(|| panic!("{control} in the menu"));
        window::wait_drawn(self.w, rect, &before, &format!("the menu for {word}"));
        let item = rect.center();
        window::hover(self.w, item);
        std::thread::sleep(Duration::from_millis(300));
        window::click(self.w, item, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn misspelled_words_are_marked_replaced_and_added_to_the_dictionary() {
    if !window::can_run("spellcheck") {
        return;
    }
    if !Path::new("/usr/share/hunspell/en_US.dic").is_file() {
        eprintln!("spellcheck: SKIPPED: no /usr/share/hunspell/en_US.dic (apt-get install hunspell-en-us)");
        return;
    }
    let server = aperture_testkit::Server::start(HashMap::from([("/".to_string(), PAGE.to_string())]), None);
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (mut browser, c, w, size) = window::start_showing(&url, dir.path(), MAGENTA).await;
    let layout = Layout::new(size, Layout::one_tab(&url));
    let page = layout.chrome.page_rect().expect("a page area").min;
    let list = tabs_until(&c, "the field's words", |t| field(t).is_some()).await;
    let (text, words) = field(&list).unwrap();
    assert_eq!(text, "Ths mispeled wurd");

    // A click at the end of the line focuses it, and spellcheck marks all three words.
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, pos2(page.x + 600.0, page.y + words[0].center().y), 1);
    window::wait_spell_marks(&w, page, &words, &[true, true, true], "all marked").await;

    // Right-click "mispeled": the first suggestion replaces it.
    let picked = MenuPick {
        w: &w,
        size,
        url: &url,
        page,
    };
    picked.choose(words[1], "mispeled", 4, controls::CTX_SPELL_FIRST);
    let list = tabs_until(&c, "the word replaced", |t| {
        field(t).is_some_and(|(text, _)| text != "Ths mispeled wurd")
    })
    .await;
    let (text, words) = field(&list).unwrap();
    assert_eq!(text, "Ths misspelled wurd", "Chromium's first suggestion");
    window::wait_spell_marks(&w, page, &words, &[true, false, true], "replaced").await;

    // Right-click "wurd" and add it to the dictionary: its mark goes, the other stays.
    picked.choose(words[2], "wurd", 5, controls::CTX_ADD_WORD);
    // A click elsewhere in the line, so no selection covers the words.
    window::click(&w, pos2(page.x + 600.0, page.y + words[0].center().y), 1);
    window::wait_spell_marks(&w, page, &words, &[true, false, false], "added").await;
    browser.terminate(Duration::from_secs(20));
    drop(browser);

    // After a restart the added word is still known; the misspelling still marked.
    let (_browser, c, w, _) = window::start_showing(&url, dir.path(), MAGENTA).await;
    let list = tabs_until(&c, "the field's words", |t| field(t).is_some()).await;
    let (text, words) = field(&list).unwrap();
    assert_eq!(text, "Ths mispeled wurd", "{list}");
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, pos2(page.x + 600.0, page.y + words[0].center().y), 1);
    window::wait_spell_marks(&w, page, &words, &[true, true, false], "after restart").await;

    // The settings view's "Check spelling as you type" takes the marks off the open field at
    // once, and puts them back.
    for (on, want) in [
        (false, vec![false, false, false]),
        (true, vec![true, true, false]),
    ] {
        let mut layout = Layout::new(size, Layout::one_tab(&url));
        let before = window::capture(&w);
        window::xdo(&["key", "--window", &w, "ctrl+comma"]);
        layout.ctrl(aperture_ui::egui::Key::Comma);
        let rect = layout
            .chrome
            .control_rect(controls::SETTINGS_SPELLCHECK)
            .expect("the spelling switch");
        window::wait_drawn(&w, rect, &before, "the settings view");
        let switch = layout.click(controls::SETTINGS_SPELLCHECK);
        window::click(&w, switch, 1);
        std::thread::sleep(Duration::from_millis(300));
        window::xdo(&["key", "--window", &w, "ctrl+comma"]);
        std::thread::sleep(Duration::from_millis(500));
        // Out of the field and back: Chromium checks a field again as it gains focus.
        window::click(&w, pos2(page.x + 600.0, page.y + 250.0), 1);
        std::thread::sleep(Duration::from_millis(300));
        window::click(&w, pos2(page.x + 600.0, page.y + words[0].center().y), 1);
        let what = if on { "switched on" } else { "switched off" };
        window::wait_spell_marks(&w, page, &words, &want, what).await;
    }
}
