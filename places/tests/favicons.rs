mod common;

use aperture_places::{Favicon, host_key};
use common::{open, profile};

fn icon(url: &str, rgb: [u8; 3]) -> Favicon {
    Favicon {
        icon_url: url.into(),
        width: 2,
        height: 2,
        rgba: [rgb[0], rgb[1], rgb[2], 255].repeat(4),
    }
}

#[test]
fn an_icon_is_found_by_its_page_and_its_site_and_survives_a_reopen() {
    let dir = profile();
    let p = open(&dir);
    p.record_visit("personal", "https://a.example:8443/one", false, 1_000);
    p.record_visit("personal", "https://a.example:8443/two", false, 2_000);
    p.set_favicon(
        "https://a.example:8443/one",
        icon("https://a.example:8443/red.png", [255, 0, 0]),
    );
    p.flush().unwrap();
    assert_eq!(
        p.favicon_for("https://a.example:8443/one").unwrap(),
        Some(icon("https://a.example:8443/red.png", [255, 0, 0]))
    );
    // A page whose own icon was never seen has none, but its site has one.
    assert_eq!(p.favicon_for("https://a.example:8443/two").unwrap(), None);
    assert_eq!(
        p.favicon_for_host(&host_key("https://a.example:8443/two"))
            .unwrap()
            .map(|f| f.icon_url),
        Some("https://a.example:8443/red.png".to_string())
    );
    assert_eq!(
        p.favicon_for_host("a.example").unwrap(),
        None,
        "another port is another site"
    );
    assert_eq!(
        p.favicon_for_host("A.example:8443").unwrap().map(|f| f.rgba[0]),
        Some(255)
    );
    // A newer icon for the page replaces it.
    p.set_favicon(
        "https://a.example:8443/one",
        icon("https://a.example:8443/blue.png", [0, 0, 255]),
    );
    drop(p);
    let p = open(&dir);
    let f = p.favicon_for("https://a.example:8443/one").unwrap().unwrap();
    assert_eq!(
        (f.icon_url.as_str(), f.rgba[2]),
        ("https://a.example:8443/blue.png", 255)
    );
}

#[test]
fn clearing_history_clears_the_icons_of_its_pages_but_not_of_bookmarks() {
    let dir = profile();
    let p = open(&dir);
    p.record_visit(
        "personal",
        "https://kept.example/",
        false,
        aperture_places::now_ms(),
    );
    p.record_visit(
        "personal",
        "https://gone.example/",
        false,
        aperture_places::now_ms(),
    );
    p.add_bookmark("https://kept.example/", "Kept", aperture_places::BookmarkId(2))
        .wait()
        .unwrap();
    p.set_favicon(
        "https://kept.example/",
        icon("https://kept.example/i.png", [1, 2, 3]),
    );
    p.set_favicon(
        "https://gone.example/",
        icon("https://gone.example/i.png", [4, 5, 6]),
    );
    p.flush().unwrap();
    p.clear_all(None).wait().unwrap();
    assert!(p.favicon_for("https://kept.example/").unwrap().is_some());
    assert_eq!(p.favicon_for("https://gone.example/").unwrap(), None);

    // A time range: the icons seen in it go, even of pages visited before it.
    let from = aperture_places::now_ms();
    p.record_visit("personal", "https://range.example/", false, from - 60_000);
    p.record_visit("personal", "https://range.example/", false, from + 1);
    p.set_favicon(
        "https://range.example/",
        icon("https://range.example/i.png", [7, 8, 9]),
    );
    p.flush().unwrap();
    p.clear_range(None, from, i64::MAX).wait().unwrap();
    assert_eq!(p.favicon_for("https://range.example/").unwrap(), None);
    assert!(p.favicon_for("https://kept.example/").unwrap().is_some());
}

#[test]
fn a_malformed_icon_is_not_kept() {
    let dir = profile();
    let p = open(&dir);
    let mut short = icon("https://x.example/i.png", [0, 0, 0]);
    short.rgba.pop();
    p.set_favicon("https://x.example/", short);
    let huge = Favicon {
        icon_url: "https://y.example/i.png".into(),
        width: 300,
        height: 1,
        rgba: vec![0; 1200],
    };
    p.set_favicon("https://y.example/", huge);
    p.flush().unwrap();
    assert_eq!(p.favicon_for("https://x.example/").unwrap(), None);
    assert_eq!(p.favicon_for("https://y.example/").unwrap(), None);
}

#[test]
fn host_keys_are_the_authority_without_credentials() {
    assert_eq!(host_key("https://User:pw@Example.COM:81/x?y#z"), "example.com:81");
    assert_eq!(host_key("http://127.0.0.1:9000"), "127.0.0.1:9000");
    assert_eq!(host_key("file:///tmp/a.html"), "");
}
