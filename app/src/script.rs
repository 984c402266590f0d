//! `--script`: a JSON-lines control channel over the `Tab` seam, for people debugging and for
//! the integration tests. One command per line in, one JSON answer per line out:
//!
//! ```text
//! {"cmd":"open","url":"http://127.0.0.1:8000/"}      -> {"ok":true,"tab":1,"status":200,...}
//! {"cmd":"navigate","tab":1,"url":"…"}               {"cmd":"walk","tab":1}
//! {"cmd":"click","tab":1,"x":10,"y":20}              {"cmd":"move","tab":1,"x":..,"y":..}
//! {"cmd":"key","tab":1,"key":"Enter"}                {"cmd":"type","tab":1,"text":"hi"}
//! {"cmd":"devtools","tab":1,"method":"…","params":{}} {"cmd":"screenshot","tab":1,"path":"…"}
//! {"cmd":"luma","tab":1}                             {"cmd":"text","tab":1}
//! {"cmd":"element","tab":1,"walk_id":3,"idx":7,"do":"rect"}
//! {"cmd":"tabs"}  {"cmd":"close","tab":1}  {"cmd":"quit"}
//! ```

use crate::browser::Handle;
use crate::privacy::{BlockFilter, Containers};
use crate::tab::{self, Button, Tab, TabOptions};
use anyhow::Result;
use aperture_mcp::backend::TabId;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, BufReader};

/// What the script's commands reach.
pub struct Ctx {
    pub h: Handle,
    pub opts: TabOptions,
    pub containers: Containers,
    pub blocker: Option<Arc<BlockFilter>>,
}

pub async fn run(src: &str, ctx: Ctx) -> Result<i32> {
    let input: Box<dyn tokio::io::AsyncRead + Unpin + Send> = if src == "-" {
        Box::new(tokio::io::stdin())
    } else {
        Box::new(tokio::fs::File::open(src).await?)
    };
    let mut lines = BufReader::new(input).lines();
    println!("{}", json!({"ready": true, "pid": std::process::id()}));
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(cmd) => {
                if cmd["cmd"] == "quit" {
                    println!("{}", json!({"ok": true}));
                    break;
                }
                match one(&cmd, &ctx).await {
                    Ok(v) => v,
                    Err(e) => json!({"error": e.to_string()}),
                }
            }
            Err(e) => json!({"error": format!("not JSON: {e}")}),
        };
        println!("{answer}");
    }
    Ok(0)
}

fn f32_of(v: &Value, k: &str) -> Result<f32> {
    v[k].as_f64()
        .map(|x| x as f32)
        .ok_or_else(|| anyhow::anyhow!("missing number {k:?}"))
}

async fn one(cmd: &Value, ctx: &Ctx) -> Result<Value> {
    let t = Tab::new(&ctx.h, TabId(cmd["tab"].as_u64().unwrap_or(0)));
    let s = |k: &str| {
        cmd[k]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| anyhow::anyhow!("missing string {k:?}"))
    };
    Ok(match cmd["cmd"].as_str().unwrap_or_default() {
        "open" => {
            let mut opts = ctx.opts.clone();
            if let Some(c) = cmd["container"].as_str() {
                let (rc, name) = ctx
                    .containers
                    .context(c, true)
                    .await
                    .map_err(anyhow::Error::msg)?;
                opts.context = Some(rc);
                opts.meta.container = name;
            }
            let (t, o) = tab::open(&ctx.h, &s("url")?, opts).await?;
            json!({"ok": true, "tab": t.id.0, "url": o.url, "status": o.status})
        }
        "navigate" => {
            let o = t.navigate(&s("url")?).await?;
            json!({"ok": true, "url": o.url, "status": o.status})
        }
        "walk" => json!({"ok": true, "walk": t.walk().await?}),
        "request" => {
            let req: aperture_engine::protocol::Request = serde_json::from_value(cmd["request"].clone())
                .map_err(|e| anyhow::anyhow!("bad walker request: {e}"))?;
            json!({"ok": true, "answer": t.request(&req).await?})
        }
        "text" => {
            json!({"ok": true, "text": t.page_text(cmd["cap"].as_u64().unwrap_or(20000) as usize).await?.0})
        }
        "element" => {
            let mut op = cmd.clone();
            for k in ["cmd", "tab", "walk_id", "idx"] {
                op.as_object_mut().map(|o| o.remove(k));
            }
            let op: aperture_engine::protocol::ElementOp =
                serde_json::from_value(op).map_err(|e| anyhow::anyhow!("bad element op: {e}"))?;
            let r = t
                .element(
                    cmd["walk_id"].as_u64().unwrap_or(0),
                    cmd["idx"].as_u64().unwrap_or(0) as u32,
                    op,
                )
                .await?;
            json!({"ok": true, "result": r})
        }
        "click" => {
            t.click_at(f32_of(cmd, "x")?, f32_of(cmd, "y")?, Button::Left, 1)
                .await?;
            json!({"ok": true})
        }
        "move" => {
            t.move_to(f32_of(cmd, "x")?, f32_of(cmd, "y")?).await?;
            json!({"ok": true})
        }
        "scroll" => {
            t.scroll(
                f32_of(cmd, "x")?,
                f32_of(cmd, "y")?,
                0,
                cmd["dy"].as_i64().unwrap_or(-300) as i32,
            )
            .await?;
            json!({"ok": true})
        }
        "key" => {
            t.key(&s("key")?).await?;
            json!({"ok": true})
        }
        "type" => {
            t.type_text(&s("text")?).await?;
            json!({"ok": true})
        }
        "devtools" => {
            json!({"ok": true, "result": t.devtools(&s("method")?, cmd["params"].clone()).await?})
        }
        "screenshot" => {
            let (png, w, h) = t
                .screenshot(cmd["max_edge"].as_u64().map(|m| m as u32), None)
                .await?;
            let path = s("path")?;
            std::fs::write(&path, png)?;
            json!({"ok": true, "path": path, "w": w, "h": h})
        }
        "luma" => {
            let f = t.frame().await?;
            json!({"ok": true, "luma": crate::imaging::mean_luma(&f), "w": f.w, "h": f.h})
        }
        "blocked" => json!({"ok": true, "blocked": ctx.blocker.as_ref().map_or(0, |b| b.blocked(t.id))}),
        "renderer_pid" => json!({"ok": true, "pid": t.renderer_pid().await?}),
        "console" => json!({"ok": true, "entries": t.drain_console().await?}),
        "tabs" => {
            let tabs = tab::list(&ctx.h).await?;
            json!({"ok": true, "tabs": tabs.iter().map(|t| json!({"id": t.id.0, "url": t.url, "title": t.title})).collect::<Vec<_>>()})
        }
        "close" => {
            t.close().await?;
            json!({"ok": true})
        }
        "sleep" => {
            tokio::time::sleep(std::time::Duration::from_millis(
                cmd["ms"].as_u64().unwrap_or(100),
            ))
            .await;
            json!({"ok": true})
        }
        other => anyhow::bail!("unknown command {other:?}"),
    })
}
