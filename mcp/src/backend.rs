//! The contract between the MCP surface and the browser that implements it.
//!
//! `app/` implements [`Backend`] on top of CEF; the tests implement it with fakes. The trait is
//! deliberately small and mechanical: policy that must hold whatever the browser does (ref
//! resolution, the untrusted-content envelope, "the agent may not close the human's tab",
//! outcome-unknown reporting) lives on the MCP side, so an implementation cannot forget it.
//!
//! Every method is async and may be called concurrently for different tabs. The MCP layer
//! serialises calls *per tab* (one agent action at a time on a tab), never across tabs.

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use aperture_engine::envelope::Untrusted;
use aperture_engine::protocol::{self, WalkerError};
pub use aperture_engine::record::{Rect, Walk};

/// A browser tab as the agent addresses it: the one tab id shared with `ui` and the app, stable
/// for the tab's lifetime and never reused within a launch. Re-exported so
/// `aperture_mcp::backend::TabId` keeps working.
pub use aperture_common::TabId;

/// One tab, as listed by [`Backend::tabs`]. `url` and `title` are page-authored and are only
/// ever shown to the agent inside the untrusted-content envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabInfo {
    /// The tab's id.
    pub id: TabId,
    /// Current main-frame URL (page-controlled).
    pub url: String,
    /// Current document title (page-controlled).
    pub title: String,
    /// Identity container the tab lives in (`None` for the default one).
    pub container: Option<String>,
    /// True when the agent opened this tab through [`Backend::open_tab`]. Only such tabs may be
    /// closed by the agent.
    pub opened_by_agent: bool,
    /// True while a main-frame load is in flight.
    pub loading: bool,
    /// True while the human is interacting with this tab; input is then refused with
    /// [`BackendError::HumanDriving`].
    pub human_driving: bool,
    /// The foreground tab of its window.
    pub active: bool,
    /// The human muted the tab's sound (the window's Ctrl+M or tab menu).
    #[serde(default)]
    pub muted: bool,
    /// Media in the tab's page is playing with sound (an `<audio>` or `<video>`; heard unless
    /// `muted`).
    #[serde(default)]
    pub audible: bool,
    /// The tab's page is using the camera now (a call, a video meeting).
    #[serde(default)]
    pub camera: bool,
    /// The tab's page is using the microphone now.
    #[serde(default)]
    pub microphone: bool,
    /// The human pinned the tab in the window's strip.
    #[serde(default)]
    pub pinned: bool,
    /// Restored from the last session and not loaded yet: `url` is the page it will load the
    /// first time anyone shows, reads or acts on it.
    #[serde(default)]
    pub unloaded: bool,
    /// The page has not answered for 15 s or more (a script that does not return): reads and
    /// input fail until it answers again, is reloaded, or leaves.
    #[serde(default)]
    pub unresponsive: bool,
}

/// A main-frame navigation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Nav {
    /// Load this URL.
    Goto(String),
    /// One step back in the tab's history.
    Back,
    /// One step forward in the tab's history.
    Forward,
    /// Reload the current document.
    Reload,
}

/// What a navigation ended at. `url` and `title` are page-controlled.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LoadOutcome {
    /// The committed URL after redirects.
    pub url: String,
    /// HTTP status of the main document, when there was one (`None` for `about:`, `file:`...).
    pub status: Option<u16>,
    /// Title of the loaded document.
    pub title: String,
    /// Answered before the load ended: the new document has arrived and is what the tab
    /// shows, but it is still loading (a script or other resource has not answered).
    #[serde(default)]
    pub loading: bool,
}

/// An operation on one element of a walk, addressed by `(walk_id, idx)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ElementOp {
    /// Scroll the element into view (centred where possible) and report its fresh bounds.
    ScrollIntoView,
    /// Scroll the point `(x, y)` of the element (CSS px from its top-left) to the middle of
    /// the view as far as the page scrolls, and report the element's fresh bounds.
    ScrollToPoint {
        /// CSS pixels from the element's left edge.
        x: f32,
        /// CSS pixels from the element's top edge.
        y: f32,
    },
    /// Focus the element and report its bounds.
    Focus,
    /// Empty an editable element the way a user would (select-all + delete), firing input
    /// events.
    Clear,
    /// Select these options of a `<select>` (matched by value, then by visible label),
    /// deselecting the rest; fires `input` and `change`.
    SelectOptions(Vec<String>),
    /// Set a date, time, datetime-local, month, week, color or range input to this value as
    /// its picker would (typing the characters would go to the picker's segments); fires
    /// `input` and `change`. A value the field does not take is refused with nothing changed.
    SetValue(String),
    /// Select text as a person dragging across it would: `text` in the element's text (or
    /// its text field's value), or in the whole document's body with `page`; no `text`
    /// selects all of the element. [`ElementReply::text`] is what got selected.
    SelectText {
        /// The words to select (white space compares as one space; case only when no exact
        /// match exists).
        text: Option<String>,
        /// Look in the whole document, not only the element.
        page: bool,
    },
    /// The element's rendered text (`innerText`, or the value of a form control), capped at
    /// `cap` characters.
    ReadText {
        /// Maximum characters returned.
        cap: usize,
    },
    /// What is at viewport point `(x, y)`, through open shadow roots and same-origin frames:
    /// the element, something inside it or a label of it (then it becomes the aim of the next
    /// pointer input, whose [`Delivery::elsewhere`] says if that input landed elsewhere), or
    /// [`ElementReply::cover`]. Changes nothing on the page.
    HitTest {
        /// CSS pixels from the viewport's left edge.
        x: f32,
        /// CSS pixels from the viewport's top edge.
        y: f32,
    },
    /// Whether keyboard focus is within the element: when it is not, [`ElementReply::focus`]
    /// says where it is. Changes nothing.
    FocusCheck,
    /// Only report the element's current box (changes nothing).
    Bounds,
}

/// What an [`ElementOp`] reports back.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ElementReply {
    /// Bounds after the operation, in CSS pixels relative to the top-level viewport.
    pub bounds: Option<Rect>,
    /// Page text, for [`ElementOp::ReadText`].
    pub text: Option<String>,
    /// True when `text` was cut at the cap.
    pub truncated: bool,
    /// [`ElementOp::SetValue`]: the value the field holds now (a range moves to the nearest
    /// value it allows).
    pub value: Option<String>,
    /// [`ElementOp::HitTest`]: what is at the point instead of the element, as
    /// `role "name"` (page text: fence it), when no point of its visible box is clear.
    pub cover: Option<String>,
    /// [`ElementOp::HitTest`]: the point was covered, and this other point of the element's
    /// visible box is clear (it is the aim now).
    pub clear_at: Option<(f32, f32)>,
    /// [`ElementOp::HitTest`]: the point is over a frame of another site, whose input the
    /// browser cannot confirm. [`ElementOp::FocusCheck`]: focus is in such a frame.
    pub remote: bool,
    /// [`ElementOp::FocusCheck`]: where focus is instead, as `role "name"` (page text).
    pub focus: Option<String>,
    /// How far the page is scrolled (CSS pixels, right and down), when the browser said.
    pub page_scroll: Option<(f32, f32)>,
    /// How far the element's own content is scrolled, when the browser said.
    pub own_scroll: Option<(f32, f32)>,
}

/// What became of input the page was sent. Input methods return only once the page has
/// received the input (else they fail with [`BackendError::NotDelivered`]); this says the
/// rest.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Delivery {
    /// The first pointer event went to something other than the element aimed at by the last
    /// [`ElementOp::HitTest`] (it moved, or something covered it meanwhile): `role "name"` of
    /// what got it (page text: fence it).
    pub elsewhere: Option<String>,
    /// With `elsewhere`: the press itself reached the aimed element (its mousedown and focus
    /// handlers ran there); only the release and the click went to what `elsewhere` names.
    #[serde(default)]
    pub pressed_inside: bool,
    /// The input went into a frame of another site: the browser could not confirm it arrived.
    pub unconfirmed: bool,
    /// A new document replaced the page before the input could be confirmed (the input most
    /// likely caused it).
    pub navigated: bool,
    /// A repeated key press stopped early because a new document came: how many presses had
    /// been sent by then (the last of them may have reached the new document).
    #[serde(default)]
    pub presses_sent: Option<u32>,
}

/// How a drag ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DragEnd {
    /// The page started no HTML drag: it saw moves with the button held and a mouse up (how
    /// sliders and script-driven sortable lists are dragged).
    Mouse,
    /// The page started an HTML drag and the element under the release accepted the drop.
    Dropped,
    /// The page started an HTML drag and nothing under the release accepted it: no `drop`
    /// event ran and the drag was cancelled.
    Refused,
}

/// How quiet a tab's network is, for `wait`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetQuiet {
    /// The document and its subresources have finished loading.
    pub loaded: bool,
    /// How long no request has been in flight (as far as `open` is known), else since the
    /// last request finished.
    pub quiet: Duration,
    /// Requests in flight now; `None` when the browser does not watch the tab's requests
    /// (then one still open is seen only once it finishes).
    pub open: Option<usize>,
}

/// The rendered text of a whole page.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PageText {
    /// The text, at most the requested number of characters.
    pub text: String,
    /// True when the text was cut at the cap.
    pub truncated: bool,
    /// The page is a PDF in Chromium's viewer, and this text was read out of its bytes.
    #[serde(default)]
    pub pdf: bool,
}

/// A page read logged out ([`Backend::read_logged_out`]). `url`, `title` and `text` are
/// page-controlled.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoggedOutPage {
    /// The committed URL after redirects.
    pub url: String,
    /// HTTP status of the main document.
    pub status: Option<u16>,
    /// The document's title.
    pub title: String,
    /// The page's rendered text, capped.
    pub text: PageText,
    /// Visible password fields on the page (a login wall's mark).
    pub password_fields: usize,
    /// The addresses of the page's frames, subframes included (page-controlled): a bot check
    /// is often a frame of its provider.
    pub frames: Vec<String>,
}

/// A mouse button for [`Backend::click_at`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The wheel button.
    Middle,
    /// The secondary (context-menu) button.
    Right,
}

/// A part of the viewport, as fractions of its width and height (0 to 1): what a screenshot
/// of one element keeps. Fractions, so the browser maps them onto its pixels whatever the
/// device scale and page zoom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clip {
    /// Left edge, as a fraction of the viewport's width.
    pub x: f32,
    /// Top edge, as a fraction of the viewport's height.
    pub y: f32,
    /// Width, as a fraction of the viewport's width.
    pub w: f32,
    /// Height, as a fraction of the viewport's height.
    pub h: f32,
}

/// A PNG image.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Png {
    /// The encoded PNG file.
    pub bytes: Vec<u8>,
    /// Width in pixels.
    pub w: u32,
    /// Height in pixels.
    pub h: u32,
}

impl fmt::Debug for Png {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Png({}x{}, {} bytes)", self.w, self.h, self.bytes.len())
    }
}

/// Kind of a console entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsoleKind {
    /// `console.error`, an uncaught exception or an unhandled rejection.
    Error,
    /// `console.warn` or a browser warning (mixed content, deprecation...).
    Warning,
    /// `console.log`, `console.info` or `console.debug`: what the page's own script says.
    Log,
    /// A subresource or main-frame request that failed (network error or HTTP status ≥ 400).
    FailedRequest,
}

/// One console message or failed request. `text` and `url` are page-controlled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleEntry {
    /// What sort of entry this is.
    pub kind: ConsoleKind,
    /// The message, or for a failed request its error or status.
    pub text: String,
    /// Script or request URL, when known.
    pub url: Option<String>,
    /// Source line, for script messages.
    pub line: Option<u32>,
}

/// Per-site dark-mode policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThemeMode {
    /// Follow the site and the system.
    #[default]
    Auto,
    /// Force a dark rendering.
    On,
    /// Never darken.
    Off,
}

/// What [`Backend::theme`] applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThemeTarget {
    /// A host name such as `example.com`.
    Host(String),
    /// The site currently shown in a tab.
    Tab(TabId),
}

/// The dark-mode policy of one host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThemeState {
    /// The host the policy applies to.
    pub host: String,
    /// The policy now in force.
    pub mode: ThemeMode,
}

/// An identity container (separate cookies, storage and cache).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerInfo {
    /// Stable id, as passed to [`Backend::open_tab`].
    pub id: String,
    /// Human-chosen display name (not page-controlled).
    pub name: String,
}

/// A vault entry as the agent may see it: an opaque id, the human's label, and whether a
/// one-time code can be filled. There is deliberately no field that could carry a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultEntry {
    /// Opaque id, passed back to [`Backend::vault_fill`].
    pub id: String,
    /// Label the human gave the entry (human-authored, not page-controlled).
    pub label: String,
    /// A TOTP seed is stored, so a one-time-code fill is possible.
    pub has_totp: bool,
}

/// A file in the human's vault library, as the agent sees it (never its contents or a path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultAttachment {
    /// Pass to [`Backend::vault_attach`].
    pub id: String,
    /// The human's label ("CV 2026").
    pub label: String,
    /// The file name the upload carries.
    pub file_name: String,
    /// Its MIME type.
    pub media_type: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A vault autofill profile as the agent sees it: a name and how many facts it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileInfo {
    /// The human's name for it ("Personal", "Work").
    pub name: String,
    /// Facts stored.
    pub fields: usize,
}

/// One form control offered to a profile plan, as the agent's last observation saw it. All
/// text is page-authored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileControl {
    /// Its ref (`e12`).
    pub field_ref: String,
    /// The walk it was observed in.
    pub walk_id: u64,
    /// Its index in that walk.
    pub idx: u32,
    /// `input`, `select`, `textarea`.
    pub tag: String,
    /// An input's `type`.
    pub input_type: Option<String>,
    /// The `autocomplete` attribute.
    pub autocomplete: Option<String>,
    /// The `name` attribute.
    pub name: Option<String>,
    /// The `id` attribute.
    pub id: Option<String>,
    /// Its accessible name (label text).
    pub label: Option<String>,
    /// The `placeholder` attribute.
    pub placeholder: Option<String>,
    /// A select's option labels.
    pub options: Vec<String>,
}

/// One row of a profile plan: what would go where. Never a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRow {
    /// The control's ref.
    pub field_ref: String,
    /// Its label as the page wrote it.
    pub label: String,
    /// The profile fact matched (`givenName`), if any.
    pub field: Option<String>,
    /// Match confidence, percent.
    pub confidence: u32,
    /// `fill`, `low confidence` (reported, not filled) or `skip: <reason>`.
    pub decision: String,
    /// A sensitive fact (date of birth, national id): asks the human every time.
    pub sensitive: bool,
}

/// A profile plan, and after an apply what was filled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileOutcome {
    /// The plan's rows.
    pub rows: Vec<ProfileRow>,
    /// Refs filled (apply only).
    pub filled: Vec<String>,
    /// Refs the plan would fill that were not (no approval, no value), apply only.
    pub skipped: Vec<String>,
}

/// A password the browser generated, saved and typed for a sign-up ([`Backend::vault_generate`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedPassword {
    /// The new vault entry's id.
    pub entry: String,
    /// The origin it is saved for: the password field's frame, as the browser read it.
    pub origin: String,
    /// The generator's entropy, in whole bits.
    pub entropy_bits: u32,
}

/// The vault entries usable on a tab's current page.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct VaultEntries {
    /// The origin the browser matched against (page-controlled: the page chose its URL).
    pub origin: String,
    /// Entries bound to that origin's site; empty when there are none.
    pub entries: Vec<VaultEntry>,
}

/// Which value of an entry goes into a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FillField {
    /// The entry's username.
    Username,
    /// The entry's password.
    Password,
    /// The entry's current TOTP code.
    OneTimeCode,
}

/// One field of a [`Backend::vault_fill`]: which value, into element `idx` of walk `walk_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultTarget {
    /// What to type.
    pub field: FillField,
    /// The walk the element was observed in.
    pub walk_id: u64,
    /// The element's index in that walk.
    pub idx: u32,
}

/// Why a backend call failed.
///
/// The distinction that matters most is *before* versus *after* input was sent: the variants
/// up to [`BackendError::StaleWalk`] mean nothing happened; for an input method, any other
/// error is reported to the agent as "outcome unknown" and never retried, because the page may
/// already have acted on it.
///
/// The `Display` text (and every string carried by a variant) reaches the agent as Aperture's
/// own words, outside the untrusted envelope, so it must never contain page-authored bytes
/// bare: no titles, no page URLs or hosts, no DOM text, no exception messages. Describe a
/// page-derived value ("the tab's URL has no host"), or, where the agent needs it (the host a
/// refusal is about), append it with [`Untrusted`], which fences it: `"…; the host
/// was:{}"`. `aperture_privacy::PolicyError` and `WalkerError` texts already do, so they can be
/// carried as they are. [`BackendError::Navigation`]'s `url` is fenced by its `Display` and by
/// the MCP layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The tab does not exist (closed, or never did).
    #[error("no tab with id {0}")]
    NoSuchTab(TabId),
    /// The human is interacting with the tab; agent input is held off.
    #[error("the human is using this tab ({reason}); input was not sent")]
    HumanDriving {
        /// What the human is doing, in a few words.
        reason: String,
    },
    /// The agent asked to close a tab the human opened.
    #[error("tab {0} was opened by the human; the agent may not close it")]
    NotOpenedByAgent(TabId),
    /// A browser policy forbids the operation (blocked URL scheme, internal page...).
    #[error("refused by policy: {rule}")]
    PolicyRefused {
        /// The rule that refused it, in a few words; the value refused, when it is named, comes
        /// last and fenced (see `aperture_privacy::PolicyError`).
        rule: String,
    },
    /// The request itself was unusable (an unknown key name, an option that does not exist)
    /// and was rejected before anything was dispatched.
    #[error("{0}")]
    InvalidInput(String),
    /// The browser refused an element operation before it changed anything: the element is
    /// not what the operation needs (not a field a user could type into, not a `<select>`), no
    /// option matched, or the element has left the page. Nothing reached the page, so the
    /// agent may correct the request and retry. See [`BackendError::from_walker`].
    #[error("{0}")]
    ElementRefused(String),
    /// The renderer no longer holds the walk the element was addressed in.
    #[error("the page changed since it was last observed (walk {walk_id} is gone)")]
    StaleWalk {
        /// The walk that was named.
        walk_id: u64,
    },
    /// Navigation failed (DNS, TLS, aborted...). `url` is what was asked for.
    #[error("navigation failed: {reason}; the address was:{}", Untrusted(.url))]
    Navigation {
        /// The address that failed.
        url: String,
        /// The network stack's reason (`net::ERR_NAME_NOT_RESOLVED`...).
        reason: String,
    },
    /// The browser did not answer in time.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The tab's renderer process crashed, ran out of memory or was killed; the text is the
    /// browser's reason (its own words, never the page's). Reload the tab to get a new one.
    #[error("the page's renderer process died: {0}; reload the tab to continue")]
    RendererGone(String),
    /// A JavaScript dialog (alert, confirm, prompt, leave-page) holds the tab: the page runs
    /// nothing until it is answered. Refused before anything was sent.
    #[error(
        "a JavaScript {kind} dialog is open in this tab and holds the page until it is answered: use \
         browser_act with action \"dialog\" (`accept`: true for OK/Leave, false for Cancel/Stay; \
         `text` answers a prompt). Its message:{}",
        Untrusted(.message)
    )]
    DialogOpen {
        /// `alert`, `confirm`, `prompt` or `leave page`.
        kind: String,
        /// The page's message (page-chosen text).
        message: String,
    },
    /// A server (or proxy) wants a username and password before it answers: the tab's load
    /// waits on the sign-in. Refused before anything was sent.
    #[error(
        "{} asks for a sign-in (HTTP authentication) before it answers, and the tab waits for it: use \
         browser_act with action \"dialog\" (`accept`: true with `username` and `password`; false \
         cancels, and the server's refusal page loads), or vault_request_fill with an entry and no \
         fields; in the window the human can sign in. It asks for:{}{}",
        if *.proxy { "a proxy" } else { "the site" },
        Untrusted(.origin),
        if .realm.is_empty() { String::new() } else { format!(" its realm is:{}", Untrusted(.realm)) }
    )]
    SignInAsked {
        /// The challenged request's URL (or the proxy's host:port).
        origin: String,
        /// The server's realm (server-chosen text; may be empty).
        realm: String,
        /// A proxy asks, not the site.
        proxy: bool,
    },
    /// Input was dispatched but its effect could not be confirmed.
    #[error("input was sent but its outcome is unknown: {0}")]
    ActionOutcomeUnknown(String),
    /// Input was sent and the page never received it; whatever of it was still on its way
    /// was voided. The text says what, if anything, did happen (the pointer's move to the
    /// target may have arrived without the press). Nothing is retried beyond what it says.
    #[error("not delivered: {0}")]
    NotDelivered(String),
    /// The page could not take input (a document still committing, no body yet); nothing was
    /// sent.
    #[error("{0}; nothing was sent")]
    NotReady(String),
    /// Keyboard focus was not (or stopped being) on the field being typed into. `typed`
    /// characters reached it (0: nothing was typed); every later key was stopped before the
    /// page saw it. `went` is where focus was, as `role "name"` (page text, fenced here).
    #[error("{}; focus is on:{}", focus_words(*.typed, *.total), Untrusted(.went))]
    FocusMoved {
        /// Characters that reached the field.
        typed: usize,
        /// Characters asked for.
        total: usize,
        /// Where focus went (page text).
        went: String,
    },
    /// A vault fill stopped before typing anything into the `stopped` field (emptied first
    /// when `emptied`): the fields in `filled` hold their whole values, no later field was
    /// touched. `why` says what stopped it. Nothing in it is uncertain, and it names no count
    /// (a count of characters would be a secret's length).
    #[error("{}", fill_stopped_words(.filled, .stopped, *.emptied, .why))]
    FillStopped {
        /// Fields filled whole (`username`...).
        filled: Vec<String>,
        /// The field nothing was typed into.
        stopped: String,
        /// Whether that field was emptied before the stop.
        emptied: bool,
        /// What stopped the fill.
        why: Box<BackendError>,
    },
    /// The vault refused before anything was typed: locked, no such entry for this page's
    /// origin (one answer for unknown and foreign ids), the human has not allowed fills here.
    /// Terminal: there is no override to retry with.
    #[error("vault: {0}")]
    VaultRefused(String),
    /// Anything else, described for the agent.
    #[error("{0}")]
    Other(String),
}

fn fill_stopped_words(filled: &[String], stopped: &str, emptied: bool, why: &BackendError) -> String {
    let into = if emptied {
        format!("the {stopped} field was emptied, then nothing was typed into it")
    } else {
        format!("nothing was typed into the {stopped} field")
    };
    if filled.is_empty() {
        format!("{into}: {why}")
    } else {
        format!("the {} was filled; {into}: {why}", filled.join(" and "))
    }
}

fn focus_words(typed: usize, total: usize) -> String {
    if typed == 0 {
        "keyboard focus is not on the field, so nothing was typed".into()
    } else {
        format!("keyboard focus left the field after {typed} of {total} characters; the rest were not typed")
    }
}

impl BackendError {
    /// True when the error guarantees that no input reached the page.
    pub fn nothing_sent(&self) -> bool {
        matches!(
            self,
            BackendError::NoSuchTab(_)
                | BackendError::HumanDriving { .. }
                | BackendError::NotOpenedByAgent(_)
                | BackendError::PolicyRefused { .. }
                | BackendError::InvalidInput(_)
                | BackendError::ElementRefused(_)
                | BackendError::StaleWalk { .. }
                | BackendError::VaultRefused(_)
                | BackendError::DialogOpen { .. }
                | BackendError::SignInAsked { .. }
                | BackendError::NotDelivered(_)
                | BackendError::NotReady(_)
        ) || matches!(self, BackendError::FocusMoved { typed: 0, .. })
    }
}

impl BackendError {
    /// The error for a walker failure answering a request about walk `walk_id`: a stale walk
    /// is [`BackendError::StaleWalk`]; every other refusal the walker makes before changing
    /// anything is [`BackendError::ElementRefused`]; an exception (the operation may have been
    /// partly done) or an unreadable reply is [`BackendError::Other`]. The texts are the
    /// [`WalkerError`] `Display` texts, which quote no page content.
    pub fn from_walker(walk_id: u64, e: WalkerError) -> BackendError {
        match e {
            WalkerError::Stale { .. } => BackendError::StaleWalk { walk_id },
            e if e.nothing_changed() => BackendError::ElementRefused(e.to_string()),
            e => BackendError::Other(e.to_string()),
        }
    }
}

impl From<&ElementOp> for protocol::ElementOp {
    fn from(op: &ElementOp) -> protocol::ElementOp {
        match op {
            ElementOp::ScrollIntoView => protocol::ElementOp::Scroll,
            ElementOp::ScrollToPoint { x, y } => protocol::ElementOp::ScrollTo { x: *x, y: *y },
            ElementOp::Focus => protocol::ElementOp::Focus,
            ElementOp::Clear => protocol::ElementOp::Clear,
            ElementOp::SelectOptions(values) => protocol::ElementOp::Select {
                values: values.clone(),
            },
            ElementOp::SetValue(value) => protocol::ElementOp::Value { value: value.clone() },
            ElementOp::SelectText { text, page } => protocol::ElementOp::SelectText {
                text: text.clone(),
                page: *page,
            },
            ElementOp::ReadText { cap } => protocol::ElementOp::Text { cap: Some(*cap) },
            ElementOp::HitTest { x, y } => protocol::ElementOp::Hit { x: *x, y: *y },
            ElementOp::FocusCheck => protocol::ElementOp::Focused,
            ElementOp::Bounds => protocol::ElementOp::Rect,
        }
    }
}

impl From<protocol::ElementReply> for ElementReply {
    fn from(r: protocol::ElementReply) -> ElementReply {
        ElementReply {
            bounds: Some(r.bounds),
            text: r.text,
            truncated: r.truncated,
            value: r.value,
            cover: r.cover.map(|d| d.line()),
            clear_at: r.x.zip(r.y),
            remote: r.remote,
            focus: r.focus.map(|d| d.line()),
            page_scroll: Some((r.viewport.sx, r.viewport.sy)),
            own_scroll: r.scroll.map(|o| (o.x, o.y)),
        }
    }
}

/// Result alias for backend calls.
pub type BackendResult<T> = Result<T, BackendError>;

/// The browser, as the MCP surface drives it.
///
/// Coordinates are CSS pixels relative to the top-level viewport, the same space as
/// [`aperture_engine::record::NodeRecord::bounds`]. Input methods must inject *trusted* native
/// events (as a user's mouse and keyboard would), never synthetic DOM events.
#[async_trait]
pub trait Backend: Send + Sync + 'static {
    /// All tabs the agent can address (never the vault window or other internal UI).
    async fn tabs(&self) -> BackendResult<Vec<TabInfo>>;
    /// Opens a tab marked as agent-opened, in `container` (default container when `None`),
    /// at `url` (a blank page when `None`). Returns once the tab exists; it may wait for the
    /// first load (the MCP layer allows it a navigation's time) but a failed load should still
    /// return the tab, whose page then shows the failure.
    async fn open_tab(&self, url: Option<String>, container: Option<String>) -> BackendResult<TabId>;
    /// Closes a tab. Must refuse with [`BackendError::NotOpenedByAgent`] for human tabs (the
    /// MCP layer checks too; this is the second lock on the door).
    async fn close_tab(&self, id: TabId) -> BackendResult<()>;
    /// Brings a tab to the foreground of its window.
    async fn select_tab(&self, id: TabId) -> BackendResult<()>;
    /// Navigates and waits for the main-frame load to finish (or fail, or time out).
    async fn navigate(&self, id: TabId, nav: Nav) -> BackendResult<LoadOutcome>;
    /// Waits until the page is quiet after an action: no main-frame load in flight and a
    /// rendered frame since, or until `max` elapses. Elapsing is not an error.
    async fn settle(&self, id: TabId, max: Duration) -> BackendResult<()> {
        let _ = (id, max);
        Ok(())
    }
    /// Identifies the document in the tab's main frame. Must change whenever a new document
    /// commits (link, form post, reload, `location.href = …`) and must not change for
    /// same-document history updates (`pushState`, fragment changes). The MCP layer uses it to
    /// tell the engine that a navigation happened, which retires every ref of the old
    /// document. The default (`None`) makes it fall back to "the URL changed", which is
    /// conservative for `pushState` and blind to a reload of the same URL.
    async fn document(&self, id: TabId) -> BackendResult<Option<u64>> {
        let _ = id;
        Ok(None)
    }
    /// Runs the walker in the tab's top frame. The renderer keeps that walk's element handles
    /// (superseding the previous walk's) for [`Backend::element`].
    async fn walk(&self, id: TabId) -> BackendResult<Walk>;
    /// Runs `op` on element `idx` of walk `walk_id`. Refuses with
    /// [`BackendError::StaleWalk`] when `walk_id` is not the renderer's latest walk.
    async fn element(&self, id: TabId, walk_id: u64, idx: u32, op: ElementOp) -> BackendResult<ElementReply>;
    /// The rendered text of the whole page, capped at `cap` characters.
    async fn page_text(&self, id: TabId, cap: usize) -> BackendResult<PageText>;
    /// Trusted mouse click (`count` = 2 for a double click) at a viewport point.
    ///
    /// Every input method waits until the document can take input, and returns only once the
    /// page has received all of the input; input the page never received is voided and
    /// reported as [`BackendError::NotDelivered`] (a click Chromium dropped whole may be sent
    /// once more first). Never `Ok` for input that did not arrive.
    async fn click_at(
        &self,
        id: TabId,
        x: f32,
        y: f32,
        button: MouseButton,
        count: u8,
    ) -> BackendResult<Delivery>;
    /// Trusted mouse move to a viewport point (hover: the page's `mouseover`, `mouseenter`
    /// and `mousemove` handlers run).
    async fn move_to(&self, id: TabId, x: f32, y: f32) -> BackendResult<Delivery>;
    /// Moves the pointer to a viewport point ahead of a press and waits until the page has
    /// taken the move, so its hover reaction is there for the aim that follows. Best effort (a
    /// failure is not reported: the press that follows is delivered and checked on its own);
    /// backends without a pointer do nothing.
    async fn rest_pointer(&self, id: TabId, x: f32, y: f32) {
        let _ = (id, x, y);
    }
    /// Trusted wheel scroll by `(dx, dy)` CSS pixels with the pointer at `(x, y)`.
    async fn scroll(&self, id: TabId, x: f32, y: f32, dx: f32, dy: f32) -> BackendResult<Delivery>;
    /// A trusted left-button drag: press at `from` (delivered like a click's press), move to
    /// `to` with the button held, release there. How it ended is in [`DragEnd`]. Backends
    /// without a pointer refuse it; nothing is sent.
    async fn drag(&self, id: TabId, from: (f32, f32), to: (f32, f32)) -> BackendResult<(Delivery, DragEnd)> {
        let _ = (id, from, to);
        Err(BackendError::InvalidInput("this browser cannot drag".into()))
    }
    /// One trusted key press, in the Playwright-style spelling: `"Enter"`, `"Tab"`,
    /// `"ArrowDown"`, `"a"`, with modifiers joined by `+`: `"Control+a"`, `"Shift+Tab"`.
    async fn key(&self, id: TabId, key: &str) -> BackendResult<Delivery>;
    /// [`Backend::key`] pressed `times` times in a row (a slider's or a list's arrow key),
    /// stopping at the first press that fails. The default presses one at a time.
    async fn key_repeat(&self, id: TabId, key: &str, times: u32) -> BackendResult<Delivery> {
        let mut last = Delivery::default();
        for _ in 0..times {
            last = self.key(id, key).await?;
            if last.navigated {
                break;
            }
        }
        Ok(last)
    }
    /// Types text as trusted character input into the element the last
    /// [`ElementOp::Focus`]/[`ElementOp::Clear`] focused (else the focused element), guarded:
    /// if focus is elsewhere nothing is typed, and if it leaves while typing the rest is
    /// stopped ([`BackendError::FocusMoved`]).
    async fn type_text(&self, id: TabId, text: &str) -> BackendResult<Delivery>;
    /// How quiet the tab's network is (for `wait`). The default says nothing is known to load.
    async fn network_quiet(&self, id: TabId) -> BackendResult<NetQuiet> {
        let _ = id;
        Ok(NetQuiet {
            loaded: true,
            quiet: Duration::MAX,
            open: Some(0),
        })
    }
    /// A PNG of the visible viewport, or of its `clip` part, downscaled so its long edge is at
    /// most `max_long_edge` pixels.
    async fn screenshot(&self, id: TabId, max_long_edge: u32, clip: Option<Clip>) -> BackendResult<Png>;
    /// Console errors, warnings and failed requests recorded since the previous call for
    /// this tab (the buffer is drained).
    async fn console(&self, id: TabId) -> BackendResult<Vec<ConsoleEntry>>;
    /// How many main-frame navigations (and page-opened tabs) of this tab the agent-navigation
    /// policy has refused so far, and the rules of the latest few, oldest first (each may end
    /// with a fenced address). Not drained: a caller compares counts before and after.
    async fn refused_navigations(&self, id: TabId) -> BackendResult<(u64, Vec<String>)> {
        let _ = id;
        Ok((0, Vec::new()))
    }
    /// How many decisions the browser has made on this tab's behalf so far (a file chooser
    /// cancelled or handed to the human, a permission prompt blocked, dialogs suppressed…),
    /// and the latest few, oldest first (page-influenced text: fence it). Not drained.
    async fn browser_notes(&self, id: TabId) -> BackendResult<(u64, Vec<String>)> {
        let _ = id;
        Ok((0, Vec::new()))
    }
    /// Reads, and when `set` is given first changes, the dark-mode policy of a site.
    async fn theme(&self, target: ThemeTarget, set: Option<ThemeMode>) -> BackendResult<ThemeState>;
    /// The identity containers the human has set up.
    async fn containers(&self) -> BackendResult<Vec<ContainerInfo>>;
    /// Vault entries for the site of the tab's current main-frame origin, which the browser
    /// determines itself: the agent never names an origin. Ids and labels only.
    async fn vault_entries(&self, id: TabId) -> BackendResult<Vec<VaultEntry>> {
        let _ = id;
        Err(vault_not_available())
    }
    /// Like [`Backend::vault_entries`], with the origin that was matched. The default wraps
    /// `vault_entries` with the tab's URL.
    async fn vault_entries_for_tab(&self, id: TabId) -> BackendResult<VaultEntries> {
        let entries = self.vault_entries(id).await?;
        let origin = self
            .tabs()
            .await?
            .into_iter()
            .find(|t| t.id == id)
            .map(|t| t.url)
            .unwrap_or_default();
        Ok(VaultEntries { origin, entries })
    }
    /// Fills entry `entry`'s values into `targets` (in order): the browser resolves the tab's
    /// origin, checks the human's consent, redeems the grant against the frame it types into,
    /// focuses and clears each element and types with trusted key events, then taints the
    /// values so no later read of the page returns them. Nothing secret comes back.
    ///
    /// An unknown id and an id of another site's entry must fail identically
    /// ([`BackendError::VaultRefused`]), so the answer is no oracle for what exists elsewhere.
    /// Once a value has been typed, a later failure is [`BackendError::ActionOutcomeUnknown`].
    async fn vault_fill(&self, id: TabId, entry: &str, targets: Vec<VaultTarget>) -> BackendResult<()> {
        let _ = (id, entry, targets);
        Err(vault_not_available())
    }
    /// Answers the sign-in (HTTP authentication) open in the tab with vault entry `entry`,
    /// bound to the site asking and allowed by the human as for a form fill; the values go to
    /// the network stack and are tainted like a fill. [`BackendError::InvalidInput`] when no
    /// sign-in is open.
    async fn vault_sign_in(&self, id: TabId, entry: &str) -> BackendResult<()> {
        let _ = (id, entry);
        Err(vault_not_available())
    }
    /// Generates a strong password, saves it in the vault for the origin of the frame the
    /// first target is in (with `username` as its username when given), and types it into
    /// every target (all [`FillField::Password`]: the password field and its confirmation),
    /// tainted like a fill. The value never comes back. Failures read as for
    /// [`Backend::vault_fill`].
    async fn vault_generate(
        &self,
        id: TabId,
        username: Option<String>,
        targets: Vec<VaultTarget>,
    ) -> BackendResult<GeneratedPassword> {
        let _ = (id, username, targets);
        Err(vault_not_available())
    }
    /// The files in the human's vault library (labels, names, types, sizes).
    async fn vault_attachments(&self) -> BackendResult<Vec<VaultAttachment>> {
        Err(vault_not_available())
    }
    /// Uploads library file `attachment` through the file input `target` (a trusted key press
    /// opens its chooser, which the browser answers itself with that file). No path crosses
    /// this boundary. Needs the human's consent like a fill.
    async fn vault_attach(
        &self,
        id: TabId,
        attachment: &str,
        target: VaultTarget,
    ) -> BackendResult<VaultAttachment> {
        let _ = (id, attachment, target);
        Err(vault_not_available())
    }
    /// The vault's autofill profiles (names and sizes only).
    async fn vault_profiles(&self) -> BackendResult<Vec<ProfileInfo>> {
        Err(vault_not_available())
    }
    /// Plans (and with `apply`, after the human's consent, performs) a fill of `controls` from
    /// profile `profile` on the tab's page: matched by `autocomplete` first and label
    /// heuristics second, prose prompts excluded by shape, low-confidence matches reported and
    /// not filled. Values never come back; filled ones are tainted like a vault fill.
    async fn vault_profile(
        &self,
        id: TabId,
        profile: &str,
        controls: Vec<ProfileControl>,
        apply: bool,
    ) -> BackendResult<ProfileOutcome> {
        let _ = (id, profile, controls, apply);
        Err(vault_not_available())
    }
    /// Answers the dialog open in the tab (OK/Leave when `accept`, with `text` for a prompt,
    /// `login` (username, password) for a sign-in) and says which kind it was (`sign-in` for
    /// HTTP authentication).
    async fn answer_dialog(
        &self,
        id: TabId,
        accept: bool,
        text: Option<String>,
        login: Option<(String, String)>,
    ) -> BackendResult<String> {
        let _ = (id, accept, text, login);
        Err(BackendError::InvalidInput("no dialog is open in this tab".into()))
    }
    /// The downloads of this run, oldest first.
    async fn downloads(&self) -> BackendResult<Vec<DownloadInfo>> {
        Ok(Vec::new())
    }

    /// Reads `url` logged out: in a fresh request context of its own (no cookies, storage or
    /// cache of any profile; nothing kept on disk; discarded afterwards), under the agent
    /// navigation policy for every request it makes, within `limit` (else
    /// [`BackendError::Timeout`]). Text is capped at `cap` characters. The tab it loads in is
    /// nobody's: never listed, never recorded in history or the session.
    async fn read_logged_out(&self, url: &str, cap: usize, limit: Duration) -> BackendResult<LoggedOutPage> {
        let _ = (url, cap, limit);
        Err(BackendError::Other(
            "this browser cannot read pages logged out".into(),
        ))
    }
}

/// One download, as the agent sees it. The agent never chooses where it goes: always the
/// human's download directory, under a name the browser made safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownloadInfo {
    /// The file name in the download directory (derived from a page-chosen name).
    pub name: String,
    /// Bytes written so far.
    pub received: u64,
    /// The size, when the server said.
    pub total: Option<u64>,
    /// The MIME type the server sent (page-chosen).
    pub mime: String,
    /// `in progress`, `complete`, `cancelled`, or `failed: <reason>` (the browser's words).
    pub state: String,
    /// The tab it came from.
    pub tab: TabId,
}

/// The error the default vault methods return: the browser was built or started without one.
pub fn vault_not_available() -> BackendError {
    BackendError::VaultRefused("the vault is not available in this browser".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walker_refusals_are_nothing_sent_and_exceptions_are_not() {
        let stale = WalkerError::Stale {
            detail: "walk 3 (now 4)".into(),
        };
        assert_eq!(
            BackendError::from_walker(3, stale),
            BackendError::StaleWalk { walk_id: 3 }
        );
        for e in [
            WalkerError::NoSuchElement,
            WalkerError::Detached,
            WalkerError::NotEditable,
            WalkerError::NotASelect,
            WalkerError::NoOptionMatches,
            WalkerError::UnknownElementOp,
        ] {
            let b = BackendError::from_walker(1, e.clone());
            assert_eq!(b, BackendError::ElementRefused(e.to_string()));
            assert!(b.nothing_sent(), "{e:?}");
        }
        let ex = BackendError::from_walker(
            1,
            WalkerError::Exception {
                detail: "Illegal invocation".into(),
            },
        );
        assert!(matches!(ex, BackendError::Other(_)), "{ex:?}");
        assert!(!ex.nothing_sent(), "an exception may have changed the page");
        let bad = BackendError::from_walker(1, WalkerError::BadReply("eof".into()));
        assert!(!bad.nothing_sent());
    }

    #[test]
    fn element_ops_map_to_the_walker_ops() {
        use aperture_engine::protocol::{ElementOp as W, Request};
        let cases = [
            (ElementOp::ScrollIntoView, W::Scroll),
            (
                ElementOp::ScrollToPoint { x: 3.0, y: 4.5 },
                W::ScrollTo { x: 3.0, y: 4.5 },
            ),
            (ElementOp::Focus, W::Focus),
            (ElementOp::Clear, W::Clear),
            (
                ElementOp::SelectOptions(vec!["GB".into()]),
                W::Select {
                    values: vec!["GB".into()],
                },
            ),
            (ElementOp::ReadText { cap: 12 }, W::Text { cap: Some(12) }),
            (
                ElementOp::SetValue("#ff8800".into()),
                W::Value {
                    value: "#ff8800".into(),
                },
            ),
        ];
        for (ours, theirs) in cases {
            assert_eq!(W::from(&ours), theirs);
        }
        assert_eq!(
            Request::element(5, 2, W::from(&ElementOp::SelectOptions(vec!["x".into()]))).to_json(),
            r#"{"op":"el","walk_id":5,"idx":2,"do":"select","values":["x"]}"#
        );
        let reply = ElementReply::from(protocol::ElementReply {
            bounds: Rect {
                x: 1.0,
                y: 2.0,
                w: 3.0,
                h: 4.0,
            },
            text: Some("t".into()),
            truncated: true,
            ..Default::default()
        });
        assert_eq!(reply.bounds.map(|b| b.w), Some(3.0));
        assert_eq!(reply.text.as_deref(), Some("t"));
        assert!(reply.truncated);
    }
}
