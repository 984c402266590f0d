mod common;

use aperture_places::{BookmarkId, BookmarkNode, Error, Places};
use common::{open, profile};

/// The tree as `title[children]` text, for compact assertions.
fn show(nodes: &[BookmarkNode]) -> String {
    nodes
        .iter()
        .map(|n| match n.url() {
            Some(_) => n.title.clone(),
            None => format!("{}[{}]", n.title, show(n.children())),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn tree(p: &Places) -> String {
    show(&p.tree().unwrap())
}

#[test]
fn a_new_database_has_the_bar_and_other_bookmarks() {
    let dir = profile();
    let p = open(&dir);
    let t = p.tree().unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!((t[0].id, t[0].title.as_str()), (BookmarkId::BAR, "Bookmarks bar"));
    assert_eq!(
        (t[1].id, t[1].title.as_str()),
        (BookmarkId::OTHER, "Other bookmarks")
    );
    assert!(t.iter().all(|r| r.url().is_none() && r.children().is_empty()));
}

#[test]
fn bookmarks_and_folders_keep_their_order_and_move_within_and_across_folders() {
    let dir = profile();
    let p = open(&dir);
    let a = p
        .add_bookmark("https://a.example/", "A", BookmarkId::BAR)
        .wait()
        .unwrap();
    let news = p.create_folder(BookmarkId::BAR, "News").wait().unwrap();
    let b = p
        .add_bookmark("https://b.example/", "B", BookmarkId::BAR)
        .wait()
        .unwrap();
    let c = p.add_bookmark("https://c.example/", "C", news).wait().unwrap();
    let sub = p.create_folder(news, "Local").wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[A News[C Local[]] B] Other bookmarks[]");

    // Within the same folder: B to the front.
    p.move_to(b, BookmarkId::BAR, 0).wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[B A News[C Local[]]] Other bookmarks[]");
    // Across folders, to a position past the end (clamped).
    p.move_to(a, sub, 99).wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[B News[C Local[A]]] Other bookmarks[]");
    // Into the middle of a folder.
    p.move_to(b, news, 1).wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[News[C B Local[A]]] Other bookmarks[]");
    // A folder with its contents to another root.
    p.move_to(news, BookmarkId::OTHER, 0).wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[] Other bookmarks[News[C B Local[A]]]");
    // Moving to the end of the folder it is in.
    p.move_to(c, news, 10).wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[] Other bookmarks[News[B Local[A] C]]");

    // Positions stay dense from 0 in every folder.
    let raw = rusqlite::Connection::open(p.path()).unwrap();
    let bad: i64 = raw
        .query_row(
            "SELECT count(*) FROM (SELECT parent, count(*) n, max(position) m, min(position) l
             FROM bookmarks WHERE parent IS NOT NULL GROUP BY parent) WHERE m != n - 1 OR l != 0",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(bad, 0);
}

#[test]
fn folders_cannot_move_into_themselves_and_roots_do_not_change() {
    let dir = profile();
    let p = open(&dir);
    let outer = p.create_folder(BookmarkId::OTHER, "Outer").wait().unwrap();
    let inner = p.create_folder(outer, "Inner").wait().unwrap();
    let leaf = p.add_bookmark("https://x.example/", "X", inner).wait().unwrap();
    assert!(matches!(
        p.move_to(outer, inner, 0).wait(),
        Err(Error::FolderCycle)
    ));
    assert!(matches!(
        p.move_to(outer, outer, 0).wait(),
        Err(Error::FolderCycle)
    ));
    assert!(matches!(
        p.move_to(BookmarkId::BAR, outer, 0).wait(),
        Err(Error::RootFolder)
    ));
    assert!(matches!(
        p.remove_bookmark(BookmarkId::OTHER).wait(),
        Err(Error::RootFolder)
    ));
    assert!(matches!(
        p.rename(BookmarkId::BAR, "Mine").wait(),
        Err(Error::RootFolder)
    ));
    assert!(
        matches!(p.add_bookmark("https://y.example/", "Y", leaf).wait(), Err(Error::NotAFolder(id)) if id == leaf)
    );
    assert!(matches!(
        p.move_to(inner, leaf, 0).wait(),
        Err(Error::NotAFolder(_))
    ));
    assert!(matches!(
        p.create_folder(BookmarkId(999), "Nowhere").wait(),
        Err(Error::NoSuchBookmark(BookmarkId(999)))
    ));
    // Nothing of the refused operations happened.
    assert_eq!(tree(&p), "Bookmarks bar[] Other bookmarks[Outer[Inner[X]]]");
}

#[test]
fn rename_changes_the_title_suggestions_match() {
    let dir = profile();
    let p = open(&dir);
    let id = p
        .add_bookmark("https://tracker.example/issues", "Issue tracker", BookmarkId::BAR)
        .wait()
        .unwrap();
    assert_eq!(p.suggest("issue", None, 5).unwrap().len(), 1);
    p.rename(id, "Bug list").wait().unwrap();
    assert!(p.suggest("issue", None, 5).unwrap().is_empty());
    let s = p.suggest("bug", None, 5).unwrap();
    assert_eq!(
        (s[0].url.as_str(), s[0].title.as_str()),
        ("https://tracker.example/issues", "Bug list")
    );
    let folder = p.create_folder(BookmarkId::BAR, "Old name").wait().unwrap();
    p.rename(folder, "New name").wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[Bug list New name[]] Other bookmarks[]");
}

#[test]
fn removing_a_folder_removes_everything_in_it_and_closes_the_gap() {
    let dir = profile();
    let p = open(&dir);
    p.add_bookmark("https://first.example/", "First", BookmarkId::BAR)
        .wait()
        .unwrap();
    let f = p.create_folder(BookmarkId::BAR, "Folder").wait().unwrap();
    let g = p.create_folder(f, "Sub").wait().unwrap();
    p.add_bookmark("https://deep.example/", "Deep", g).wait().unwrap();
    p.add_bookmark("https://last.example/", "Last", BookmarkId::BAR)
        .wait()
        .unwrap();
    p.remove_bookmark(f).wait().unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[First Last] Other bookmarks[]");
    assert_eq!(p.is_bookmarked("https://deep.example/").unwrap(), None);
    assert!(p.suggest("deep", None, 5).unwrap().is_empty());
    assert!(matches!(
        p.remove_bookmark(g).wait(),
        Err(Error::NoSuchBookmark(_))
    ));
    // The next bookmark goes right after the last one.
    p.add_bookmark("https://next.example/", "Next", BookmarkId::BAR)
        .wait()
        .unwrap();
    assert_eq!(tree(&p), "Bookmarks bar[First Last Next] Other bookmarks[]");
}

#[test]
fn the_star_toggles_and_is_bookmarked_follows() {
    let dir = profile();
    let p = open(&dir);
    let url = "https://star.example/page";
    assert_eq!(p.is_bookmarked(url).unwrap(), None);
    let id = p.toggle(url, "Starred page").wait().unwrap().expect("added");
    assert_eq!(p.is_bookmarked(url).unwrap(), Some(id));
    assert_eq!(tree(&p), "Bookmarks bar[Starred page] Other bookmarks[]");
    // A second bookmark of the same URL elsewhere: the star removes both.
    p.add_bookmark(url, "Again", BookmarkId::OTHER).wait().unwrap();
    assert_eq!(p.is_bookmarked(url).unwrap(), Some(id), "the first one");
    assert_eq!(p.toggle(url, "ignored").wait().unwrap(), None);
    assert_eq!(p.is_bookmarked(url).unwrap(), None);
    assert_eq!(tree(&p), "Bookmarks bar[] Other bookmarks[]");
}

#[test]
fn tree_reports_added_time_and_urls() {
    let dir = profile();
    let p = open(&dir);
    let before = aperture_places::now_ms();
    p.add_bookmark("https://t.example/", "T", BookmarkId::OTHER)
        .wait()
        .unwrap();
    let t = p.tree().unwrap();
    let node = &t[1].children()[0];
    assert_eq!(node.url(), Some("https://t.example/"));
    assert!(node.added_ms >= before && node.added_ms <= aperture_places::now_ms());
}
