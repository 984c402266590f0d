//! rmcp client helpers shared by the tests that drive the browser over MCP.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

pub type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// Initializes an MCP session over streamable HTTP with the launch's bearer token.
pub async fn connect(url: &str, token: &str) -> Client {
    let t = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token.to_string()),
    );
    ().serve(t).await.expect("initialize")
}

/// Calls a tool with a JSON object of arguments.
pub async fn call(c: &Client, tool: &str, args: serde_json::Value) -> CallToolResult {
    let serde_json::Value::Object(args) = args else {
        unreachable!()
    };
    c.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .expect("tools/call")
}

/// The text blocks of a result, joined.
pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ref on the snapshot line of the button whose line mentions `needle`.
pub fn ref_for(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle) && l.contains("button"))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{snapshot}"));
    line.split_whitespace()
        .find(|w| w.len() > 1 && w.starts_with('e') && w[1..].bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no ref on {line:?}"))
        .to_string()
}
