//! Frecency: every visit counts, recent visits count more, typed visits and bookmarks more still.
//!
//! A page's score at time `now` is the sum over its visits of `weight * 2^-(age / HALF_LIFE)`
//! (the exponentially decayed visit count, the model behind Firefox's current frecency). Stored
//! as a score it would have to be rewritten as time passes; instead each row stores the *date*
//! at which its score will have decayed to exactly 1: `score(now) = exp(LAMBDA * (date - now))`.
//! Decay moves every row's score by the same factor, so ordering rows by that date is ordering
//! them by score at any `now`, and an index on the column serves `ORDER BY frecency DESC`
//! without ever being refreshed. Adding a visit is a log-sum-exp of two dates.

use std::f64::consts::LN_2;

/// How long until a visit counts half as much.
pub(crate) const HALF_LIFE_MS: f64 = 30.0 * 24.0 * 3_600_000.0;
const LAMBDA: f64 = LN_2 / HALF_LIFE_MS;

/// A visit by following a link, a redirect, the agent, a reload.
pub(crate) const LINK_WEIGHT: f64 = 1.0;
/// A visit the human typed or picked from the omnibox: a strong sign of intent.
pub(crate) const TYPED_WEIGHT: f64 = 4.0;
/// A bookmarked page's score is multiplied by this (after adding one visit at the time it was
/// bookmarked, so a bookmark never visited here still ranks).
pub(crate) const BOOKMARK_BOOST: f64 = 3.0;

/// The decay date of one visit of `weight` at `at_ms`.
pub(crate) fn visit(at_ms: i64, weight: f64) -> f64 {
    at_ms as f64 + weight.ln() / LAMBDA
}

/// The decay date of the sum of two scores given by their decay dates.
pub(crate) fn add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi + (-(hi - lo) * LAMBDA).exp().ln_1p() / LAMBDA
}

/// The score at `now_ms`: 1.0 is one link visit right now.
pub(crate) fn score(date: f64, now_ms: i64) -> f64 {
    ((date - now_ms as f64) * LAMBDA).exp()
}

/// The weight of a visit.
pub(crate) fn weight(typed: bool) -> f64 {
    if typed { TYPED_WEIGHT } else { LINK_WEIGHT }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;
    const NOW: i64 = 1_760_000_000_000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * a.abs().max(1.0)
    }

    #[test]
    fn one_visit_now_scores_its_weight_and_halves_per_half_life() {
        assert!(close(score(visit(NOW, 1.0), NOW), 1.0));
        assert!(close(score(visit(NOW, 4.0), NOW), 4.0));
        assert!(close(score(visit(NOW - 30 * DAY, 1.0), NOW), 0.5));
        assert!(close(score(visit(NOW - 60 * DAY, 2.0), NOW), 0.5));
    }

    #[test]
    fn add_sums_scores() {
        let d = add(visit(NOW, 1.0), visit(NOW - 30 * DAY, 1.0));
        assert!(close(score(d, NOW), 1.5));
        // Order does not matter, and the sum's order is kept at any later time.
        assert!(close(add(visit(NOW - 30 * DAY, 1.0), visit(NOW, 1.0)), d));
        assert!(close(score(d, NOW + 30 * DAY), 0.75));
    }

    #[test]
    fn many_old_visits_lose_to_one_recent_one() {
        let mut old = visit(NOW - 365 * DAY, 1.0);
        for i in 1..10 {
            old = add(old, visit(NOW - 365 * DAY - i, 1.0));
        }
        assert!(old < visit(NOW - DAY, 1.0));
        // ... while three recent visits beat one.
        let three = add(
            add(visit(NOW - DAY, 1.0), visit(NOW - 2 * DAY, 1.0)),
            visit(NOW - 3 * DAY, 1.0),
        );
        assert!(three > visit(NOW, 1.0));
    }
}
