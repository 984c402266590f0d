//! One agent backend for both modes: the same MCP script against the headless browser and
//! the windowed browser (under Xvfb) gets the same answers, apart from per-call nonces.

use aperture_testkit::mcp::{call, role_ref, text};
use aperture_testkit::{Launch, Server};
use serde_json::json;

const PAGE: &str = r#"<!doctype html><html><head><title>Parity</title></head><body>
<h1>Notes</h1>
<label>New note <input id="n"></label> <button id="add">Add</button>
<select id="k" aria-label="Kind">
  <option>Plain</option>
  <option value="todo">To do</option>
</select>
<ul id="list"><li>first</li></ul>
<p id="count">1 note</p>
<script>
document.getElementById("add").onclick = () => {
  const li = document.createElement("li");
  li.textContent = document.getElementById("n").value || "(empty)";
  document.getElementById("list").appendChild(li);
  const n = document.getElementById("list").children.length;
  document.getElementById("count").textContent = n + " notes";
};
</script></body></html>"#;

/// Replaces what differs by design between two runs: the envelope's per-call nonces (every
/// occurrence of a value introduced by `nonce=`) and the fixture server's port.
fn normalise(s: &str, port: u16) -> String {
    let mut out = s.replace(&format!(":{port}"), ":PORT");
    let nonces: Vec<String> = s
        .match_indices("nonce=")
        .map(|(i, m)| {
            s[i + m.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect()
        })
        .filter(|n: &String| !n.is_empty())
        .collect();
    for n in nonces {
        out = out.replace(&n, "NONCE");
    }
    out
}

/// Runs the script and returns every answer, normalised.
async fn script(windowed: bool) -> Vec<(String, String)> {
    let server = Server::page(PAGE);
    let url = server.url("/");
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut launch = Launch::new(env!("CARGO_BIN_EXE_aperture")).args(["--size", "1000x700"]);
    if windowed {
        launch = launch.windowed();
    }
    let b = launch.start().await;
    let c = b.connect().await;
    // The human's first tab opens in its container as the browser starts; wait for it, so
    // the agent's tab is the second in both modes.
    aperture_testkit::eventually(
        std::time::Duration::from_secs(30),
        "the human's first tab",
        async || {
            let list = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
            (list.contains("tab 1"), list)
        },
    )
    .await;
    let mut answers = Vec::new();
    let mut step = |name: &str, r: &aperture_testkit::mcp::CallToolResult| {
        let t = text(r);
        answers.push((name.to_string(), normalise(&t, port)));
        t
    };
    step("open", &call(&c, "browser_tabs", json!({"action": "open"})).await);
    let snap = step(
        "goto",
        &call(&c, "browser_navigate", json!({"action": "goto", "url": url})).await,
    );
    let field = role_ref(&snap, "textbox", "New note");
    let add = role_ref(&snap, "button", "Add");
    let kind = role_ref(&snap, "combobox", "Kind");
    step(
        "type",
        &call(
            &c,
            "browser_act",
            json!({"action": "type", "ref": field, "text": "milk"}),
        )
        .await,
    );
    step(
        "click",
        &call(&c, "browser_act", json!({"action": "click", "ref": add})).await,
    );
    step(
        "select",
        &call(
            &c,
            "browser_act",
            json!({"action": "select", "ref": kind, "values": ["To do"]}),
        )
        .await,
    );
    step("snapshot", &call(&c, "browser_snapshot", json!({})).await);
    step("read", &call(&c, "browser_read", json!({})).await);
    step(
        "theme-get",
        &call(&c, "browser_theme", json!({"action": "get"})).await,
    );
    step(
        "theme-set",
        &call(&c, "browser_theme", json!({"action": "set", "mode": "off"})).await,
    );
    step(
        "theme-again",
        &call(&c, "browser_theme", json!({"action": "get"})).await,
    );
    step(
        "back",
        &call(&c, "browser_navigate", json!({"action": "back"})).await,
    );
    step("tabs", &call(&c, "browser_tabs", json!({"action": "list"})).await);
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_and_windowed_answer_the_same_script_alike() {
    if std::env::var_os("DISPLAY").is_none() {
        assert!(
            std::env::var("APERTURE_UI_REQUIRE").as_deref() != Ok("1"),
            "DISPLAY is unset, and APERTURE_UI_REQUIRE=1"
        );
        eprintln!("skipped: DISPLAY is unset (the windowed half needs an X server)");
        return;
    }
    let headless = script(false).await;
    let windowed = script(true).await;
    assert_eq!(headless.len(), windowed.len());
    for ((name, h), (_, w)) in headless.iter().zip(&windowed) {
        assert_eq!(
            h, w,
            "step {name} differs\n--- headless ---\n{h}\n--- windowed ---\n{w}"
        );
    }
    // The script did something: the click landed (in both, as they are equal).
    let click = &headless.iter().find(|(n, _)| n == "click").unwrap().1;
    assert!(click.contains("2 notes"), "{click}");
}
