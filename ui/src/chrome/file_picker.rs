//! A small file picker drawn by egui for `<input type=file>`: a directory
//! listing with Up and a path field, the input's `accept` filter, multiple
//! selection and folder and save modes.
//!
//! Why our own: egui-file-dialog is the maintained one, but its releases
//! trail egui (0.15 is built on egui 0.36, this crate is on 0.37), and a GTK
//! dialog is what issue 12 is about getting rid of.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use egui::{Align, Layout, Rect, RichText, Ui, vec2};

use super::controls;
use crate::model::{FileChooserMode, FileChooserView, TabId};

/// Id of an entry of the open file chooser's listing for
/// [`super::Chrome::control_rect`].
pub fn file_entry_control(name: &str) -> String {
    format!("file:{name}")
}

/// One row of the listing.
struct Entry {
    name: String,
    path: PathBuf,
    is_dir: bool,
}

/// Which files the input accepts, from its `accept` list.
#[derive(Debug, Default)]
struct Accept {
    /// Lower-case extensions without the dot.
    exts: Vec<String>,
    /// Some filter couldn't be turned into extensions: show everything
    /// rather than hide what the page would take.
    any: bool,
}

impl Accept {
    fn new(accept: &[String]) -> Accept {
        let mut a = Accept {
            exts: Vec::new(),
            any: accept.is_empty(),
        };
        for f in accept {
            let f = f.trim().to_ascii_lowercase();
            if let Some(ext) = f.strip_prefix('.') {
                a.exts.push(ext.to_string());
            } else if let Some(exts) = mime_exts(&f) {
                a.exts.extend(exts.iter().map(|e| e.to_string()));
            } else if let Some((_, sub)) = f.split_once('/')
                && !sub.is_empty()
                && sub.chars().all(|c| c.is_ascii_alphanumeric())
            {
                // "image/webp" → .webp: right for most simple subtypes.
                a.exts.push(sub.to_string());
            } else {
                a.any = true;
            }
        }
        a
    }

    fn restricts(&self) -> bool {
        !self.any
    }

    fn matches(&self, name: &str) -> bool {
        if self.any {
            return true;
        }
        let lower = name.to_ascii_lowercase();
        self.exts.iter().any(|e| {
            lower.len() > e.len() + 1
                && lower.ends_with(e.as_str())
                && lower[..lower.len() - e.len()].ends_with('.')
        })
    }
}

/// Extensions for MIME types and wildcards whose extensions aren't simply
/// the subtype.
fn mime_exts(mime: &str) -> Option<&'static [&'static str]> {
    Some(match mime {
        "image/*" => &[
            "png", "jpg", "jpeg", "gif", "webp", "bmp", "svg", "ico", "avif", "tif", "tiff", "apng", "heic",
            "jxl",
        ],
        "video/*" => &["mp4", "webm", "mkv", "mov", "avi", "ogv", "m4v"],
        "audio/*" => &["mp3", "wav", "ogg", "oga", "flac", "m4a", "aac", "opus", "weba"],
        "text/*" => &[
            "txt", "csv", "tsv", "html", "htm", "css", "js", "mjs", "md", "xml", "ics", "vcf",
        ],
        "image/jpeg" => &["jpg", "jpeg"],
        "image/svg+xml" => &["svg"],
        "image/tiff" => &["tif", "tiff"],
        "text/plain" => &["txt", "text"],
        "text/html" => &["html", "htm"],
        "text/javascript" | "application/javascript" => &["js", "mjs"],
        "audio/mpeg" => &["mp3"],
        "application/msword" => &["doc"],
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => &["docx"],
        "application/vnd.ms-excel" => &["xls"],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => &["xlsx"],
        "application/x-tar" => &["tar"],
        "application/gzip" => &["gz", "tgz"],
        _ => return None,
    })
}

/// What the human decided.
pub(super) enum Outcome {
    /// Chosen paths (empty: cancelled).
    Done(Vec<PathBuf>),
}

/// The picker's state for one chooser request.
pub(super) struct FilePicker {
    pub(super) key: (TabId, u64),
    mode: FileChooserMode,
    title: String,
    accept: Accept,
    accept_label: String,
    show_all: bool,
    dir: PathBuf,
    entries: Vec<Entry>,
    error: Option<String>,
    /// Chosen files in `dir`.
    selected: Vec<PathBuf>,
    path_text: String,
    name_text: String,
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| PathBuf::from("/"))
}

impl FilePicker {
    pub(super) fn new(view: &FileChooserView) -> FilePicker {
        let mut name_text = String::new();
        let dir = match &view.default_path {
            Some(p) if p.is_dir() => p.clone(),
            Some(p) => {
                if let Some(name) = p.file_name() {
                    name_text = name.to_string_lossy().into_owned();
                }
                p.parent()
                    .filter(|d| d.is_absolute() && d.is_dir())
                    .map(Path::to_path_buf)
                    .unwrap_or_else(home)
            }
            None => home(),
        };
        if view.mode != FileChooserMode::Save {
            name_text.clear();
        }
        let title = if view.title.trim().is_empty() {
            match view.mode {
                FileChooserMode::Open => "Open file",
                FileChooserMode::OpenMultiple => "Open files",
                FileChooserMode::OpenFolder => "Select folder",
                FileChooserMode::Save => "Save as",
            }
            .to_string()
        } else {
            view.title.clone()
        };
        let mut p = FilePicker {
            key: (view.tab, view.id),
            mode: view.mode,
            title,
            accept: Accept::new(&view.accept),
            accept_label: view.accept.join(", "),
            show_all: false,
            dir: PathBuf::new(),
            entries: Vec::new(),
            error: None,
            selected: Vec::new(),
            path_text: String::new(),
            name_text,
        };
        p.open_dir(dir);
        p
    }

    fn open_dir(&mut self, dir: PathBuf) {
        self.selected.clear();
        self.entries.clear();
        self.error = None;
        match std::fs::read_dir(&dir) {
            Ok(rd) => {
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    // Dot files stay out of the way, as in every desktop
                    // picker; typing a path still reaches them.
                    if name.starts_with('.') {
                        continue;
                    }
                    let path = e.path();
                    // `metadata` follows symlinks: a link to a folder is a folder.
                    let is_dir = std::fs::metadata(&path).is_ok_and(|m| m.is_dir());
                    self.entries.push(Entry { name, path, is_dir });
                }
                self.entries.sort_by(|a, b| {
                    b.is_dir
                        .cmp(&a.is_dir)
                        .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
                });
            }
            Err(e) => self.error = Some(format!("Can't read this folder: {e}")),
        }
        self.path_text = dir.to_string_lossy().into_owned();
        self.dir = dir;
    }

    fn visible(&self, e: &Entry) -> bool {
        if e.is_dir {
            return true;
        }
        match self.mode {
            FileChooserMode::OpenFolder => false,
            _ => self.show_all || self.accept.matches(&e.name),
        }
    }

    /// The paths the primary button would send now, if it's enabled.
    fn chosen(&self) -> Option<Vec<PathBuf>> {
        match self.mode {
            FileChooserMode::Open | FileChooserMode::OpenMultiple => {
                (!self.selected.is_empty()).then(|| self.selected.clone())
            }
            FileChooserMode::OpenFolder => Some(vec![self.dir.clone()]),
            FileChooserMode::Save => {
                let name = self.name_text.trim();
                // A bare name, never a path that climbs out of the folder shown.
                let ok = !name.is_empty() && name != "." && name != ".." && !name.contains('/');
                ok.then(|| vec![self.dir.join(name)])
            }
        }
    }

    /// The path field's Enter: a folder opens, an existing file (or a new
    /// name in Save mode) is chosen.
    fn go_to_typed_path(&mut self) -> Option<Outcome> {
        let typed = self.path_text.trim();
        let p = match typed.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                home().join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(typed),
        };
        let p = if p.is_absolute() { p } else { self.dir.join(p) };
        if p.is_dir() {
            self.open_dir(p);
            return None;
        }
        match self.mode {
            FileChooserMode::Open | FileChooserMode::OpenMultiple if p.is_file() => {
                return Some(Outcome::Done(vec![p]));
            }
            FileChooserMode::Save if p.parent().is_some_and(Path::is_dir) => {
                return Some(Outcome::Done(vec![p]));
            }
            _ => {}
        }
        self.error = Some(format!("No such folder: {}", p.display()));
        None
    }

    /// Draw the picker's contents; `Some` once the human is done.
    pub(super) fn ui(
        &mut self,
        ui: &mut Ui,
        rects: &mut HashMap<String, Rect>,
        max_height: f32,
    ) -> Option<Outcome> {
        let mut outcome = None;
        ui.label(RichText::new(&self.title).strong().size(15.0));
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            let up = ui.add_enabled(self.dir.parent().is_some(), egui::Button::new("⏶ Up"));
            rects.insert(controls::FILE_UP.to_string(), up.rect);
            if up.clicked()
                && let Some(parent) = self.dir.parent()
            {
                self.open_dir(parent.to_path_buf());
            }
            let path = ui.add(
                egui::TextEdit::singleline(&mut self.path_text)
                    .id(egui::Id::unique("aperture_file_path"))
                    .desired_width(f32::INFINITY),
            );
            rects.insert(controls::FILE_PATH.to_string(), path.rect);
            if path.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                outcome = self.go_to_typed_path();
            }
        });
        ui.add_space(4.0);
        let list_height = (max_height - 170.0).clamp(80.0, 320.0);
        let mut open = None;
        let mut open_file = None;
        let mut picked: Option<(PathBuf, String)> = None;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            egui::ScrollArea::vertical()
                .max_height(list_height)
                .min_scrolled_height(list_height)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    let mut shown = 0;
                    for e in self.entries.iter().filter(|e| self.visible(e)) {
                        shown += 1;
                        let label = if e.is_dir {
                            format!("📁 {}", e.name)
                        } else {
                            format!("📄 {}", e.name)
                        };
                        let selected = self.selected.contains(&e.path);
                        let r = ui.selectable_label(selected, label);
                        rects.insert(file_entry_control(&e.name), r.rect);
                        if e.is_dir && r.clicked() {
                            open = Some(e.path.clone());
                        } else if !e.is_dir && r.double_clicked() {
                            open_file = Some(e.path.clone());
                        } else if !e.is_dir && r.clicked() {
                            picked = Some((e.path.clone(), e.name.clone()));
                        }
                    }
                    if shown == 0 && self.error.is_none() {
                        ui.label(RichText::new("Nothing here").weak());
                    }
                });
        });
        if let Some((path, name)) = picked {
            match self.mode {
                FileChooserMode::OpenMultiple => {
                    if self.selected.contains(&path) {
                        self.selected.retain(|p| *p != path);
                    } else {
                        self.selected.push(path);
                    }
                }
                FileChooserMode::Save => self.name_text = name,
                _ => self.selected = vec![path],
            }
        }
        if let Some(dir) = open {
            self.open_dir(dir);
        }
        if let Some(file) = open_file {
            match self.mode {
                FileChooserMode::Open | FileChooserMode::OpenMultiple => {
                    outcome = Some(Outcome::Done(vec![file]));
                }
                _ => {}
            }
        }
        if let Some(err) = &self.error {
            ui.label(RichText::new(err).color(ui.visuals().error_fg_color).small());
        }
        if self.accept.restricts() && self.mode != FileChooserMode::OpenFolder {
            let r = ui.checkbox(
                &mut self.show_all,
                format!("Show all files (the page asks for {})", self.accept_label),
            );
            rects.insert(controls::FILE_SHOW_ALL.to_string(), r.rect);
        }
        if self.mode == FileChooserMode::Save {
            ui.horizontal(|ui| {
                ui.label("Name:");
                let r = ui.add(egui::TextEdit::singleline(&mut self.name_text).desired_width(f32::INFINITY));
                rects.insert(controls::FILE_NAME.to_string(), r.rect);
            });
        }
        ui.add_space(6.0);
        let chosen = self.chosen();
        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
            let label = match self.mode {
                FileChooserMode::Open | FileChooserMode::OpenMultiple => "Open",
                FileChooserMode::OpenFolder => "Select folder",
                FileChooserMode::Save => "Save",
            };
            let ok = ui.add_enabled(
                chosen.is_some(),
                egui::Button::new(RichText::new(label).strong()).min_size(vec2(80.0, 26.0)),
            );
            rects.insert(controls::FILE_OK.to_string(), ok.rect);
            let cancel = ui.add(egui::Button::new("Cancel").min_size(vec2(72.0, 26.0)));
            rects.insert(controls::FILE_CANCEL.to_string(), cancel.rect);
            if ok.clicked()
                && let Some(paths) = chosen
            {
                outcome = Some(Outcome::Done(paths));
            }
            if cancel.clicked() {
                outcome = Some(Outcome::Done(Vec::new()));
            }
            if self.mode == FileChooserMode::OpenMultiple && !self.selected.is_empty() {
                ui.label(RichText::new(format!("{} selected", self.selected.len())).weak());
            }
        });
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::Accept;

    #[test]
    fn accept_filters() {
        let a = Accept::new(&[".PNG".into(), "text/plain".into()]);
        assert!(a.matches("x.png") && a.matches("Y.PnG") && a.matches("notes.txt"));
        assert!(!a.matches("x.jpg") && !a.matches("png") && !a.matches("xpng"));
        let img = Accept::new(&["image/*".into()]);
        assert!(img.matches("a.jpeg") && img.matches("b.webp") && !img.matches("c.pdf"));
        let simple = Accept::new(&["application/pdf".into()]);
        assert!(simple.matches("doc.pdf") && !simple.matches("doc.txt"));
        // Unknown shapes don't hide files the page would take.
        let odd = Accept::new(&["application/vnd.example+json".into()]);
        assert!(odd.matches("whatever.bin"));
        assert!(Accept::new(&[]).matches("anything"));
    }
}
