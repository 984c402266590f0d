//! The walker protocol: every request the browser sends to `walker.js` in a page's renderer,
//! and every reply it gets back, as Rust types. Build requests with [`Request`] and
//! [`Request::to_json`]; read replies with [`parse_reply`], which turns the walker's failure
//! answers into a [`WalkerError`] so no caller has to classify error strings.
//!
//! The wire format (the same text heads `handle()` in `engine/src/walker.js`; keep the two in
//! agreement, and the tests below read walker.js to check the error codes and input kinds):
//!
//! | request | reply |
//! |---|---|
//! | `{"op":"walk"}`, optionally `"cap":N` (element cap, default 25000) and `"sub":true` (a frame of another origin: its `slot`, or only `reached`) | a [`Walk`] |
//! | `{"op":"el","walk_id":W,"idx":I,"do":D,…}` on element `I` of walk `W`, which must be the renderer's latest walk | [`ElementReply`] |
//! | `{"op":"text"}`, optionally `"cap":N` (default 20000) | [`TextReply`], the body's `innerText` |
//! | `{"op":"inputs"}` | [`InputState`]: trusted events the window has seen, where an aimed pointer action landed, what a focus guard stopped |
//! | `{"op":"void","kind":K,"n":N}`: if the count of `K` is still `N`, stop every trusted input created until now that arrives in the next 5 s | [`InputState`] with `void` |
//! | `{"op":"guard"}`: if focus is within the element the last focus or clear op focused (else the focused one), stop every key arriving once it has left, until `unguard` or 30 s | [`GuardReply`] |
//! | `{"op":"unguard"}`: lift the guard | [`InputState`], taken before lifting |
//! | `{"op":"net"}` | [`NetState`]: the document finished loading; how long since its last request finished |
//! | `{"op":"pid"}`, answered by `app/src/renderer.rs` itself, never by the walker | [`Pid`], a bare JSON number |
//!
//! The element operations `D` ([`ElementOp`]): `"rect"`, `"scroll"` (to the centre of the view),
//! `"focus"`, `"clear"` (empties a field a user could type into; fires `input` and `change`),
//! `"select"` with `"values":[…]` (selects the options whose value is one of them, else whose
//! label or text is; deselects the rest; fires `input` and `change`), `"text"` with an optional
//! `"cap":N` (the element's `innerText`, default cap 4000). Every element op answers
//! `{"ok":true,"bounds":{x,y,w,h},"viewport":{w,h}}`, plus `"matched":N` for select and
//! `"text","truncated"` for text. `"hit"` with `"x","y"` (a point of the top-level viewport)
//! says what is there (through open shadow roots and same-origin frames): when it is the element,
//! inside it or a label of it, the element becomes the *aim* whose first pointer event
//! [`InputState::landed`] reports; otherwise `"cover"` describes what is in the way.
//! `"over"` with `"x","y"` only checks that point (`"cover"` when it is not over the element),
//! trying no other and arming no aim. `"focused"` says where keyboard focus is (`"focus"`) when it is not within the element.
//!
//! A failure is `{"error":CODE}` or `{"error":CODE,"detail":TEXT}`; [`WalkerError`] has one
//! variant per code. Every code but `"walker exception"` is a refusal made before anything
//! changed on the page ([`WalkerError::nothing_changed`]).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::envelope::Untrusted;

pub use crate::record::{Offset, Rect, Walk};

/// The request the renderer answers natively with its process id: `{"op":"pid"}`, byte for
/// byte ([`Request::Pid`] serialises to exactly this). The renderer compares the raw string.
pub const PID_REQUEST: &str = r#"{"op":"pid"}"#;

/// One request to the walker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request {
    /// Walk the page (see [`Walk`]). The renderer keeps this walk's elements for
    /// [`Request::El`], superseding the previous walk's.
    Walk {
        /// Most elements to report; the walker's default (25000) when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap: Option<u32>,
        /// Walk as a frame of another origin, for the app to place under its `<iframe>`: the
        /// walk says its `slot`, or only `reached` when the parent's walker walks this
        /// document itself.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        sub: bool,
    },
    /// An operation on element `idx` of walk `walk_id`.
    El {
        /// The walk the element was reported in; must be the renderer's latest.
        walk_id: u64,
        /// The element's index in that walk ([`crate::record::NodeRecord::idx`]).
        idx: u32,
        /// What to do: the `do` field and its arguments.
        #[serde(flatten)]
        action: ElementOp,
    },
    /// The page's visible text (the body's `innerText`), cut at `cap` characters.
    Text {
        /// Most characters returned; the walker's default (20000) when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap: Option<usize>,
    },
    /// The bytes of the PDF the document is Chromium's viewer wrapper for ([`PdfReply`]),
    /// fetched again from its address; at most `cap` bytes (the walker's default, 50 MiB,
    /// when `None`).
    Pdf {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap: Option<usize>,
    },
    /// Counts of trusted input events the page's window has seen, and where the aim's first
    /// pointer event landed ([`InputState`]).
    Inputs,
    /// Voids input the page has not received yet: when the count of `kind` is still `n`, every
    /// trusted input event created until now that arrives later is stopped before the page
    /// sees it ([`InputState`] with `void`).
    Void {
        /// The event type whose count is checked ([`InputKind::event_type`]).
        kind: String,
        /// The count it must still have.
        n: u64,
        /// Wall-clock milliseconds since the Unix epoch after which the void must not be set:
        /// a page busy past it gets the request after the browser stopped waiting for the
        /// answer and told the agent the input may still arrive, so it must then arrive
        /// (the answer says `late`).
        until: u64,
    },
    /// Arms the focus guard on the element the last focus or clear op focused, or on the
    /// focused element ([`GuardReply`]).
    Guard,
    /// Lifts the focus guard ([`InputState`], taken before lifting).
    Unguard,
    /// Network quiet as the document sees it ([`NetState`]).
    Net,
    /// The renderer's process id ([`Pid`]); see [`PID_REQUEST`].
    Pid,
    /// The sign-in being submitted ([`LoginValues`]): for the browser's "save this login?"
    /// offer to the human only; no tool asks it.
    Login,
}

/// What [`Request::El`] does to its element: the `do` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "lowercase")]
pub enum ElementOp {
    /// Only report where the element is.
    Rect,
    /// Scroll the element to the centre of the view.
    Scroll,
    /// Scroll so that the point `(x, y)` of the element is in the middle of the view, as far
    /// as the boxes around it scroll: for a point of an element larger than the view. The
    /// element is centred first; then each box that scrolls between it and the view, innermost
    /// first, and last the document, moves by what is left.
    #[serde(rename = "scrollto")]
    ScrollTo {
        /// CSS pixels from the element's left edge.
        x: f32,
        /// CSS pixels from the element's top edge.
        y: f32,
    },
    /// Focus the element.
    Focus,
    /// Empty a field a user could type into (an enabled, writable text-like input or
    /// textarea, or editable content); fires `input` and `change`. Anything else is refused
    /// with [`WalkerError::NotEditable`] before focus moves.
    Clear,
    /// Select the options of a `<select>` whose value is one of `values` (else whose label or
    /// text is), deselecting the rest; fires `input` and `change`. Nothing changes when no
    /// option matches ([`WalkerError::NoOptionMatches`]) or the select is disabled
    /// ([`WalkerError::NotEditable`]).
    Select {
        /// Option values or labels.
        values: Vec<String>,
    },
    /// Set an input a person sets through a picker or slider (date, time, datetime-local,
    /// month, week, color, range) to `value`, as the picker would, and fire `input` and
    /// `change`: typing its characters would go to the picker's segments instead. A value the
    /// field would sanitise away leaves it as it was ([`WalkerError::ValueRefused`]); a range
    /// takes the nearest value its bounds and step allow ([`ElementReply::value`] says which).
    /// Anything else, or a disabled or read-only field, is [`WalkerError::NotEditable`].
    Value {
        /// The value, in the field's own format (`2026-12-25` for a date).
        value: String,
    },
    /// Select `text` in the element's text (or its text field's value), or in its document's
    /// body with `page`, as a person dragging across it would; no `text` selects all of it.
    /// White space compares as one space, and case only when no exact match exists.
    /// [`ElementReply::text`] is what is selected; a text that is not there is
    /// [`WalkerError::TextNotFound`], and nothing changes.
    #[serde(rename = "selecttext")]
    SelectText {
        /// The text to select.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Look in the whole document's body, not only the element.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        page: bool,
    },
    /// The element's `innerText`, cut at `cap` characters.
    Text {
        /// Most characters returned; the walker's default (4000) when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap: Option<usize>,
    },
    /// What is at `(x, y)` of the top-level viewport: the element (then it becomes the aim),
    /// another clear point of it ([`ElementReply::x`]), or [`ElementReply::cover`].
    Hit {
        /// CSS pixels from the viewport's left edge.
        x: f32,
        /// CSS pixels from the viewport's top edge.
        y: f32,
    },
    /// Whether the point `(x, y)` of the top-level viewport is over the element: if not,
    /// [`ElementReply::cover`] says what is there. No other point is tried and no aim is
    /// armed (the app checks that a point in a frame of another site is not covered in the
    /// document around it).
    Over {
        /// CSS pixels from the viewport's left edge.
        x: f32,
        /// CSS pixels from the viewport's top edge.
        y: f32,
    },
    /// Whether keyboard focus is within the element; if not, [`ElementReply::focus`] says
    /// where it is. Changes nothing.
    Focused,
}

impl Request {
    /// The request as the walker reads it.
    pub fn to_json(&self) -> String {
        // Serialising these types cannot fail: no maps with non-string keys, no foreign
        // Serialize impls.
        serde_json::to_string(self).expect("a walker request always serialises")
    }

    /// An element operation on element `idx` of walk `walk_id`.
    pub fn element(walk_id: u64, idx: u32, action: ElementOp) -> Request {
        Request::El { walk_id, idx, action }
    }
}

/// The viewport size an element op reports, in CSS pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewportSize {
    /// `innerWidth`.
    pub w: f32,
    /// `innerHeight`.
    pub h: f32,
    /// How far the top-level page is scrolled (`scrollX`).
    #[serde(default)]
    pub sx: f32,
    /// `scrollY`.
    #[serde(default)]
    pub sy: f32,
}

/// The answer to [`Request::El`] that succeeded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElementReply {
    /// The element's box after the operation, in CSS pixels relative to the top-level
    /// viewport (iframe offsets included).
    pub bounds: Rect,
    /// The viewport's size.
    pub viewport: ViewportSize,
    /// [`ElementOp::Select`]: how many options are now selected because they matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<u32>,
    /// [`ElementOp::Text`]: the element's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// [`ElementOp::Value`]: the value the field holds now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// [`ElementOp::Text`]: the text was cut at the cap.
    #[serde(default)]
    pub truncated: bool,
    /// [`ElementOp::Hit`]: what is at the point instead of the element (page text), when no
    /// point of the element's visible box is clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cover: Option<Described>,
    /// [`ElementOp::Hit`]: the element was covered at the point asked, and this other point
    /// of its visible box is clear (it is the aim).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f32>,
    /// See [`ElementReply::x`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f32>,
    /// [`ElementOp::Hit`]: the point is over a frame of another site, whose input this
    /// renderer never sees. [`ElementOp::Focused`]: focus is in such a frame.
    #[serde(default)]
    pub remote: bool,
    /// [`ElementOp::Focused`]: where focus is instead of within the element (page text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Described>,
    /// How far the element's own content is scrolled (`scrollLeft`, `scrollTop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll: Option<Offset>,
}

/// An element as the walker describes it in answers: its role (else its tag) and its name
/// (else the start of its text). Page text: fence both.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Described {
    /// The role, or the tag name; `"nothing"` when there is no element.
    pub role: String,
    /// The accessible name or the start of the text, at most 80 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Described {
    /// `role "name"`, or the role alone: one line of page text, for fencing.
    pub fn line(&self) -> String {
        match self.name.as_deref().filter(|n| !n.is_empty()) {
            Some(n) => format!("{} \"{n}\"", self.role),
            None => self.role.clone(),
        }
    }
}

/// The answer to [`Request::Text`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextReply {
    /// The body's `innerText`, at most `cap` characters.
    pub text: String,
    /// The text was cut at the cap.
    pub truncated: bool,
}

/// The answer to [`Request::Pdf`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdfReply {
    /// The document is a PDF shown in Chromium's viewer; the rest is empty when not.
    pub pdf: bool,
    /// The HTTP status the bytes came with.
    #[serde(default)]
    pub status: u16,
    /// The bytes, base64.
    #[serde(default)]
    pub data: String,
    /// Cut at the cap.
    #[serde(default)]
    pub truncated: bool,
}

/// The kinds of trusted input the walker counts (the walker's `COUNTED` list). Pointer events,
/// not mouse events: a page that cancels `pointerdown` suppresses `mousedown` and `mouseup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// `pointerdown`: the first event of a click that counts (a move is never dropped).
    PointerDown,
    /// `pointerup`: the last event of a click (its `click` runs in the same task).
    PointerUp,
    /// `pointermove`.
    PointerMove,
    /// `keydown`: the first event of a key press.
    KeyDown,
    /// `keyup`: the last event of a key press.
    KeyUp,
    /// `keypress`: a character typed.
    KeyPress,
    /// `wheel`.
    Wheel,
}

impl InputKind {
    /// Every kind, in the walker's order.
    pub const ALL: [InputKind; 7] = [
        InputKind::PointerDown,
        InputKind::PointerUp,
        InputKind::PointerMove,
        InputKind::KeyDown,
        InputKind::KeyUp,
        InputKind::KeyPress,
        InputKind::Wheel,
    ];

    /// The DOM event type.
    pub fn event_type(self) -> &'static str {
        match self {
            InputKind::PointerDown => "pointerdown",
            InputKind::PointerUp => "pointerup",
            InputKind::PointerMove => "pointermove",
            InputKind::KeyDown => "keydown",
            InputKind::KeyUp => "keyup",
            InputKind::KeyPress => "keypress",
            InputKind::Wheel => "wheel",
        }
    }
}

/// Trusted events of each kind the page's window (and the same-origin frames the walker
/// reached) has seen since its document was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputCounts {
    pub pointerdown: u64,
    pub pointerup: u64,
    pub pointermove: u64,
    pub keydown: u64,
    pub keyup: u64,
    pub keypress: u64,
    pub wheel: u64,
}

impl InputCounts {
    /// The count for one kind.
    pub fn get(&self, kind: InputKind) -> u64 {
        match kind {
            InputKind::PointerDown => self.pointerdown,
            InputKind::PointerUp => self.pointerup,
            InputKind::PointerMove => self.pointermove,
            InputKind::KeyDown => self.keydown,
            InputKind::KeyUp => self.keyup,
            InputKind::KeyPress => self.keypress,
            InputKind::Wheel => self.wheel,
        }
    }
}

/// Where the aim's first pointer event landed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Landed {
    /// It went to the aimed element (or inside it, or to a label of it).
    pub inside: bool,
    /// What it went to instead (page text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what: Option<Described>,
    /// Not inside, yet the press itself went to the aimed element: only the release and the
    /// click went elsewhere (the page covered or moved the target between them).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pressed: bool,
}

/// What the focus guard let through and stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardState {
    /// Characters (`keypress`) that reached the guarded element.
    pub typed: u64,
    /// Characters stopped because focus had left it.
    pub blocked: u64,
    /// Where focus went, once it left (page text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub went: Option<Described>,
}

/// The answer to [`Request::Inputs`] (and [`Request::Void`], [`Request::Unguard`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InputState {
    /// Trusted events by kind.
    #[serde(flatten)]
    pub counts: InputCounts,
    /// A token new with each document: counts of different documents do not compare.
    pub doc: f64,
    /// The document has a body, or has finished parsing.
    pub ready: bool,
    /// The aim is over a frame of another site: input there is never counted here.
    #[serde(default)]
    pub remote: bool,
    /// Where the aim's first pointer event landed, once one has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landed: Option<Landed>,
    /// The focus guard, while it is up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<GuardState>,
    /// Events stopped by voids so far.
    #[serde(default)]
    pub voided: u64,
    /// [`Request::Void`]: the void took effect (none of the input had arrived).
    #[serde(default, rename = "void")]
    pub void_set: bool,
    /// [`Request::Void`]: the request came after its `until`, so nothing was voided.
    #[serde(default)]
    pub late: bool,
    /// The page had erased the counters (`document.open()`) since the last look; they count
    /// again from now, but input that arrived meanwhile was neither counted nor voidable.
    #[serde(default)]
    pub deaf: bool,
    /// The document has painted (a `paint` performance entry exists).
    #[serde(default)]
    pub painted: bool,
}

/// The answer to [`Request::Guard`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardReply {
    /// Where focus is, when it is not where the guard was meant to go (page text); no guard
    /// is up then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Described>,
    /// Focus is in a frame of another site: its keys are never seen here, no guard is up.
    #[serde(default)]
    pub remote: bool,
}

/// The answer to [`Request::Net`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetState {
    /// `document.readyState` is `complete`.
    pub complete: bool,
    /// Milliseconds since the document's last request (its own load included) finished.
    pub quiet_ms: u64,
}

/// The answer to [`Request::Login`]: the page's filled-in password and the username before it.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginValues {
    /// The password typed into the form being submitted.
    #[serde(default)]
    pub password: Option<String>,
    /// The username or email before it in that form.
    #[serde(default)]
    pub username: Option<String>,
}

impl std::fmt::Debug for LoginValues {
    // Never a password in a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginValues")
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("username", &self.username)
            .finish()
    }
}

/// The answer to [`Request::Pid`]: the renderer's OS process id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pid(pub u32);

/// Why the walker did not do what was asked, parsed from its `{"error":…,"detail":…}` answer
/// (or from a reply that does not parse).
///
/// The `Display` texts are Aperture's own words. The details some variants carry come from the
/// renderer, where the page runs (an exception message, a reply the parser quotes), so
/// `Display` fences them ([`Untrusted`]): the text can reach the agent as harness speech.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WalkerError {
    /// `"stale"`: the walk named is not the renderer's latest (the page was walked again, or
    /// it is a new document).
    #[error("the walk is stale; the walker said:{}", Untrusted(.detail))]
    Stale {
        /// Which walk was named and which is current.
        detail: String,
    },
    /// `"no such element"`: the walk has no element with that index.
    #[error("the walk has no such element")]
    NoSuchElement,
    /// `"detached"`: the element has left the document since the walk.
    #[error("the element was removed from the page")]
    Detached,
    /// `"not editable"`: a clear on something a user could not type into, a select on a
    /// disabled select, a value on a field that is not an enabled picker input.
    #[error("the element is not a field a user could type into")]
    NotEditable,
    /// `"not a select"`: a select on something other than an HTML `<select>`.
    #[error(
        "the element is not a <select>: a custom dropdown (a combobox, listbox or menu made by script) is worked by clicking it, then clicking its option in the answer"
    )]
    NotASelect,
    /// `"no option matches"`: no option has any of the values as its value, label or text.
    #[error("no option of the select has that value or label")]
    NoOptionMatches,
    /// `"value refused"`: the field does not take that value (the detail is its input type;
    /// only [`value_format`] of it is shown, as the walker's reply is not trusted).
    #[error("the field does not take that value: {}; it was left as it was", value_format(.detail))]
    ValueRefused {
        /// The field's input type.
        detail: String,
    },
    /// `"text not found"`: a select-text op's text is not in the element (or page).
    #[error("that text is not there")]
    TextNotFound,
    /// `"unknown element op"`: the walker has no such `do`.
    #[error("the walker has no such element op")]
    UnknownElementOp,
    /// `"unknown op"`: the walker has no such `op`.
    #[error("the walker has no such op")]
    UnknownOp,
    /// `"bad request"`: the request was not a JSON object, or a field had the wrong type.
    #[error("the walker could not read the request; it said:{}", Untrusted(.detail))]
    BadRequest {
        /// What was wrong with it.
        detail: String,
    },
    /// `"walker exception"`: the walker threw. An element op may have been partly done.
    #[error("the walker failed; the exception was:{}", Untrusted(.detail))]
    Exception {
        /// The exception's message.
        detail: String,
    },
    /// An `error` code this version does not know. Cannot happen with the walker built into
    /// this crate (a test checks every code in walker.js has a variant).
    #[error(
        "the walker answered an unknown error; its code and detail were:{}",
        Untrusted(&format!("{error}\n{detail}"))
    )]
    Unrecognized {
        /// The code.
        error: String,
        /// Its detail, if any.
        detail: String,
    },
    /// The reply was not the JSON the request calls for.
    #[error("the walker's reply could not be read; the parser said:{}", Untrusted(.0))]
    BadReply(String),
}

/// The format a picker-set input takes, by its input type: fixed text, whatever the type
/// string says.
pub fn value_format(input_type: &str) -> &'static str {
    match input_type {
        "date" => "a date field takes YYYY-MM-DD (e.g. 2026-12-25) or a month by name (Dec 25, 2026)",
        "time" => "a time field takes HH:MM or HH:MM:SS, 24-hour (e.g. 14:30), or with AM/PM (2:30 PM)",
        "datetime-local" => "a date-and-time field takes YYYY-MM-DDTHH:MM (e.g. 2026-12-25T14:30)",
        "month" => "a month field takes YYYY-MM (e.g. 2026-12) or a month by name (December 2026)",
        "week" => "a week field takes YYYY-Www (e.g. 2026-W52)",
        "color" => "a color field takes #rrggbb (e.g. #ff8800)",
        "range" => "a slider takes a number",
        _ => "the value is not in the field's format",
    }
}

impl WalkerError {
    /// Builds the error for a walker failure answer.
    pub fn from_code(error: &str, detail: Option<String>) -> WalkerError {
        let detail = detail.unwrap_or_default();
        match error {
            "stale" => WalkerError::Stale { detail },
            "no such element" => WalkerError::NoSuchElement,
            "detached" => WalkerError::Detached,
            "not editable" => WalkerError::NotEditable,
            "not a select" => WalkerError::NotASelect,
            "no option matches" => WalkerError::NoOptionMatches,
            "value refused" => WalkerError::ValueRefused { detail },
            "text not found" => WalkerError::TextNotFound,
            "unknown element op" => WalkerError::UnknownElementOp,
            "unknown op" => WalkerError::UnknownOp,
            "bad request" => WalkerError::BadRequest { detail },
            "walker exception" => WalkerError::Exception { detail },
            other => WalkerError::Unrecognized {
                error: other.to_string(),
                detail,
            },
        }
    }

    /// True when the walker refused before changing anything on the page: no focus moved, no
    /// value or option was touched, no event fired. False for an exception (the op may have
    /// been partly done) and for replies that could not be read.
    pub fn nothing_changed(&self) -> bool {
        !matches!(
            self,
            WalkerError::Exception { .. } | WalkerError::Unrecognized { .. } | WalkerError::BadReply(_)
        )
    }

    /// True for [`WalkerError::Stale`]: refs must be re-read from a fresh walk.
    pub fn is_stale(&self) -> bool {
        matches!(self, WalkerError::Stale { .. })
    }
}

/// A failure answer, with every other field of the reply skipped unread.
#[derive(Deserialize)]
struct Failure {
    error: Option<String>,
    detail: Option<String>,
}

/// Parses a walker reply: its failure answer as a [`WalkerError`], else the reply as `T`
/// ([`Walk`], [`ElementReply`], [`TextReply`], [`InputCounts`] or [`Pid`]).
pub fn parse_reply<T: DeserializeOwned>(json: &str) -> Result<T, WalkerError> {
    // A failure is an object with an "error" key. No successful reply has one at any depth,
    // and page text inside a reply has its quotes escaped (`\"error\"`), so when the quoted
    // word is absent the reply cannot be a failure and the probe, which reads the whole
    // reply, is skipped: walks run to megabytes.
    if json.contains(r#""error""#) {
        // Only an object has keys; a bare number (the pid) is a success.
        if let Ok(Failure {
            error: Some(error),
            detail,
        }) = serde_json::from_str::<Failure>(json)
        {
            return Err(WalkerError::from_code(&error, detail));
        }
    }
    serde_json::from_str(json).map_err(|e| WalkerError::BadReply(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const WALKER: &str = crate::WALKER_JS;

    fn wire(r: &Request) -> Value {
        serde_json::from_str(&r.to_json()).unwrap()
    }

    /// Each request, exactly as the walker's handle()/elementOp() read it: field names, the
    /// `op`/`do` spellings, and no stray fields.
    #[test]
    fn requests_serialise_to_what_the_walker_reads() {
        let cases: Vec<(Request, &str)> = vec![
            (
                Request::Walk {
                    cap: None,
                    sub: false,
                },
                r#"{"op":"walk"}"#,
            ),
            (
                Request::Walk {
                    cap: Some(500),
                    sub: false,
                },
                r#"{"op":"walk","cap":500}"#,
            ),
            (
                Request::Walk { cap: None, sub: true },
                r#"{"op":"walk","sub":true}"#,
            ),
            (Request::Text { cap: None }, r#"{"op":"text"}"#),
            (Request::Text { cap: Some(20000) }, r#"{"op":"text","cap":20000}"#),
            (Request::Inputs, r#"{"op":"inputs"}"#),
            (Request::Pid, r#"{"op":"pid"}"#),
            (
                Request::element(7, 3, ElementOp::Rect),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"rect"}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Scroll),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"scroll"}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Focus),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"focus"}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Clear),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"clear"}"#,
            ),
            (
                Request::element(
                    1_099_511_627_776,
                    0,
                    ElementOp::Select {
                        values: vec!["GB".into(), "United \"Kingdom\"".into()],
                    },
                ),
                r#"{"op":"el","walk_id":1099511627776,"idx":0,"do":"select","values":["GB","United \"Kingdom\""]}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Text { cap: Some(4000) }),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"text","cap":4000}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Text { cap: None }),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"text"}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Hit { x: 10.5, y: 20.0 }),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"hit","x":10.5,"y":20.0}"#,
            ),
            (
                Request::element(7, 3, ElementOp::ScrollTo { x: 2900.0, y: 10.0 }),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"scrollto","x":2900.0,"y":10.0}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Over { x: 1.0, y: 2.5 }),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"over","x":1.0,"y":2.5}"#,
            ),
            (
                Request::element(7, 3, ElementOp::Focused),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"focused"}"#,
            ),
            (
                Request::element(
                    7,
                    3,
                    ElementOp::Value {
                        value: "2026-12-25".into(),
                    },
                ),
                r#"{"op":"el","walk_id":7,"idx":3,"do":"value","value":"2026-12-25"}"#,
            ),
            (
                Request::Void {
                    kind: "pointerdown".into(),
                    n: 4,
                    until: 1_700_000_000_000,
                },
                r#"{"op":"void","kind":"pointerdown","n":4,"until":1700000000000}"#,
            ),
            (Request::Guard, r#"{"op":"guard"}"#),
            (Request::Unguard, r#"{"op":"unguard"}"#),
            (Request::Net, r#"{"op":"net"}"#),
            (Request::Login, r#"{"op":"login"}"#),
        ];
        for (req, want) in &cases {
            assert_eq!(req.to_json(), *want, "{req:?}");
            // And back: the enum reads what it writes.
            let back: Request = serde_json::from_str(want).unwrap();
            assert_eq!(&back, req);
        }
        assert_eq!(Request::Pid.to_json(), PID_REQUEST);
    }

    /// The spellings the walker compares against appear in walker.js: a renamed op or field on
    /// either side fails here.
    #[test]
    fn every_op_and_field_is_one_the_walker_reads() {
        for op in ["walk", "el", "text", "inputs", "void", "guard", "unguard", "net"] {
            assert!(
                WALKER.contains(&format!("op === '{op}'")),
                "walker.js has no op {op:?}"
            );
        }
        for d in [
            "scroll", "focus", "clear", "select", "text", "rect", "hit", "over", "focused",
        ] {
            assert!(
                WALKER.contains(&format!("what === '{d}'")) || WALKER.contains(&format!("what !== '{d}'")),
                "walker.js has no element op {d:?}"
            );
        }
        for field in [
            "req.walk_id",
            "req.idx",
            "req.do",
            "req.values",
            "req.cap",
            "req.op",
            "req.x",
            "req.y",
            "req.kind",
            "req.n",
        ] {
            assert!(WALKER.contains(field), "walker.js does not read {field}");
        }
        let all = [
            wire(&Request::Walk {
                cap: Some(1),
                sub: true,
            }),
            wire(&Request::Text { cap: Some(1) }),
            wire(&Request::element(1, 2, ElementOp::Select { values: vec![] })),
            wire(&Request::element(1, 2, ElementOp::Text { cap: Some(1) })),
            wire(&Request::element(1, 2, ElementOp::Hit { x: 1.0, y: 2.0 })),
            wire(&Request::Void {
                kind: "keydown".into(),
                n: 0,
                until: 0,
            }),
        ];
        for v in &all {
            for k in v.as_object().unwrap().keys() {
                assert!(
                    WALKER.contains(&format!("req.{k}")),
                    "walker.js never reads {k:?}"
                );
            }
        }
    }

    /// The literal after each `.error = ` and `failure(` in walker.js, i.e. every error code
    /// it can answer.
    fn error_codes(src: &str) -> Vec<String> {
        let mut codes = vec![];
        for pat in [".error = ", "failure("] {
            let mut rest = src;
            while let Some(at) = rest.find(pat) {
                rest = &rest[at + pat.len()..];
                if rest.starts_with("code") {
                    // failure(code, detail) itself: its callers are the ones checked.
                    continue;
                }
                // A computed code could be anything: every code must be a literal.
                let lit = rest.strip_prefix('\'').unwrap_or_else(|| {
                    panic!("walker.js sets an error that is not a literal: {pat}{:.40}", rest)
                });
                let end = lit.find('\'').unwrap();
                codes.push(lit[..end].to_string());
            }
        }
        codes
    }

    #[test]
    fn every_error_the_walker_can_answer_has_its_variant() {
        let codes = error_codes(WALKER);
        // The grep must be finding them: walker.js answers these at least.
        for must in ["stale", "bad request", "walker exception", "no option matches"] {
            assert!(codes.iter().any(|c| c == must), "{must:?} not found in {codes:?}");
        }
        for code in &codes {
            let e = WalkerError::from_code(code, Some("d".into()));
            assert!(
                !matches!(e, WalkerError::Unrecognized { .. }),
                "walker.js answers {code:?}, which WalkerError has no variant for"
            );
            // And the whole reply parses to it.
            let reply = json!({"error": code, "detail": "d"}).to_string();
            assert_eq!(parse_reply::<ElementReply>(&reply), Err(e.clone()), "{code}");
            assert_eq!(parse_reply::<Walk>(&reply), Err(e), "{code}");
        }
    }

    /// Both descriptions of the wire format name every code: the list above handle() in
    /// walker.js, and the variant docs here.
    #[test]
    fn both_wire_format_docs_list_every_error_code() {
        let ours = include_str!("protocol.rs");
        for code in error_codes(WALKER) {
            assert!(
                WALKER.contains(&format!("//   \"{code}\"")),
                "walker.js's wire-format comment does not list {code:?}"
            );
            assert!(
                ours.contains(&format!("/// `\"{code}\"`")),
                "no WalkerError variant documents {code:?}"
            );
        }
    }

    /// The check above would notice a new code: the grep finds it, and it has no variant.
    #[test]
    fn a_new_walker_error_code_is_noticed() {
        let src = format!("{WALKER}\n if (x) {{ res.error = 'on fire'; return res; }}");
        let codes = error_codes(&src);
        assert!(codes.iter().any(|c| c == "on fire"), "{codes:?}");
        assert!(!error_codes(WALKER).iter().any(|c| c == "on fire"));
        assert!(matches!(
            WalkerError::from_code("on fire", None),
            WalkerError::Unrecognized { .. }
        ));
    }

    #[test]
    #[should_panic(expected = "not a literal")]
    fn a_computed_walker_error_code_is_refused() {
        error_codes("out.error = 'no ' + what;\nres.error = what;");
    }

    #[test]
    fn failure_answers_map_to_their_variants() {
        let stale = r#"{"error":"stale","detail":"the page was walked again since walk 4 (now 5)"}"#;
        assert_eq!(
            parse_reply::<ElementReply>(stale),
            Err(WalkerError::Stale {
                detail: "the page was walked again since walk 4 (now 5)".into()
            })
        );
        let cases: &[(&str, WalkerError)] = &[
            (r#"{"error":"no such element"}"#, WalkerError::NoSuchElement),
            (
                r#"{"error":"detached","detail":"the element was removed from the page"}"#,
                WalkerError::Detached,
            ),
            (r#"{"error":"not editable"}"#, WalkerError::NotEditable),
            (r#"{"error":"not a select"}"#, WalkerError::NotASelect),
            (
                r#"{"error":"no option matches","detail":"none of the 3 options"}"#,
                WalkerError::NoOptionMatches,
            ),
            (r#"{"error":"unknown op"}"#, WalkerError::UnknownOp),
            (
                r#"{"error":"unknown element op","detail":"x"}"#,
                WalkerError::UnknownElementOp,
            ),
            (
                r#"{"error":"bad request"}"#,
                WalkerError::BadRequest {
                    detail: String::new(),
                },
            ),
            (
                r#"{"error":"walker exception","detail":"Illegal invocation"}"#,
                WalkerError::Exception {
                    detail: "Illegal invocation".into(),
                },
            ),
            (
                r#"{"error":"on fire"}"#,
                WalkerError::Unrecognized {
                    error: "on fire".into(),
                    detail: String::new(),
                },
            ),
        ];
        for (reply, want) in cases {
            assert_eq!(&parse_reply::<ElementReply>(reply).unwrap_err(), want, "{reply}");
            assert_eq!(&parse_reply::<TextReply>(reply).unwrap_err(), want, "{reply}");
        }
        // The error key may come anywhere in the object.
        assert_eq!(
            parse_reply::<ElementReply>(r#"{"detail":"x","error":"not a select"}"#),
            Err(WalkerError::NotASelect)
        );
    }

    #[test]
    fn only_refusals_promise_nothing_changed() {
        assert!(
            WalkerError::Stale {
                detail: String::new()
            }
            .nothing_changed()
        );
        assert!(WalkerError::NoOptionMatches.nothing_changed());
        assert!(WalkerError::NotEditable.nothing_changed());
        assert!(WalkerError::Detached.nothing_changed());
        assert!(
            !WalkerError::Exception {
                detail: String::new()
            }
            .nothing_changed()
        );
        assert!(!WalkerError::BadReply(String::new()).nothing_changed());
        assert!(
            !WalkerError::Unrecognized {
                error: String::new(),
                detail: String::new()
            }
            .nothing_changed()
        );
        assert!(
            WalkerError::Stale {
                detail: String::new()
            }
            .is_stale()
        );
        assert!(!WalkerError::NoSuchElement.is_stale());
    }

    #[test]
    fn successful_replies_parse() {
        let r: ElementReply = parse_reply(
            r#"{"ok":true,"bounds":{"x":1.5,"y":2,"w":30,"h":4},"viewport":{"w":800,"h":600,"sy":120},"matched":1}"#,
        )
        .unwrap();
        assert_eq!(
            r,
            ElementReply {
                bounds: Rect {
                    x: 1.5,
                    y: 2.0,
                    w: 30.0,
                    h: 4.0
                },
                viewport: ViewportSize {
                    w: 800.0,
                    h: 600.0,
                    sx: 0.0,
                    sy: 120.0
                },
                matched: Some(1),
                text: None,
                truncated: false,
                ..Default::default()
            }
        );
        // Page text that talks about errors is not a failure.
        let r: ElementReply = parse_reply(
            r#"{"ok":true,"text":"{\"error\":\"stale\"}","truncated":true,"bounds":{"x":0,"y":0,"w":0,"h":0},"viewport":{"w":1,"h":1}}"#,
        )
        .unwrap();
        assert_eq!(r.text.as_deref(), Some(r#"{"error":"stale"}"#));
        assert!(r.truncated);
        let t: TextReply = parse_reply(r#"{"text":"hello \"error\"","truncated":false}"#).unwrap();
        assert_eq!(t.text, "hello \"error\"");
        let c: InputState = parse_reply(
            r#"{"pointerdown":1,"pointerup":2,"pointermove":3,"keydown":4,"keyup":5,"keypress":6,"wheel":7,"doc":12345,"ready":true,"landed":{"inside":false,"what":{"role":"button","name":"TWO \"error\""}},"guard":{"typed":2,"blocked":3,"went":{"role":"body"}},"voided":1,"void":true}"#,
        )
        .unwrap();
        assert_eq!(
            InputKind::ALL.map(|k| c.counts.get(k)),
            [1, 2, 3, 4, 5, 6, 7],
            "each kind reads its own count"
        );
        assert!(c.ready && c.void_set && !c.remote);
        let what = c.landed.as_ref().and_then(|l| l.what.as_ref()).unwrap();
        assert_eq!(what.line(), "button \"TWO \"error\"\"");
        let g = c.guard.unwrap();
        assert_eq!(
            (g.typed, g.blocked, g.went.unwrap().line()),
            (2, 3, "body".to_string())
        );
        let r: ElementReply = parse_reply(
            r#"{"ok":true,"bounds":{"x":0,"y":0,"w":1,"h":1},"viewport":{"w":1,"h":1},"cover":{"role":"dialog","name":"Accept cookies"}}"#,
        )
        .unwrap();
        assert_eq!(r.cover.unwrap().line(), "dialog \"Accept cookies\"");
        let n: NetState = parse_reply(r#"{"complete":true,"quiet_ms":812}"#).unwrap();
        assert_eq!(n.quiet_ms, 812);
        assert_eq!(parse_reply::<Pid>("4242"), Ok(Pid(4242)));
        let w: Walk = parse_reply(r#"{"walk_id":9,"url":"u","title":"t","nodes":[],"errors":0}"#).unwrap();
        assert_eq!(w.walk_id, 9);
    }

    #[test]
    fn unreadable_replies_are_bad_replies() {
        assert!(matches!(
            parse_reply::<Pid>("not a pid"),
            Err(WalkerError::BadReply(_))
        ));
        assert!(matches!(
            parse_reply::<ElementReply>("{}"),
            Err(WalkerError::BadReply(_))
        ));
        assert!(matches!(
            parse_reply::<TextReply>(""),
            Err(WalkerError::BadReply(_))
        ));
        // An error key that is not a string is no failure answer, and no TextReply either.
        assert!(matches!(
            parse_reply::<TextReply>(r#"{"error":1}"#),
            Err(WalkerError::BadReply(_))
        ));
    }

    /// The kinds the walker counts are the kinds [`InputKind`] names, and [`InputCounts`]
    /// reads each from its own field.
    #[test]
    fn input_kinds_match_the_walkers_counted_list() {
        let at = WALKER
            .find("const COUNTED = [")
            .expect("walker.js has a COUNTED list");
        let list = &WALKER[at..];
        let list = &list[list.find('[').unwrap() + 1..list.find(']').unwrap()];
        let counted: Vec<&str> = list.split(',').map(|s| s.trim().trim_matches('\'')).collect();
        let ours: Vec<&str> = InputKind::ALL.iter().map(|k| k.event_type()).collect();
        assert_eq!(counted, ours);
        let mut reply = serde_json::Map::new();
        for (i, k) in InputKind::ALL.iter().enumerate() {
            reply.insert(k.event_type().to_string(), json!(i as u64 + 10));
        }
        reply.insert("doc".into(), json!(1));
        reply.insert("ready".into(), json!(true));
        let c: InputState = parse_reply(&Value::Object(reply).to_string()).unwrap();
        for (i, k) in InputKind::ALL.iter().enumerate() {
            assert_eq!(c.counts.get(*k), i as u64 + 10, "{k:?}");
        }
    }
}
