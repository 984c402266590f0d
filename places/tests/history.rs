mod common;

use aperture_places::{Places, now_ms};
use common::{DAY, open, profile, urls};

#[test]
fn visits_are_listed_newest_first_and_searched_by_url_or_title_ignoring_case() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms();
    p.record_visit("personal", "https://www.rust-lang.org/", true, t - 3000);
    p.set_title(
        "personal",
        "https://www.rust-lang.org/",
        "Rust Programming Language",
    );
    p.record_visit("personal", "https://docs.rs/serde", false, t - 2000);
    p.set_title("personal", "https://docs.rs/serde", "serde - Rust");
    p.record_visit("personal", "https://example.com/Über", false, t - 1000);
    p.set_title("personal", "https://example.com/Über", "ÄPFEL und Birnen");
    p.flush().unwrap();

    let all = p.search("", None, 10, 0).unwrap();
    assert_eq!(
        all.iter().map(|e| e.url.as_str()).collect::<Vec<_>>(),
        [
            "https://example.com/Über",
            "https://docs.rs/serde",
            "https://www.rust-lang.org/"
        ]
    );
    assert_eq!(all[2].title, "Rust Programming Language");
    assert!(all[2].typed && !all[1].typed);
    assert_eq!(all[1].visited_at_ms, t - 2000);
    assert_eq!(all[0].container, "personal");

    let rust = p.search("RUST", None, 10, 0).unwrap();
    assert_eq!(rust.len(), 2, "title of docs.rs and URL of rust-lang.org");
    assert_eq!(
        p.search("äpfel", None, 10, 0).unwrap().len(),
        1,
        "non-ASCII case folding"
    );
    assert_eq!(
        p.search("über birnen", None, 10, 0).unwrap().len(),
        1,
        "every word, URL or title"
    );
    assert!(p.search("rust birnen", None, 10, 0).unwrap().is_empty());

    // Paging.
    let page2 = p.search("", None, 2, 2).unwrap();
    assert_eq!(page2.len(), 1);
    assert_eq!(page2[0].url, "https://www.rust-lang.org/");
}

#[test]
fn a_title_arriving_later_replaces_the_old_one_and_is_searchable_and_suggested() {
    let dir = profile();
    let p = open(&dir);
    p.record_visit("c", "https://news.example/a", false, now_ms());
    p.set_title("c", "https://news.example/a", "Loading…");
    p.set_title("c", "https://news.example/a", "  Election   results\n live ");
    // A title for a page never recorded here (e.g. a private tab's) records nothing.
    p.set_title("c", "https://never.example/", "Secret");
    p.flush().unwrap();
    let e = p.search("", None, 10, 0).unwrap();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].title, "Election results live");
    assert!(p.search("loading", None, 10, 0).unwrap().is_empty());
    assert_eq!(
        urls(&p.suggest("elect", None, 5).unwrap()),
        ["https://news.example/a"]
    );
    assert!(
        p.suggest("loading", None, 5).unwrap().is_empty(),
        "old title words are gone"
    );
}

#[test]
fn containers_are_kept_apart() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms();
    p.record_visit("work", "https://intranet.corp/", false, t);
    p.record_visit("personal", "https://bank.example/", false, t);
    p.record_visit("personal", "https://intranet.corp/", false, t);
    p.set_title("work", "https://intranet.corp/", "Work portal");
    p.flush().unwrap();

    let work = p.search("", Some("work"), 10, 0).unwrap();
    assert_eq!(work.len(), 1);
    assert_eq!(work[0].title, "Work portal");
    let personal = p.search("", Some("personal"), 10, 0).unwrap();
    assert_eq!(personal.len(), 2);
    assert!(personal.iter().all(|e| e.container == "personal"));
    // The title was set for the work container only.
    assert!(personal.iter().all(|e| e.title.is_empty()));

    assert!(p.suggest("bank", Some("work"), 5).unwrap().is_empty());
    assert_eq!(
        urls(&p.suggest("bank", Some("personal"), 5).unwrap()),
        ["https://bank.example/"]
    );
    assert!(p.suggest("portal", Some("personal"), 5).unwrap().is_empty());
    // All containers: one suggestion per URL.
    assert_eq!(
        urls(&p.suggest("intra", None, 5).unwrap()),
        ["https://intranet.corp/"]
    );
    assert!(p.suggest("intra", Some("nobody"), 5).unwrap().is_empty());
}

#[test]
fn pages_typing_cannot_bring_back_are_not_recorded() {
    let dir = profile();
    let p = open(&dir);
    for url in [
        "about:blank",
        "data:text/html,<p>x",
        "javascript:void(0)",
        "blob:https://a.example/1",
        "",
    ] {
        p.record_visit("c", url, false, now_ms());
    }
    p.flush().unwrap();
    assert!(p.search("", None, 10, 0).unwrap().is_empty());
}

#[test]
fn deleting_a_visit_recomputes_the_page_and_the_last_one_removes_it() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms();
    p.record_visit("c", "https://a.example/", true, t - 2 * DAY);
    p.record_visit("c", "https://a.example/", false, t - DAY);
    p.flush().unwrap();
    let before = p.suggest("a.ex", None, 5).unwrap()[0].score;
    let visits = p.search("", None, 10, 0).unwrap();
    assert_eq!(visits.len(), 2);
    // Delete the typed (older) visit: the page stays, scoring only the link visit.
    let typed = visits.iter().find(|v| v.typed).unwrap().id;
    assert!(p.delete_visit(typed).wait().unwrap());
    assert!(!p.delete_visit(typed).wait().unwrap(), "already gone");
    let after = p.suggest("a.ex", None, 5).unwrap();
    assert_eq!(after.len(), 1);
    assert!(after[0].score < before / 2.0, "{} vs {before}", after[0].score);
    let left = p.search("", None, 10, 0).unwrap();
    assert_eq!(left.len(), 1);
    assert!(p.delete_visit(left[0].id).wait().unwrap());
    assert!(
        p.suggest("a.ex", None, 5).unwrap().is_empty(),
        "no visits left, no page"
    );
}

#[test]
fn delete_url_forgets_it_in_every_container() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms();
    for c in ["a", "b"] {
        p.record_visit(c, "https://gone.example/", false, t);
        p.record_visit(c, "https://gone.example/", false, t + 1);
        p.record_visit(c, "https://kept.example/", false, t);
    }
    assert_eq!(p.delete_url("https://gone.example/").wait().unwrap(), 4);
    let left = p.search("", None, 10, 0).unwrap();
    assert_eq!(left.len(), 2);
    assert!(left.iter().all(|e| e.url == "https://kept.example/"));
    assert!(p.suggest("gone", None, 5).unwrap().is_empty());
}

#[test]
fn clear_range_is_half_open_and_can_be_limited_to_a_container() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms() - 10 * DAY;
    for (i, url) in [
        "https://one.example/",
        "https://two.example/",
        "https://three.example/",
    ]
    .iter()
    .enumerate()
    {
        p.record_visit("a", url, false, t + i as i64 * DAY);
        p.record_visit("b", url, false, t + i as i64 * DAY);
    }
    // [t + 1 day, t + 2 days): only "two", only in container a.
    assert_eq!(p.clear_range(Some("a"), t + DAY, t + 2 * DAY).wait().unwrap(), 1);
    let a: Vec<String> = p
        .search("", Some("a"), 10, 0)
        .unwrap()
        .into_iter()
        .map(|e| e.url)
        .collect();
    assert_eq!(a, ["https://three.example/", "https://one.example/"]);
    assert_eq!(p.search("", Some("b"), 10, 0).unwrap().len(), 3);
    assert!(p.suggest("two", Some("a"), 5).unwrap().is_empty());
    assert_eq!(p.suggest("two", Some("b"), 5).unwrap().len(), 1);
    // Every container: "one" in both, "two" in b (already gone from a); "three" is at the end, excluded.
    assert_eq!(p.clear_range(None, t, t + 2 * DAY).wait().unwrap(), 3);
    let left: Vec<String> = p
        .search("", None, 10, 0)
        .unwrap()
        .into_iter()
        .map(|e| e.url)
        .collect();
    assert_eq!(left, ["https://three.example/", "https://three.example/"]);
}

#[test]
fn clear_all_of_one_container_or_everything_keeps_bookmarks_and_zoom() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms();
    p.record_visit("a", "https://x.example/", false, t);
    p.record_visit("b", "https://y.example/", false, t);
    p.add_bookmark("https://x.example/", "X", aperture_places::BookmarkId::BAR)
        .wait()
        .unwrap();
    p.set_zoom("x.example", Some(150.0)).wait().unwrap();
    assert_eq!(p.clear_all(Some("a")).wait().unwrap(), 1);
    assert_eq!(p.search("", None, 10, 0).unwrap().len(), 1);
    assert_eq!(p.clear_all(None).wait().unwrap(), 1);
    assert!(p.search("", None, 10, 0).unwrap().is_empty());
    assert!(p.is_bookmarked("https://x.example/").unwrap().is_some());
    assert_eq!(p.zoom_for("x.example").unwrap(), Some(150.0));
    // The bookmark is still suggested (as a bookmark, without history).
    let s = p.suggest("x.ex", None, 5).unwrap();
    assert_eq!(urls(&s), ["https://x.example/"]);
}

#[test]
fn history_bookmarks_and_zoom_survive_closing_and_reopening() {
    let dir = profile();
    {
        let p = open(&dir);
        p.record_visit("c", "https://persist.example/page", true, now_ms());
        p.set_title("c", "https://persist.example/page", "Persisted page");
        let folder = p
            .create_folder(aperture_places::BookmarkId::BAR, "Reading")
            .wait()
            .unwrap();
        p.add_bookmark("https://persist.example/book", "A book", folder)
            .wait()
            .unwrap();
        p.set_zoom("persist.example", Some(125.0)).wait().unwrap();
        // No flush: dropping the last handle must finish the queued writes.
        p.record_visit("c", "https://persist.example/last", false, now_ms());
    }
    let p = Places::open(dir.path()).unwrap();
    assert!(p.recovery().is_none());
    let h = p.search("persist", None, 10, 0).unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h[1].title, "Persisted page");
    let tree = p.tree().unwrap();
    assert_eq!(tree[0].children()[0].title, "Reading");
    assert_eq!(
        tree[0].children()[0].children()[0].url(),
        Some("https://persist.example/book")
    );
    assert_eq!(p.zoom_for("persist.example").unwrap(), Some(125.0));
    assert_eq!(
        p.suggest("persist.example/p", None, 5).unwrap()[0].title,
        "Persisted page"
    );
}

#[test]
fn writes_from_many_threads_through_clones_all_land() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms();
    let threads: Vec<_> = (0..4)
        .map(|k| {
            let p = p.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    p.record_visit("c", &format!("https://t{k}.example/{i}"), false, t + i);
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    p.flush().unwrap();
    assert_eq!(p.search("", None, 1000, 0).unwrap().len(), 200);
}

#[test]
fn search_finds_old_rare_matches_behind_many_newer_visits_and_pages_through_them() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms() - 100 * DAY;
    // Three old visits of a rare page, in two containers, then more visits than the search
    // tries newest-first.
    p.record_visit("a", "https://rare.example/needle", false, t);
    p.record_visit("b", "https://rare.example/needle", false, t + 1);
    p.record_visit("a", "https://rare.example/needle", true, t + 2);
    for i in 0..5200 {
        p.record_visit("a", &format!("https://filler.example/{i}"), false, t + 10 + i);
    }
    p.flush().unwrap();
    let all = p.search("NEEDLE", None, 10, 0).unwrap();
    assert_eq!(
        all.iter().map(|e| e.visited_at_ms).collect::<Vec<_>>(),
        [t + 2, t + 1, t]
    );
    let a = p.search("needle", Some("a"), 10, 0).unwrap();
    assert_eq!(a.iter().map(|e| e.visited_at_ms).collect::<Vec<_>>(), [t + 2, t]);
    assert_eq!(p.search("needle", None, 1, 1).unwrap()[0].visited_at_ms, t + 1);
    assert!(p.search("needle", None, 10, 3).unwrap().is_empty());
    // A common term is answered from the newest visits, with the same paging.
    let filler = p.search("filler", None, 3, 2).unwrap();
    assert_eq!(
        filler.iter().map(|e| e.visited_at_ms).collect::<Vec<_>>(),
        [t + 5207, t + 5206, t + 5205]
    );
    // A term only old pages and new pages share: newest first across both.
    let example = p.search("example", None, 2, 5199).unwrap();
    assert_eq!(
        example.iter().map(|e| e.url.as_str()).collect::<Vec<_>>(),
        ["https://filler.example/0", "https://rare.example/needle"]
    );
}

#[test]
fn top_sites_are_the_most_frecent_sites_one_page_each_of_one_container() {
    let dir = profile();
    let p = open(&dir);
    let t = now_ms();
    // docs.rs: two pages, visited most; news: typed once (a typed visit counts four); an old
    // site: many visits long ago; a file and another container's site: never tiles.
    for i in 0..5 {
        p.record_visit("personal", "https://docs.rs/serde", false, t - 1000 - i);
        p.record_visit("personal", "https://docs.rs/tokio", false, t - 2000 - i);
    }
    p.set_title("personal", "https://docs.rs/serde", "serde - Rust");
    p.record_visit("personal", "https://news.example/", true, t - 3000);
    for i in 0..6 {
        p.record_visit("personal", "http://old.example:8080/", false, t - 200 * DAY - i);
    }
    for _ in 0..9 {
        p.record_visit("personal", "file:///home/me/notes.html", false, t - 500);
        p.record_visit("work", "https://intranet.example/", false, t - 500);
    }
    p.flush().unwrap();

    let top = p.top_sites("personal", 8).unwrap();
    let urls: Vec<&str> = top.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://docs.rs/serde",
            "https://news.example/",
            "http://old.example:8080/"
        ]
    );
    assert_eq!(top[0].title, "serde - Rust");
    assert_eq!(p.top_sites("personal", 1).unwrap().len(), 1);
    assert_eq!(
        p.top_sites("work", 8).unwrap()[0].url,
        "https://intranet.example/"
    );
    assert!(p.top_sites("nobody", 8).unwrap().is_empty());

    // Forgetting a site's history takes its tile away.
    p.delete_url("https://news.example/").wait().unwrap();
    let top = p.top_sites("personal", 8).unwrap();
    assert!(top.iter().all(|s| !s.url.contains("news")), "{top:?}");

    // A site taken off the page stays off, every page of it, in that container only, across
    // a restart; its history stays.
    p.hide_site("personal", "https://docs.rs/tokio").wait().unwrap();
    let urls = |p: &aperture_places::Places, c: &str| -> Vec<String> {
        p.top_sites(c, 8).unwrap().into_iter().map(|s| s.url).collect()
    };
    assert_eq!(urls(&p, "personal"), ["http://old.example:8080/"]);
    p.hide_site("work", "https://docs.rs/").wait().unwrap();
    assert_eq!(urls(&p, "work"), ["https://intranet.example/"]);
    drop(p);
    let p = open(&dir);
    assert_eq!(urls(&p, "personal"), ["http://old.example:8080/"]);
    assert_eq!(p.search("serde", None, 10, 0).unwrap().len(), 5, "history stays");

    // Undo puts one site back; Restore all the rest, in that container only.
    p.hide_site("personal", "http://old.example:8080/x")
        .wait()
        .unwrap();
    assert!(urls(&p, "personal").is_empty());
    assert_eq!(
        p.unhide_sites("personal", Some("http://old.example:8080/"))
            .wait()
            .unwrap(),
        1
    );
    assert_eq!(urls(&p, "personal"), ["http://old.example:8080/"]);
    assert_eq!(p.unhide_sites("personal", None).wait().unwrap(), 1);
    assert_eq!(
        urls(&p, "personal"),
        ["https://docs.rs/serde", "http://old.example:8080/"]
    );
    assert_eq!(
        urls(&p, "work"),
        ["https://intranet.example/"],
        "work's stays off"
    );
}
