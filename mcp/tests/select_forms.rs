//! `<select>` as real sign-up forms write it: over many lines, with `<optgroup>`s, comments and
//! whitespace between the options, chosen by label and by value, through `browser_fill_form`
//! and `browser_act select`.
//!
//! The real-browser tests run only when `APERTURE_BIN` names the browser binary (as in
//! `real_browser.rs`); otherwise they say so on stderr and return. The walker used to read
//! `localName` on every child node of the select, so the whitespace between two options made
//! every such select fail with "walker exception: Illegal invocation", reported as OUTCOME
//! UNKNOWN with the rest of the form left unfilled.
//!
//! The tests against the scripted backend check how the tools report a select the browser
//! refused (no option matches): as a refusal that sent nothing, with the rest of the form
//! still filled.

#![forbid(unsafe_code)]

mod common;

use aperture_mcp::backend::{BackendError, TabId};
use aperture_testkit::mcp::{CallToolResult, Client, is_ref};
use aperture_testkit::{Launch, McpBrowser, Server};
use common::{Fake, Page, call, pipe_client, split_envelopes, text};
use serde_json::json;

/// A sign-up form as sites write it: the country select indented over many lines, grouped,
/// with a disabled placeholder, comments (one hiding a retired option) and an option whose
/// text spans lines; a plain multi-line select; one whose options have no value attribute.
/// The page records, on every change, what it saw in each select.
const SIGNUP: &str = r#"<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Create your account</title>
</head>
<body>
  <main>
    <h1>Create your account</h1>
    <form id="signup" action="/welcome" method="post" novalidate>
      <div class="field">
        <label for="full-name">Full name</label>
        <input id="full-name" name="name" type="text" autocomplete="name" required>
      </div>

      <div class="field">
        <label for="country">Country / region</label>
        <select id="country" name="country" autocomplete="country-name" required>
          <option value="" disabled selected>Select your country</option>
          <!-- The most common choices first -->
          <optgroup label="Popular">
            <option value="US">United States</option>
            <option value="GB">United Kingdom</option>
            <option value="CA">Canada</option>
          </optgroup>
          <optgroup label="Europe">
            <option value="FR">France</option>
            <option value="DE">Germany</option>
            <!-- <option value="YU">Yugoslavia</option> -->
            <option value="IE">Ireland</option>
          </optgroup>
          <optgroup label="Asia Pacific">
            <option value="JP">Japan</option>
            <option value="NZ">
              New Zealand
            </option>
          </optgroup>
        </select>
      </div>

      <div class="field">
        <label for="plan">Plan</label>
        <select id="plan" name="plan">
          <option value="free">Free</option>
          <option value="pro">Pro (monthly)</option>
          <option value="team">Team</option>
        </select>
      </div>

      <div class="field">
        <label for="heard">How did you hear about us?</label>
        <select id="heard" name="heard">
          <option>Search engine</option>
          <option>A friend</option>
          <option>Podcast</option>
        </select>
      </div>

      <div class="field">
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" autocomplete="email" required>
      </div>

      <p id="seen">nothing chosen yet</p>
      <button type="submit">Create account</button>
    </form>
  </main>
  <script>
    for (const s of document.querySelectorAll("select")) {
      s.addEventListener("change", () => {
        document.getElementById("seen").textContent = "page saw " +
          [...document.querySelectorAll("select")].map((x) => x.name + "=" + x.value).join(" ");
      });
    }
  </script>
</body>
</html>
"#;

/// A page that plants throwing getters on `Object.prototype` (where a dictionary or a parsed
/// request would find them), and logs what reaches its select and its checkbox.
const TRAPS: &str = r#"<!doctype html><html><head><title>Traps</title></head><body>
<form>
<label for=colour>Colour</label> <select id=colour name=colour><option value=r>Red</option><option value=g>Green</option></select>
<label><input type=checkbox id=news name=news> Newsletter</label>
<p id=log>quiet</p>
</form>
<script>
const log = (s) => { document.getElementById("log").textContent = s; };
const news = document.getElementById("news");
news.addEventListener("focus", () => log("checkbox saw focus"));
news.addEventListener("input", () => log("checkbox saw input"));
document.getElementById("colour").addEventListener("change", (e) => log("colour=" + e.target.value));
for (const k of ["composed", "cancelable", "values", "cap", "walk_id", "detail"]) {
  Object.defineProperty(Object.prototype, k, {
    get() { throw new Error("PAGETRAP " + k); },
    configurable: true,
  });
}
</script></body></html>"#;

/// The ref on the first snapshot line naming both `role` and `needle`.
fn ref_of(snapshot: &str, role: &str, needle: &str) -> String {
    snapshot
        .lines()
        .filter(|l| l.contains(role) && l.contains(needle))
        .find_map(|l| l.split_whitespace().find(|w| is_ref(w)))
        .unwrap_or_else(|| panic!("no {role} line with {needle:?} in:\n{snapshot}"))
        .to_string()
}

/// The browser named by `APERTURE_BIN`, serving MCP, with one client session, showing the
/// sign-up form in a tab the agent opened.
struct Signup {
    client: Client,
    /// The opening snapshot.
    snap: String,
    // Dropped after the client (fields drop in order): the session closes first.
    _browser: McpBrowser,
    _server: Server,
}

impl Signup {
    async fn open() -> Option<Signup> {
        let Some(launch) = Launch::from_env() else {
            eprintln!("APERTURE_BIN is not set; skipping the real-browser test");
            return None;
        };
        let browser = launch.start().await;
        let client = browser.connect().await;
        let server = Server::page(SIGNUP);
        let open = call(
            &client,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await;
        let snap = text(&open);
        assert_ne!(open.is_error, Some(true), "{snap}");
        Some(Signup {
            client,
            snap,
            _browser: browser,
            _server: server,
        })
    }

    async fn call(&self, tool: &str, args: serde_json::Value) -> CallToolResult {
        call(&self.client, tool, args).await
    }

    async fn page(&self) -> String {
        text(&self.call("browser_snapshot", json!({"full": true})).await)
    }
}

#[tokio::test]
async fn fill_form_chooses_options_of_multi_line_grouped_selects() {
    let Some(s) = Signup::open().await else { return };
    let name = ref_of(&s.snap, "textbox", "Full name");
    let country = ref_of(&s.snap, "combobox", "Country / region");
    let plan = ref_of(&s.snap, "combobox", "Plan");
    let heard = ref_of(&s.snap, "combobox", "How did you hear");
    let email = ref_of(&s.snap, "textbox", "Email address");
    let r = s
        .call(
            "browser_fill_form",
            json!({"fields": [
                {"ref": name, "value": "Ada Lovelace"},
                // By label, inside an optgroup.
                {"ref": country, "value": "United Kingdom"},
                // By value.
                {"ref": plan, "value": "team"},
                // No value attribute: the text is the value.
                {"ref": heard, "value": "A friend"},
                {"ref": email, "value": "ada@example.org"}
            ]}),
        )
        .await;
    let t = text(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    assert!(!t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(!t.contains("Illegal invocation"), "{t}");
    for n in 1..=5 {
        assert!(t.contains(&format!("{n}. e")), "field {n} not reported:\n{t}");
    }
    let page = s.page().await;
    // What the page's own change handlers saw: the events fired, with the chosen values.
    assert!(
        page.contains("page saw country=GB plan=team heard=A friend"),
        "{page}"
    );
    assert!(page.contains("value=\"ada@example.org\""), "{page}");
    assert!(page.contains("value=\"Ada Lovelace\""), "{page}");
}

#[tokio::test]
async fn act_select_picks_by_label_and_by_value_across_optgroups() {
    let Some(s) = Signup::open().await else { return };
    let country = ref_of(&s.snap, "combobox", "Country / region");
    // A label written over three lines in the source, in the last optgroup.
    let r = s
        .call(
            "browser_act",
            json!({"action": "select", "ref": country, "values": ["New Zealand"]}),
        )
        .await;
    let t = text(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    assert!(t.contains(&format!("selected 1 option(s) in {country}")), "{t}");
    let page = s.page().await;
    assert!(page.contains("page saw country=NZ"), "{page}");
    // Then by value, the option after a commented-out one; the ref still names the select.
    let country = ref_of(&page, "combobox", "Country / region");
    let r = s
        .call(
            "browser_act",
            json!({"action": "select", "ref": country, "values": ["IE"]}),
        )
        .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let page = s.page().await;
    assert!(page.contains("page saw country=IE"), "{page}");
    // An option the select lacks fails without touching it: the choice stays (deselecting
    // every option first would have left the browser to fall back to "United States").
    let country = ref_of(&page, "combobox", "Country / region");
    let r = s
        .call(
            "browser_act",
            json!({"action": "select", "ref": country, "values": ["Atlantis"]}),
        )
        .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(!t.contains("walker exception"), "{t}");
    let page = s.page().await;
    let line = page
        .lines()
        .find(|l| l.contains("combobox") && l.contains("Country / region"))
        .unwrap_or_else(|| panic!("no country select in:\n{page}"));
    // The select lists its options with the chosen one starred: Ireland stays chosen.
    assert!(line.contains("*\"Ireland\""), "{line}");
}

/// The walker's element ops run no page code: the event it fires is built from a dictionary
/// without a prototype (a getter the page planted on `Object.prototype` used to throw inside
/// the walker, and its page-written message came back as Aperture's own error text), and a
/// clear aimed at a checkbox is refused before focus moves or an event fires.
#[tokio::test]
async fn element_ops_run_no_page_code_and_a_refused_clear_touches_nothing() {
    let Some(launch) = Launch::from_env() else {
        eprintln!("APERTURE_BIN is not set; skipping the real-browser test");
        return;
    };
    let browser = launch.start().await;
    let client = browser.connect().await;
    let server = Server::page(TRAPS);
    let open = call(
        &client,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/")}),
    )
    .await;
    let snap = text(&open);
    assert_ne!(open.is_error, Some(true), "{snap}");
    let colour = ref_of(&snap, "combobox", "Colour");
    let news = ref_of(&snap, "checkbox", "Newsletter");

    let r = call(
        &client,
        "browser_act",
        json!({"action": "select", "ref": colour, "values": ["Green"]}),
    )
    .await;
    let t = text(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    assert!(!split_envelopes(&t).0.contains("PAGETRAP"), "{t}");

    let r = call(&client, "browser_act", json!({"action": "clear", "ref": news})).await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "clearing a checkbox: {t}");
    assert!(!split_envelopes(&t).0.contains("PAGETRAP"), "{t}");
    let page = text(&call(&client, "browser_snapshot", json!({"full": true})).await);
    // The select's change reached the page, and nothing after it did.
    assert!(page.contains("colour=g"), "{page}");
    let line = page
        .lines()
        .find(|l| l.contains("checkbox") && l.contains("Newsletter"))
        .unwrap_or_else(|| panic!("no checkbox in:\n{page}"));
    assert!(!line.contains("focused"), "{line}");
}

/// An option the select does not have is refused by the walker before it touches the page.
/// That must reach the agent as a refusal naming the field, with the other fields filled,
/// never as OUTCOME UNKNOWN.
#[tokio::test]
async fn an_option_the_select_lacks_is_refused_and_the_rest_is_filled() {
    let Some(s) = Signup::open().await else { return };
    let country = ref_of(&s.snap, "combobox", "Country / region");
    let plan = ref_of(&s.snap, "combobox", "Plan");
    let email = ref_of(&s.snap, "textbox", "Email address");
    let r = s
        .call(
            "browser_fill_form",
            json!({"fields": [
                {"ref": country, "value": "Atlantis"},
                {"ref": plan, "value": "Pro (monthly)"},
                {"ref": email, "value": "ada@example.org"}
            ]}),
        )
        .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(!t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(t.contains(&format!("1. {country} was not filled")), "{t}");
    assert!(
        t.contains("no option of the select has that value or label"),
        "{t}"
    );
    assert!(t.contains("nothing was sent"), "{t}");
    let page = s.page().await;
    // The refused select kept its placeholder; the others were filled.
    assert!(page.contains("page saw country= plan=pro"), "{page}");
    assert!(page.contains("value=\"ada@example.org\""), "{page}");
}

/// How a refusal from the browser reads, on the scripted backend (no browser needed).
fn refused() -> BackendError {
    BackendError::ElementRefused("no option of the select has that value or label".into())
}

fn ref_on(snapshot: &str, needle: &str) -> String {
    snapshot
        .lines()
        .filter(|l| l.contains(needle))
        .find_map(|l| l.split_whitespace().find(|w| is_ref(w)))
        .unwrap_or_else(|| panic!("no ref on a line with {needle:?} in:\n{snapshot}"))
        .to_string()
}

#[tokio::test]
async fn a_refused_select_is_reported_as_nothing_sent() {
    let fake = Fake::new();
    fake.add_tab(Page::list("https://shop.example/", &["apples"]), true);
    let client = pipe_client(fake.clone()).await;
    let snap = text(&call(&client, "browser_snapshot", json!({})).await);
    let email = ref_on(&snap, "Email");
    fake.state.lock().unwrap().fail_after_send = Some(refused());
    let r = call(
        &client,
        "browser_act",
        json!({"action": "select", "ref": email, "values": ["Atlantis"]}),
    )
    .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(!t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(
        t.contains("no option of the select has that value or label (nothing was sent)"),
        "{t}"
    );
}

#[tokio::test]
async fn fill_form_fills_the_other_fields_after_a_refused_one() {
    let fake = Fake::new();
    fake.add_tab(Page::list("https://shop.example/", &["apples"]), true);
    let client = pipe_client(fake.clone()).await;
    let snap = text(&call(&client, "browser_snapshot", json!({})).await);
    let email = ref_on(&snap, "Email");
    let agree = ref_on(&snap, "I agree");
    // The email field's clear is refused by the browser; the checkbox after it must still be
    // checked, and the refusal must name the field without calling the outcome unknown.
    fake.state.lock().unwrap().fail_after_send = Some(refused());
    let r = call(
        &client,
        "browser_fill_form",
        json!({"fields": [{"ref": email, "value": "a@b.example"}, {"ref": agree, "value": "true"}]}),
    )
    .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(!t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(t.contains(&format!("1. {email} was not filled")), "{t}");
    assert!(t.contains(&format!("2. {agree} checked")), "{t}");
    assert!(
        fake.page(TabId(1)).agree,
        "the field after the refused one was not filled"
    );
    // A failure after input was sent still stops the form there.
    fake.state.lock().unwrap().fail_after_send = Some(BackendError::RendererGone("it crashed".into()));
    let snap = text(&call(&client, "browser_snapshot", json!({"full": true})).await);
    let email = ref_on(&snap, "Email");
    let agree = ref_on(&snap, "I agree");
    let r = call(
        &client,
        "browser_fill_form",
        json!({"fields": [{"ref": email, "value": "a@b.example"}, {"ref": agree, "value": "false"}]}),
    )
    .await;
    let t = text(&r);
    assert!(t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(t.contains("1 later field(s) not filled"), "{t}");
    assert!(
        fake.page(TabId(1)).agree,
        "a field after an unknown outcome was filled"
    );
}
