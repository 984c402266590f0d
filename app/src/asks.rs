//! The window's side of what pages ask of the browser: the actor's open dialogs, context
//! menus, downloads, permission prompts, file choosers, popup widgets, fullscreen and notices
//! are mirrored into the chrome's model, and the chrome's answers are applied here. The agent
//! answers dialogs through the backend instead; everything else is the human's.

use crate::browser::Actor;
use crate::browser::page::{self, Asked, DownloadState};
use crate::tab::TabOptions;
use aperture_mcp::backend::TabId;
use aperture_ui::model::{
    BlockedPopupView, ContextMenuView, DialogKind, DialogView, DownloadState as UiDownloadState,
    DownloadView, FileChooserMode, FileChooserView, PermissionView, PopupView,
};
use aperture_ui::{ChromeModel, PageFrame, UiCommand};
use std::path::PathBuf;
use std::sync::Arc;

/// What the mirror remembers between syncs.
#[derive(Default)]
pub struct Mirror {
    /// The popup frame last copied into the model (by buffer identity), and its generation.
    popup_shown: Option<(usize, u64)>,
    generation: u64,
    /// Downloads the human removed from the list.
    removed: Vec<u32>,
    /// The window is fullscreen (F11), apart from the page's own fullscreen.
    pub window_fullscreen: bool,
    /// The vault's logins for the site the front tab's sign-in asks for (set by the window,
    /// which holds the vault, before each mirror).
    pub sign_in_logins: Vec<aperture_ui::LoginOffer>,
}

/// Copies the actor's page requests into the model; true when anything visible changed.
pub fn mirror(actor: &Actor, active: Option<TabId>, m: &mut ChromeModel, mx: &mut Mirror) -> bool {
    let before = (
        m.dialog.clone(),
        m.context_menu.clone(),
        m.downloads.clone(),
        m.permission.clone(),
        m.file_chooser.clone(),
        m.fullscreen,
        m.notice.clone(),
        m.blocked_popup.clone(),
        m.raise,
    );
    let mut popup_changed = false;
    actor.with(|st| {
        let t = active.and_then(|id| st.tabs.get(&id).map(|t| (id, t)));
        m.dialog = t.and_then(|(id, t)| {
            let d = t.asks.dialog.as_ref()?;
            Some(DialogView {
                tab: id,
                id: d.id,
                kind: match d.kind {
                    Asked::Js(cef::JsDialogKind::Alert) => DialogKind::Alert,
                    Asked::Js(cef::JsDialogKind::Confirm) => DialogKind::Confirm,
                    Asked::Js(cef::JsDialogKind::Prompt) => DialogKind::Prompt,
                    Asked::Js(cef::JsDialogKind::BeforeUnload { .. }) => DialogKind::BeforeUnload,
                    Asked::SignIn { proxy } => DialogKind::SignIn { proxy },
                },
                origin: match d.kind {
                    // The proxy's host:port as it is; a site as its scheme and host, so the
                    // human sees whether the login would cross the network unencrypted.
                    Asked::SignIn { proxy: true } => d.origin.clone(),
                    Asked::SignIn { proxy: false } => sign_in_origin(&d.origin),
                    Asked::Js(_) => display_origin(if d.origin.is_empty() { &t.url } else { &d.origin }),
                },
                message: d.message.clone(),
                default_text: d.default_text.clone(),
                offer_suppress: d.offer_suppress,
                logins: match d.kind {
                    Asked::SignIn { proxy: false } => mx.sign_in_logins.clone(),
                    _ => Vec::new(),
                },
            })
        });
        m.context_menu = t.and_then(|(id, t)| {
            let c = t.asks.context_menu.as_ref()?;
            Some(ContextMenuView {
                tab: id,
                x: c.x as f32,
                y: c.y as f32,
                link_url: (!c.link_url.is_empty()).then(|| c.link_url.clone()),
                image_url: (c.has_image && !c.source_url.is_empty()).then(|| c.source_url.clone()),
                selection: (!c.selection.is_empty()).then(|| c.selection.clone()),
                editable: c.editable,
                misspelled: (c.editable && !c.misspelled.is_empty()).then(|| c.misspelled.clone()),
                suggestions: c.suggestions.clone(),
                can_back: t.can_back,
                can_forward: t.can_forward,
            })
        });
        m.permission = t.and_then(|(id, t)| {
            let p = t.asks.permission.as_ref()?;
            Some(PermissionView {
                tab: id,
                id: p.id,
                origin: display_origin(&p.req.origin),
                kinds: match &p.external {
                    Some(url) => page::external_kinds(url),
                    None => p.req.kinds.iter().map(|k| k.to_string()).collect(),
                },
            })
        });
        m.blocked_popup = t.and_then(|(id, t)| {
            let (url, count) = t.asks.blocked_popup.clone()?;
            Some(BlockedPopupView {
                tab: id,
                url,
                origin: crate::browser::popup_origin(&t.url),
                count,
            })
        });
        m.file_chooser = t.and_then(|(id, t)| {
            let c = t.asks.chooser.as_ref()?;
            Some(FileChooserView {
                tab: id,
                id: c.id,
                mode: match c.dialog.mode {
                    cef::FileDialogMode::Open => FileChooserMode::Open,
                    cef::FileDialogMode::OpenMultiple => FileChooserMode::OpenMultiple,
                    cef::FileDialogMode::OpenFolder => FileChooserMode::OpenFolder,
                    cef::FileDialogMode::Save => FileChooserMode::Save,
                },
                title: c.dialog.title.clone(),
                accept: c.dialog.accept.clone(),
                default_path: (!c.dialog.default_path.is_empty())
                    .then(|| PathBuf::from(&c.dialog.default_path)),
            })
        });
        m.fullscreen = mx.window_fullscreen || t.is_some_and(|(_, t)| t.asks.fullscreen);
        m.downloads = st
            .downloads
            .iter()
            .filter(|d| !mx.removed.contains(&d.id))
            .map(|d| DownloadView {
                id: d.id,
                name: d
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                received: d.received,
                total: d.total,
                state: match &d.state {
                    DownloadState::InProgress => UiDownloadState::InProgress,
                    DownloadState::Complete => UiDownloadState::Complete,
                    DownloadState::Cancelled => UiDownloadState::Cancelled,
                    DownloadState::Failed(w) => UiDownloadState::Failed(w.clone()),
                },
                path: (d.state == DownloadState::Complete).then(|| d.path.display().to_string()),
                paused: d.paused && d.state == DownloadState::InProgress,
            })
            .collect();
        m.notice = st.notices.last().cloned();
        m.raise = st.raise;
        let popup = t.and_then(|(_, t)| {
            let p = &t.asks.popup;
            let f = p.frame.as_ref().filter(|_| p.shown)?;
            Some((p.rect, f.clone()))
        });
        match popup {
            None => {
                popup_changed = m.popup.is_some();
                m.popup = None;
                mx.popup_shown = None;
            }
            Some((r, f)) => {
                let key = Arc::as_ptr(&f.bgra) as usize;
                if mx.popup_shown.map(|(k, _)| k) != Some(key) {
                    mx.generation += 1;
                    mx.popup_shown = Some((key, mx.generation));
                    m.popup = Some(PopupView {
                        rect: [r.0, r.1, r.2, r.3],
                        frame: PageFrame {
                            width: f.w,
                            height: f.h,
                            bgra: Arc::from(f.bgra.as_slice()),
                            generation: mx.generation,
                        },
                    });
                    popup_changed = true;
                } else if let Some(p) = m.popup.as_mut()
                    && p.rect != [r.0, r.1, r.2, r.3]
                {
                    p.rect = [r.0, r.1, r.2, r.3];
                    popup_changed = true;
                }
            }
        }
    });
    popup_changed
        || before
            != (
                m.dialog.clone(),
                m.context_menu.clone(),
                m.downloads.clone(),
                m.permission.clone(),
                m.file_chooser.clone(),
                m.fullscreen,
                m.notice.clone(),
                m.blocked_popup.clone(),
                m.raise,
            )
}

/// `https://example.com:8443/x` → `example.com:8443`, what a dialog names as its source.
fn display_origin(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) if u.host_str().is_some() => match u.port() {
            Some(p) => format!("{}:{p}", u.host_str().unwrap_or_default()),
            None => u.host_str().unwrap_or_default().to_string(),
        },
        _ => url.to_string(),
    }
}

/// `http://example.com:8080/private/x` → `http://example.com:8080`: the origin a sign-in is
/// for, its scheme kept (the dialog warns when it is not encrypted).
fn sign_in_origin(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) if u.host_str().is_some() => u.origin().ascii_serialization(),
        _ => url.to_string(),
    }
}

/// Where the window's actions on page requests need to reach.
pub struct Ctx<'a> {
    pub actor: &'a Actor,
    pub active: Option<TabId>,
    pub page: (i32, i32, f32),
    pub download_dir: Option<PathBuf>,
    /// For the work a command starts that finishes later (a page's snapshot to save).
    pub rt: &'a tokio::runtime::Handle,
}

/// Applies one of the chrome's answers; false when `cmd` is not about page requests.
pub fn apply(cx: &Ctx, mx: &mut Mirror, cmd: &UiCommand) -> bool {
    let a = cx.actor;
    match cmd {
        UiCommand::AnswerDialog {
            tab,
            id,
            accept,
            text,
            login,
            suppress,
        } => {
            // Only the dialog the human saw: a sign-in asked meanwhile (another server) must
            // not get the login typed for the one before.
            let open = a.with(|st| {
                st.tabs
                    .get(tab)
                    .and_then(|t| t.asks.dialog.as_ref().map(|d| d.id))
            });
            if open == Some(*id) {
                let login = login.as_ref().map(|(u, p)| (u.as_str(), p.as_str()));
                let _ = page::answer_dialog(a, *tab, *accept, text.as_deref(), login, *suppress);
            }
        }
        UiCommand::CloseContextMenu => {
            if let Some(id) = cx.active {
                a.with(|st| {
                    if let Some(t) = st.tabs.get_mut(&id) {
                        t.asks.context_menu = None;
                    }
                });
            }
        }
        // In the current tab's container (its very request context: a private tab's link stays
        // private). A chosen container is the window's to open (`Headed`).
        UiCommand::OpenInNewTab {
            url,
            container: None,
            background,
        } => open_next_to_active(cx, url, *background),
        // The chrome puts the text on the clipboard itself (egui's platform output).
        UiCommand::CopyText { .. } => {}
        UiCommand::Edit { tab, op } => {
            if let Some(f) = a.browser(*tab).and_then(|b| b.focused_frame()) {
                f.edit(match op {
                    aperture_ui::EditOp::Cut => cef::EditOp::Cut,
                    aperture_ui::EditOp::Copy => cef::EditOp::Copy,
                    aperture_ui::EditOp::Paste => cef::EditOp::Paste,
                    aperture_ui::EditOp::SelectAll => cef::EditOp::SelectAll,
                    aperture_ui::EditOp::Undo => cef::EditOp::Undo,
                    aperture_ui::EditOp::Redo => cef::EditOp::Redo,
                });
            }
        }
        UiCommand::ReplaceMisspelling { tab, word } => {
            if let Some(h) = a.host(*tab) {
                h.replace_misspelling(word);
            }
        }
        UiCommand::AddToDictionary { tab, word } => {
            if let Some(h) = a.host(*tab) {
                h.add_word_to_dictionary(word);
            }
        }
        UiCommand::SaveUrl { url } => {
            if let Some(h) = cx.active.and_then(|id| a.host(id)) {
                h.start_download(url);
            }
        }
        UiCommand::SavePage { tab } => save_page(cx, *tab),
        UiCommand::AnswerUnresponsive { tab, wait: true } => {
            a.with(|st| crate::browser::hang::wait_longer(st, *tab));
        }
        UiCommand::AnswerUnresponsive { tab, wait: false } => {
            crate::browser::hang::stop_script(a, *tab);
        }
        UiCommand::OpenBlockedPopup { tab } => open_blocked_popup(cx, *tab),
        UiCommand::DismissBlockedPopup { tab } => {
            a.with(|st| st.tabs.get_mut(tab).map(|t| t.asks.blocked_popup = None));
        }
        // Allowed from the bar, the pop-up just stopped opens too. The choice itself is the
        // settings' (`Settings::apply`) and the contexts' (`settings_glue`), which this leaves
        // the command to.
        UiCommand::SetPopupsAllowed { origin, allow: true } => {
            let front = cx.active.filter(|id| {
                a.with(|st| {
                    st.tabs.get(id).is_some_and(|t| {
                        t.asks.blocked_popup.is_some()
                            && crate::browser::popup_origin(&t.url).as_deref() == Some(origin.trim())
                    })
                })
            });
            if let Some(tab) = front {
                open_blocked_popup(cx, tab);
            }
            return false;
        }
        // Opened, or raised when open. Not closed from here: under X, CEF's CloseDevTools ends
        // the DevTools browser but leaves its window standing; F12 in DevTools closes them
        // (their own key) and so does the window's close button.
        UiCommand::DevTools { tab } => {
            if let Some(h) = a.host(*tab) {
                h.show_dev_tools(None);
            }
        }
        UiCommand::Inspect { tab, x, y } => {
            if let Some(h) = a.host(*tab) {
                h.show_dev_tools(Some((x.round() as i32, y.round() as i32)));
            }
        }
        UiCommand::ViewSource { tab } => {
            let url = a.with(|st| st.tabs.get(tab).map(|t| t.url.clone()));
            if let Some(u) = url.filter(|u| !u.is_empty()) {
                open_next_to_active(cx, &format!("view-source:{u}"), false);
            }
        }
        UiCommand::CancelDownload { id } => page::cancel_download(a, *id),
        UiCommand::PauseDownload { id, pause } => page::pause_download(a, *id, *pause),
        UiCommand::RemoveDownload { id } => mx.removed.push(*id),
        UiCommand::OpenDownloadsFolder => {
            if let Some(d) = &cx.download_dir {
                desktop_open(d);
            }
        }
        UiCommand::OpenDownload { id } => {
            // Only a finished one: before that its name holds nothing (it is written elsewhere).
            let path = a.with(|st| {
                st.downloads
                    .iter()
                    .find(|d| d.id == *id && d.state == page::DownloadState::Complete)
                    .map(|d| d.path.clone())
            });
            if let Some(p) = path {
                desktop_open(&p);
            }
        }
        UiCommand::AnswerPermission { id, allow } => {
            if let Some(link) = page::answer_permission(a, *id, *allow, true) {
                desktop_open(link);
            }
        }
        UiCommand::DismissPermission { id } => {
            page::answer_permission(a, *id, false, false);
        }
        UiCommand::FileChooserDone { id, paths } => page::answer_file_dialog(a, *id, paths),
        UiCommand::ToggleFullscreen => mx.window_fullscreen = !mx.window_fullscreen,
        UiCommand::ExitFullscreen => {
            mx.window_fullscreen = false;
            if let Some(h) = cx.active.and_then(|id| a.host(id)) {
                h.exit_fullscreen();
            }
        }
        UiCommand::Print { tab } => print_to_pdf(cx, *tab),
        UiCommand::DismissNotice => a.with(|st| st.dismiss_notices()),
        _ => return false,
    }
    true
}

/// Opens the pop-up `tab`'s page was stopped from opening, in a new tab next to it, in front
/// (the page loses its handle on it: `window.open` had already returned null).
fn open_blocked_popup(cx: &Ctx, tab: TabId) {
    let url = cx
        .actor
        .with(|st| st.tabs.get_mut(&tab).and_then(|t| t.asks.blocked_popup.take()));
    if let Some((url, _)) = url {
        open_next_to(cx.actor, cx.page, tab, &url, false);
    }
}

/// Opens `url` in a new tab of the active tab's container, right after it.
fn open_next_to_active(cx: &Ctx, url: &str, background: bool) {
    if let Some(active) = cx.active {
        open_next_to(cx.actor, cx.page, active, url, background);
    }
}

/// Puts new tab `id` right after tab `of` in the strip, and in front unless `background`.
pub(crate) fn place_after(a: &Actor, of: TabId, id: TabId, background: bool) {
    a.with(|st| {
        if let Some(at) = st.order.iter().position(|t| *t == of) {
            st.order.retain(|t| *t != id);
            st.order.insert(at + 1, id);
        }
        if !background {
            st.active = Some(id);
        }
    });
}

/// Opens `url` in a new tab right after tab `of`, in its container (its very request context,
/// so a private tab's stays private), in front unless `background`. The new tab's id.
pub(crate) fn open_next_to(
    a: &Actor,
    page: (i32, i32, f32),
    of: TabId,
    url: &str,
    background: bool,
) -> Option<TabId> {
    let (host, container) = a.with(|st| {
        st.tabs
            .get(&of)
            .map(|t| (t.host.clone(), t.meta.container.clone()))
    })?;
    let opts = TabOptions {
        size: (page.0, page.1),
        scale: page.2,
        meta: crate::browser::state::TabMeta {
            container,
            ..Default::default()
        },
        context: host.request_context(),
    };
    match a.create_browser(url, opts) {
        Ok(id) => {
            place_after(a, of, id, background);
            Some(id)
        }
        Err(e) => {
            tracing::warn!("could not open {url}: {e}");
            None
        }
    }
}

/// Hands `path` to the desktop's opener (`xdg-open`): the file manager for a folder, the
/// application for a file or a link (`mailto:` to the mail client). Nothing happens where
/// there is none.
fn desktop_open(path: impl AsRef<std::ffi::OsStr>) {
    let _ = std::process::Command::new("xdg-open")
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// Ctrl+S: the page as the human sees it now (its current DOM, with its images, styles and
/// frames) in one MHTML file in the download directory, named after its title: Chrome's
/// "Webpage, Single File", which any Chromium opens offline. A document that is not a web page
/// (an image, a text file, a PDF) is saved as itself instead, fetched again by the tab (its
/// cookies, its cache) as a download.
fn save_page(cx: &Ctx, tab: TabId) {
    let a = cx.actor;
    let Some((url, title)) = a.with(|st| {
        let t = st.tabs.get(&tab)?;
        Some((t.url.clone(), t.title.clone()))
    }) else {
        return;
    };
    if !(url.starts_with("http://") || url.starts_with("https://") || url.starts_with("file:")) {
        return;
    }
    let stem = match title.trim() {
        "" => url::Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_else(|| "page".into()),
        t => t.to_string(),
    };
    let Some(dir) = cx.download_dir.clone() else {
        a.with(|st| {
            st.notices
                .push("Cannot save the page: there is no download directory".into())
        });
        return;
    };
    let h = a.handle();
    let page = crate::tab::Tab::new(&h, tab);
    cx.rt.spawn(async move {
        let kind = page
            .devtools(
                "Runtime.evaluate",
                serde_json::json!({"expression": "document.contentType", "returnByValue": true, "silent": true}),
            )
            .await;
        let web_page = matches!(
            kind.as_ref().ok().and_then(|v| v["result"]["value"].as_str()),
            Some("text/html" | "application/xhtml+xml")
        );
        if !web_page {
            let _ = h
                .on_ui(move |a| {
                    // Named as the server names it (`photo.png`), as a browser saves a file.
                    if let Some(host) = a.host(tab) {
                        host.start_download(&url);
                    }
                })
                .await;
            return;
        }
        let Ok(Some((dl, path, part))) = h
            .on_ui(move |a| {
                if let Err(e) = std::fs::create_dir_all(&dir) {
                    let why = format!("Saving the page failed: cannot create {}: {e}", dir.display());
                    a.with(|st| {
                        st.notices.push(why);
                        st.events.push(crate::browser::Event::Refresh);
                    });
                    return None;
                }
                let name = aperture_common::fs::safe_file_name(&format!("{stem}.mhtml"));
                let path = aperture_common::fs::unique_path(&dir, &name);
                let part = aperture_common::fs::part_path(&path);
                let dl = page::local_file_started(a, tab, &path, &part, "multipart/related");
                Some((dl, path, part))
            })
            .await
        else {
            return;
        };
        let r = match page
            .devtools("Page.captureSnapshot", serde_json::json!({"format": "mhtml"}))
            .await
        {
            Ok(v) => match v["data"].as_str() {
                Some(data) => {
                    let data = data.to_string();
                    tokio::task::spawn_blocking(move || {
                        aperture_common::fs::create_atomic(&part, data.as_bytes())
                            .and_then(|()| aperture_common::fs::publish_download(&part, &path))
                            .map_err(|e| {
                                let _ = std::fs::remove_file(&part);
                                e.to_string()
                            })
                    })
                    .await
                    .unwrap_or_else(|e| Err(e.to_string()))
                }
                None => Err("Chromium gave no snapshot of the page".into()),
            },
            Err(e) => Err(e.to_string()),
        };
        let _ = h
            .on_ui(move |a| page::local_file_done(a, dl, &r, "Saved the page", "Saving the page failed"))
            .await;
    });
}

/// Ctrl+P: a PDF of the page in the download directory (the same path as a page's
/// `window.print()`), never a hang.
fn print_to_pdf(cx: &Ctx, tab: TabId) {
    page::print_page(cx.actor, tab, false);
}
