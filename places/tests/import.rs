mod common;

use aperture_places::{BookmarkId, BookmarkNode, Error, ImportReport, SkipReason};
use common::{open, profile};

const CHROME: &str = include_str!("data/chrome.html");
const FIREFOX: &str = include_str!("data/firefox.html");

fn show(nodes: &[BookmarkNode]) -> String {
    nodes
        .iter()
        .map(|n| match n.url() {
            Some(_) => n.title.clone(),
            None => format!("{}[{}]", n.title, show(n.children())),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn find<'a>(nodes: &'a [BookmarkNode], title: &str) -> Option<&'a BookmarkNode> {
    nodes.iter().find_map(|n| {
        if n.title == title {
            Some(n)
        } else {
            find(n.children(), title)
        }
    })
}

fn reasons(r: &ImportReport) -> Vec<SkipReason> {
    r.skipped.iter().map(|s| s.reason).collect()
}

#[test]
fn a_chrome_export_lands_in_the_bar_and_other_bookmarks() {
    let dir = profile();
    let p = open(&dir);
    let report = p.import_html(CHROME.to_owned()).wait().unwrap();
    let tree = p.tree().unwrap();
    assert_eq!(
        show(&tree),
        "Bookmarks bar[Mail | Hacker News | Dev[std - Rust | Search \"sqlite\" & code <GitHub> | Crates[rusqlite]] \
         | Empty folder[]] | Other bookmarks[Wikipedia | Recipes[Bread & butter — café]]"
    );
    assert_eq!(report.added, 7);
    assert_eq!(report.folders, 4, "Dev, Crates, Empty folder, Recipes");
    assert_eq!(reasons(&report), [SkipReason::Bookmarklet]);
    assert_eq!(report.skipped[0].title, "Show title");
    assert!(report.skipped[0].url.starts_with("javascript:"));

    // Attribute values are decoded too, and Chrome leaves a bare & in them.
    assert_eq!(
        find(&tree, "Bread & butter — café").unwrap().url(),
        Some("https://cooking.example/bread?x=1&y=2")
    );
    assert_eq!(
        find(&tree, "Search \"sqlite\" & code <GitHub>").unwrap().url(),
        Some("https://github.com/search?q=sqlite&type=code")
    );
    // ADD_DATE is seconds; stored as ms.
    assert_eq!(find(&tree, "Mail").unwrap().added_ms, 1_700_000_100_000);
    assert_eq!(find(&tree, "Dev").unwrap().added_ms, 1_700_000_300_000);
    // Imported bookmarks are suggested.
    let s = p.suggest("rusq", None, 5).unwrap();
    assert_eq!(s[0].url, "https://docs.rs/rusqlite");
}

#[test]
fn a_firefox_export_maps_toolbar_menu_and_unfiled_and_reports_what_it_skipped() {
    let dir = profile();
    let p = open(&dir);
    let report = p.import_html(FIREFOX.to_owned()).wait().unwrap();
    let tree = p.tree().unwrap();
    assert_eq!(
        show(&tree),
        "Bookmarks bar[OpenStreetMap | Work[Calendar | Team's page]] \
         | Other bookmarks[Mozilla Firefox[Get Help | About Us] | A blog | Planet (live bookmark) | Soup]"
    );
    assert_eq!(report.added, 8);
    assert_eq!(
        report.folders, 2,
        "Mozilla Firefox and Work; the toolbar and unfiled folders merge into the roots"
    );
    let mut r = reasons(&report);
    r.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(
        r,
        [
            SkipReason::Bookmarklet,
            SkipReason::DataUrl,
            SkipReason::NoAddress,
            SkipReason::PlaceQuery,
            SkipReason::Separator,
            SkipReason::Separator,
        ]
    );
    let feed = report
        .skipped
        .iter()
        .find(|s| s.reason == SkipReason::NoAddress)
        .unwrap();
    assert_eq!(
        (feed.title.as_str(), feed.url.as_str()),
        ("Feed without a site", "https://feeds.example.net/atom.xml")
    );
    // A live bookmark with a site keeps the site.
    assert_eq!(
        find(&tree, "Planet (live bookmark)").unwrap().url(),
        Some("https://planet.example.org/")
    );
    assert_eq!(
        find(&tree, "Team's page").unwrap().url(),
        Some("https://wiki.example.com/Team's_page")
    );
    // A microsecond ADD_DATE is understood.
    assert_eq!(find(&tree, "Soup").unwrap().added_ms, 1_690_001_600_000);
    // The description (<DD>) is not part of any title.
    assert_eq!(
        find(&tree, "A blog").unwrap().url(),
        Some("https://blog.example.org/")
    );
}

#[test]
fn importing_the_same_file_twice_adds_nothing_the_second_time() {
    let dir = profile();
    let p = open(&dir);
    p.import_html(CHROME.to_owned()).wait().unwrap();
    let before = show(&p.tree().unwrap());
    let again = p.import_html(CHROME.to_owned()).wait().unwrap();
    assert_eq!(again.added, 0);
    assert_eq!(again.folders, 0);
    assert_eq!(
        again
            .skipped
            .iter()
            .filter(|s| s.reason == SkipReason::Duplicate)
            .count(),
        7
    );
    assert_eq!(show(&p.tree().unwrap()), before);
}

#[test]
fn sloppy_markup_is_tolerated() {
    let dir = profile();
    let p = open(&dir);
    // Lower case, unquoted and single-quoted attributes, missing </A>, </H3> and </DL>,
    // a stray `<` in a title, an unknown entity, a comment inside the list.
    let html = "<dl><p>\n\
        <dt><a href=https://one.example/ add_date=1600000000>One & only\n\
        <dt><a href='https://two.example/?a=1&b=2'>Two < three &bogus;</a>\n\
        <!-- <DT><A HREF=\"https://commented.example/\">no</A> -->\n\
        <dt><h3>Folder\n\
        <dl><p>\n\
            <dt><A HREF=\"https://three.example/\">Three</A>\n\
            <dt><h3>Nothing inside</h3>\n\
        <dt><a>No address</a>\n";
    let report = p.import_html(html.to_owned()).wait().unwrap();
    assert_eq!(
        show(&p.tree().unwrap()),
        "Bookmarks bar[] | Other bookmarks[One & only | Two < three &bogus; | Folder[Three | Nothing inside[]]]"
    );
    assert_eq!(report.added, 3);
    assert_eq!(report.folders, 2);
    assert_eq!(reasons(&report), [SkipReason::NoAddress]);
    let tree = p.tree().unwrap();
    assert_eq!(
        find(&tree, "Two < three &bogus;").unwrap().url(),
        Some("https://two.example/?a=1&b=2")
    );
    assert_eq!(find(&tree, "One & only").unwrap().added_ms, 1_600_000_000_000);
}

#[test]
fn a_file_without_a_bookmark_list_is_refused() {
    let dir = profile();
    let p = open(&dir);
    for html in [
        "",
        "just some text",
        "<html><body><a href=\"https://x.example/\">x</a></body></html>",
    ] {
        assert!(
            matches!(p.import_html(html.to_owned()).wait(), Err(Error::NotBookmarkFile)),
            "{html:?}"
        );
    }
    assert_eq!(show(&p.tree().unwrap()), "Bookmarks bar[] | Other bookmarks[]");
}

#[test]
fn a_failure_halfway_through_adds_nothing() {
    let dir = profile();
    let p = open(&dir);
    p.add_bookmark("https://existing.example/", "Existing", BookmarkId::BAR)
        .wait()
        .unwrap();
    // Make the database refuse one particular insert, as a full disk or a constraint would.
    {
        let raw = rusqlite::Connection::open(p.path()).unwrap();
        raw.execute_batch(
            "CREATE TRIGGER refuse BEFORE INSERT ON bookmarks WHEN NEW.title = 'rusqlite'
             BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;",
        )
        .unwrap();
    }
    let before = show(&p.tree().unwrap());
    let err = p.import_html(CHROME.to_owned()).wait().unwrap_err();
    assert!(err.to_string().contains("refused for the test"), "{err}");
    assert_eq!(
        show(&p.tree().unwrap()),
        before,
        "not one of the bookmarks before it stayed"
    );
    // Writes queued around it are unaffected.
    p.add_bookmark("https://after.example/", "After", BookmarkId::OTHER)
        .wait()
        .unwrap();
    assert_eq!(
        show(&p.tree().unwrap()),
        "Bookmarks bar[Existing] | Other bookmarks[After]"
    );
}

#[test]
fn absurdly_deep_nesting_is_flattened_not_a_stack_overflow() {
    let dir = profile();
    let p = open(&dir);
    let depth = 5000;
    let mut html = String::from("<DL><p>\n");
    for i in 0..depth {
        html.push_str(&format!("<DT><H3>F{i}</H3>\n<DL><p>\n"));
    }
    html.push_str("<DT><A HREF=\"https://bottom.example/\">Bottom</A>\n");
    for _ in 0..depth {
        html.push_str("</DL><p>\n");
    }
    html.push_str("</DL>\n");
    let report = p.import_html(html).wait().unwrap();
    assert_eq!(report.added, 1);
    let tree = p.tree().unwrap();
    assert_eq!(
        find(&tree, "Bottom").unwrap().url(),
        Some("https://bottom.example/")
    );
    fn depth_of(n: &BookmarkNode) -> usize {
        1 + n.children().iter().map(depth_of).max().unwrap_or(0)
    }
    assert!(depth_of(&tree[1]) <= 70, "{}", depth_of(&tree[1]));
}
