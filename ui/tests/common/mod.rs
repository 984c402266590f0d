//! Real-Chromium helpers for the dark-mode tests: find a browser, decode its
//! PNG screenshots (via ImageMagick, to keep image crates out of the build),
//! and speak the DevTools protocol over `--remote-debugging-pipe`.
//!
//! Every test using this skips (and says so) when chromium or `convert` is
//! missing, so a machine without them still builds and passes.

#![allow(dead_code)] // each test binary uses a different subset

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// `$APERTURE_CHROMIUM`, else the first of the usual names on `PATH`.
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("APERTURE_CHROMIUM") {
        return Some(PathBuf::from(p)).filter(|p| p.exists());
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH")?
                .to_str()?
                .split(':')
                .map(|d| Path::new(d).join(name))
                .find(|p| p.exists())
        })
}

/// Whether ImageMagick's `convert` runs.
pub fn have_convert() -> bool {
    Command::new("convert")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Chromium plus `convert`, or a printed reason to skip. With
/// `APERTURE_UI_REQUIRE=1` (CI) a missing tool fails instead, so a broken
/// install can't pass as a skip.
pub fn tools() -> Option<PathBuf> {
    let skip = |why: &str| {
        assert!(
            std::env::var_os("APERTURE_UI_REQUIRE").is_none(),
            "APERTURE_UI_REQUIRE is set but {why}"
        );
        println!("skipped: {why}");
    };
    let Some(c) = chromium() else {
        skip("there is no chromium (install Debian's `chromium` or set APERTURE_CHROMIUM)");
        return None;
    };
    if !have_convert() {
        skip("there is no ImageMagick `convert` to decode screenshots");
        return None;
    }
    Some(c)
}

/// An RGB image.
pub struct Shot {
    /// Width.
    pub w: usize,
    /// Height.
    pub h: usize,
    /// Tightly packed RGB.
    pub rgb: Vec<u8>,
}

impl Shot {
    /// Pixel at (x, y).
    pub fn at(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.w + x) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// As BGRA, the layout CEF paints and `mean_luminance` takes.
    pub fn bgra(&self) -> Vec<u8> {
        self.rgb
            .chunks_exact(3)
            .flat_map(|p| [p[2], p[1], p[0], 255])
            .collect()
    }
}

/// Decode a PNG file through `convert`.
pub fn decode_png(png: &Path) -> Shot {
    let out = Command::new("convert")
        .arg(png)
        .args(["-depth", "8", "ppm:-"])
        .output()
        .expect("run convert");
    assert!(
        out.status.success(),
        "convert failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ppm = out.stdout;
    // P6 <w> <h> 255 <data>, whitespace-separated header.
    let mut fields = Vec::new();
    let mut pos = 0;
    while fields.len() < 4 {
        while ppm[pos].is_ascii_whitespace() {
            pos += 1;
        }
        let start = pos;
        while !ppm[pos].is_ascii_whitespace() {
            pos += 1;
        }
        fields.push(String::from_utf8_lossy(&ppm[start..pos]).into_owned());
    }
    Shot {
        w: fields[1].parse().unwrap(),
        h: fields[2].parse().unwrap(),
        rgb: ppm[pos + 1..].to_vec(),
    }
}

/// Perceived lightness of one pixel, 0..1 (same weights as `mean_luminance`).
pub fn lum(p: [u8; 3]) -> f32 {
    (0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32) / 255.0
}

/// Standard base64 (as `Page.captureScreenshot` returns it).
pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("bad base64 byte {c}"),
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, b) in chunk.iter().enumerate() {
            acc |= (val(*b) as u32) << (18 - 6 * i);
        }
        let n = chunk.len() - 1;
        out.extend_from_slice(&acc.to_be_bytes()[1..1 + n]);
    }
    out
}

/// A headless Chromium driven over `--remote-debugging-pipe` (fd 3 in,
/// fd 4 out, NUL-terminated JSON), with one page target attached.
pub struct Browser {
    child: Child,
    to_browser: std::io::PipeWriter,
    from_browser: mpsc::Receiver<Value>,
    next_id: u64,
    session: String,
    /// Events seen while waiting for responses.
    pub events: Vec<Value>,
}

impl Browser {
    /// Launch and attach to a fresh `about:blank` page of `w`×`h` CSS px.
    pub fn launch(chromium: &Path, w: u32, h: u32) -> Browser {
        let (browser_in, to_browser) = std::io::pipe().unwrap();
        let (from_browser_pipe, browser_out) = std::io::pipe().unwrap();
        // Chromium wants the pipe on fds 3 and 4. Instead of dup2 in a pre_exec hook (which
        // safe Rust cannot write), hand the pipe ends over as stdin/stdout of a shell that
        // moves them to 3 and 4 and then execs chromium with /dev/null as stdin/stdout,
        // which is what it had before.
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(r#"exec "$@" 3<&0 4>&1 </dev/null >/dev/null"#)
            .arg("sh")
            .arg(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                "--no-first-run",
                "--mute-audio",
            ])
            .arg(format!("--window-size={w},{h}"))
            .stdin(browser_in)
            .stdout(browser_out)
            .stderr(Stdio::null());
        // `cmd` still holds our copies of chromium's pipe ends; dropping it closes them, so
        // reading sees EOF when chromium exits.
        let child = cmd.spawn().expect("spawn chromium");
        drop(cmd);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(from_browser_pipe);
            let mut buf = Vec::new();
            while r.read_until(0, &mut buf).is_ok_and(|n| n > 0) {
                buf.pop_if(|b| *b == 0);
                if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                    && tx.send(v).is_err()
                {
                    break;
                }
                buf.clear();
            }
        });
        let mut b = Browser {
            child,
            to_browser,
            from_browser: rx,
            next_id: 0,
            session: String::new(),
            events: Vec::new(),
        };
        let target = b.call_browser("Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = target["targetId"].as_str().expect("targetId").to_string();
        let attached = b.call_browser(
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        );
        b.session = attached["sessionId"].as_str().expect("sessionId").to_string();
        b.call("Page.enable", json!({}));
        // Corpus pages reference their original sites; there is no network
        // here, so fail those requests at once instead of waiting on them.
        b.call("Network.enable", json!({}));
        b.call(
            "Network.setBlockedURLs",
            json!({ "urls": ["http://*", "https://*"] }),
        );
        b
    }

    fn send(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.to_browser.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self
                .from_browser
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} within 30 s"));
            if v["id"].as_u64() == Some(id) {
                if let Some(e) = v.get("error") {
                    panic!("{method} failed: {e}");
                }
                return v["result"].clone();
            }
            self.events.push(v);
        }
    }

    fn call_browser(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
    }

    /// Call a method on the attached page.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let s = self.session.clone();
        self.send(method, params, Some(&s))
    }

    /// Navigate and wait for the load event (max 20 s; pages whose
    /// subresources can't load offline still fire it).
    pub fn navigate(&mut self, url: &str) {
        self.events.clear();
        self.call("Page.navigate", json!({ "url": url }));
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.events.iter().any(|e| e["method"] == "Page.loadEventFired") {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from_browser.recv_timeout(left) {
                Ok(v) => self.events.push(v),
                Err(_) => panic!("{url} did not load within 20 s"),
            }
        }
    }

    /// Screenshot of the viewport, decoded.
    pub fn screenshot(&mut self, dir: &Path, name: &str) -> Shot {
        // A rendering round-trip first so style changes made just before are
        // painted (rAF fires after the next frame is produced).
        self.call(
            "Runtime.evaluate",
            json!({ "expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", "awaitPromise": true }),
        );
        let r = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let png = dir.join(format!("{name}.png"));
        std::fs::write(&png, base64_decode(r["data"].as_str().expect("png data"))).unwrap();
        decode_png(&png)
    }

    /// Evaluate JavaScript in the page.
    pub fn eval(&mut self, js: &str) -> Value {
        self.call(
            "Runtime.evaluate",
            json!({ "expression": js, "returnByValue": true }),
        )
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where to keep screenshots: `$APERTURE_DARK_SHOTS` if set (for a human to
/// look at), else a temp dir that lives as long as the returned guard.
pub fn shot_dir() -> (Option<tempfile::TempDir>, PathBuf) {
    match std::env::var_os("APERTURE_DARK_SHOTS") {
        Some(p) => {
            std::fs::create_dir_all(&p).unwrap();
            (None, PathBuf::from(p))
        }
        None => {
            let t = tempfile::tempdir().unwrap();
            let p = t.path().to_path_buf();
            (Some(t), p)
        }
    }
}
