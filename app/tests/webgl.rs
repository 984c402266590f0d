//! WebGL is off by default (no GL in the GPU process, which then enters its sandbox; see
//! SECURITY.md and app/tests/sandbox.rs) and on with `--webgl`.

#![forbid(unsafe_code)]

use aperture_testkit::mcp::{call, text};
use aperture_testkit::{Launch, Server, eventually};
use serde_json::json;

const PROBE: &str = r#"<!doctype html><html><head><title>probe</title></head><body><script>
const gl = document.createElement("canvas").getContext("webgl");
document.title = "webgl " + (gl ? "yes" : "no");
</script></body></html>"#;

async fn webgl(flag: bool) -> String {
    let server = Server::page(PROBE);
    let mut launch = Launch::new(env!("CARGO_BIN_EXE_aperture"));
    if flag {
        launch = launch.arg("--webgl");
    }
    let b = launch.start().await;
    let c = b.connect().await;
    call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/")}),
    )
    .await;
    let (_, l) = eventually(
        std::time::Duration::from_secs(30),
        "the probe's title",
        async || {
            let t = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
            let l = t.lines().find(|l| l.contains("webgl ")).map(str::to_string);
            (l.is_some(), (t, l))
        },
    )
    .await;
    l.unwrap().trim_matches('"').to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webgl_is_off_by_default_and_on_with_the_flag() {
    assert_eq!(webgl(false).await, "webgl no");
    assert_eq!(webgl(true).await, "webgl yes");
}
