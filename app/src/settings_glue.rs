//! What the settings view's choices mean to the browser. `Settings::apply` (in the window's
//! host) records and saves them; this module makes them take effect, and fills the view's
//! data in the chrome model:
//!
//! - the download folder: the actor's page policy, from the next download on;
//! - tracker blocking: the blocker's rules, from the next request on (looked up by each tab's
//!   top-level site, which this module keeps current from the actor's address events);
//! - the default container: the profile's container registry (`containers.json`);
//! - clear browsing data: history through `places` (by time range, one container or all);
//!   each container's cookies, for a time range those created in it (CEF's cookie manager
//!   visits them with their creation time), for all time through DevTools
//!   (`Network.clearBrowserCookies`, which acts on the request context of the tab it is sent
//!   to); the HTTP cache through DevTools (`Network.clearBrowserCache`), always all of it:
//!   Chromium's cache keeps no dates to clear by, and the view says so;
//! - the MCP port: the profile's `mcp-endpoint.json`, whose port the next start binds;
//! - site permissions: the actor's remembered answers (`permissions.json`), from the site's
//!   next request on.

use crate::browser::state::TabMeta;
use crate::browser::{Actor, Event, Handle};
use crate::privacy::{BlockFilter, Containers};
use crate::tab::{Tab, TabOptions};
use aperture_mcp::backend::TabId;
use aperture_ui::settings::{Settings, SettingsStore};
use aperture_ui::{ChromeModel, ClearData, SettingsView, SitePermission, UiCommand};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the view's MCP endpoint is read again from the profile (the server writes it
/// once it listens, which may be after the window opened).
const ENDPOINT_REFRESH: Duration = Duration::from_secs(2);
/// How long a tab made only to reach a container's storage may take to be ready for DevTools.
const HIDDEN_TAB_WAIT: Duration = Duration::from_secs(10);

/// The settings file as it is on disk, read without the corrupt-file recovery (the window's
/// own load does that, and reports it): for what must be known before the window starts.
pub fn peek() -> Option<Settings> {
    let store = SettingsStore::xdg().ok()?;
    let bytes = std::fs::read(store.path()).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Gives the blocker the human's per-site choices and keeps each tab's top-level site current
/// from the addresses tabs commit (a navigation that turned into a download, or a page
/// restored from the back-forward cache, sends no main-frame request the blocker would see).
pub fn watch_blocking(actor: &Actor, blocker: &Arc<BlockFilter>, settings: Option<&Settings>) {
    if let Some(s) = settings {
        blocker.set_rules(&s.blocking);
    }
    let b = blocker.clone();
    actor.subscribe(Box::new(move |_, ev| {
        if let Event::Address { id, url } = ev {
            b.note_top_level(*id, url);
        }
    }));
}

/// The window's side of the settings view.
pub struct Glue {
    h: Handle,
    rt: tokio::runtime::Handle,
    containers: Containers,
    places: Option<aperture_places::Places>,
    blocker: Option<Arc<BlockFilter>>,
    profile: PathBuf,
    /// The profile's MCP endpoint as last read: (port of the next start, URL agents use now).
    endpoint: (Option<u16>, Option<String>),
    endpoint_read: Option<Instant>,
    /// The languages this machine has hunspell dictionaries for (read at start).
    spelling_available: Vec<String>,
    /// Counts language changes, so a slow conversion for an earlier choice never overrides a
    /// later one.
    spelling_change: Arc<std::sync::atomic::AtomicU64>,
}

impl Glue {
    pub fn new(
        actor: &Actor,
        rt: tokio::runtime::Handle,
        containers: Containers,
        places: Option<aperture_places::Places>,
        blocker: Option<Arc<BlockFilter>>,
        profile: PathBuf,
    ) -> Glue {
        Glue {
            h: actor.handle(),
            rt,
            containers,
            places,
            blocker,
            profile,
            endpoint: (None, None),
            endpoint_read: None,
            spelling_available: crate::spelling::available(&crate::spelling::source_dirs()),
            spelling_change: Arc::default(),
        }
    }

    /// Applies a settings-view command after `Settings::apply` has recorded it in `settings`.
    /// `false` for commands that are not the settings view's (or that need the window's own
    /// handling, like re-planning dark mode).
    pub fn apply(&mut self, actor: &Actor, settings: &Settings, cmd: &UiCommand) -> bool {
        match cmd {
            UiCommand::SetSearchEngine(_) => {}
            UiCommand::SetDownloadDir(dir) => {
                if settings.download_dir.as_deref() != Some(dir.as_path()) {
                    notice(actor, format!("{} is not a folder's full path", dir.display()));
                    return true;
                }
                *actor.services().page.download_dir.borrow_mut() = Some(dir.clone());
                let msg = if dir.exists() && !dir.is_dir() {
                    format!(
                        "{} is a file, not a folder: downloads will fail until you pick another",
                        dir.display()
                    )
                } else {
                    format!("Downloads go to {} from now on", dir.display())
                };
                notice(actor, msg);
            }
            UiCommand::SetSpellcheck(on) => self.set_spellcheck(actor, *on),
            UiCommand::SetThirdPartyCookies(block) => {
                self.containers
                    .update_prefs(|p| p.block_third_party_cookies = *block);
                for c in contexts_of(actor, &self.containers) {
                    crate::privacy::apply_cookie_controls(&c, *block);
                }
            }
            UiCommand::SetSpellLanguages(langs) if !langs.is_empty() => self.set_spell_languages(langs),
            UiCommand::SetPopupsAllowed { origin, allow } => {
                let origin = origin.trim().to_string();
                let allowed: Vec<String> = settings.popup_origins.iter().cloned().collect();
                actor.with(|st| st.popup_origins = allowed.iter().cloned().collect());
                self.containers.update_prefs(|p| p.popup_origins = allowed);
                for c in contexts_of(actor, &self.containers) {
                    c.set_popups_allowed(&origin, *allow);
                }
            }
            UiCommand::SetBlocking(_) | UiCommand::SetSiteBlocking { .. } => {
                if let Some(b) = &self.blocker {
                    b.set_rules(&settings.blocking);
                }
            }
            UiCommand::SetDefaultContainer { container } => {
                let r = aperture_privacy::ContainerId::parse(container)
                    .map_err(|e| e.to_string())
                    .and_then(|id| {
                        self.containers
                            .registry
                            .lock()
                            .expect("registry")
                            .set_default(&id)
                            .map_err(|e| e.to_string())
                    });
                if let Err(e) = r {
                    notice(actor, format!("Could not change the default container: {e}"));
                }
            }
            UiCommand::SetMcpPort(port) => {
                let msg = match set_endpoint_port(&self.profile, *port) {
                    Ok(()) => format!("Aperture will serve MCP on port {port} from its next start"),
                    Err(e) => format!("The MCP port was not saved: {e}"),
                };
                self.endpoint_read = None;
                notice(actor, msg);
            }
            UiCommand::ClearBrowsingData(what) => self.clear(actor, what.clone()),
            UiCommand::SetSitePermission {
                container,
                origin,
                asked,
                allow,
            } => {
                crate::browser::page::set_remembered_permission(actor, container, origin, asked, *allow);
                self.forget_chromium_permissions(actor, container, origin, asked);
            }
            _ => return false,
        }
        true
    }

    /// Turns spellcheck on or off in every context now (the profile's own, each container's
    /// and each open tab's, so fields already open follow at once) and in those made later.
    fn set_spellcheck(&self, actor: &Actor, on: bool) {
        self.containers.update_prefs(|p| p.spell_on = on);
        set_spelling(actor, &self.containers);
    }

    /// Makes the chosen languages' dictionaries (converting a language's the first time, off
    /// the UI thread), then gives every context the ones ready, and says which are not.
    fn set_spell_languages(&self, langs: &[String]) {
        let (h, containers, profile, langs) = (
            self.h.clone(),
            self.containers.clone(),
            self.profile.clone(),
            langs.to_vec(),
        );
        use std::sync::atomic::Ordering;
        let change = self.spelling_change.clone();
        let this = change.fetch_add(1, Ordering::SeqCst) + 1;
        self.rt.spawn(async move {
            let wanted = langs.clone();
            let ready = tokio::task::spawn_blocking(move || {
                crate::spelling::install(&profile, &wanted, &crate::spelling::source_dirs())
            })
            .await
            .unwrap_or_default();
            let first = containers.clone();
            let latest = change.clone();
            let _ = h
                .on_ui(move |actor| {
                    // Checked on the UI thread, where every change lands in order.
                    if latest.load(Ordering::SeqCst) != this {
                        return;
                    }
                    let missing: Vec<&String> = langs.iter().filter(|l| !ready.contains(l)).collect();
                    if !missing.is_empty() {
                        let list: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                        notice(
                            actor,
                            format!("No spelling dictionary could be made for {}", list.join(", ")),
                        );
                    }
                    first.update_prefs(|p| p.spelling = ready);
                    set_spelling(actor, &first);
                })
                .await;
            // Renderers keep the marks they drew with the old dictionaries. Switching spellcheck
            // off and on, once the new ones have loaded, clears them, and a field is checked
            // again as it next gains focus (as after the switch in the view).
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let again = containers.clone();
            let _ = h
                .on_ui(move |actor| {
                    for c in contexts_of(actor, &again) {
                        let _ = c.set_preference("browser.enable_spellchecking", cef::Pref::Bool(false));
                    }
                })
                .await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            let _ = h.on_ui(move |actor| set_spelling(actor, &containers)).await;
        });
    }

    /// Chromium keeps the answer a prompt was given and stops asking; forgetting it in the
    /// container's request context (its open tabs' and its ready one) sends the site's next
    /// request to the actor again, which answers it from the changed memory.
    fn forget_chromium_permissions(&self, actor: &Actor, container: &str, origin: &str, asked: &[String]) {
        let mut contexts: Vec<cef::RequestContext> = actor.with(|st| {
            st.tabs
                .values()
                .filter(|t| t.meta.container == container)
                .filter_map(|t| t.host.request_context())
                .collect()
        });
        let id = self
            .containers
            .registry
            .lock()
            .expect("registry")
            .containers()
            .iter()
            .find(|c| c.name == container || c.id.as_str() == container)
            .map(|c| c.id.to_string());
        contexts.extend(id.and_then(|id| self.containers.ready(&id)));
        for c in contexts {
            c.forget_permissions(origin, asked);
        }
    }

    /// Fills the model's settings view; true when it changed.
    pub fn mirror(&mut self, actor: &Actor, settings: &Settings, m: &mut ChromeModel) -> bool {
        if self.endpoint_read.is_none_or(|t| t.elapsed() >= ENDPOINT_REFRESH) {
            self.endpoint_read = Some(Instant::now());
            self.endpoint = match aperture_mcp::config::read_profile_endpoint(&self.profile) {
                Ok(Some(e)) => (Some(e.port), Some(e.url).filter(|u| !u.is_empty())),
                Ok(None) | Err(_) => (None, None),
            };
        }
        let default_container = Some(self.containers.default_id());
        let download_dir = actor.services().page.download_dir.borrow().clone();
        let permissions: Vec<SitePermission> = crate::browser::page::remembered_permissions(actor)
            .into_iter()
            .map(|(container, origin, asked, allow)| SitePermission {
                container,
                origin,
                asked,
                allow,
            })
            .collect();
        let spelling = self.containers.prefs().spelling;
        let unchanged = m.settings.values == *settings
            && m.settings.spelling_languages == spelling
            && m.settings.spelling_available == self.spelling_available
            && m.settings.permissions == permissions
            && m.settings.default_container == default_container
            && m.settings.download_dir == download_dir
            && m.settings.blocking_available == self.blocker.is_some()
            && (m.settings.mcp_port, m.settings.mcp_url.as_ref())
                == (self.endpoint.0, self.endpoint.1.as_ref());
        if unchanged {
            return false;
        }
        m.settings = SettingsView {
            values: settings.clone(),
            default_container,
            download_dir,
            blocking_available: self.blocker.is_some(),
            mcp_port: self.endpoint.0,
            mcp_url: self.endpoint.1.clone(),
            permissions,
            spelling_languages: spelling,
            spelling_available: self.spelling_available.clone(),
        };
        true
    }

    /// "Clear browsing data": history at once through places' writer, Chromium's data of each
    /// container on the runtime (DevTools round trips), a notice when done.
    fn clear(&self, actor: &Actor, what: ClearData) {
        // (id, name) of each container to clear; `None` id = the global context, which the
        // agent's tabs without a container use, cleared with "all containers".
        let targets: Vec<(Option<String>, String)> = {
            let r = self.containers.registry.lock().expect("registry");
            match &what.container {
                Some(id) => r
                    .containers()
                    .iter()
                    .filter(|c| c.id.as_str() == id)
                    .map(|c| (Some(c.id.to_string()), c.name.clone()))
                    .collect(),
                None => r
                    .containers()
                    .iter()
                    .map(|c| (Some(c.id.to_string()), c.name.clone()))
                    .chain([(None, String::new())])
                    .collect(),
            }
        };
        if targets.is_empty() {
            notice(
                actor,
                "Nothing was cleared: that container no longer exists".into(),
            );
            return;
        }
        let scope = match &what.container {
            Some(_) => format!("in {}", targets[0].1),
            None => "in every container".to_string(),
        };
        let history = what.history.then(|| {
            let places = self.places.clone();
            let container = what.container.as_ref().map(|_| targets[0].1.clone());
            let since_ms = what.since_ms;
            async move {
                let Some(p) = places else {
                    return Err("history is unavailable: the places database did not open".to_string());
                };
                let c = container.as_deref();
                let r = match since_ms {
                    Some(from) => p.clear_range(c, from, i64::MAX).await,
                    None => p.clear_all(c).await,
                };
                r.map_err(|e| format!("history: {e}"))
            }
        });
        let (h, containers) = (self.h.clone(), self.containers.clone());
        let (cookies, cache) = (what.cookies, what.cache);
        // Cookies of a time range go through the cookie manager; all of them through DevTools.
        let ranged_cookies = what.since_ms.filter(|_| cookies);
        self.rt.spawn(async move {
            let mut done = Vec::new();
            let mut failed = Vec::new();
            if let Some(f) = history {
                match f.await {
                    Ok(1) => done.push("1 history entry".to_string()),
                    Ok(n) => done.push(format!("{n} history entries")),
                    Err(e) => failed.push(e),
                }
            }
            if cookies || cache {
                let mut ok = true;
                for (id, name) in &targets {
                    let r = match ranged_cookies {
                        Some(since) => clear_cookies_since(&h, &containers, id.as_deref(), since)
                            .await
                            .map(|n| {
                                tracing::info!(container = %name, since, deleted = n, "cookies of the range cleared");
                            }),
                        None => Ok(()),
                    };
                    let devtools_cookies = cookies && ranged_cookies.is_none();
                    let r = match r {
                        Ok(()) if devtools_cookies || cache => {
                            clear_context(&h, &containers, id.as_deref(), name, devtools_cookies, cache).await
                        }
                        other => other,
                    };
                    if let Err(e) = r {
                        let who = if name.is_empty() {
                            "tabs without a container"
                        } else {
                            name
                        };
                        failed.push(format!("{who}: {e}"));
                        ok = false;
                    }
                }
                if ok {
                    done.push(
                        match (cookies, cache) {
                            (true, true) => "cookies and cached files",
                            (true, false) => "cookies",
                            _ => "cached files",
                        }
                        .to_string(),
                    );
                }
            }
            let mut msg = if done.is_empty() {
                String::new()
            } else {
                format!("Cleared {} {scope}", done.join(" and "))
            };
            if !failed.is_empty() {
                if !msg.is_empty() {
                    msg.push_str("; ");
                }
                msg.push_str(&format!("could not clear {}", failed.join("; ")));
            }
            tracing::info!("{msg}");
            let _ = h.on_ui(move |a| notice(a, msg)).await;
        });
    }
}

/// Gives every context (the profile's own, each container's, each open tab's, so open fields
/// follow at once) the spelling languages and switch `containers` holds now.
fn set_spelling(actor: &Actor, containers: &Containers) {
    let prefs = containers.prefs();
    for c in contexts_of(actor, containers) {
        crate::privacy::apply_spelling(&c, &prefs.spelling, prefs.spell_on);
    }
}

/// Every request context: the profile's own, each container's, each open tab's.
fn contexts_of(actor: &Actor, containers: &Containers) -> Vec<cef::RequestContext> {
    let mut contexts: Vec<cef::RequestContext> = actor.with(|st| {
        st.tabs
            .values()
            .filter_map(|t| t.host.request_context())
            .collect()
    });
    contexts.extend(cef::RequestContext::global());
    contexts.extend(containers.all_ready());
    contexts
}

fn notice(actor: &Actor, text: String) {
    actor.with(|st| {
        st.notices.push(text);
        st.events.push(Event::Refresh);
    });
}

/// How long deleting a container's cookies of a time range may take.
const COOKIE_CLEAR_WAIT: Duration = Duration::from_secs(15);

/// Deletes the cookies of one container's request context (`id` `None`: the global one) that
/// were created at or after `since_ms`; answers how many.
async fn clear_cookies_since(
    h: &Handle,
    containers: &Containers,
    id: Option<&str>,
    since_ms: i64,
) -> Result<usize, String> {
    let ctx = match id {
        Some(id) => containers.context(id, false).await?.0,
        None => h
            .on_ui(|_| cef::RequestContext::global())
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the global request context is gone")?,
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    h.on_ui(move |_| {
        ctx.delete_cookies_since(
            since_ms,
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        )
    })
    .await
    .map_err(|e| e.to_string())?;
    match tokio::time::timeout(COOKIE_CLEAR_WAIT, rx).await {
        Ok(Ok(r)) => r.map_err(|e| format!("cookies: {e}")),
        Ok(Err(_)) => Err("cookies: the cookie store went away".into()),
        Err(_) => Err("cookies: the cookie store did not answer".into()),
    }
}

/// Clears Chromium's cookies and/or HTTP cache of one container's request context (`id`
/// `None`: the global one) through DevTools, which needs a browser in that context: an open
/// tab of the container, or else a blank one made for the purpose and kept out of the tab
/// strip, the agent's list and the session.
async fn clear_context(
    h: &Handle,
    containers: &Containers,
    id: Option<&str>,
    name: &str,
    cookies: bool,
    cache: bool,
) -> Result<(), String> {
    let wanted = name.to_string();
    let open = h
        .on_ui(move |a| {
            a.with(|st| {
                st.order
                    .iter()
                    .find(|t| {
                        st.tabs
                            .get(t)
                            .is_some_and(|r| r.meta.container == wanted && !r.meta.private())
                    })
                    .copied()
            })
        })
        .await
        .map_err(|e| e.to_string())?;
    let (tab, hidden) = match open {
        Some(t) => (t, false),
        None => (hidden_tab(h, containers, id, name).await?, true),
    };
    let t = Tab::new(h, tab);
    let mut r = Ok(());
    let mut calls = Vec::new();
    if cookies {
        calls.push("Network.clearBrowserCookies");
    }
    if cache {
        calls.push("Network.clearBrowserCache");
    }
    for method in calls {
        if let Err(e) = devtools_when_ready(&t, method, hidden).await {
            r = Err(format!("{method}: {e}"));
            break;
        }
    }
    if hidden {
        let _ = h
            .on_ui(move |a| {
                if let Some(host) = a.host(tab) {
                    host.close(true);
                }
            })
            .await;
    }
    r
}

/// A blank browser in the container's request context that no one sees.
async fn hidden_tab(
    h: &Handle,
    containers: &Containers,
    id: Option<&str>,
    name: &str,
) -> Result<TabId, String> {
    let context = match id {
        Some(id) => Some(containers.context(id, false).await?.0),
        None => None,
    };
    let opts = TabOptions {
        size: (64, 64),
        scale: 1.0,
        meta: TabMeta {
            container: name.to_string(),
            ..Default::default()
        },
        context,
    };
    h.on_ui(move |a| -> Result<TabId, String> {
        let id = a.create_browser("about:blank", opts).map_err(|e| e.to_string())?;
        a.with(|st| {
            st.order.retain(|t| *t != id);
            if st.active == Some(id) {
                st.active = None;
            }
        });
        Ok(id)
    })
    .await
    .map_err(|e| e.to_string())?
}

/// A DevTools call; a browser made a moment ago may not take it until its first document
/// commits, so that one is retried for a while.
async fn devtools_when_ready(t: &Tab, method: &str, retry: bool) -> Result<(), String> {
    let start = Instant::now();
    loop {
        match t.devtools(method, serde_json::json!({})).await {
            Ok(_) => return Ok(()),
            Err(e) if retry && start.elapsed() < HIDDEN_TAB_WAIT => {
                tracing::debug!("{method} on a fresh tab: {e}; retrying");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// Records the port the next start serves MCP on in the profile's endpoint file, keeping the
/// address and token agents use now (`aperture mcp` bridges to the running browser by them).
fn set_endpoint_port(profile: &Path, port: u16) -> std::io::Result<()> {
    use aperture_mcp::config::{ProfileEndpoint, endpoint_url, profile_endpoint_path, read_profile_endpoint};
    let e = match read_profile_endpoint(profile) {
        Ok(Some(mut e)) => {
            e.port = port;
            e
        }
        // No listener recorded yet: the next start makes the token (an empty one is never
        // used) and writes the real address over this one.
        Ok(None) | Err(_) => ProfileEndpoint {
            url: endpoint_url((std::net::Ipv4Addr::LOCALHOST, port).into()),
            port,
            token: String::new(),
        },
    };
    let mut body = serde_json::to_vec_pretty(&e).map_err(std::io::Error::other)?;
    body.push(b'\n');
    aperture_common::fs::write_atomic(&profile_endpoint_path(profile), &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_goes_to_the_profile_keeping_the_live_endpoint() {
        let dir = tempfile::tempdir().unwrap();
        // A profile that never had a listener.
        set_endpoint_port(dir.path(), 9123).unwrap();
        let e = aperture_mcp::config::read_profile_endpoint(dir.path())
            .unwrap()
            .unwrap();
        assert_eq!(e.port, 9123);
        assert_eq!(e.url, "http://127.0.0.1:9123/mcp");
        assert!(e.token.is_empty());
        // One whose browser listens on 8817 now: the address and token stay for the bridge.
        let token = aperture_mcp::Token::from_string("t".repeat(40));
        aperture_mcp::config::write_profile_endpoint(dir.path(), "127.0.0.1:8817".parse().unwrap(), &token)
            .unwrap();
        set_endpoint_port(dir.path(), 9200).unwrap();
        let e = aperture_mcp::config::read_profile_endpoint(dir.path())
            .unwrap()
            .unwrap();
        assert_eq!(
            (e.port, e.url.as_str(), e.token.as_str()),
            (9200, "http://127.0.0.1:8817/mcp", token.expose())
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(aperture_mcp::config::profile_endpoint_path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
