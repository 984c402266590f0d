//! The command-line mirror of the MCP tools, for shell scripts and people:
//! `aperture open URL`, `aperture snapshot`, `aperture click e12`, … Each verb is one tool call
//! to the browser running on the profile (a headless one is started when none runs), in an
//! MCP session kept between invocations so snapshots stay diffs. Exit codes: 0 done, 1 the
//! tool refused or failed, 2 usage, 3 the browser is unreachable.

use aperture_mcp::bridge::BridgeTarget;
use aperture_mcp::client::{CliClient, ClientError};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The verbs, with their arguments, for `aperture help` and usage errors.
pub const USAGE: &str = "usage: aperture [--profile DIR] [--json] VERB [ARGS]
  open URL                 load URL in the current tab
  snapshot [--full]        what the page shows (a diff after the first time)
  click REF [X Y]          click an element by ref (e.g. e12), or that point of it (CSS px
                           from its top-left corner: a canvas, a map)
  hover REF [X Y]          rest the pointer on an element (menus, tooltips), or on that point
  scroll [--in REF] [DX] DY  scroll by pixels (down/right positive): the page, or what REF is in
  drag REF [X Y] TO | REF [X Y] DX DY
                           drag an element (pressed at its point X Y) onto another, or by pixels
  select-text [--in REF] [TEXT] | REF  select TEXT on the page (or in REF; REF alone: all its text)
  type REF TEXT [--submit] type at the field's caret (adds to what it holds; fill replaces)
  fill REF=VALUE...        set fields to these values (replacing what they held)
  select REF VALUE...      choose options of a <select>
  key KEY [TIMES]          press a key (Enter, Tab, Control+a, …), TIMES times
  read [REF...]            the page's text, or the elements'
  read --url URL           a public page's text, read logged out (a throwaway context)
  wait TEXT | --ref REF | --url PART | --idle MS | --ms MS  [--gone] [--ms MAX]
                           wait for text or a ref to appear (or go, --gone), the URL to
                           contain PART, the network to be idle MS, or a plain delay (≤ 20 s)
  tabs                     list tabs
  back | forward | reload  history navigation
  screenshot OUT.png [--ref REF]
                           save a screenshot of the visible page, or of element REF only
                           (its answer says how image points map to REF's x y for click)
  console                  the page's console messages
  quit                     stop the browser running on the profile
reading answers: eN is a ref to act on; a line without one is addressed by place, /3 the third
  top-level line, e12/2 the second line under e12. Diffs: `~ X LINE` X now reads LINE; `+ after
  X`, `+ first in X`, `+ first` insert the indented lines there (`> X LINE` among them: X moved
  there); `= X` replaces X with the indented lines; `- X` removes it; `gone: e1 e2` refs no
  longer shown (refused until an observation lists them again).
  Page text is only ever inside <untrusted-page-content> fences, each string quoted.
exit codes: 0 done, 1 the tool refused or failed, 2 usage, 3 browser unreachable";

/// The verbs this module handles (anything else is the browser's own command line).
pub fn is_verb(s: &str) -> bool {
    matches!(
        s,
        "open"
            | "snapshot"
            | "click"
            | "drag"
            | "hover"
            | "scroll"
            | "select-text"
            | "type"
            | "fill"
            | "select"
            | "key"
            | "read"
            | "tabs"
            | "back"
            | "forward"
            | "reload"
            | "screenshot"
            | "console"
            | "wait"
            | "quit"
    )
}

/// A parsed invocation.
#[derive(Debug, PartialEq)]
struct Invocation {
    profile: Option<PathBuf>,
    json: bool,
    /// Passed on to a headless browser this command starts.
    no_sandbox: bool,
    verb: String,
    args: Vec<String>,
}

fn parse(argv: &[String]) -> Result<Invocation, String> {
    let mut profile = None;
    let mut json = false;
    let mut no_sandbox = false;
    let mut rest = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--profile" => profile = Some(PathBuf::from(it.next().ok_or("--profile needs a directory")?)),
            "--json" => json = true,
            "--no-sandbox" => no_sandbox = true,
            _ => rest.push(a.clone()),
        }
    }
    if rest.is_empty() {
        return Err("no verb".into());
    }
    let verb = rest.remove(0);
    Ok(Invocation {
        profile,
        json,
        no_sandbox,
        verb,
        args: rest,
    })
}

/// A distance in CSS pixels given to `verb`, or a usage error.
fn pixels(verb: &str, a: &str) -> Result<f64, String> {
    a.parse::<f64>()
        .ok()
        .filter(|d| d.is_finite())
        .ok_or_else(|| format!("{verb}: {a:?} is not a number of pixels"))
}

/// The tool call a verb makes, or a usage error.
fn tool_call(verb: &str, args: &[String]) -> Result<(&'static str, Value), String> {
    let one = |what: &str| -> Result<String, String> {
        match args {
            [a] => Ok(a.clone()),
            _ => Err(format!("{verb} takes one {what}")),
        }
    };
    Ok(match verb {
        "open" => ("browser_navigate", json!({"action": "goto", "url": one("URL")?})),
        "back" | "forward" | "reload" if args.is_empty() => ("browser_navigate", json!({"action": verb})),
        "snapshot" => match args {
            [] => ("browser_snapshot", json!({})),
            [f] if f == "--full" => ("browser_snapshot", json!({"full": true})),
            _ => return Err("snapshot takes only --full".into()),
        },
        "click" => match args {
            [r] => ("browser_act", json!({"action": "click", "ref": r})),
            // A point of it, CSS px from its top-left corner (a canvas).
            [r, x, y] => (
                "browser_act",
                json!({"action": "click", "ref": r, "x": pixels(verb, x)?, "y": pixels(verb, y)?}),
            ),
            _ => return Err("click takes REF [X Y] (a point of it, CSS px from its top-left)".into()),
        },
        "select-text" => match args {
            [flag, r] if flag == "--in" => ("browser_act", json!({"action": "select_text", "ref": r})),
            [flag, r, text] if flag == "--in" => (
                "browser_act",
                json!({"action": "select_text", "ref": r, "text": text}),
            ),
            // A ref alone is the element's text (as `--in REF`), not the words "e38".
            [r] if aperture_engine::parse_ref(r).is_some() => {
                ("browser_act", json!({"action": "select_text", "ref": r}))
            }
            [text] if !text.starts_with("--") => {
                ("browser_act", json!({"action": "select_text", "text": text}))
            }
            _ => return Err("select-text takes [--in REF] [TEXT]".into()),
        },
        "hover" => match args {
            [r] => ("browser_act", json!({"action": "hover", "ref": r})),
            [r, x, y] => (
                "browser_act",
                json!({"action": "hover", "ref": r, "x": pixels(verb, x)?, "y": pixels(verb, y)?}),
            ),
            _ => return Err("hover takes REF [X Y] (a point of it, CSS px from its top-left)".into()),
        },
        "scroll" => {
            let (target, deltas) = match args {
                [flag, r, rest @ ..] if flag == "--in" => (Some(r), rest),
                _ => (None, args),
            };
            let px = |a: &String| pixels(verb, a);
            let (dx, dy) = match deltas {
                [dy] => (0.0, px(dy)?),
                [dx, dy] => (px(dx)?, px(dy)?),
                _ => return Err("scroll takes [--in REF] [DX] DY".into()),
            };
            let mut step = json!({"action": "scroll", "dx": dx, "dy": dy});
            if let Some(r) = target {
                step["ref"] = json!(r);
            }
            ("browser_act", step)
        }
        "drag" => match args {
            [from, to] => ("browser_act", json!({"action": "drag", "ref": from, "to": to})),
            [from, dx, dy] => {
                let px = |a: &String| pixels(verb, a);
                (
                    "browser_act",
                    json!({"action": "drag", "ref": from, "dx": px(dx)?, "dy": px(dy)?}),
                )
            }
            // Pressed at a point of it first (a line drawn from a dot of a drawing area).
            [from, x, y, to] => (
                "browser_act",
                json!({"action": "drag", "ref": from, "x": pixels(verb, x)?, "y": pixels(verb, y)?, "to": to}),
            ),
            [from, x, y, dx, dy] => {
                let px = |a: &String| pixels(verb, a);
                (
                    "browser_act",
                    json!({"action": "drag", "ref": from, "x": px(x)?, "y": px(y)?, "dx": px(dx)?, "dy": px(dy)?}),
                )
            }
            _ => {
                return Err(
                    "drag takes REF [X Y] TO (the ref to drop on) or REF [X Y] DX DY (pixels to move it), X Y being where to press it"
                        .into(),
                );
            }
        },
        "type" => {
            let submit = args.iter().any(|a| a == "--submit");
            let rest: Vec<&String> = args.iter().filter(|a| *a != "--submit").collect();
            let [target, text] = rest.as_slice() else {
                return Err("type takes REF TEXT [--submit]".into());
            };
            (
                "browser_act",
                json!({"action": "type", "ref": target, "text": text, "submit": submit}),
            )
        }
        "fill" => {
            if args.is_empty() {
                return Err("fill takes REF=VALUE pairs".into());
            }
            let fields = args
                .iter()
                .map(|a| {
                    a.split_once('=')
                        .map(|(r, v)| json!({"ref": r, "value": v}))
                        .ok_or_else(|| format!("{a:?} is not REF=VALUE"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            ("browser_fill_form", json!({"fields": fields}))
        }
        "select" => match args {
            [target, values @ ..] if !values.is_empty() => (
                "browser_act",
                json!({"action": "select", "ref": target, "values": values}),
            ),
            _ => return Err("select takes REF VALUE...".into()),
        },
        "key" => match args {
            [k] => ("browser_act", json!({"action": "key", "key": k})),
            [k, n] => {
                let n: u8 = n
                    .parse()
                    .map_err(|_| format!("key: {n:?} is not a number of presses"))?;
                ("browser_act", json!({"action": "key", "key": k, "count": n}))
            }
            _ => return Err("key takes KEY [TIMES]".into()),
        },
        "read" => match args {
            [flag, url] if flag == "--url" => ("browser_read", json!({"url": url})),
            _ if args.iter().any(|a| a.starts_with("--")) => {
                return Err("read takes REF... or --url URL".into());
            }
            _ => ("browser_read", json!({"refs": args})),
        },
        "wait" => ("browser_act", wait_step(args)?),
        "tabs" if args.is_empty() => ("browser_tabs", json!({"action": "list"})),
        "screenshot" => match args {
            [_] => ("browser_capture", json!({})),
            // The output file stays first: the answer's image is written to args[0].
            [_, flag, r] if flag == "--ref" => ("browser_capture", json!({"ref": r})),
            _ => return Err("screenshot takes OUT.png [--ref REF]".into()),
        },
        "console" if args.is_empty() => ("browser_console", json!({})),
        _ => return Err(format!("{verb}: unexpected arguments")),
    })
}

/// `wait`'s arguments as a `browser_act` wait step.
fn wait_step(args: &[String]) -> Result<Value, String> {
    const USE: &str = "wait takes TEXT, --ref REF, --url PART, --idle MS or --ms MS (and --gone)";
    let mut step = json!({"action": "wait"});
    let mut it = args.iter();
    let mut what = 0;
    while let Some(a) = it.next() {
        let mut value = |key: &str| -> Result<String, String> {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{key} needs a value; {USE}"))
        };
        match a.as_str() {
            "--gone" => step["gone"] = json!(true),
            "--ref" => {
                step["ref"] = json!(value("--ref")?);
                what += 1;
            }
            "--url" => {
                step["url"] = json!(value("--url")?);
                what += 1;
            }
            "--idle" | "--ms" => {
                let key = a.trim_start_matches("--");
                let n: u64 = value(a)?
                    .parse()
                    .map_err(|_| format!("{a} takes milliseconds; {USE}"))?;
                step[key] = json!(n);
                if key == "idle" {
                    what += 1;
                }
            }
            t if t.starts_with("--") => return Err(format!("{t}: unknown; {USE}")),
            t => {
                if step.get("text").is_some() {
                    return Err(format!("one TEXT only; {USE}"));
                }
                step["text"] = json!(t);
                what += 1;
            }
        }
    }
    if what > 1 || (what == 0 && step.get("ms").is_none()) {
        return Err(USE.into());
    }
    Ok(step)
}

/// Runs the CLI; returns the exit code.
pub fn main(argv: &[String], default_profile: Option<PathBuf>) -> i32 {
    let inv = match parse(argv) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("aperture: {e}\n{USAGE}");
            return 2;
        }
    };
    let Some(profile) = inv.profile.clone().or(default_profile) else {
        eprintln!("aperture: no profile directory: set HOME or XDG_DATA_HOME, or pass --profile DIR");
        return 2;
    };
    if inv.verb == "quit" {
        return quit(&profile);
    }
    let (tool, args) = match tool_call(&inv.verb, &inv.args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("aperture: {e}\n{USAGE}");
            return 2;
        }
    };
    let target = match running_or_start(&profile, inv.no_sandbox) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("aperture: {e}");
            return 3;
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("aperture: {e}");
            return 3;
        }
    };
    let mut client = CliClient::new(target, profile.join("cli-session.json"));
    let answer = rt.block_on(async {
        let a = client.call(tool, args.clone()).await?;
        // `open` in a browser with no tab yet (just started, or all closed) opens one.
        if inv.verb == "open" && a.is_error && a.text.starts_with("there is no tab") {
            return client
                .call("browser_tabs", json!({"action": "open", "url": args["url"]}))
                .await;
        }
        Ok(a)
    });
    let answer = match answer {
        Ok(a) => a,
        Err(e @ ClientError::Unreachable { .. }) => {
            eprintln!("aperture: {e}");
            return 3;
        }
        Err(e) => {
            eprintln!("aperture: {e}");
            return 1;
        }
    };
    // A reader that stops early (`| head`) is not an error of the browser's: the tool call
    // already happened, so the exit code still says how it went.
    let out = if inv.json {
        answer.raw.to_string()
    } else {
        answer.text.clone()
    };
    if !out.is_empty() {
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = writeln!(stdout, "{out}").and_then(|()| stdout.flush())
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            eprintln!("aperture: writing the answer: {e}");
            return 1;
        }
    }
    if inv.verb == "screenshot" && !answer.is_error {
        use base64::Engine as _;
        let out = &inv.args[0];
        let Some((_, data)) = answer.images.first() else {
            eprintln!("aperture: the browser sent no image");
            return 1;
        };
        let bytes = match base64::engine::general_purpose::STANDARD.decode(data) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("aperture: the image was not base64: {e}");
                return 1;
            }
        };
        if let Err(e) = std::fs::write(out, bytes) {
            eprintln!("aperture: could not write {out}: {e}");
            return 1;
        }
        if !inv.json {
            println!("saved {out}");
        }
    }
    if answer.is_error { 1 } else { 0 }
}

/// The endpoint of the browser running on `profile`, starting a headless one when none runs.
fn running_or_start(profile: &Path, no_sandbox: bool) -> Result<BridgeTarget, String> {
    match crate::instance::lock(profile).map_err(|e| format!("{e:#}"))? {
        Err(crate::instance::Busy::HeldBy(_)) => {
            let e = aperture_mcp::config::read_profile_endpoint(profile)
                .map_err(|e| e.to_string())?
                .ok_or(
                    "the browser running on this profile has no MCP listener (started with --mcp-port 0?)",
                )?;
            Ok(BridgeTarget {
                url: e.url,
                token: e.token,
            })
        }
        Ok(lock) => {
            drop(lock);
            start_headless(profile, no_sandbox)
        }
    }
}

/// Starts `aperture --headless` on the profile, detached from this process, and waits for it
/// to publish its endpoint.
fn start_headless(profile: &Path, no_sandbox: bool) -> Result<BridgeTarget, String> {
    use std::os::unix::process::CommandExt as _;
    let exe = std::env::current_exe().map_err(|e| format!("finding this executable: {e}"))?;
    let log = profile.join("headless.log");
    let log_file = aperture_common::fs::create_private_dir_all(profile)
        .and_then(|()| std::fs::File::create(&log))
        .map_err(|e| format!("creating {}: {e}", log.display()))?;
    let started = SystemTime::now();
    let mut cmd = std::process::Command::new(exe);
    if no_sandbox {
        cmd.arg("--no-sandbox");
    }
    let mut child = cmd
        .arg("--headless")
        .arg("--profile")
        .arg(profile)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log_file)
        // Its own process group: the browser outlives this command and its terminal's ^C.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("starting a headless browser: {e}"))?;
    eprintln!(
        "aperture: no browser was running on {}; started a headless one (pid {}, log {})",
        profile.display(),
        child.id(),
        log.display()
    );
    let t = Instant::now();
    let path = aperture_mcp::config::profile_endpoint_path(profile);
    while t.elapsed() < Duration::from_secs(90) {
        let fresh = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .is_ok_and(|m| m >= started);
        if fresh && let Ok(Some(e)) = aperture_mcp::config::read_profile_endpoint(profile) {
            return Ok(BridgeTarget {
                url: e.url,
                token: e.token,
            });
        }
        if let Ok(Some(status)) = child.try_wait() {
            let why = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!("the headless browser exited ({status}): {}", why.trim()));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!(
        "the headless browser did not start listening within 90 s; see {}",
        log.display()
    ))
}

/// Stops the browser running on the profile (SIGTERM: it saves its session and closes).
fn quit(profile: &Path) -> i32 {
    match crate::instance::lock(profile) {
        Ok(Err(crate::instance::Busy::HeldBy(Some(pid)))) => {
            let ok = std::process::Command::new("kill")
                .arg(pid.to_string())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                println!("asked the browser (pid {pid}) to quit");
                0
            } else {
                eprintln!("aperture: could not signal pid {pid}");
                1
            }
        }
        Ok(Err(_)) => {
            eprintln!("aperture: the profile is in use, but by which process is unknown");
            1
        }
        Ok(Ok(_)) => {
            println!("no browser is running on {}", profile.display());
            0
        }
        Err(e) => {
            eprintln!("aperture: {e:#}");
            3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn wait_and_logged_out_read_map_to_tool_calls() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            tool_call("wait", &s(&["Ready"])).unwrap(),
            ("browser_act", json!({"action": "wait", "text": "Ready"}))
        );
        assert_eq!(
            tool_call("wait", &s(&["--ref", "e4", "--gone", "--ms", "500"]))
                .unwrap()
                .1,
            json!({"action": "wait", "ref": "e4", "gone": true, "ms": 500})
        );
        assert_eq!(
            tool_call("wait", &s(&["--idle", "300"])).unwrap().1,
            json!({"action": "wait", "idle": 300})
        );
        assert_eq!(
            tool_call("wait", &s(&["--ms", "250"])).unwrap().1,
            json!({"action": "wait", "ms": 250})
        );
        assert!(tool_call("wait", &[]).is_err());
        assert!(
            tool_call("wait", &s(&["a", "--url", "x"])).is_err(),
            "two conditions"
        );
        assert!(tool_call("wait", &s(&["--idle", "soon"])).is_err());
        assert_eq!(
            tool_call("read", &s(&["--url", "https://example.org/"])).unwrap(),
            ("browser_read", json!({"url": "https://example.org/"}))
        );
        assert!(tool_call("read", &s(&["--url"])).is_err());
    }

    #[test]
    fn verbs_map_to_tool_calls() {
        assert_eq!(
            tool_call("open", &v(&["https://example.org/"])).unwrap(),
            (
                "browser_navigate",
                json!({"action": "goto", "url": "https://example.org/"})
            )
        );
        assert_eq!(
            tool_call("type", &v(&["e3", "hello world", "--submit"])).unwrap(),
            (
                "browser_act",
                json!({"action": "type", "ref": "e3", "text": "hello world", "submit": true})
            )
        );
        assert_eq!(
            tool_call("fill", &v(&["e1=a=b", "e2="])).unwrap().1,
            json!({"fields": [{"ref": "e1", "value": "a=b"}, {"ref": "e2", "value": ""}]})
        );
        assert_eq!(
            tool_call("snapshot", &v(&["--full"])).unwrap().1,
            json!({"full": true})
        );
        assert_eq!(tool_call("back", &[]).unwrap().1, json!({"action": "back"}));
        assert_eq!(
            tool_call("scroll", &v(&["300"])).unwrap().1,
            json!({"action": "scroll", "dx": 0.0, "dy": 300.0})
        );
        assert_eq!(
            tool_call("scroll", &v(&["--in", "e4", "-20", "0"])).unwrap().1,
            json!({"action": "scroll", "ref": "e4", "dx": -20.0, "dy": 0.0})
        );
        assert_eq!(
            tool_call("key", &v(&["ArrowRight", "12"])).unwrap().1,
            json!({"action": "key", "key": "ArrowRight", "count": 12})
        );
        assert_eq!(
            tool_call("drag", &v(&["e5", "-40", "0"])).unwrap().1,
            json!({"action": "drag", "ref": "e5", "dx": -40.0, "dy": 0.0})
        );
        assert_eq!(
            tool_call("hover", &v(&["e2"])).unwrap().1,
            json!({"action": "hover", "ref": "e2"})
        );
        assert_eq!(
            tool_call("click", &v(&["e3", "120", "45"])).unwrap().1,
            json!({"action": "click", "ref": "e3", "x": 120.0, "y": 45.0})
        );
        assert_eq!(
            tool_call("hover", &v(&["e3", "12", "4.5"])).unwrap().1,
            json!({"action": "hover", "ref": "e3", "x": 12.0, "y": 4.5})
        );
        assert!(tool_call("hover", &v(&["e3", "12"])).is_err());
        assert_eq!(
            tool_call("select-text", &v(&["e38"])).unwrap().1,
            json!({"action": "select_text", "ref": "e38"})
        );
        assert_eq!(
            tool_call("select-text", &v(&["e38 words"])).unwrap().1,
            json!({"action": "select_text", "text": "e38 words"})
        );
        assert_eq!(
            tool_call("drag", &v(&["e3", "10", "20", "0", "80"])).unwrap().1,
            json!({"action": "drag", "ref": "e3", "x": 10.0, "y": 20.0, "dx": 0.0, "dy": 80.0})
        );
        assert_eq!(
            tool_call("drag", &v(&["e3", "10", "20", "e9"])).unwrap().1,
            json!({"action": "drag", "ref": "e3", "x": 10.0, "y": 20.0, "to": "e9"})
        );
        assert_eq!(
            tool_call("screenshot", &v(&["out.png", "--ref", "e3"]))
                .unwrap()
                .1,
            json!({"ref": "e3"})
        );
    }

    #[test]
    fn bad_usage_is_an_error_not_a_call() {
        assert!(tool_call("click", &[]).is_err());
        assert!(tool_call("click", &v(&["e1", "10"])).is_err());
        assert!(tool_call("screenshot", &v(&["a.png", "e1"])).is_err());
        assert!(tool_call("fill", &v(&["e1"])).is_err());
        assert!(tool_call("select", &v(&["e1"])).is_err());
        assert!(tool_call("tabs", &v(&["x"])).is_err());
        assert!(tool_call("scroll", &[]).is_err());
        assert!(tool_call("key", &v(&["Tab", "many"])).is_err());
        assert!(tool_call("drag", &v(&["e1", "left", "2"])).is_err());
        assert!(tool_call("scroll", &v(&["down"])).is_err());
        assert!(tool_call("scroll", &v(&["1", "2", "3"])).is_err());
        assert!(parse(&v(&["--json"])).is_err());
        let i = parse(&v(&["--profile", "/p", "--json", "click", "e2"])).unwrap();
        assert_eq!((i.json, i.verb.as_str(), i.args.len()), (true, "click", 1));
    }
}
