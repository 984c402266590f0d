//! The rules of a logged-out read (`browser_read` with `url`): which hosts it refuses (mirrors
//! and proxies, which would fetch a page its site refused to serve), and when a page that
//! loaded is really the site refusing the read (an error status, a bot check, a login wall).
//! Pure functions over what the browser reports, so every backend gets the same answers.

use crate::backend::LoggedOutPage;

/// Hosts (and their subdomains) that serve other sites' pages: archives, paywall removers,
/// reader proxies, translation proxies, search caches. Reading through one would get what the
/// site itself refused to serve a logged-out reader.
const MIRRORS: &[&str] = &[
    "archive.today",
    "archive.ph",
    "archive.is",
    "archive.li",
    "archive.vn",
    "archive.fo",
    "archive.md",
    "12ft.io",
    "12ft.dev",
    "r.jina.ai",
    "translate.goog",
    "translate.google.com",
    "translate.googleusercontent.com",
    "webcache.googleusercontent.com",
    "web.archive.org",
    "removepaywall.com",
    "smry.ai",
];

/// Hosts whose frames are bot checks (CAPTCHA and challenge providers).
const CHALLENGE_HOSTS: &[&str] = &[
    "recaptcha.net",
    "hcaptcha.com",
    "challenges.cloudflare.com",
    "arkoselabs.com",
    "funcaptcha.com",
    "captcha-delivery.com",
    "geo.captcha-delivery.com",
    "perimeterx.net",
    "px-cloud.net",
];

/// A page with more text than this is content with a form on it, not a wall: walls and bot
/// checks say a sentence or two. Unmeasured choice.
const WALL_TEXT: usize = 1500;

/// Phrases (lower case) that make a short page a bot check.
const BOT_PHRASES: &[&str] = &[
    "verify you are human",
    "verify that you are human",
    "verifying you are human",
    "are you a robot",
    "not a robot",
    "checking your browser",
    "checking if the site connection is secure",
    "unusual traffic",
    "press & hold",
    "press and hold",
    "complete the security check",
    "security check to access",
    "enable javascript and cookies to continue",
    "captcha",
    "bot detection",
    "access to this page has been denied",
];

/// Titles (lower case) that are a challenge page's whatever its text.
const BOT_TITLES: &[&str] = &[
    "just a moment...",
    "attention required! | cloudflare",
    "access denied",
];

/// Phrases (lower case) that make a short page a login wall.
const LOGIN_PHRASES: &[&str] = &[
    "sign in to continue",
    "log in to continue",
    "login to continue",
    "sign in to view",
    "log in to view",
    "sign in to see",
    "log in to see",
    "you must be logged in",
    "you need to log in",
    "you need to sign in",
    "login required",
    "please log in",
    "please sign in",
    "sign in to your account",
    "log in to your account",
    "join to view",
    "create an account to continue",
];

/// The host of an absolute URL, lower case, without port, user info or a trailing dot.
fn host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let auth = rest.split(['/', '?', '#']).next()?;
    let auth = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    let h = if let Some(v6) = auth.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        auth.split(':').next()?
    };
    let h = h.trim_end_matches('.').to_ascii_lowercase();
    (!h.is_empty()).then_some(h)
}

fn under(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|p| p.ends_with('.'))
}

/// Why a logged-out read of `url` is refused before anything is requested: its host is a
/// mirror or proxy of other sites (see [`MIRRORS`]). `None` when it is not one.
pub fn mirror_refusal(url: &str) -> Option<String> {
    let h = host(url)?;
    MIRRORS.iter().find(|m| under(&h, m)).map(|m| {
        format!(
            "refused: {m} serves other sites' pages (a mirror, archive or proxy); a logged-out read \
             goes to the site itself"
        )
    })
}

/// Whether a frame address is a bot check provider's.
fn challenge_frame(url: &str) -> bool {
    let Some(h) = host(url) else { return false };
    CHALLENGE_HOSTS.iter().any(|c| under(&h, c))
        || ((h == "www.google.com" || h == "google.com") && url.contains("/recaptcha/"))
}

/// Why a page that loaded is the site refusing a logged-out reader, in Aperture's words (it
/// quotes nothing from the page), or `None` when it is content to read.
pub fn blocked(page: &LoggedOutPage) -> Option<String> {
    if let Some(s) = page.status {
        let what = match s {
            401 => Some("unauthorized"),
            403 => Some("forbidden"),
            429 => Some("too many requests"),
            451 => Some("unavailable for legal reasons"),
            500..=599 => Some("server error"),
            _ => None,
        };
        if let Some(w) = what {
            return Some(format!("HTTP {s} ({w})"));
        }
    }
    let text = page.text.text.to_lowercase();
    let title = page.title.trim().to_lowercase();
    let short = !page.text.truncated && page.text.text.trim().chars().count() <= WALL_TEXT;
    if BOT_TITLES.iter().any(|t| title == *t)
        || (short
            && (page.frames.iter().any(|f| challenge_frame(f))
                || BOT_PHRASES.iter().any(|p| text.contains(p) || title.contains(p))))
    {
        return Some("a bot check (CAPTCHA or browser challenge) is the page".into());
    }
    if short
        && (page.password_fields > 0
            || LOGIN_PHRASES
                .iter()
                .any(|p| text.contains(p) || title.contains(p)))
    {
        return Some("a login wall: the page asks to sign in".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::PageText;

    fn page(status: u16, title: &str, text: &str) -> LoggedOutPage {
        LoggedOutPage {
            url: "https://example.com/".into(),
            status: Some(status),
            title: title.into(),
            text: PageText {
                text: text.into(),
                truncated: false,
                pdf: false,
            },
            ..LoggedOutPage::default()
        }
    }

    #[test]
    fn mirrors_and_their_subdomains_are_refused() {
        for u in [
            "https://archive.ph/abc",
            "http://ARCHIVE.TODAY/x",
            "https://archive.is./x",
            "https://www.archive.li/",
            "https://archive.md",
            "https://12ft.io/https://example.com",
            "https://r.jina.ai/https://example.com",
            "https://example-com.translate.goog/?_x_tr_sl=auto",
            "https://webcache.googleusercontent.com/search?q=cache:x",
            "https://user:pw@web.archive.org:443/web/2020/https://example.com",
        ] {
            assert!(mirror_refusal(u).is_some(), "{u}");
        }
        for u in [
            "https://example.com/archive.ph",
            "https://notarchive.ph/",
            "https://example.com/?u=https://12ft.io",
            "https://jina.ai/",
            "https://translate.google.example/",
            "http://127.0.0.1:8080/",
            "https://[::1]:8080/",
        ] {
            assert!(mirror_refusal(u).is_none(), "{u}");
        }
    }

    #[test]
    fn refusing_statuses_block() {
        for s in [401, 403, 429, 451, 500, 503, 599] {
            assert!(blocked(&page(s, "t", "long text")).is_some_and(|b| b.contains(&s.to_string())));
        }
        for s in [200, 203, 204, 404, 410] {
            assert_eq!(blocked(&page(s, "Article", "Some article text.")), None, "{s}");
        }
    }

    #[test]
    fn a_short_page_with_a_password_field_or_sign_in_words_is_a_login_wall() {
        let mut p = page(200, "Welcome", "Email\nPassword\nForgot?");
        p.password_fields = 1;
        assert!(blocked(&p).is_some_and(|b| b.contains("login wall")));
        let p = page(200, "Members", "Sign in to continue reading this story.");
        assert!(blocked(&p).is_some_and(|b| b.contains("login wall")));
        // A long article with a sign-in box in its sidebar is content.
        let mut p = page(200, "News", &"A paragraph of the article. ".repeat(100));
        p.password_fields = 1;
        assert_eq!(blocked(&p), None);
        let mut p = page(200, "News", "short");
        p.text.truncated = true;
        p.password_fields = 1;
        assert_eq!(blocked(&p), None, "cut text is long text");
    }

    #[test]
    fn a_challenge_page_is_a_bot_check() {
        assert!(blocked(&page(200, "Just a moment...", "")).is_some_and(|b| b.contains("bot check")));
        assert!(blocked(&page(200, "Shop", "Please verify you are human to continue.")).is_some());
        let mut p = page(200, "Shop", "One more step");
        p.frames = vec!["https://www.google.com/recaptcha/api2/anchor?k=x".into()];
        assert!(blocked(&p).is_some_and(|b| b.contains("bot check")));
        let mut p = page(200, "Shop", "One more step");
        p.frames = vec!["https://challenges.cloudflare.com/cdn-cgi/x".into()];
        assert!(blocked(&p).is_some());
        // A long page with a CAPTCHA in its comment form is content.
        let mut p = page(200, "Blog", &"Words of the post. ".repeat(200));
        p.frames = vec!["https://www.google.com/recaptcha/api2/anchor".into()];
        assert_eq!(blocked(&p), None);
    }
}
