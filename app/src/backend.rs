//! The app's implementation of the MCP [`Backend`]: the agent's view of the browser, on top
//! of the [`crate::tab`] seam, with agent-navigation policy applied here.

use crate::browser::Handle;
use crate::browser::state::TabMeta;
use crate::privacy::Containers;
use crate::tab::{self, Button, TabError, TabOptions};
use aperture_mcp::backend::*;
use aperture_privacy::NavigationPolicy;
use async_trait::async_trait;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The browser as the agent sees it.
pub struct AppBackend {
    h: Handle,
    policy: NavigationPolicy,
    containers: Containers,
    size: (i32, i32),
    themes: Arc<crate::theme::Themes>,
    /// The profile's vault, when one was loaded at start-up (see `crate::vault`).
    vault: Option<Arc<crate::vault::VaultWiring>>,
}

impl AppBackend {
    pub fn new(
        h: Handle,
        policy: NavigationPolicy,
        size: (i32, i32),
        containers: Containers,
        themes: Arc<crate::theme::Themes>,
    ) -> AppBackend {
        AppBackend {
            h,
            policy,
            containers,
            size,
            themes,
            vault: None,
        }
    }

    /// Wires the vault in: the vault tools work, and every page read of a tab the vault
    /// filled is redacted before it reaches the MCP layer.
    pub fn with_vault(mut self, vault: Option<Arc<crate::vault::VaultWiring>>) -> AppBackend {
        self.vault = vault;
        self
    }

    fn vault(&self) -> BackendResult<&crate::vault::VaultWiring> {
        self.vault.as_deref().ok_or_else(|| {
            BackendError::VaultRefused(
                "this browser has no vault (the human creates one with `aperture vault init`)".into(),
            )
        })
    }

    async fn check_nav(&self, url: &str) -> BackendResult<String> {
        // A blank page fetches nothing: the way to leave a page for nothing, as the tools
        // document (and the gate lets a gated tab show it).
        if url.trim().eq_ignore_ascii_case("about:blank") {
            return Ok("about:blank".into());
        }
        let refused = |e: aperture_privacy::PolicyError| BackendError::PolicyRefused { rule: e.to_string() };
        let checked = self.policy.check_destination(url).map_err(refused)?;
        // A name that resolves to a private address is refused before we go (a blocking
        // lookup, so off the async workers); the connected address is checked again when the
        // response arrives (handlers::check_document_response), and redirects in on_before_browse.
        let (policy, c) = (self.policy.clone(), checked.clone());
        tokio::task::spawn_blocking(move || policy.resolve_and_check(&c))
            .await
            .map_err(|e| BackendError::Other(e.to_string()))?
            .map_err(refused)?;
        Ok(checked.url.to_string())
    }

    /// Attaches the agent to a tab before it reads, acts on or navigates it: the tab becomes
    /// gated (every later navigation meets the policy, see `browser::handler`), input and
    /// navigation are refused while the human drives it, and reading or acting on a page the
    /// policy refuses is refused. Navigating such a tab elsewhere is allowed: that is how it
    /// leaves the page.
    async fn attach(&self, id: TabId, how: Attach) -> BackendResult<()> {
        let acting = how != Attach::Read;
        let (url, refused, human, need_network, dialog, cert_warning, restored) = self
            .h
            .on_ui(move |a| {
                a.with(|st| {
                    st.tabs.get_mut(&id).map(|r| {
                        let human = r.meta.human_driving;
                        if !human {
                            r.meta.agent_attached = true;
                            r.meta.agent_touched |= acting;
                        }
                        let dialog = r.asks.dialog.as_ref().map(|d| match d.kind {
                            crate::browser::page::Asked::SignIn { proxy } => BackendError::SignInAsked {
                                origin: d.origin.clone(),
                                realm: d.message.clone(),
                                proxy,
                            },
                            kind => BackendError::DialogOpen {
                                kind: crate::browser::page::dialog_word(kind).to_string(),
                                message: d.message.clone(),
                            },
                        });
                        (
                            r.url.clone(),
                            r.refused_page.clone(),
                            human,
                            !human && !std::mem::replace(&mut r.meta.network_enabled, true),
                            dialog,
                            r.cert_warning,
                            r.pending_url.is_some(),
                        )
                    })
                })
            })
            .await
            .map_err(|e| err(id, e))?
            .ok_or(BackendError::NoSuchTab(id))?;
        if human && acting {
            return Err(BackendError::HumanDriving {
                reason: "the human took over this tab".into(),
            });
        }
        // Chromium's certificate warning can be clicked (or typed) past; that choice is the
        // human's alone, so the agent reads the warning but never acts on it.
        if how == Attach::Act
            && let Some(code) = cert_warning
        {
            return Err(BackendError::PolicyRefused {
                rule: format!(
                    "this tab shows the browser's certificate warning (net error {code}): the site's \
                     certificate was refused, so this may not be the real site. Only the human can \
                     proceed past it; go back or navigate elsewhere"
                ),
            });
        }
        // A dialog holds the page: reading it would wait on a blocked renderer, and input
        // would go nowhere. Navigating away is allowed (it voids the dialog).
        if how != Attach::Navigate
            && let Some(refusal) = dialog
        {
            return Err(refusal);
        }
        if how != Attach::Navigate {
            if let Some(r) = refused {
                // The rule last: it may end with a fenced value.
                return Err(BackendError::PolicyRefused {
                    rule: format!(
                        "this tab is on a page the navigation policy refused; navigate it to an allowed address first. {}",
                        r.rule
                    ),
                });
            }
            self.policy
                .check_current_tab(&url)
                .map_err(|e| BackendError::PolicyRefused { rule: e.to_string() })?;
        }
        // The connected-address check reads Network events of the tab's documents.
        if need_network {
            self.tab(id)
                .devtools("Network.enable", serde_json::json!({}))
                .await
                .map_err(|e| err(id, e))?;
            // From now on its events count the tab's requests in flight (network-idle waits).
            self.h
                .on_ui(move |a| {
                    a.with(|st| {
                        if let Some(t) = st.tabs.get_mut(&id) {
                            t.net.start();
                        }
                    })
                })
                .await
                .map_err(|e| err(id, e))?;
        }
        // Asked in the same visit to the UI thread, so the common case costs no second one.
        if restored && how != Attach::Navigate {
            self.load_restored(id).await?;
        }
        Ok(())
    }

    /// Takes a restored tab's saved page, which it has not loaded yet (it loads when first
    /// shown): `None` for any other tab.
    async fn take_restored(&self, id: TabId) -> BackendResult<Option<String>> {
        self.h
            .on_ui(move |a| a.with(|st| st.tabs.get_mut(&id).and_then(|t| t.pending_url.take())))
            .await
            .map_err(|e| err(id, e))
    }

    /// Puts back a restored tab's saved page that was taken but not loaded.
    async fn keep_restored(&self, id: TabId, url: String) {
        let _ = self
            .h
            .on_ui(move |a| {
                a.with(|st| {
                    if let Some(t) = st.tabs.get_mut(&id) {
                        t.pending_url.get_or_insert(url);
                    }
                })
            })
            .await;
    }

    /// Loads a restored tab's saved page before the agent reads or acts on it, as showing it
    /// to the human would (the agent would otherwise read an empty page where the human's
    /// strip shows a site). The page meets the agent's navigation policy like any other; one
    /// it refuses stays unloaded, for the human.
    async fn load_restored(&self, id: TabId) -> BackendResult<()> {
        let Some(url) = self.take_restored(id).await? else {
            return Ok(());
        };
        let checked = self.check_restored(id, url).await?;
        self.tab(id).navigate(&checked).await.map_err(|e| err(id, e))?;
        Ok(())
    }

    /// A restored tab's saved page (taken from it) checked against the agent's navigation
    /// policy; one the policy refuses is put back, for the human, and the refusal says why
    /// the tab is where it is.
    async fn check_restored(&self, id: TabId, url: String) -> BackendResult<String> {
        match self.check_nav(&url).await {
            Ok(u) => Ok(u),
            Err(e) => {
                self.keep_restored(id, url).await;
                Err(match e {
                    BackendError::PolicyRefused { rule } => BackendError::PolicyRefused {
                        rule: format!(
                            "this tab was restored from the last session and has not loaded its page; \
                             that page is one the navigation policy refuses: {rule}"
                        ),
                    },
                    e => e,
                })
            }
        }
    }
}

impl AppBackend {
    /// A request context for one logged-out read: in memory (no cache path, so nothing it
    /// receives reaches the disk), sharing cookies, storage and cache with nothing, and gone
    /// once its tab and this handle are.
    async fn throwaway_context(&self) -> BackendResult<cef::RequestContext> {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let prefs = self.containers.prefs();
        let ctx = self
            .h
            .on_ui(move |_| {
                let done = Box::new(move |ctx: &cef::RequestContext| {
                    crate::privacy::apply_preferences(ctx, &prefs);
                    let _ = tx.send(());
                });
                cef::RequestContext::create(std::path::Path::new(""), false, done)
            })
            .await
            .map_err(|e| BackendError::Other(e.to_string()))?
            .ok_or_else(|| {
                BackendError::Other("CEF could not create a request context for the read".into())
            })?;
        tokio::time::timeout(Duration::from_secs(10), rx)
            .await
            .map_err(|_| BackendError::Other("the read's request context did not initialize".into()))?
            .map_err(|_| BackendError::Other("the read's request context went away".into()))?;
        Ok(ctx)
    }

    /// Loads `url` in the throwaway tab `id` and reads it: status, title, text, password
    /// fields, frame addresses. A client-rendered page is given up to 2 s to go quiet.
    async fn read_in(&self, id: TabId, url: String, cap: usize) -> BackendResult<LoggedOutPage> {
        self.attach(id, Attach::Navigate).await?;
        let t = self.tab(id);
        let o = t.navigate(&url).await.map_err(|e| err(id, e))?;
        // The committed page may be one the policy refused after the request (a connected
        // address it does not allow): nothing of it is read.
        self.agent_reads(id).await?;
        let start = Instant::now();
        let mut walk = t.walk().await.map_err(|e| err(id, e))?;
        while let Some(wait) = walk.quiet_wait(aperture_engine::record::QUIET) {
            let left = Duration::from_secs(2).saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            tokio::time::sleep(wait.min(left)).await;
            walk = t.walk().await.map_err(|e| err(id, e))?;
        }
        let password_fields = walk
            .nodes
            .iter()
            .filter(|n| n.visible && n.input_type.as_deref() == Some("password"))
            .count();
        let (text, truncated, pdf) = t.page_text(cap).await.map_err(|e| err(id, e))?;
        let frames = match t.devtools("Page.getFrameTree", serde_json::json!({})).await {
            Ok(v) => frame_urls(&v["frameTree"]),
            Err(e) => {
                tracing::debug!(error = %e, "the logged-out read's frame tree could not be read");
                Vec::new()
            }
        };
        let title = tab::list(&self.h)
            .await
            .ok()
            .and_then(|l| l.into_iter().find(|x| x.id == id))
            .map(|x| x.title)
            .unwrap_or_default();
        let out = outcome(o, title);
        Ok(LoggedOutPage {
            url: out.url,
            status: out.status,
            title: out.title,
            text: PageText { text, truncated, pdf },
            password_fields,
            frames,
        })
    }
}

/// Every frame address in a DevTools frame tree, subframes included, the main frame's first.
fn frame_urls(tree: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        if let Some(u) = node["frame"]["url"].as_str() {
            out.push(u.to_string());
        }
        if let Some(children) = node["childFrames"].as_array() {
            stack.extend(children.iter().rev());
        }
    }
    out
}

/// What the agent is about to do with a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attach {
    /// Read it (snapshot, text, screenshot, console).
    Read,
    /// Send it input or change its page in place.
    Act,
    /// Navigate it (to a destination checked separately).
    Navigate,
}

fn err(id: TabId, e: TabError) -> BackendError {
    match e {
        TabError::NoSuchTab(_) | TabError::Closed => BackendError::NoSuchTab(id),
        TabError::RendererGone(why) => BackendError::RendererGone(why),
        TabError::Timeout { secs, .. } => BackendError::Timeout(Duration::from_secs(secs)),
        e @ TabError::NotArrived { .. } => BackendError::Other(e.to_string()),
        TabError::SignIn { origin, realm, proxy } => BackendError::SignInAsked { origin, realm, proxy },
        TabError::LoadFailed { url, text, code } => BackendError::Navigation {
            url,
            reason: format!("{text} ({code})"),
        },
        TabError::BadUrl { url, why } => BackendError::Navigation { url, reason: why },
        TabError::Policy(rule) => BackendError::PolicyRefused { rule },
        TabError::Walker(w) => BackendError::from_walker(0, w),
        other => BackendError::Other(other.to_string()),
    }
}

/// Input errors happen after the events may have been queued: their outcome is unknown,
/// unless the tab says the input was voided (not delivered) or never sent.
fn input_err(id: TabId, e: TabError) -> BackendError {
    match e {
        TabError::NoSuchTab(_) | TabError::Closed => BackendError::NoSuchTab(id),
        TabError::NotDelivered(why) => BackendError::NotDelivered(why),
        TabError::NotReady(why) => BackendError::NotReady(why),
        TabError::FocusMoved { typed, total, went } => BackendError::FocusMoved { typed, total, went },
        other => BackendError::ActionOutcomeUnknown(other.to_string()),
    }
}

impl AppBackend {
    /// One of tab `id`'s tallies (see `browser::state::Tally`), as its count and latest.
    async fn tally(
        &self,
        id: TabId,
        which: fn(&crate::browser::state::TabRec) -> &crate::browser::state::Tally,
    ) -> BackendResult<(u64, Vec<String>)> {
        self.h
            .on_ui(move |a| {
                a.with(|st| {
                    st.tabs.get(&id).map(|t| {
                        let t = which(t);
                        (t.count, t.latest.clone())
                    })
                })
            })
            .await
            .map_err(|e| err(id, e))?
            .ok_or(BackendError::NoSuchTab(id))
    }

    fn tab(&self, id: TabId) -> tab::Tab {
        tab::Tab::new(&self.h, id)
    }

    async fn meta(&self, id: TabId) -> BackendResult<TabMeta> {
        self.h
            .on_ui(move |a| a.with(|st| st.tabs.get(&id).map(|r| r.meta.clone())))
            .await
            .map_err(|e| err(id, e))?
            .ok_or(BackendError::NoSuchTab(id))
    }

    /// Refused while the human drives the tab: for answers to what the tab holds (a dialog, a
    /// sign-in), which `agent_acts` would refuse for the dialog itself.
    async fn not_human_driven(&self, id: TabId) -> BackendResult<()> {
        if self.meta(id).await?.human_driving {
            return Err(BackendError::HumanDriving {
                reason: "the human took over this tab".into(),
            });
        }
        Ok(())
    }

    /// Refuses input in a tab the human took over or on a refused page; otherwise marks the
    /// tab as one the agent acts on (the window shows the mark and offers Take over), in both
    /// modes.
    async fn agent_acts(&self, id: TabId) -> BackendResult<()> {
        self.attach(id, Attach::Act).await
    }

    async fn agent_reads(&self, id: TabId) -> BackendResult<()> {
        self.attach(id, Attach::Read).await
    }

    /// Page text in an answer about input (what covered a target, where focus went), redacted
    /// like every other page read.
    async fn redacted(&self, id: TabId, mut text: Option<String>) -> Option<String> {
        if let (Some(v), Some(t)) = (&self.vault, text.as_mut()) {
            v.redact_live(&self.h, id, &mut [t]).await;
        }
        text
    }

    /// The agent's view of what became of input.
    async fn delivery(&self, id: TabId, d: tab::Delivery) -> Delivery {
        let off = d.landed.filter(|l| !l.inside);
        let pressed_inside = off.as_ref().is_some_and(|l| l.pressed);
        let elsewhere = off.map(|l| l.what.map_or_else(|| "another element".to_string(), |w| w.line()));
        Delivery {
            elsewhere: self.redacted(id, elsewhere).await,
            pressed_inside,
            unconfirmed: d.unconfirmed,
            navigated: d.navigated,
            presses_sent: d.presses_sent,
        }
    }

    /// [`input_err`], with where focus went redacted.
    async fn input_failed(&self, id: TabId, e: TabError) -> BackendError {
        match input_err(id, e) {
            BackendError::FocusMoved { typed, total, went } => BackendError::FocusMoved {
                typed,
                total,
                went: self.redacted(id, Some(went)).await.unwrap_or_default(),
            },
            other => other,
        }
    }
}

fn outcome(o: crate::browser::state::LoadOutcome, title: String) -> LoadOutcome {
    LoadOutcome {
        url: o.url,
        status: u16::try_from(o.status).ok().filter(|s| *s > 0),
        title,
        loading: o.loading,
    }
}

#[async_trait]
impl Backend for AppBackend {
    async fn tabs(&self) -> BackendResult<Vec<TabInfo>> {
        let list = tab::list(&self.h)
            .await
            .map_err(|e| BackendError::Other(e.to_string()))?;
        let mut out: Vec<TabInfo> = list
            .into_iter()
            // A logged-out read's tab is nobody's: no session can select, read or act on it.
            .filter(|t| !t.meta.throwaway)
            .map(|t| TabInfo {
                id: t.id,
                url: t.url,
                title: t.title,
                container: (!t.meta.container.is_empty()).then_some(t.meta.container.clone()),
                opened_by_agent: t.meta.opened_by_agent,
                loading: t.loading,
                human_driving: t.meta.human_driving,
                active: t.active,
                muted: t.muted,
                audible: t.audible,
                camera: t.capturing.0,
                microphone: t.capturing.1,
                pinned: t.pinned,
                unloaded: t.unloaded,
                unresponsive: t.unresponsive,
            })
            .collect();
        if let Some(v) = &self.vault {
            v.retain_tabs(&out.iter().map(|t| t.id).collect::<Vec<_>>());
            for t in &mut out {
                let (url, c) = (t.url.clone(), t.container.clone().unwrap_or_default());
                v.redact(t.id, &c, &url, &mut t.title);
                v.redact(t.id, &c, &url, &mut t.url);
            }
        }
        Ok(out)
    }

    async fn open_tab(&self, url: Option<String>, container: Option<String>) -> BackendResult<TabId> {
        let url = match url {
            Some(u) => Some(self.check_nav(&u).await?),
            None => None,
        };
        let mut opts = TabOptions {
            size: self.size,
            meta: TabMeta {
                opened_by_agent: true,
                ..Default::default()
            },
            ..Default::default()
        };
        if let Some(c) = &container {
            // The agent may use the human's containers; it never creates, merges or moves them.
            let (ctx, name) = self
                .containers
                .context(c, false)
                .await
                .map_err(|rule| BackendError::PolicyRefused { rule })?;
            opts.context = Some(ctx);
            opts.meta.container = name;
        }
        // Open blank, then navigate as the agent, so the destination gets the same redirect
        // and connected-address checks as any agent navigation.
        let (t, _) = tab::open(&self.h, "about:blank", opts)
            .await
            .map_err(|e| BackendError::Other(e.to_string()))?;
        let id = t.id;
        if let Some(u) = url {
            self.attach(id, Attach::Navigate).await?;
            match t.navigate(&u).await {
                // The tab exists either way; a failed first load is the page's problem, and a
                // sign-in or dialog holding it is said by the first look at it (the agent
                // must have its id to answer it).
                Ok(_)
                | Err(TabError::LoadFailed { .. })
                | Err(TabError::Timeout { .. })
                | Err(TabError::NotArrived { .. }) => {}
                // A tab opened for a file would stay blank: closed, as a desktop browser does.
                Err(TabError::Download { name, .. }) => {
                    let _ = t.close().await;
                    return Err(err(id, TabError::Download { name, new_tab: true }));
                }
                Err(e) => match err(id, e) {
                    BackendError::SignInAsked { .. } | BackendError::DialogOpen { .. } => {}
                    e => return Err(e),
                },
            }
        }
        Ok(id)
    }

    async fn close_tab(&self, id: TabId) -> BackendResult<()> {
        if !self.meta(id).await?.opened_by_agent {
            return Err(BackendError::NotOpenedByAgent(id));
        }
        self.tab(id).close().await.map_err(|e| err(id, e))
    }

    async fn select_tab(&self, id: TabId) -> BackendResult<()> {
        // The human sees what the agent looks at, unless they are driving the tab in front
        // (headless, nobody can be).
        self.h
            .on_ui(move |a| {
                a.with(|st| {
                    if !st.tabs.contains_key(&id) {
                        return false;
                    }
                    let front_is_human = st
                        .active
                        .and_then(|f| st.tabs.get(&f))
                        .is_some_and(|t| t.meta.human_driving);
                    if !front_is_human {
                        st.active = Some(id);
                        st.events.push(crate::browser::Event::Refresh);
                    }
                    true
                })
            })
            .await
            .map_err(|e| err(id, e))?
            .then_some(())
            .ok_or(BackendError::NoSuchTab(id))
    }

    async fn navigate(&self, id: TabId, nav: Nav) -> BackendResult<LoadOutcome> {
        self.attach(id, Attach::Navigate).await?;
        let t = self.tab(id);
        // A restored tab not loaded yet: reloading it loads its saved page; going elsewhere
        // replaces it.
        let nav = match (nav, self.take_restored(id).await?) {
            (Nav::Reload, Some(saved)) => tab::Nav::Goto(self.check_restored(id, saved).await?),
            (Nav::Goto(u), _) => tab::Nav::Goto(self.check_nav(&u).await?),
            (Nav::Back, _) => tab::Nav::Back,
            (Nav::Forward, _) => tab::Nav::Forward,
            (Nav::Reload, None) => tab::Nav::Reload,
        };
        let o = match t.nav(nav).await.map_err(|e| err(id, e)) {
            Ok(o) => o,
            // A page can redirect to a URL carrying a filled value.
            Err(BackendError::Navigation { mut url, reason }) => {
                if let Some(v) = &self.vault {
                    v.redact_live(&self.h, id, &mut [&mut url]).await;
                }
                return Err(BackendError::Navigation { url, reason });
            }
            Err(e) => return Err(e),
        };
        let title = self
            .tabs()
            .await?
            .into_iter()
            .find(|x| x.id == id)
            .map(|x| x.title)
            .unwrap_or_default();
        let mut out = outcome(o, title);
        if let Some(v) = &self.vault {
            v.redact_live(&self.h, id, &mut [&mut out.url, &mut out.title])
                .await;
        }
        Ok(out)
    }

    async fn settle(&self, id: TabId, max: Duration) -> BackendResult<()> {
        // Input events and our renderer messages travel on different channels; a repaint
        // after the input means the page has processed it. Then wait out a load it started.
        let t = self.tab(id);
        let start = Instant::now();
        // A dialog the input opened holds the renderer: no frame or load end comes until it is
        // answered, so stop waiting as soon as one is up.
        let dialog_up = || async move {
            loop {
                let up = self
                    .h
                    .on_ui(move |a| a.with(|st| st.tabs.get(&id).is_some_and(|r| r.asks.dialog.is_some())))
                    .await
                    .unwrap_or(false);
                if up {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        };
        tokio::select! {
            _ = tokio::time::timeout(max, t.frame()) => {}
            _ = dialog_up() => return Ok(()),
        }
        while start.elapsed() < max {
            let (loading, dialog) = self
                .h
                .on_ui(move |a| {
                    a.with(|st| {
                        st.tabs
                            .get(&id)
                            .map_or((false, false), |r| (r.loading, r.asks.dialog.is_some()))
                    })
                })
                .await
                .unwrap_or((false, false));
            if !loading || dialog {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        Ok(())
    }

    async fn document(&self, id: TabId) -> BackendResult<Option<u64>> {
        self.h
            .on_ui(move |a| a.with(|st| st.tabs.get(&id).map(|r| r.document_seq)))
            .await
            .map_err(|e| err(id, e))?
            .ok_or(BackendError::NoSuchTab(id))
            .map(Some)
    }

    async fn walk(&self, id: TabId) -> BackendResult<Walk> {
        self.agent_reads(id).await?;
        let mut w = self.tab(id).walk().await.map_err(|e| err(id, e))?;
        // Before the engine sees it, so no snapshot, diff or restatement can carry a value
        // the vault filled.
        if let Some(v) = &self.vault {
            v.redact_walk(&self.h, id, &mut w).await;
        }
        Ok(w)
    }

    async fn element(&self, id: TabId, walk_id: u64, idx: u32, op: ElementOp) -> BackendResult<ElementReply> {
        // Ops that change the page are the agent acting; reading and focusing are not.
        if matches!(
            op,
            ElementOp::SelectOptions(_)
                | ElementOp::SetValue(_)
                | ElementOp::Clear
                | ElementOp::SelectText { .. }
        ) {
            self.agent_acts(id).await?;
        } else {
            self.agent_reads(id).await?;
        }
        // A <select> list or date picker the page opened is drawn over the page by the
        // browser, out of the page's reach: input there goes to it, whatever the page's own
        // hit test says.
        if let ElementOp::HitTest { x, y } = op
            && let Some((px, py, pw, ph)) = self.tab(id).popup().await
            && x >= px as f32
            && y >= py as f32
            && x < (px + pw) as f32
            && y < (py + ph) as f32
        {
            return Ok(ElementReply {
                cover: Some("the open drop-down list or picker (press Escape to close it)".into()),
                ..ElementReply::default()
            });
        }
        // A search for words is an oracle over the text it searches: on a tab that holds a
        // value the vault filled (which every read redacts), guesses would spell it out.
        if let ElementOp::SelectText { text: Some(_), .. } = &op
            && let Some(v) = &self.vault
            && v.reads_redacted(&self.h, id).await
        {
            return Err(BackendError::VaultRefused(
                "searching for text on a tab the vault filled is refused: its answers could reveal the filled value; select by `ref` alone".into(),
            ));
        }
        let w = aperture_engine::protocol::ElementOp::from(&op);
        let r = self.tab(id).element(walk_id, idx, w).await.map_err(|e| match e {
            TabError::Walker(w) => BackendError::from_walker(walk_id, w),
            other => err(id, other),
        })?;
        // The MCP layer's mapping, then every page string in it redacted as any read is.
        let mut out = ElementReply::from(r);
        out.text = self.redacted(id, out.text).await;
        out.value = self.redacted(id, out.value).await;
        out.cover = self.redacted(id, out.cover).await;
        out.focus = self.redacted(id, out.focus).await;
        Ok(out)
    }

    async fn page_text(&self, id: TabId, cap: usize) -> BackendResult<PageText> {
        self.agent_reads(id).await?;
        let (mut text, truncated, pdf) = self.tab(id).page_text(cap).await.map_err(|e| err(id, e))?;
        if let Some(v) = &self.vault {
            v.redact_live(&self.h, id, &mut [&mut text]).await;
        }
        Ok(PageText { text, truncated, pdf })
    }

    async fn click_at(
        &self,
        id: TabId,
        x: f32,
        y: f32,
        button: MouseButton,
        count: u8,
    ) -> BackendResult<Delivery> {
        self.agent_acts(id).await?;
        let b = match button {
            MouseButton::Left => Button::Left,
            MouseButton::Middle => Button::Middle,
            MouseButton::Right => Button::Right,
        };
        match self.tab(id).click_at(x, y, b, count as i32).await {
            Ok(d) => Ok(self.delivery(id, d).await),
            Err(e) => Err(self.input_failed(id, e).await),
        }
    }

    async fn move_to(&self, id: TabId, x: f32, y: f32) -> BackendResult<Delivery> {
        self.agent_acts(id).await?;
        match self.tab(id).hover_at(x, y).await {
            Ok(d) => Ok(self.delivery(id, d).await),
            Err(e) => Err(self.input_failed(id, e).await),
        }
    }

    async fn rest_pointer(&self, id: TabId, x: f32, y: f32) {
        if self.agent_acts(id).await.is_ok() {
            self.tab(id).rest_at(x, y).await;
        }
    }

    async fn drag(&self, id: TabId, from: (f32, f32), to: (f32, f32)) -> BackendResult<(Delivery, DragEnd)> {
        self.agent_acts(id).await?;
        match self.tab(id).drag(from, to).await {
            Ok((d, end)) => {
                let end = match end {
                    crate::browser::pointer::DragEnd::NoDrag => DragEnd::Mouse,
                    crate::browser::pointer::DragEnd::Dropped(_) => DragEnd::Dropped,
                    crate::browser::pointer::DragEnd::Refused => DragEnd::Refused,
                };
                Ok((self.delivery(id, d).await, end))
            }
            Err(e) => Err(self.input_failed(id, e).await),
        }
    }

    async fn scroll(&self, id: TabId, x: f32, y: f32, dx: f32, dy: f32) -> BackendResult<Delivery> {
        self.agent_acts(id).await?;
        // CEF's wheel deltas are inverted relative to scroll direction.
        match self.tab(id).scroll(x, y, -dx as i32, -dy as i32).await {
            Ok(d) => Ok(self.delivery(id, d).await),
            Err(e) => Err(self.input_failed(id, e).await),
        }
    }

    async fn key(&self, id: TabId, key: &str) -> BackendResult<Delivery> {
        self.key_repeat(id, key, 1).await
    }

    async fn key_repeat(&self, id: TabId, key: &str, times: u32) -> BackendResult<Delivery> {
        self.agent_acts(id).await?;
        match self.tab(id).key_repeat(key, times).await {
            Ok(d) => Ok(self.delivery(id, d).await),
            // An unknown key name: nothing was sent.
            Err(TabError::Other(m)) => Err(BackendError::InvalidInput(m)),
            Err(e) => Err(self.input_failed(id, e).await),
        }
    }

    async fn type_text(&self, id: TabId, text: &str) -> BackendResult<Delivery> {
        self.agent_acts(id).await?;
        match self.tab(id).type_keys(text).await {
            Ok(d) => Ok(self.delivery(id, d).await),
            Err(e) => Err(self.input_failed(id, e).await),
        }
    }

    async fn network_quiet(&self, id: TabId) -> BackendResult<NetQuiet> {
        self.agent_reads(id).await?;
        let (loading, watched) = self
            .h
            .on_ui(move |a| a.with(|st| st.tabs.get(&id).map(|t| (t.loading, t.net.look()))))
            .await
            .map_err(|e| err(id, e))?
            .ok_or(BackendError::NoSuchTab(id))?;
        // The document's own timeline: when its last request finished, and whether it loaded.
        let n = self.tab(id).net_state().await.map_err(|e| err(id, e))?;
        let finished = Duration::from_millis(n.quiet_ms);
        Ok(NetQuiet {
            loaded: n.complete && !loading,
            quiet: watched.map_or(finished, |w| w.idle.min(finished)),
            open: watched.map(|w| w.open),
        })
    }

    async fn screenshot(&self, id: TabId, max_long_edge: u32, clip: Option<Clip>) -> BackendResult<Png> {
        self.agent_reads(id).await?;
        let (bytes, w, h) = self
            .tab(id)
            .screenshot(Some(max_long_edge), clip.map(|c| [c.x, c.y, c.w, c.h]))
            .await
            .map_err(|e| err(id, e))?;
        Ok(Png { bytes, w, h })
    }

    async fn console(&self, id: TabId) -> BackendResult<Vec<ConsoleEntry>> {
        self.agent_reads(id).await?;
        let mut entries = self.tab(id).drain_console().await.map_err(|e| err(id, e))?;
        if let Some(v) = &self.vault {
            let mut texts: Vec<&mut String> = entries
                .iter_mut()
                .flat_map(|e| [&mut e.text, &mut e.source])
                .collect();
            v.redact_live(&self.h, id, &mut texts).await;
        }
        Ok(entries
            .into_iter()
            .map(|e| ConsoleEntry {
                kind: if e.text.starts_with("load failed") || e.text.starts_with("request failed") {
                    ConsoleKind::FailedRequest
                } else if e.level == "error" {
                    ConsoleKind::Error
                } else if e.level == "warning" {
                    ConsoleKind::Warning
                } else {
                    ConsoleKind::Log
                },
                text: e.text,
                url: (!e.source.is_empty()).then_some(e.source),
                line: u32::try_from(e.line).ok().filter(|l| *l > 0),
            })
            .filter(|e| !matches!(e.kind, ConsoleKind::Warning | ConsoleKind::Log) || !e.text.is_empty())
            .collect())
    }

    /// The per-site policy the human's menu sets too (one table, keyed by site, persisted in
    /// settings and realised in all three dark-mode layers by the UI thread), in both modes.
    async fn theme(&self, target: ThemeTarget, set: Option<ThemeMode>) -> BackendResult<ThemeState> {
        use aperture_ui::dark::{self, ThemeMode as Ui};
        let site = match target {
            ThemeTarget::Host(h) => theme_site(&h)?,
            ThemeTarget::Tab(id) => {
                let url = self
                    .tabs()
                    .await?
                    .into_iter()
                    .find(|t| t.id == id)
                    .ok_or(BackendError::NoSuchTab(id))?
                    .url;
                // The URL is page-controlled: the error names the problem, not the text.
                dark::site_key(&url).ok_or(BackendError::InvalidInput(
                    "the tab's page has no site to attach a theme to".into(),
                ))?
            }
        };
        let mode = match set {
            Some(m) => {
                let m = match m {
                    ThemeMode::Auto => Ui::Auto,
                    ThemeMode::On => Ui::On,
                    ThemeMode::Off => Ui::Off,
                };
                self.themes.request(&site, m);
                m
            }
            None => self.themes.mode_for_site(&site),
        };
        Ok(ThemeState {
            host: site,
            mode: match mode {
                Ui::Auto => ThemeMode::Auto,
                Ui::On => ThemeMode::On,
                Ui::Off => ThemeMode::Off,
            },
        })
    }

    async fn containers(&self) -> BackendResult<Vec<ContainerInfo>> {
        let r = self.containers.registry.lock().expect("registry");
        Ok(r.containers()
            .iter()
            .map(|c| ContainerInfo {
                id: c.id.to_string(),
                name: c.name.clone(),
            })
            .collect())
    }

    async fn vault_entries(&self, id: TabId) -> BackendResult<Vec<VaultEntry>> {
        Ok(self.vault()?.entries(&self.h, id).await?.entries)
    }

    async fn vault_entries_for_tab(&self, id: TabId) -> BackendResult<VaultEntries> {
        self.vault()?.entries(&self.h, id).await
    }

    async fn answer_dialog(
        &self,
        id: TabId,
        accept: bool,
        text: Option<String>,
        login: Option<(String, String)>,
    ) -> BackendResult<String> {
        // Answering is acting on the tab: refused while the human drives it.
        self.not_human_driven(id).await?;
        self.h
            .on_ui(move |a| {
                let kind = a.with(|st| {
                    st.tabs.get(&id).and_then(|t| {
                        t.asks
                            .dialog
                            .as_ref()
                            .map(|d| crate::browser::page::dialog_word(d.kind))
                    })
                });
                let kind =
                    kind.ok_or_else(|| BackendError::InvalidInput("no dialog is open in this tab".into()))?;
                let login = login.as_ref().map(|(u, p)| (u.as_str(), p.as_str()));
                crate::browser::page::answer_dialog(a, id, accept, text.as_deref(), login, false)
                    .map_err(BackendError::InvalidInput)?;
                Ok(kind.to_string())
            })
            .await
            .map_err(|e| err(id, e))?
    }

    async fn read_logged_out(&self, url: &str, cap: usize, limit: Duration) -> BackendResult<LoggedOutPage> {
        let url = self.check_nav(url).await?;
        let ctx = self.throwaway_context().await?;
        let opts = TabOptions {
            size: self.size,
            meta: TabMeta {
                // Agent-opened: every request of it meets the navigation gate.
                opened_by_agent: true,
                throwaway: true,
                ..Default::default()
            },
            context: Some(ctx),
            ..Default::default()
        };
        let (t, _) = tab::open(&self.h, "about:blank", opts)
            .await
            .map_err(|e| BackendError::Other(e.to_string()))?;
        let read = tokio::time::timeout(limit, self.read_in(t.id, url, cap)).await;
        // Closed whatever happened: the tab held the context's last reference, and Chromium
        // frees an in-memory context with it.
        if let Err(e) = t.close().await {
            tracing::warn!(tab = t.id.0, error = %e, "closing a logged-out read's tab failed");
        }
        read.map_err(|_| BackendError::Timeout(limit))?
    }

    async fn downloads(&self) -> BackendResult<Vec<aperture_mcp::backend::DownloadInfo>> {
        use crate::browser::page::DownloadState as S;
        self.h
            .on_ui(|a| {
                a.with(|st| {
                    st.downloads
                        .iter()
                        .map(|d| aperture_mcp::backend::DownloadInfo {
                            name: d
                                .path
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default(),
                            received: d.received,
                            total: d.total,
                            mime: d.mime.clone(),
                            state: match &d.state {
                                S::InProgress => "in progress".into(),
                                S::Complete => "complete".into(),
                                S::Cancelled => "cancelled".into(),
                                S::Failed(w) => format!("failed: {w}"),
                            },
                            tab: d.tab,
                        })
                        .collect()
                })
            })
            .await
            .map_err(|e| BackendError::Other(e.to_string()))
    }

    async fn vault_fill(&self, id: TabId, entry: &str, targets: Vec<VaultTarget>) -> BackendResult<()> {
        let v = self.vault()?;
        self.agent_acts(id).await?;
        v.fill(&self.h, id, entry, targets).await
    }

    async fn refused_navigations(&self, id: TabId) -> BackendResult<(u64, Vec<String>)> {
        self.tally(id, |t| &t.refusals).await
    }

    async fn browser_notes(&self, id: TabId) -> BackendResult<(u64, Vec<String>)> {
        self.tally(id, |t| &t.notes).await
    }

    async fn vault_sign_in(&self, id: TabId, entry: &str) -> BackendResult<()> {
        let v = self.vault()?;
        // Not `agent_acts`: the open sign-in is what it refuses acts for. Its other checks hold.
        self.not_human_driven(id).await?;
        v.sign_in(&self.h, id, entry).await
    }

    async fn vault_attachments(&self) -> BackendResult<Vec<aperture_mcp::backend::VaultAttachment>> {
        self.vault()?.attachments()
    }

    async fn vault_attach(
        &self,
        id: TabId,
        attachment: &str,
        target: VaultTarget,
    ) -> BackendResult<aperture_mcp::backend::VaultAttachment> {
        let v = self.vault()?;
        self.agent_acts(id).await?;
        v.attach(&self.h, id, attachment, target).await
    }

    async fn vault_profiles(&self) -> BackendResult<Vec<aperture_mcp::backend::ProfileInfo>> {
        self.vault()?.profiles()
    }

    async fn vault_profile(
        &self,
        id: TabId,
        profile: &str,
        controls: Vec<aperture_mcp::backend::ProfileControl>,
        apply: bool,
    ) -> BackendResult<aperture_mcp::backend::ProfileOutcome> {
        let v = self.vault()?;
        if apply {
            self.agent_acts(id).await?;
        }
        v.profile_fill(&self.h, id, profile, controls, apply).await
    }

    async fn vault_generate(
        &self,
        id: TabId,
        username: Option<String>,
        targets: Vec<VaultTarget>,
    ) -> BackendResult<aperture_mcp::backend::GeneratedPassword> {
        let v = self.vault()?;
        self.agent_acts(id).await?;
        v.generate(&self.h, id, username, targets).await
    }
}

/// The site key for a `host` the agent named: a host name as a URL carries it (no path, port,
/// user or spaces), at most 253 characters; the human's settings file is keyed by it.
fn theme_site(host: &str) -> BackendResult<String> {
    let bad = || {
        BackendError::InvalidInput(
            "`host` must be a site's host name, like example.com (no scheme, port or path)".into(),
        )
    };
    if host.is_empty()
        || host.len() > 253
        || host
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "/?#@\\:%[]".contains(c))
    {
        return Err(bad());
    }
    aperture_ui::dark::site_key(&format!("https://{host}/")).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_theme_host_is_a_host_name_and_nothing_else() {
        assert_eq!(
            super::theme_site("Example.COM").unwrap(),
            aperture_ui::dark::site_key("https://example.com/").unwrap()
        );
        for bad in [
            "",
            "../../etc/passwd",
            "a.com\nb",
            "a b",
            "a.com:80",
            "a.com/x",
            "u@a.com",
            "%41.com",
        ] {
            assert!(super::theme_site(bad).is_err(), "{bad:?}");
        }
        assert!(super::theme_site(&"a".repeat(100_000)).is_err());
    }
}
