//! Test doubles: a scripted in-memory browser implementing `Backend`, an MCP client over an
//! in-memory pipe, and the envelope splitter. The client helpers (`call`, `text`, `ref_for`)
//! are the workspace's shared ones from `aperture-testkit`.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use aperture_engine::record::{NodeRecord, Rect, State, Tri, Viewport, Walk};
use aperture_mcp::backend::*;
pub use aperture_testkit::mcp::{Client, call, text};
use async_trait::async_trait;
use rmcp::ServiceExt;

/// A backend that has no tabs: every tab operation answers `NoSuchTab`.
pub struct NoTabs;

#[async_trait]
impl Backend for NoTabs {
    async fn tabs(&self) -> BackendResult<Vec<TabInfo>> {
        Ok(vec![])
    }
    async fn open_tab(&self, _: Option<String>, _: Option<String>) -> BackendResult<TabId> {
        Err(BackendError::Other("cannot open tabs".into()))
    }
    async fn close_tab(&self, id: TabId) -> BackendResult<()> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn select_tab(&self, id: TabId) -> BackendResult<()> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn navigate(&self, id: TabId, _: Nav) -> BackendResult<LoadOutcome> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn walk(&self, id: TabId) -> BackendResult<Walk> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn element(&self, id: TabId, _: u64, _: u32, _: ElementOp) -> BackendResult<ElementReply> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn page_text(&self, id: TabId, _: usize) -> BackendResult<PageText> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn click_at(&self, id: TabId, _: f32, _: f32, _: MouseButton, _: u8) -> BackendResult<Delivery> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn move_to(&self, id: TabId, _: f32, _: f32) -> BackendResult<Delivery> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn scroll(&self, id: TabId, _: f32, _: f32, _: f32, _: f32) -> BackendResult<Delivery> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn key(&self, id: TabId, _: &str) -> BackendResult<Delivery> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn type_text(&self, id: TabId, _: &str) -> BackendResult<Delivery> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn screenshot(&self, id: TabId, _: u32, _: Option<Clip>) -> BackendResult<Png> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn console(&self, id: TabId) -> BackendResult<Vec<ConsoleEntry>> {
        Err(BackendError::NoSuchTab(id))
    }
    async fn theme(&self, _: ThemeTarget, _: Option<ThemeMode>) -> BackendResult<ThemeState> {
        Err(BackendError::Other("no theme".into()))
    }
    async fn containers(&self) -> BackendResult<Vec<ContainerInfo>> {
        Ok(vec![])
    }
}

/// A page the fake renders: a heading, a list whose rows each have a "Remove" button that
/// removes the row (re-rendering the list), an email field and a checkbox.
#[derive(Debug, Clone)]
pub struct Page {
    pub url: String,
    pub title: String,
    pub heading: String,
    pub rows: Vec<String>,
    pub email_label: String,
    pub email: String,
    pub agree: bool,
}

impl Page {
    pub fn list(url: &str, rows: &[&str]) -> Page {
        Page {
            url: url.into(),
            title: "Fixture".into(),
            heading: "Shopping list".into(),
            rows: rows.iter().map(|s| s.to_string()).collect(),
            email_label: "Email".into(),
            email: String::new(),
            agree: false,
        }
    }
}

/// What a node of the rendered walk does when clicked.
#[derive(Debug, Clone, PartialEq)]
enum Hit {
    Remove(String),
    Agree,
    Nothing,
}

pub struct FakeTab {
    pub info: TabInfo,
    pub page: Page,
    pub console: Vec<ConsoleEntry>,
    walk_id: u64,
    /// Main-frame document generation (bumped by navigation, or by a test).
    pub document: u64,
    hits: Vec<Hit>,
    focused: Option<u32>,
}

#[derive(Default)]
pub struct FakeState {
    pub tabs: Vec<FakeTab>,
    next_walk: u64,
    next_tab: u64,
    /// When set, the next input call fails with this error *after* taking effect.
    pub fail_after_send: Option<BackendError>,
    /// Every call that reached the page, in order.
    pub log: Vec<String>,
    /// When set, each click takes this long (to observe the per-tab lock).
    pub click_delay: Option<std::time::Duration>,
}

/// The scripted browser.
#[derive(Default)]
pub struct Fake {
    pub state: Mutex<FakeState>,
}

impl Fake {
    pub fn new() -> Arc<Fake> {
        Arc::new(Fake::default())
    }

    /// Adds a tab showing `page`. Returns its id.
    pub fn add_tab(&self, page: Page, opened_by_agent: bool) -> TabId {
        let mut s = self.state.lock().unwrap();
        s.next_tab += 1;
        let id = TabId(s.next_tab);
        let active = s.tabs.is_empty();
        s.tabs.push(FakeTab {
            info: TabInfo {
                id,
                url: page.url.clone(),
                title: page.title.clone(),
                container: None,
                opened_by_agent,
                loading: false,
                human_driving: false,
                active,
                muted: false,
                audible: false,
                camera: false,
                microphone: false,
                pinned: false,
                unloaded: false,
                unresponsive: false,
            },
            page,
            console: vec![],
            walk_id: 0,
            document: 1,
            hits: vec![],
            focused: None,
        });
        id
    }

    pub fn log(&self) -> Vec<String> {
        self.state.lock().unwrap().log.clone()
    }

    pub fn page(&self, id: TabId) -> Page {
        let s = self.state.lock().unwrap();
        s.tabs.iter().find(|t| t.info.id == id).unwrap().page.clone()
    }

    fn with_tab<T>(
        &self,
        id: TabId,
        f: impl FnOnce(&mut FakeTab, &mut Vec<String>) -> T,
    ) -> BackendResult<T> {
        let mut s = self.state.lock().unwrap();
        let FakeState { tabs, log, .. } = &mut *s;
        let t = tabs
            .iter_mut()
            .find(|t| t.info.id == id)
            .ok_or(BackendError::NoSuchTab(id))?;
        Ok(f(t, log))
    }

    /// Simulates an input that reached the page and then failed, when armed.
    fn maybe_fail(&self) -> BackendResult<()> {
        match self.state.lock().unwrap().fail_after_send.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

fn node(idx: u32, parent: Option<u32>, tag: &str, role: &str, name: Option<&str>) -> NodeRecord {
    NodeRecord {
        idx,
        parent,
        tag: tag.into(),
        role: Some(role.into()),
        name: name.map(str::to_string),
        bounds: Rect {
            x: 10.0,
            y: 10.0 + 30.0 * idx as f32,
            w: 200.0,
            h: 24.0,
        },
        visible: true,
        ..Default::default()
    }
}

fn render(t: &mut FakeTab, walk_id: u64) -> Walk {
    let p = &t.page;
    let mut nodes = vec![node(0, None, "main", "main", None)];
    let mut hits = vec![Hit::Nothing];
    let mut h = node(1, Some(0), "h1", "heading", Some(&p.heading));
    h.level = Some(1);
    nodes.push(h);
    hits.push(Hit::Nothing);
    let list = nodes.len() as u32;
    nodes.push(node(list, Some(0), "ul", "list", None));
    hits.push(Hit::Nothing);
    for row in &p.rows {
        let li = nodes.len() as u32;
        let mut n = node(li, Some(list), "li", "listitem", None);
        n.text = Some(row.clone());
        nodes.push(n);
        hits.push(Hit::Nothing);
        let b = nodes.len() as u32;
        let mut n = node(b, Some(li), "button", "button", Some(&format!("Remove {row}")));
        n.actionable = true;
        n.focusable = true;
        nodes.push(n);
        hits.push(Hit::Remove(row.clone()));
    }
    let e = nodes.len() as u32;
    let mut n = node(e, Some(0), "input", "textbox", Some(&p.email_label));
    n.input_type = Some("email".into());
    n.name_attr = Some("email".into());
    n.actionable = true;
    n.focusable = true;
    n.editable = true;
    n.state = State {
        value: Some(p.email.clone()),
        ..Default::default()
    };
    nodes.push(n);
    hits.push(Hit::Nothing);
    let c = nodes.len() as u32;
    let mut n = node(c, Some(0), "input", "checkbox", Some("I agree"));
    n.input_type = Some("checkbox".into());
    n.name_attr = Some("agree".into());
    n.actionable = true;
    n.focusable = true;
    n.state = State {
        checked: Some(if p.agree { Tri::True } else { Tri::False }),
        ..Default::default()
    };
    nodes.push(n);
    hits.push(Hit::Agree);
    t.hits = hits;
    t.walk_id = walk_id;
    Walk {
        walk_id,
        url: p.url.clone(),
        title: p.title.clone(),
        nodes,
        viewport: Viewport {
            w: 800.0,
            h: 600.0,
            scroll_x: 0.0,
            scroll_y: 0.0,
            dpr: 1.0,
        },
        ..Default::default()
    }
}

fn check_walk(t: &FakeTab, walk_id: u64) -> BackendResult<()> {
    if walk_id == t.walk_id {
        Ok(())
    } else {
        Err(BackendError::StaleWalk { walk_id })
    }
}

#[async_trait]
impl Backend for Fake {
    async fn tabs(&self) -> BackendResult<Vec<TabInfo>> {
        Ok(self
            .state
            .lock()
            .unwrap()
            .tabs
            .iter()
            .map(|t| t.info.clone())
            .collect())
    }
    async fn open_tab(&self, url: Option<String>, container: Option<String>) -> BackendResult<TabId> {
        let mut page = Page::list(url.as_deref().unwrap_or("about:blank"), &[]);
        page.title = String::new();
        let id = self.add_tab(page, true);
        self.with_tab(id, |t, _| t.info.container = container)?;
        Ok(id)
    }
    async fn close_tab(&self, id: TabId) -> BackendResult<()> {
        let mut s = self.state.lock().unwrap();
        let pos = s
            .tabs
            .iter()
            .position(|t| t.info.id == id)
            .ok_or(BackendError::NoSuchTab(id))?;
        if !s.tabs[pos].info.opened_by_agent {
            return Err(BackendError::NotOpenedByAgent(id));
        }
        s.tabs.remove(pos);
        s.log.push(format!("close {id}"));
        Ok(())
    }
    async fn select_tab(&self, id: TabId) -> BackendResult<()> {
        let mut s = self.state.lock().unwrap();
        if !s.tabs.iter().any(|t| t.info.id == id) {
            return Err(BackendError::NoSuchTab(id));
        }
        for t in &mut s.tabs {
            t.info.active = t.info.id == id;
        }
        Ok(())
    }
    async fn navigate(&self, id: TabId, nav: Nav) -> BackendResult<LoadOutcome> {
        self.with_tab(id, |t, log| {
            if let Nav::Goto(u) = &nav {
                t.page = Page::list(u, &["apples", "bread", "cheese"]);
                t.info.url = u.clone();
                t.info.title = t.page.title.clone();
            }
            t.document += 1;
            log.push(format!("navigate {nav:?}"));
            LoadOutcome {
                url: t.page.url.clone(),
                status: Some(200),
                title: t.page.title.clone(),
                loading: false,
            }
        })
    }
    async fn document(&self, id: TabId) -> BackendResult<Option<u64>> {
        self.with_tab(id, |t, _| Some(t.document))
    }
    async fn walk(&self, id: TabId) -> BackendResult<Walk> {
        let walk_id = {
            let mut s = self.state.lock().unwrap();
            s.next_walk += 1;
            s.next_walk
        };
        self.with_tab(id, |t, _| render(t, walk_id))
    }
    async fn element(&self, id: TabId, walk_id: u64, idx: u32, op: ElementOp) -> BackendResult<ElementReply> {
        let r = self.with_tab(id, |t, log| -> BackendResult<ElementReply> {
            check_walk(t, walk_id)?;
            let bounds = Rect {
                x: 10.0,
                y: 10.0 + 30.0 * idx as f32,
                w: 200.0,
                h: 24.0,
            };
            match &op {
                ElementOp::ScrollIntoView | ElementOp::ScrollToPoint { .. } => {}
                ElementOp::Focus => t.focused = Some(idx),
                ElementOp::Clear => {
                    t.page.email.clear();
                    log.push(format!("clear {idx}"));
                }
                ElementOp::SelectOptions(v) => log.push(format!("select {idx} {v:?}")),
                ElementOp::SetValue(v) => log.push(format!("value {idx} {v:?}")),
                ElementOp::SelectText { text, page } => {
                    log.push(format!("select text {idx} {text:?} {page}"))
                }
                ElementOp::ReadText { cap } => {
                    let text = match &t.hits[idx as usize] {
                        Hit::Remove(row) => format!("Remove {row}"),
                        _ => t.page.heading.clone(),
                    };
                    let truncated = text.chars().count() > *cap;
                    return Ok(ElementReply {
                        bounds: Some(bounds),
                        text: Some(text.chars().take(*cap).collect()),
                        truncated,
                        ..Default::default()
                    });
                }
                ElementOp::HitTest { .. } | ElementOp::FocusCheck | ElementOp::Bounds => {}
            }
            Ok(ElementReply {
                bounds: Some(bounds),
                ..Default::default()
            })
        })??;
        if matches!(op, ElementOp::Clear | ElementOp::SelectOptions(_)) {
            self.maybe_fail()?;
        }
        Ok(r)
    }
    async fn page_text(&self, id: TabId, cap: usize) -> BackendResult<PageText> {
        self.with_tab(id, |t, _| {
            let text = format!("{}\n{}", t.page.heading, t.page.rows.join("\n"));
            PageText {
                truncated: text.chars().count() > cap,
                text: text.chars().take(cap).collect(),
                pdf: false,
            }
        })
    }
    async fn click_at(&self, id: TabId, x: f32, y: f32, _: MouseButton, _: u8) -> BackendResult<Delivery> {
        let delay = self.state.lock().unwrap().click_delay;
        if let Some(d) = delay {
            self.with_tab(id, |_, log| log.push("click start".into()))?;
            tokio::time::sleep(d).await;
        }
        self.with_tab(id, |t, log| {
            log.push(format!("click {x} {y}"));
            // Same geometry as `node`: row i spans y in [10 + 30i, 34 + 30i).
            let i = ((y - 10.0) / 30.0).floor() as usize;
            match t.hits.get(i).cloned() {
                Some(Hit::Remove(row)) => t.page.rows.retain(|r| *r != row),
                Some(Hit::Agree) => t.page.agree = !t.page.agree,
                _ => {}
            }
        })?;
        self.maybe_fail().map(|_| Delivery::default())
    }
    async fn move_to(&self, id: TabId, x: f32, y: f32) -> BackendResult<Delivery> {
        self.with_tab(id, |_, log| log.push(format!("move {x} {y}")))
            .map(|_| Delivery::default())
    }
    async fn scroll(&self, id: TabId, _: f32, _: f32, dx: f32, dy: f32) -> BackendResult<Delivery> {
        self.with_tab(id, |_, log| log.push(format!("scroll {dx} {dy}")))
            .map(|_| Delivery::default())
    }
    async fn key(&self, id: TabId, key: &str) -> BackendResult<Delivery> {
        self.with_tab(id, |_, log| log.push(format!("key {key}")))?;
        self.maybe_fail().map(|_| Delivery::default())
    }
    async fn type_text(&self, id: TabId, text: &str) -> BackendResult<Delivery> {
        self.with_tab(id, |t, log| {
            log.push(format!("type {text}"));
            t.page.email.push_str(text);
        })?;
        self.maybe_fail().map(|_| Delivery::default())
    }
    async fn screenshot(&self, id: TabId, max: u32, _: Option<Clip>) -> BackendResult<Png> {
        self.with_tab(id, |_, _| Png {
            bytes: b"\x89PNG\r\n\x1a\nfake".to_vec(),
            w: max.min(1024),
            h: max.min(1024) * 3 / 4,
        })
    }
    async fn console(&self, id: TabId) -> BackendResult<Vec<ConsoleEntry>> {
        self.with_tab(id, |t, _| std::mem::take(&mut t.console))
    }
    async fn theme(&self, target: ThemeTarget, set: Option<ThemeMode>) -> BackendResult<ThemeState> {
        let host = match target {
            ThemeTarget::Host(h) => h,
            ThemeTarget::Tab(id) => self.with_tab(id, |t, _| t.page.url.clone())?,
        };
        Ok(ThemeState {
            host,
            mode: set.unwrap_or_default(),
        })
    }
    async fn containers(&self) -> BackendResult<Vec<ContainerInfo>> {
        Ok(vec![ContainerInfo {
            id: "work".into(),
            name: "Work".into(),
        }])
    }
}

/// An MCP client connected to a fresh server over an in-memory pipe (the stdio code path).
pub async fn pipe_client(backend: Arc<dyn Backend>) -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(server_io);
    tokio::spawn(async move {
        let _ = aperture_mcp::serve_io(backend, r, w).await;
    });
    ().serve(client_io).await.expect("client handshake")
}

/// Splits a result text into harness speech (outside every envelope) and envelope bodies.
/// Panics if an opening delimiter is left without its closing one.
pub fn split_envelopes(text: &str) -> (String, Vec<String>) {
    let mut outside = String::new();
    let mut bodies = vec![];
    let mut rest = text;
    while let Some(f) = aperture_mcp::engine_glue::split(rest) {
        outside.push_str(f.before);
        bodies.push(f.body.to_string());
        rest = f.after;
    }
    outside.push_str(rest);
    assert!(
        !outside.contains(&format!("<{}", aperture_mcp::engine_glue::ENVELOPE_TAG)),
        "an opening delimiter without its closing one:\n{text}"
    );
    (outside, bodies)
}
