//! A tab playing sound, in the real window under X with real clicks: the page's `<audio>`
//! starts on a click, and the agent's tab list says "playing sound" while the tab strip shows
//! the speaker mark; clicking the mark mutes the tab (Chromium's own mute) and clicking it again
//! unmutes it. Pausing clears the mark, and so does the page removing the element while it
//! plays (no media event reaches the page's window then).

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::TabId;
use aperture_ui::chrome::tab_mute_control;
use aperture_ui::egui::pos2;
use std::collections::HashMap;
use window::{Layout, tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Radio</title></head>
<body style="margin:0;background:#fff">
<audio id="a" src="/tone.wav" loop></audio>
<button onclick="document.getElementById('a').play()" style="position:absolute;left:40px;top:40px;width:300px;height:200px;border:0;background:rgb(230,20,140)">play</button>
<button onclick="document.getElementById('a').pause()" style="position:absolute;left:400px;top:40px;width:200px;height:200px;border:0;background:rgb(20,160,230)">pause</button>
<button onclick="document.getElementById('a').remove()" style="position:absolute;left:650px;top:40px;width:200px;height:200px;border:0;background:rgb(40,200,60)">remove</button>
</body></html>"#;

/// Two seconds of a 440 Hz tone: 16-bit mono PCM at 8 kHz.
fn tone() -> Vec<u8> {
    let rate = 8000u32;
    let samples: Vec<i16> = (0..rate * 2)
        .map(|i| ((i as f32 * 440.0 * std::f32::consts::TAU / rate as f32).sin() * 12000.0) as i16)
        .collect();
    let data = samples.len() as u32 * 2;
    let mut w = Vec::new();
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&rate.to_le_bytes());
    w.extend_from_slice(&(rate * 2).to_le_bytes());
    w.extend_from_slice(&2u16.to_le_bytes());
    w.extend_from_slice(&16u16.to_le_bytes());
    w.extend_from_slice(b"data");
    w.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        w.extend_from_slice(&s.to_le_bytes());
    }
    w
}

fn line_has(list: &str, flag: &str) -> bool {
    tab_lines(list).first().is_some_and(|l| l.contains(flag))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_playing_sound_shows_a_speaker_that_mutes_it() {
    if !window::can_run("audible") {
        return;
    }
    let server = Server::spawn(aperture_testkit::Spec {
        routes: HashMap::from([("/".to_string(), PAGE.to_string())]),
        typed: HashMap::from([("/tone.wav".to_string(), ("audio/wav".to_string(), tone()))]),
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, size) = window::start_showing(&url, dir.path(), MAGENTA).await;
    let list = tabs_until(&c, "one tab", |t| tab_lines(t).len() == 1).await;
    assert!(!list.contains("playing sound"), "silent before the click: {list}");
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    let at = |x: f32| pos2(page.min.x + x, page.min.y + 140.0);
    let mut sounding = Layout::one_tab(&url);
    sounding.tabs[0].audible = true;
    let mark = Layout::new(size, sounding)
        .chrome
        .control_rect(&tab_mute_control(TabId(1)))
        .expect("a speaker mark on the tab playing sound")
        .center();

    // A real click plays the tone: the tab says so, and shows its speaker.
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, at(150.0), 1);
    tabs_until(&c, "the tab to play sound", |t| line_has(t, "playing sound")).await;
    window::keep(&window::capture(&w), "audible-playing");

    // The speaker mutes it (Chromium's mute: the tone plays on, unheard) and then unmutes it.
    window::click(&w, mark, 1);
    let list = tabs_until(&c, "the tab to be muted", |t| line_has(t, "muted")).await;
    assert!(line_has(&list, "playing sound"), "{list}");
    window::keep(&window::capture(&w), "audible-muted");
    window::click(&w, mark, 1);
    tabs_until(&c, "the tab to be unmuted", |t| {
        !line_has(t, "muted") && line_has(t, "playing sound")
    })
    .await;

    // Pausing silences it.
    window::click(&w, at(500.0), 1);
    tabs_until(&c, "the mark to go on pause", |t| !line_has(t, "playing sound")).await;

    // Playing again, then the page removes the element: Chromium pauses it, with no event the
    // page's window sees, and the mark goes all the same.
    window::click(&w, at(150.0), 1);
    tabs_until(&c, "the tab to play again", |t| line_has(t, "playing sound")).await;
    window::click(&w, at(750.0), 1);
    tabs_until(&c, "the mark to go with the element", |t| {
        !line_has(t, "playing sound")
    })
    .await;
}

/// Web Audio sounds too: a synthesiser's context started by a click marks the tab "playing
/// sound", suspending it clears the mark, resuming brings it back, closing clears it. The
/// real browser, headless, through MCP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_web_audio_context_is_sound_too() {
    use aperture_testkit::mcp::{role_ref, tool};
    const SYNTH: &str = r#"<!doctype html><html><head><title>Synth</title></head><body>
<button onclick="window.ctx = new AudioContext(); const o = ctx.createOscillator(), g = ctx.createGain(); g.gain.value = 0.01; o.connect(g).connect(ctx.destination); o.start();">Beep</button>
<button onclick="ctx.suspend()">Hush</button>
<button onclick="ctx.resume()">Again</button>
<button onclick="ctx.close()">Close</button>
</body></html>"#;
    let server = Server::page(SYNTH);
    let b = aperture_testkit::Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .start()
        .await;
    let c = b.connect().await;
    let snap = aperture_testkit::mcp::goto(&c, &server.url("/")).await;
    let list = tabs_until(&c, "the tab listed", |t| t.contains("tab ")).await;
    assert!(!list.contains("playing sound"), "silent before the click: {list}");
    for (button, sounding) in [("Beep", true), ("Hush", false), ("Again", true), ("Close", false)] {
        let r = role_ref(&snap, "button", button);
        let (err, t) = tool(
            &c,
            "browser_act",
            serde_json::json!({"action": "click", "ref": r}),
        )
        .await;
        assert!(!err, "{t}");
        tabs_until(&c, &format!("after {button}"), |t| {
            // Any tab: headless opens the human's first tab asynchronously after MCP is up, so
            // the agent may be given it or a tab of its own, listed first or not.
            t.contains("playing sound") == sounding
        })
        .await;
    }
}

/// A player with the browser's controls is listed with its state, and a click on it is a press
/// of its play button: the tone plays (the tab says so), and a second click pauses it where it
/// was. The real browser, headless, through MCP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_with_controls_is_listed_and_a_click_plays_it() {
    use aperture_testkit::mcp::{role_ref, tool};
    const PLAYER: &str = r#"<!doctype html><html><head><title>Player</title></head><body>
<h1>Episode 1</h1><audio controls loop src="/tone.wav" style="width:300px"></audio>
</body></html>"#;
    let server = Server::spawn(aperture_testkit::Spec {
        routes: HashMap::from([("/".to_string(), PLAYER.to_string())]),
        typed: HashMap::from([("/tone.wav".to_string(), ("audio/wav".to_string(), tone()))]),
        ..Default::default()
    });
    let b = aperture_testkit::Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .start()
        .await;
    let c = b.connect().await;
    let snap = aperture_testkit::mcp::goto(&c, &server.url("/")).await;
    // The tone is two seconds long; its length arrives with its metadata.
    let mut snap = snap;
    for _ in 0..20 {
        if snap.contains("audio value=\"paused at 0:00 of 0:02\"") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        snap = tool(&c, "browser_snapshot", serde_json::json!({"full": true}))
            .await
            .1;
    }
    assert!(snap.contains("audio value=\"paused at 0:00 of 0:02\""), "{snap}");
    let player = role_ref(&snap, "audio", "");

    // Each click presses play or pause; the answer's diff says which it is now.
    for (now, sounding) in [("playing (0:02)", true), ("paused at 0:0", false)] {
        let (err, t) = tool(
            &c,
            "browser_act",
            serde_json::json!({"action": "click", "ref": player}),
        )
        .await;
        assert!(!err, "{t}");
        assert!(t.contains(&format!("audio value=\"{now}")), "{t}");
        tabs_until(&c, "the player's mark", |t| {
            t.contains("playing sound") == sounding
        })
        .await;
    }
}
