//! Wiring of the `aperture-privacy` crate into CEF: the tracker blocker on the IO thread,
//! phone-home switches at launch, and identity containers as separate request contexts.

use crate::cef::{CefStr, RcBox, Ref, strings, sys::*};
use crate::state;
use aperture_privacy::{Blocker, ContainerId, ContainerRegistry, ListSet, ProvisionOptions, ResourceType};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::oneshot;

/// Chromium switches from the privacy crate (phone-home off, WebRTC IP policy), as
/// `(name, value)` pairs for `on_before_command_line_processing`.
pub fn switches() -> Vec<(String, Option<String>)> {
    aperture_privacy::switches::chromium_switch_args()
        .into_iter()
        .map(|a| {
            let a = a.trim_start_matches("--").to_string();
            match a.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (a, None),
            }
        })
        .collect()
}

/// Loads the blocker (compiled engine from disk when its lists are unchanged) and installs it
/// in the request path. Returns a one-line status for the log.
pub fn install_blocker(user_lists: &[PathBuf]) -> Result<String, String> {
    let lists = if user_lists.is_empty() {
        // No apt-get at browser start: provisioning is `cargo xtask provision`'s job.
        ListSet::provision_pinned(&ProvisionOptions::default()).map_err(|e| e.to_string())?
    } else {
        ListSet::from_files(user_lists).map_err(|e| e.to_string())?
    };
    let cache = aperture_privacy::blocking::default_engine_cache_dir().ok_or("no cache directory")?;
    let t = std::time::Instant::now();
    let (blocker, how) = Blocker::load_or_build(&lists, &cache).map_err(|e| e.to_string())?;
    let blocker = Arc::new(blocker);
    crate::policy::install(Box::new(move |url, source, rtype| {
        blocker
            .check(url, source, ResourceType::from_cef(rtype))
            .is_blocked()
    }));
    Ok(format!(
        "tracker blocking on ({how:?} in {} ms)",
        t.elapsed().as_millis()
    ))
}

/// The container registry of this profile.
pub fn registry(profile: &Path) -> Result<Arc<Mutex<ContainerRegistry>>, String> {
    ContainerRegistry::open(profile)
        .map(|r| Arc::new(Mutex::new(r)))
        .map_err(|e| e.to_string())
}

struct Contexts {
    ready: HashMap<String, Ref<cef_request_context_t>>,
}

fn contexts() -> &'static Mutex<Contexts> {
    static C: OnceLock<Mutex<Contexts>> = OnceLock::new();
    C.get_or_init(|| {
        Mutex::new(Contexts {
            ready: HashMap::new(),
        })
    })
}

type CtxHandler = RcBox<cef_request_context_handler_t, Mutex<Option<oneshot::Sender<()>>>>;

extern "C" fn on_ctx_initialized(this: *mut cef_request_context_handler_t, ctx: *mut cef_request_context_t) {
    let _ctx = Ref::adopt(ctx);
    if let Some(tx) = unsafe { CtxHandler::data(this) }.lock().expect("ctx").take() {
        let _ = tx.send(());
    }
}

/// The request context of a container (created on first use, with its own cache path, and
/// only handed out once CEF says it is initialized — browsers created earlier come back NULL).
pub async fn context_for(
    id: &ContainerId,
    cache_path: PathBuf,
) -> Result<Ref<cef_request_context_t>, String> {
    if let Some(c) = contexts().lock().expect("ctx").ready.get(id.as_str()) {
        return Ok(c.clone());
    }
    let (tx, rx) = oneshot::channel();
    let path = cache_path.display().to_string();
    let ctx = crate::tab::on_ui(move || -> Result<Ref<cef_request_context_t>, String> {
        std::fs::create_dir_all(&path).map_err(|e| format!("creating {path}: {e}"))?;
        let mut s: cef_request_context_settings_t = unsafe { std::mem::zeroed() };
        s.size = std::mem::size_of::<cef_request_context_settings_t>();
        strings::set(&mut s.cache_path, &path);
        s.persist_session_cookies = 1;
        let h = CtxHandler::new(
            |h| h.on_request_context_initialized = Some(on_ctx_initialized),
            Mutex::new(Some(tx)),
        );
        // SAFETY: valid settings; the handler reference is transferred.
        let c = unsafe { (crate::cef::api().cef_request_context_create_context)(&s, h) };
        let _keep = CefStr::new(""); // settings strings are copied by CEF
        Ref::adopt(c).ok_or_else(|| "CEF could not create the container's request context".to_string())
    })
    .await
    .map_err(|e| e.to_string())??;
    tokio::time::timeout(std::time::Duration::from_secs(10), rx)
        .await
        .map_err(|_| "the container's request context did not initialize".to_string())?
        .map_err(|_| "the container's request context went away".to_string())?;
    contexts()
        .lock()
        .expect("ctx")
        .ready
        .insert(id.as_str().to_string(), ctx.clone());
    Ok(ctx)
}

/// Forgets the contexts (before CEF shuts down, which requires them released).
pub fn release_contexts() {
    let all = std::mem::take(&mut contexts().lock().expect("ctx").ready);
    drop(all);
    let _ = state::pump();
}

/// Resolves a container by id or name (creating it by that name when `create`, which only the
/// human's own flags and the debug script may do) and returns its request context and name.
pub async fn container_context(
    registry: &Arc<Mutex<ContainerRegistry>>,
    which: &str,
    create: bool,
) -> Result<(Ref<cef_request_context_t>, String), String> {
    let (id, name, path) = {
        let mut r = registry.lock().expect("registry");
        let found = ContainerId::parse(which)
            .ok()
            .and_then(|id| r.get(&id).cloned())
            .or_else(|| r.by_name(which).cloned());
        let c = match found {
            Some(c) => c,
            None if create => {
                let id = r
                    .create(which, aperture_privacy::Colour::Blue)
                    .map_err(|e| e.to_string())?;
                r.get(&id).cloned().ok_or("container vanished")?
            }
            None => {
                return Err(format!(
                    "no container named {which:?}; the human creates containers"
                ));
            }
        };
        let path = r.cache_path(&c.id);
        (c.id, c.name, path)
    };
    Ok((context_for(&id, path).await?, name))
}
