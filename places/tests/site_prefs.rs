mod common;

use aperture_places::{Error, MAX_ZOOM, MIN_ZOOM};
use common::{open, profile};

#[test]
fn zoom_is_remembered_per_site_and_forgotten_with_none() {
    let dir = profile();
    let p = open(&dir);
    assert_eq!(p.zoom_for("example.com").unwrap(), None, "default");
    p.set_zoom("example.com", Some(125.0)).wait().unwrap();
    p.set_zoom("other.example", Some(80.0)).wait().unwrap();
    assert_eq!(p.zoom_for("example.com").unwrap(), Some(125.0));
    assert_eq!(
        p.zoom_for("EXAMPLE.com").unwrap(),
        Some(125.0),
        "hosts ignore case"
    );
    assert_eq!(
        p.zoom_for("sub.example.com").unwrap(),
        None,
        "per host, not per domain"
    );
    p.set_zoom("example.com", Some(150.0)).wait().unwrap();
    assert_eq!(p.zoom_for("example.com").unwrap(), Some(150.0), "replaced");
    p.set_zoom("example.com", None).wait().unwrap();
    assert_eq!(p.zoom_for("example.com").unwrap(), None);
    assert_eq!(p.zoom_for("other.example").unwrap(), Some(80.0));
    // Forgetting what was never set is fine.
    p.set_zoom("never.example", None).wait().unwrap();
}

#[test]
fn zoom_outside_chromiums_range_is_refused_without_a_write() {
    let dir = profile();
    let p = open(&dir);
    for bad in [
        0.0,
        MIN_ZOOM - 1.0,
        MAX_ZOOM + 1.0,
        f64::NAN,
        f64::INFINITY,
        -100.0,
    ] {
        assert!(
            matches!(
                p.set_zoom("x.example", Some(bad)).wait(),
                Err(Error::InvalidZoom(_))
            ),
            "{bad}"
        );
    }
    assert_eq!(p.zoom_for("x.example").unwrap(), None);
    for good in [MIN_ZOOM, 100.0, 33.3, MAX_ZOOM] {
        p.set_zoom("x.example", Some(good)).wait().unwrap();
        assert_eq!(p.zoom_for("x.example").unwrap(), Some(good));
    }
}

#[test]
fn the_reply_can_be_polled_or_awaited_instead_of_waited_on() {
    let dir = profile();
    let p = open(&dir);
    let mut reply = p.set_zoom("poll.example", Some(90.0));
    let started = std::time::Instant::now();
    let answer = loop {
        if let Some(answer) = reply.try_take() {
            break answer;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "no answer"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    answer.unwrap();
    assert_eq!(p.zoom_for("poll.example").unwrap(), Some(90.0));
}
