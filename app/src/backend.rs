//! The app's implementation of the MCP [`Backend`]: the agent's view of the browser, on top
//! of the [`crate::tab`] seam, with agent-navigation policy applied here.

use crate::state::TabMeta;
use crate::tab::{self, Button, TabError, TabOptions};
use aperture_mcp::backend::*;
use aperture_privacy::NavigationPolicy;
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The browser as the agent sees it.
pub struct AppBackend {
    policy: NavigationPolicy,
    registry: Arc<Mutex<aperture_privacy::ContainerRegistry>>,
    size: (i32, i32),
    themes: Mutex<HashMap<String, ThemeMode>>,
    /// The profile's vault, when one was loaded at start-up (see `crate::vault`).
    vault: Option<Arc<crate::vault::VaultWiring>>,
}

impl AppBackend {
    pub fn new(
        policy: NavigationPolicy,
        size: (i32, i32),
        registry: Arc<Mutex<aperture_privacy::ContainerRegistry>>,
    ) -> AppBackend {
        AppBackend {
            policy,
            registry,
            size,
            themes: Mutex::new(HashMap::new()),
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

    /// Marks the tab's next navigation as the agent's and makes sure the connected-address
    /// check can see the response (Network events).
    async fn prepare_agent_nav(&self, id: TabId) -> BackendResult<()> {
        let t = id.0 as i32;
        let (current, need_network) = tab::on_ui(move || {
            crate::state::with(|st| {
                st.tabs.get_mut(&t).map(|r| {
                    r.meta.agent_nav = true;
                    r.meta.doc_check_pending = true;
                    (
                        r.url.clone(),
                        !std::mem::replace(&mut r.meta.network_enabled, true),
                    )
                })
            })
        })
        .await
        .map_err(|e| err(id, e))?
        .ok_or(BackendError::NoSuchTab(id))?;
        if !current.is_empty() {
            self.policy
                .check_current_tab(&current)
                .map_err(|e| BackendError::PolicyRefused { rule: e.to_string() })?;
        }
        if need_network {
            tid(id)
                .devtools("Network.enable", serde_json::json!({}))
                .await
                .map_err(|e| err(id, e))?;
        }
        Ok(())
    }
}

fn tid(id: TabId) -> tab::Tab {
    tab::Tab { id: id.0 as i32 }
}

fn err(id: TabId, e: TabError) -> BackendError {
    match e {
        TabError::NoSuchTab(_) | TabError::Closed => BackendError::NoSuchTab(id),
        TabError::RendererGone(_) => BackendError::RendererGone,
        TabError::Timeout { secs, .. } => BackendError::Timeout(Duration::from_secs(secs)),
        TabError::LoadFailed { url, text, code } => BackendError::Navigation {
            url,
            reason: format!("{text} ({code})"),
        },
        TabError::BadUrl { url, why } => BackendError::Navigation { url, reason: why },
        TabError::Policy(rule) => BackendError::PolicyRefused { rule },
        TabError::Renderer(m) if m.starts_with("stale") => BackendError::StaleWalk { walk_id: 0 },
        other => BackendError::Other(other.to_string()),
    }
}

/// Input errors happen after the events may have been queued: their outcome is unknown.
fn input_err(id: TabId, e: TabError) -> BackendError {
    match e {
        TabError::NoSuchTab(_) | TabError::Closed => BackendError::NoSuchTab(id),
        other => BackendError::ActionOutcomeUnknown(other.to_string()),
    }
}

async fn meta(id: TabId) -> BackendResult<TabMeta> {
    let t = id.0 as i32;
    tab::on_ui(move || crate::state::with(|st| st.tabs.get(&t).map(|r| r.meta.clone())))
        .await
        .map_err(|e| err(id, e))?
        .ok_or(BackendError::NoSuchTab(id))
}

async fn refuse_if_human(id: TabId) -> BackendResult<()> {
    if meta(id).await?.human_driving {
        return Err(BackendError::HumanDriving {
            reason: "the human took over this tab".into(),
        });
    }
    Ok(())
}

fn outcome(o: crate::state::LoadOutcome, title: String) -> LoadOutcome {
    LoadOutcome {
        url: o.url,
        status: u16::try_from(o.status).ok().filter(|s| *s > 0),
        title,
    }
}

fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
}

#[async_trait]
impl Backend for AppBackend {
    async fn tabs(&self) -> BackendResult<Vec<TabInfo>> {
        let list = tab::list()
            .await
            .map_err(|e| BackendError::Other(e.to_string()))?;
        let last = list.last().map(|t| t.id);
        let mut out: Vec<TabInfo> = list
            .into_iter()
            .map(|t| TabInfo {
                id: TabId(t.id as u64),
                url: t.url,
                title: t.title,
                container: (!t.meta.container.is_empty()).then_some(t.meta.container.clone()),
                opened_by_agent: t.meta.opened_by_agent,
                loading: t.loading,
                human_driving: t.meta.human_driving,
                active: Some(t.id) == last,
            })
            .collect();
        if let Some(v) = &self.vault {
            v.retain_tabs(&out.iter().map(|t| t.id).collect::<Vec<_>>());
            for t in &mut out {
                let url = t.url.clone();
                v.redact(t.id, &url, &mut t.title);
                v.redact(t.id, &url, &mut t.url);
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
            let (ctx, name) = crate::privacy::container_context(&self.registry, c, false)
                .await
                .map_err(|rule| BackendError::PolicyRefused { rule })?;
            opts.context = Some(ctx);
            opts.meta.container = name;
        }
        // Open blank, then navigate as the agent, so the destination gets the same redirect
        // and connected-address checks as any agent navigation.
        let (t, _) = tab::open("about:blank", opts)
            .await
            .map_err(|e| BackendError::Other(e.to_string()))?;
        let id = TabId(t.id as u64);
        if let Some(u) = url {
            self.prepare_agent_nav(id).await?;
            match t.navigate(&u).await {
                // The tab exists either way; a failed first load is the page's problem.
                Ok(_) | Err(TabError::LoadFailed { .. }) | Err(TabError::Timeout { .. }) => {}
                Err(e) => return Err(err(id, e)),
            }
        }
        Ok(id)
    }

    async fn close_tab(&self, id: TabId) -> BackendResult<()> {
        if !meta(id).await?.opened_by_agent {
            return Err(BackendError::NotOpenedByAgent(id));
        }
        tid(id).close().await.map_err(|e| err(id, e))
    }

    async fn select_tab(&self, id: TabId) -> BackendResult<()> {
        meta(id).await.map(|_| ())
    }

    async fn navigate(&self, id: TabId, nav: Nav) -> BackendResult<LoadOutcome> {
        refuse_if_human(id).await?;
        let t = tid(id);
        let nav = match nav {
            Nav::Goto(u) => tab::Nav::Goto(self.check_nav(&u).await?),
            Nav::Back => tab::Nav::Back,
            Nav::Forward => tab::Nav::Forward,
            Nav::Reload => tab::Nav::Reload,
        };
        self.prepare_agent_nav(id).await?;
        let o = match t.nav(nav).await.map_err(|e| err(id, e)) {
            Ok(o) => o,
            // A page can redirect to a URL carrying a filled value.
            Err(BackendError::Navigation { mut url, reason }) => {
                if let Some(v) = &self.vault {
                    v.redact_live(id, &mut [&mut url]).await;
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
            v.redact_live(id, &mut [&mut out.url, &mut out.title]).await;
        }
        Ok(out)
    }

    async fn settle(&self, id: TabId, max: Duration) -> BackendResult<()> {
        // Input events and our renderer messages travel on different channels; a repaint
        // after the input means the page has processed it. Then wait out a load it started.
        let t = tid(id);
        let start = Instant::now();
        let _ = tokio::time::timeout(max, t.frame()).await;
        while start.elapsed() < max {
            let loading = tab::list()
                .await
                .ok()
                .and_then(|l| l.into_iter().find(|x| x.id == t.id))
                .is_some_and(|x| x.loading);
            if !loading {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        Ok(())
    }

    async fn document(&self, id: TabId) -> BackendResult<Option<u64>> {
        let t = id.0 as i32;
        tab::on_ui(move || crate::state::with(|st| st.tabs.get(&t).map(|r| r.document_seq)))
            .await
            .map_err(|e| err(id, e))?
            .ok_or(BackendError::NoSuchTab(id))
            .map(Some)
    }

    async fn walk(&self, id: TabId) -> BackendResult<Walk> {
        let mut w = tid(id).walk().await.map_err(|e| err(id, e))?;
        // Before the engine sees it, so no snapshot, diff or restatement can carry a value
        // the vault filled.
        if let Some(v) = &self.vault {
            v.redact_walk(id, &mut w);
        }
        Ok(w)
    }

    async fn element(&self, id: TabId, walk_id: u64, idx: u32, op: ElementOp) -> BackendResult<ElementReply> {
        let v = match &op {
            ElementOp::ScrollIntoView => serde_json::json!({"do": "scroll"}),
            ElementOp::Focus => serde_json::json!({"do": "focus"}),
            ElementOp::Clear => serde_json::json!({"do": "clear"}),
            ElementOp::SelectOptions(vals) => serde_json::json!({"do": "select", "values": vals}),
            ElementOp::ReadText { cap } => serde_json::json!({"do": "text", "cap": cap}),
        };
        let r = tid(id).element(walk_id, idx, v).await.map_err(|e| match e {
            TabError::Renderer(m) if m.starts_with("stale") => BackendError::StaleWalk { walk_id },
            other => err(id, other),
        })?;
        let bounds = serde_json::from_value::<Rect>(r["bounds"].clone()).ok();
        let mut text = r["text"].as_str().map(str::to_string);
        if let (Some(v), Some(t)) = (&self.vault, text.as_mut()) {
            v.redact_live(id, &mut [t]).await;
        }
        Ok(ElementReply {
            bounds,
            text,
            truncated: r["truncated"].as_bool().unwrap_or(false),
        })
    }

    async fn page_text(&self, id: TabId, cap: usize) -> BackendResult<PageText> {
        let (mut text, truncated) = tid(id).page_text(cap).await.map_err(|e| err(id, e))?;
        if let Some(v) = &self.vault {
            v.redact_live(id, &mut [&mut text]).await;
        }
        Ok(PageText { text, truncated })
    }

    async fn click_at(&self, id: TabId, x: f32, y: f32, button: MouseButton, count: u8) -> BackendResult<()> {
        refuse_if_human(id).await?;
        let b = match button {
            MouseButton::Left => Button::Left,
            MouseButton::Middle => Button::Middle,
            MouseButton::Right => Button::Right,
        };
        tid(id)
            .click_at(x, y, b, count as i32)
            .await
            .map_err(|e| input_err(id, e))
    }

    async fn move_to(&self, id: TabId, x: f32, y: f32) -> BackendResult<()> {
        refuse_if_human(id).await?;
        tid(id).move_to(x, y).await.map_err(|e| input_err(id, e))
    }

    async fn scroll(&self, id: TabId, x: f32, y: f32, dx: f32, dy: f32) -> BackendResult<()> {
        refuse_if_human(id).await?;
        // CEF's wheel deltas are inverted relative to scroll direction.
        tid(id)
            .scroll(x, y, -dx as i32, -dy as i32)
            .await
            .map_err(|e| input_err(id, e))
    }

    async fn key(&self, id: TabId, key: &str) -> BackendResult<()> {
        refuse_if_human(id).await?;
        tid(id).key(key).await.map_err(|e| match e {
            TabError::Other(m) => BackendError::InvalidInput(m), // unknown key name: nothing was sent
            other => input_err(id, other),
        })
    }

    async fn type_text(&self, id: TabId, text: &str) -> BackendResult<()> {
        refuse_if_human(id).await?;
        tid(id).type_text(text).await.map_err(|e| input_err(id, e))
    }

    async fn screenshot(&self, id: TabId, max_long_edge: u32) -> BackendResult<Png> {
        let (bytes, w, h) = tid(id)
            .screenshot(Some(max_long_edge))
            .await
            .map_err(|e| err(id, e))?;
        Ok(Png { bytes, w, h })
    }

    async fn console(&self, id: TabId) -> BackendResult<Vec<ConsoleEntry>> {
        let mut entries = tid(id).drain_console().await.map_err(|e| err(id, e))?;
        if let Some(v) = &self.vault {
            let mut texts: Vec<&mut String> = entries
                .iter_mut()
                .flat_map(|e| [&mut e.text, &mut e.source])
                .collect();
            v.redact_live(id, &mut texts).await;
        }
        Ok(entries
            .into_iter()
            .map(|e| ConsoleEntry {
                kind: if e.text.starts_with("load failed") || e.text.starts_with("request failed") {
                    ConsoleKind::FailedRequest
                } else if e.level == "error" {
                    ConsoleKind::Error
                } else {
                    ConsoleKind::Warning
                },
                text: e.text,
                url: (!e.source.is_empty()).then_some(e.source),
                line: u32::try_from(e.line).ok().filter(|l| *l > 0),
            })
            .filter(|e| e.kind != ConsoleKind::Warning || !e.text.is_empty())
            .collect())
    }

    async fn theme(&self, target: ThemeTarget, set: Option<ThemeMode>) -> BackendResult<ThemeState> {
        let (host, tab) = match target {
            ThemeTarget::Host(h) => (h, None),
            ThemeTarget::Tab(id) => {
                let url = self
                    .tabs()
                    .await?
                    .into_iter()
                    .find(|t| t.id == id)
                    .ok_or(BackendError::NoSuchTab(id))?
                    .url;
                (
                    // The URL is page-controlled: the error names the problem, not the text.
                    host_of(&url).ok_or(BackendError::InvalidInput(
                        "the tab's page has no host name to attach a theme to".into(),
                    ))?,
                    Some(id),
                )
            }
        };
        let mode = {
            let mut m = self.themes.lock().expect("themes");
            if let Some(s) = set {
                m.insert(host.clone(), s);
            }
            m.get(&host).copied().unwrap_or_default()
        };
        if let (Some(id), Some(_)) = (tab, set) {
            let on = mode == ThemeMode::On;
            tid(id)
                .devtools(
                    "Emulation.setAutoDarkModeOverride",
                    if on {
                        serde_json::json!({"enabled": true})
                    } else {
                        serde_json::json!({})
                    },
                )
                .await
                .map_err(|e| err(id, e))?;
        }
        Ok(ThemeState { host, mode })
    }

    async fn containers(&self) -> BackendResult<Vec<ContainerInfo>> {
        let r = self.registry.lock().expect("registry");
        Ok(r.containers()
            .iter()
            .map(|c| ContainerInfo {
                id: c.id.to_string(),
                name: c.name.clone(),
            })
            .collect())
    }

    async fn vault_entries(&self, id: TabId) -> BackendResult<Vec<VaultEntry>> {
        Ok(self.vault()?.entries(id).await?.entries)
    }

    async fn vault_entries_for_tab(&self, id: TabId) -> BackendResult<VaultEntries> {
        self.vault()?.entries(id).await
    }

    async fn vault_fill(&self, id: TabId, entry: &str, targets: Vec<VaultTarget>) -> BackendResult<()> {
        let v = self.vault()?;
        refuse_if_human(id).await?;
        v.fill(id, entry, targets).await
    }
}
