//! The new-tab page: over the human's new, empty tab, the sites their history goes to most, as
//! tiles that open in that tab. Drawn by the chrome, as Chrome draws its own over an internal
//! page: the agent never sees it (its snapshot of the tab is the empty page), and a private tab
//! has none (no history to show).

use egui::text::{LayoutJob, TextWrapping};
use egui::{Align2, Color32, Context, CornerRadius, FontId, Id, Rect, Sense, TextFormat, pos2, vec2};

use super::Chrome;
use crate::command::UiCommand;
use crate::model::{ChromeModel, SiteTile};

/// A tile's size, the space between tiles, and tiles per row.
const TILE: egui::Vec2 = vec2(132.0, 108.0);
const GAP: f32 = 16.0;
const PER_ROW: usize = 4;

/// Id of the new-tab page's tile `i` (best first) for [`Chrome::control_rect`].
pub fn site_tile(i: usize) -> String {
    format!("site:{i}")
}

/// Id of the remove mark of tile `i`, shown while the tile is hovered.
pub fn site_tile_remove(i: usize) -> String {
    format!("site:{i}:remove")
}

/// Id of "Undo" after a tile was removed.
pub const SITE_UNDO: &str = "site:undo";
/// Id of "Restore all" after a tile was removed.
pub const SITE_RESTORE_ALL: &str = "site:restore_all";

/// What a tile says under its icon: the page's title, else its host.
fn tile_name(s: &SiteTile) -> String {
    if !s.title.trim().is_empty() {
        return s.title.trim().to_string();
    }
    let rest = s.url.split_once("://").map_or(s.url.as_str(), |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    host.strip_prefix("www.").unwrap_or(host).to_string()
}

impl Chrome {
    /// Draws the new-tab page over `page` when the front tab shows it; true when it did (the
    /// empty page under it then gets no pointer input).
    pub(super) fn new_tab_page(&mut self, ctx: &Context, page: Rect, model: &ChromeModel) -> bool {
        let Some(tab) = model.active_tab().filter(|t| t.new_tab_page) else {
            return false;
        };
        let sites = &model.new_tab_sites;
        let removed = model.new_tab_removed.is_some();
        if sites.is_empty() && !removed {
            return false;
        }
        // With no tile left, the page keeps one tile's place for the Undo line under it.
        let cols = sites.len().clamp(1, PER_ROW);
        let rows = sites.len().div_ceil(PER_ROW).max(1);
        let size = vec2(
            cols as f32 * TILE.x + (cols - 1) as f32 * GAP,
            rows as f32 * TILE.y + (rows - 1) as f32 * GAP,
        );
        // A third of the way down, as browsers place theirs, never above the page's top.
        let top = (page.min.y + page.height() * 0.35 - size.y / 2.0).max(page.min.y + 24.0);
        let origin = pos2(page.center().x - size.x / 2.0, top);
        let (mut open, mut hide) = (None, None);
        egui::Area::new(Id::unique("aperture_new_tab_page"))
            .order(egui::Order::Middle)
            .fixed_pos(origin)
            .show(ctx, |ui| {
                let (_, painter) = ui.allocate_painter(size, Sense::hover());
                let visuals = ui.visuals().clone();
                for (i, s) in sites.iter().enumerate() {
                    let at = origin
                        + vec2(
                            (i % PER_ROW) as f32 * (TILE.x + GAP),
                            (i / PER_ROW) as f32 * (TILE.y + GAP),
                        );
                    let r = Rect::from_min_size(at, TILE);
                    let resp = ui
                        .interact(r, Id::unique(("aperture_site_tile", i)), Sense::click())
                        .on_hover_text(&s.url);
                    self.rects.insert(site_tile(i), r);
                    let fill = if resp.hovered() {
                        visuals.widgets.hovered.weak_bg_fill
                    } else {
                        visuals.widgets.inactive.weak_bg_fill
                    };
                    painter.rect_filled(r, CornerRadius::same(10), fill);
                    let icon = Rect::from_center_size(pos2(r.center().x, r.min.y + 34.0), vec2(32.0, 32.0));
                    let drawn = s
                        .favicon
                        .as_ref()
                        .is_some_and(|f| super::favicon::paint(ctx, &painter, icon, f));
                    let name = tile_name(s);
                    if !drawn {
                        // No icon kept: the site's initial on a disc, as browsers do.
                        painter.circle_filled(icon.center(), 16.0, visuals.selection.bg_fill);
                        let letter: String = name
                            .chars()
                            .next()
                            .map(|c| c.to_uppercase().collect())
                            .unwrap_or_default();
                        painter.text(
                            icon.center(),
                            Align2::CENTER_CENTER,
                            letter,
                            FontId::proportional(16.0),
                            visuals.strong_text_color(),
                        );
                    }
                    let mut job = LayoutJob::single_section(
                        name,
                        TextFormat::simple(FontId::proportional(12.5), visuals.text_color()),
                    );
                    job.wrap = TextWrapping {
                        max_width: TILE.x - 16.0,
                        max_rows: 2,
                        break_anywhere: true,
                        overflow_character: Some('…'),
                    };
                    job.halign = egui::Align::Center;
                    let galley = painter.layout_job(job);
                    painter.galley(pos2(r.center().x, r.min.y + 62.0), galley, Color32::PLACEHOLDER);
                    // Over the tile, a mark that takes its site off the page (checked first: a
                    // click on it is not a click on the tile).
                    let mark = Rect::from_min_size(pos2(r.max.x - 22.0, r.min.y + 4.0), vec2(18.0, 18.0));
                    let mut on_mark = false;
                    if resp.hovered() || resp.contains_pointer() {
                        let m = ui
                            .interact(mark, Id::unique(("aperture_site_tile_remove", i)), Sense::click())
                            .on_hover_text("Remove from this page");
                        self.rects.insert(site_tile_remove(i), mark);
                        painter.text(
                            mark.center(),
                            Align2::CENTER_CENTER,
                            "×",
                            FontId::proportional(14.0),
                            if m.hovered() {
                                visuals.strong_text_color()
                            } else {
                                visuals.weak_text_color()
                            },
                        );
                        on_mark = m.contains_pointer();
                        if m.clicked() {
                            hide = Some(s.url.clone());
                        }
                    }
                    if resp.clicked() && !on_mark {
                        open = Some(s.url.clone());
                    }
                }
            });
        if removed {
            // Under the tiles, as Chrome's toast: the removal can be taken back at once, and
            // every removed site brought back.
            let (mut undo, mut all) = (false, false);
            egui::Area::new(Id::unique("aperture_site_removed"))
                .order(egui::Order::Middle)
                .fixed_pos(pos2(origin.x, origin.y + size.y + GAP))
                .show(ctx, |ui| {
                    ui.horizontal(|ui| {
                        ui.label("Site removed.");
                        let u = ui.button("Undo");
                        self.rects.insert(SITE_UNDO.to_string(), u.rect);
                        let a = ui.button("Restore all");
                        self.rects.insert(SITE_RESTORE_ALL.to_string(), a.rect);
                        undo = u.clicked();
                        all = a.clicked();
                    });
                });
            if undo {
                self.emit(UiCommand::RestoreSites {
                    url: model.new_tab_removed.clone(),
                });
            } else if all {
                self.emit(UiCommand::RestoreSites { url: None });
            }
        }
        if let Some(url) = hide {
            self.emit(UiCommand::HideSite { url });
        } else if let Some(url) = open {
            self.emit(UiCommand::Navigate {
                tab: tab.id,
                input: url.clone(),
                url,
            });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tile_is_named_by_its_title_else_its_host() {
        let tile = |url: &str, title: &str| SiteTile {
            url: url.into(),
            title: title.into(),
            favicon: None,
        };
        assert_eq!(
            tile_name(&tile("https://docs.rs/serde", " serde - Rust ")),
            "serde - Rust"
        );
        assert_eq!(tile_name(&tile("https://www.example.org/a?b", "")), "example.org");
        assert_eq!(
            tile_name(&tile("http://127.0.0.1:8080/#x", "  ")),
            "127.0.0.1:8080"
        );
    }
}
