//! An rmcp client over streamable HTTP, and the helpers tests read tool answers with.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
pub use rmcp::model::CallToolResult;
use rmcp::service::{ClientInitializeError, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

/// An initialised MCP client session.
pub type Client = RunningService<rmcp::RoleClient, ()>;

/// Initialises a session at `url`, presenting `token` as `Authorization: Bearer` when given.
pub async fn try_connect(url: &str, token: Option<&str>) -> Result<Client, ClientInitializeError> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(t) = token {
        config = config.auth_header(t.to_string());
    }
    ().serve(StreamableHttpClientTransport::from_config(config)).await
}

/// Initialises a session at `url` with the launch's bearer token; panics when refused.
pub async fn connect(url: &str, token: &str) -> Client {
    try_connect(url, Some(token))
        .await
        .unwrap_or_else(|e| panic!("MCP initialize at {url}: {e}"))
}

/// The longest any tool call may take in a test. Tools bound their own waits well below
/// this; a call that outlives it is talking to a browser that died (the client would otherwise
/// try to reconnect to it for ever, and the suite would hang instead of failing).
pub const CALL_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Calls `tool` with a JSON object of arguments; panics on a transport failure, or when no
/// answer came within [`CALL_LIMIT`] (a tool error is a normal answer, with `is_error` set).
pub async fn call(client: &Client, tool: &str, args: serde_json::Value) -> CallToolResult {
    let serde_json::Value::Object(args) = args else {
        panic!("{tool}: arguments must be a JSON object, got {args}")
    };
    let call = client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args));
    tokio::time::timeout(CALL_LIMIT, call)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{tool}: no answer within {} s (did the browser exit?)",
                CALL_LIMIT.as_secs()
            )
        })
        .unwrap_or_else(|e| panic!("{tool} call failed: {e}"))
}

/// Calls `tool` and gives whether it answered an error, and its text: what most tests check.
pub async fn tool(client: &Client, tool: &str, args: serde_json::Value) -> (bool, String) {
    let r = call(client, tool, args).await;
    (r.is_error == Some(true), text(&r))
}

/// Navigates the current tab to `url` (opening one when there is none) and gives the answer;
/// panics with it when the navigation failed.
pub async fn goto(client: &Client, url: &str) -> String {
    let (err, answer) = tool(
        client,
        "browser_navigate",
        serde_json::json!({"action": "goto", "url": url}),
    )
    .await;
    assert!(!err, "goto {url} failed:\n{answer}");
    answer
}

/// The tab id in an `opened tab N` answer (`browser_tabs open`, a batch's `tab_open`).
pub fn opened_tab(answer: &str) -> u64 {
    answer
        .split("opened tab ")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tab id in:\n{answer}"))
}

/// The text blocks of a result, joined by newlines.
pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with every envelope nonce blanked. A nonce is twelve random digits, so a check that
/// a number is absent from an answer must not look at it: one run in a hundred has "210" in it.
pub fn without_nonces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("nonce=") {
        let (head, tail) = rest.split_at(p + "nonce=".len());
        out.push_str(head);
        rest = tail.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    }
    out.push_str(rest);
    out
}

/// Whether `word` is a snapshot ref (`e` and digits, e.g. `e12`).
pub fn is_ref(word: &str) -> bool {
    word.len() > 1 && word.starts_with('e') && word[1..].bytes().all(|b| b.is_ascii_digit())
}

/// A snapshot's lines as elements: a sentence (`"Read the" [e4 link "docs"] "first."`) gives
/// its own line without its inline elements, then each inline element (`e4 link "docs"`).
/// Only the engine writes `[` outside quotes, so a bracket inside a quoted string is left alone.
pub fn element_lines(snapshot: &str) -> Vec<String> {
    let mut out = Vec::new();
    for l in snapshot.lines() {
        let (mut host, mut inner, mut cur) = (String::new(), Vec::new(), String::new());
        let (mut quoted, mut escaped, mut depth) = (false, false, 0);
        for c in l.chars() {
            let target = if depth > 0 { &mut cur } else { &mut host };
            if quoted {
                target.push(c);
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    quoted = false;
                }
                continue;
            }
            match c {
                '"' => {
                    quoted = true;
                    target.push(c);
                }
                '[' if depth == 0 => depth = 1,
                ']' if depth == 1 => {
                    depth = 0;
                    inner.push(std::mem::take(&mut cur));
                }
                _ => target.push(c),
            }
        }
        out.push(host);
        out.extend(inner);
    }
    out
}

/// The refs of every snapshot element (see [`element_lines`]) that contains `needle`, in
/// order (elements without a ref are skipped).
pub fn refs_for(snapshot: &str, needle: &str) -> Vec<String> {
    element_lines(snapshot)
        .iter()
        .filter(|l| l.contains(needle))
        .filter_map(|l| l.split_whitespace().find(|w| is_ref(w)).map(str::to_string))
        .collect()
}

/// The ref of the first snapshot line that contains `needle` and carries a ref; panics with
/// the snapshot when there is none.
pub fn ref_for(snapshot: &str, needle: &str) -> String {
    refs_for(snapshot, needle)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no ref on a line with {needle:?} in:\n{snapshot}"))
}

/// Like [`ref_for`], but only on lines that also name `role` (e.g. `button`, `textbox`): a list
/// item's text can repeat its button's name.
pub fn role_ref(snapshot: &str, role: &str, needle: &str) -> String {
    element_lines(snapshot)
        .iter()
        .filter(|l| l.contains(needle) && l.contains(role))
        .find_map(|l| l.split_whitespace().find(|w| is_ref(w)))
        .unwrap_or_else(|| panic!("no {role} line with {needle:?} and a ref in:\n{snapshot}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAP: &str = "\
- main e1
  - listitem e4 \"bread Remove bread\"
    - button e5 \"Remove bread\"
  - textbox e7 \"Email\" value=\"\"
  - heading \"Remove bread soon\"
  - button e9 \"Remove bread\"";

    #[test]
    fn refs_are_found_inside_sentences() {
        let snap = "  \"Read the\" [e4 link \"docs\"] \"or [e9 x]\" [e5 button \"Ask\"]\n  e6 link \"docs\"";
        assert_eq!(refs_for(snap, "docs"), ["e4", "e6"]);
        assert_eq!(ref_for(snap, "Ask"), "e5");
        assert_eq!(role_ref(snap, "button", "Ask"), "e5");
        // A bracket a page wrote inside quotes is text, not an element.
        assert!(refs_for(snap, "x]").is_empty());
    }

    #[test]
    fn refs_are_found_by_text_and_role() {
        assert!(is_ref("e12") && !is_ref("e") && !is_ref("email") && !is_ref("e1x"));
        assert_eq!(refs_for(SNAP, "Remove bread"), ["e4", "e5", "e9"]);
        assert_eq!(ref_for(SNAP, "Remove bread"), "e4");
        assert_eq!(role_ref(SNAP, "button", "Remove bread"), "e5");
        assert_eq!(role_ref(SNAP, "textbox", "Email"), "e7");
    }

    #[test]
    #[should_panic(expected = "no ref on a line with \"Checkout\"")]
    fn a_missing_ref_names_what_was_looked_for() {
        ref_for(SNAP, "Checkout");
    }
}
