//! A navigation's answer shows what a client-rendered page renders shortly after its load:
//! the observation walks again until the document has been quiet for `QUIET`, within 2 s.

use aperture_testkit::mcp::{call, text};
use aperture_testkit::{Launch, Server};
use serde_json::json;
use std::collections::HashMap;

#[tokio::test]
async fn the_navigate_answer_shows_content_rendered_after_load() {
    let browser = Launch::from_env_or(env!("CARGO_BIN_EXE_aperture")).start().await;
    // The app shell loads empty; a script fills it in between 400 and 800 ms after the load
    // event, with a loading line updated meanwhile, as a client-rendered app does.
    let app = |delay: &str| {
        format!(
            r#"<!doctype html><html><head><title>App</title></head><body><div id=root></div>
<script>
addEventListener("load", () => {{
  const root = document.getElementById("root");
  const start = performance.now();
  const delay = {delay};
  const tick = setInterval(() => {{
    root.textContent = "Loading " + Math.round(performance.now() - start) + " ms";
  }}, 100);
  setTimeout(() => {{
    clearInterval(tick);
    root.innerHTML = "<h2>Rendered catalogue</h2><button>Add the blue kettle</button>";
  }}, delay);
}});
</script></body></html>"#
        )
    };
    let server = Server::start(
        HashMap::from([
            ("/a".to_string(), app("400")),
            ("/b".to_string(), app("800")),
            ("/c".to_string(), app("400 + Math.random() * 400")),
        ]),
        None,
    );
    let c = browser.connect().await;
    let r = call(&c, "browser_tabs", json!({"action": "open"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    for path in ["/a", "/b", "/c"] {
        let r = call(
            &c,
            "browser_navigate",
            json!({"action": "goto", "url": server.url(path)}),
        )
        .await;
        let t = text(&r);
        assert_ne!(r.is_error, Some(true), "{t}");
        assert!(
            t.contains("Add the blue kettle") && t.contains("Rendered catalogue"),
            "{path}: the answer shows the rendered app:\n{t}"
        );
        assert!(!t.contains("Loading"), "{path}:\n{t}");
    }
}
