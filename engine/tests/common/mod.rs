//! A tiny page-building DSL for the engine's tests: records as the walker would emit them.
#![allow(dead_code)]

pub mod run;

use aperture_engine::record::{NodeRecord, Rect, State, Tri, Walk};

/// A page under construction.
pub struct Page {
    pub walk: Walk,
}

impl Page {
    pub fn new(url: &str, title: &str) -> Self {
        Page {
            walk: Walk {
                url: url.into(),
                title: title.into(),
                ..Walk::default()
            },
        }
    }

    /// Adds `r` under `parent`, returns its index.
    pub fn add(&mut self, parent: Option<u32>, mut r: NodeRecord) -> u32 {
        let i = self.walk.nodes.len() as u32;
        r.idx = i;
        r.parent = parent;
        self.walk.nodes.push(r);
        i
    }

    pub fn done(self) -> Walk {
        self.walk
    }
}

pub fn base(tag: &str, role: Option<&str>) -> NodeRecord {
    NodeRecord {
        tag: tag.into(),
        role: role.map(Into::into),
        visible: true,
        bounds: Rect {
            x: 0.0,
            y: 0.0,
            w: 100.0,
            h: 20.0,
        },
        ..NodeRecord::default()
    }
}

pub fn container(role: &str) -> NodeRecord {
    base("div", Some(role))
}

pub fn text(t: &str) -> NodeRecord {
    let mut r = base("span", None);
    r.text = Some(t.into());
    r
}

pub fn heading(level: u8, t: &str) -> NodeRecord {
    let mut r = base(&format!("h{level}"), Some("heading"));
    r.level = Some(level);
    r.name = Some(t.into());
    r.text = Some(t.into());
    r
}

pub fn button(name: &str) -> NodeRecord {
    let mut r = base("button", Some("button"));
    r.name = Some(name.into());
    r.actionable = true;
    r.focusable = true;
    r
}

pub fn link(name: &str, href: &str) -> NodeRecord {
    let mut r = base("a", Some("link"));
    r.name = Some(name.into());
    r.href = Some(href.into());
    r.actionable = true;
    r.focusable = true;
    r
}

pub fn textbox(name: &str, value: &str) -> NodeRecord {
    let mut r = base("input", Some("textbox"));
    r.name = Some(name.into());
    r.input_type = Some("text".into());
    r.actionable = true;
    r.editable = true;
    r.focusable = true;
    r.state = State {
        value: Some(value.into()),
        ..State::default()
    };
    r
}

pub fn checkbox(name: &str, on: bool) -> NodeRecord {
    let mut r = base("input", Some("checkbox"));
    r.name = Some(name.into());
    r.input_type = Some("checkbox".into());
    r.actionable = true;
    r.state.checked = Some(if on { Tri::True } else { Tri::False });
    r
}

pub trait Ext: Sized {
    fn with(self, f: impl FnOnce(&mut NodeRecord)) -> NodeRecord;
    fn testid(self, t: &str) -> NodeRecord {
        self.with(|r| r.testid = Some(t.into()))
    }
    fn id(self, t: &str) -> NodeRecord {
        self.with(|r| r.dom_id = Some(t.into()))
    }
    fn uid(self, u: u64) -> NodeRecord {
        self.with(|r| r.uid = Some(u))
    }
    fn shadow(self) -> NodeRecord {
        self.with(|r| r.shadow = true)
    }
    fn hidden(self) -> NodeRecord {
        self.with(|r| r.visible = false)
    }
}

impl Ext for NodeRecord {
    fn with(mut self, f: impl FnOnce(&mut NodeRecord)) -> NodeRecord {
        f(&mut self);
        self
    }
}
