//! The history panel (Ctrl+H or the toolbar's clock): a side panel beside the page with a
//! search box ([`UiCommand::HistoryQuery`], also sent when the panel opens so the app fills
//! it), the visits grouped by local day, newest first, each opening on click
//! ([`UiCommand::OpenUrl`], middle or Ctrl+click in a new background tab) with a delete
//! button ([`UiCommand::HistoryDelete`]), and "Clear browsing history…" over a time range
//! ([`UiCommand::HistoryClear`]).

use chrono::{Local, NaiveDate, TimeZone};
use egui::{Align, Align2, Context, FontId, Id, Layout, Rect, RichText, Sense, Ui, pos2, vec2};

use super::{Chrome, controls, history_delete_control, history_range_control, history_row_control};
use crate::command::UiCommand;
use crate::model::{ChromeModel, HistoryRow};

const ROW_HEIGHT: f32 = 40.0;

/// How much of the history "Clear browsing history" removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClearRange {
    /// The last hour.
    LastHour,
    /// The last 24 hours.
    LastDay,
    /// The last 7 days.
    LastWeek,
    /// Everything.
    AllTime,
}

impl ClearRange {
    /// Every range, in the order offered.
    pub const ALL: [ClearRange; 4] = [
        ClearRange::LastHour,
        ClearRange::LastDay,
        ClearRange::LastWeek,
        ClearRange::AllTime,
    ];

    /// As the panel names it.
    pub fn label(self) -> &'static str {
        match self {
            ClearRange::LastHour => "Last hour",
            ClearRange::LastDay => "Last 24 hours",
            ClearRange::LastWeek => "Last 7 days",
            ClearRange::AllTime => "All time",
        }
    }

    pub(super) fn key(self) -> &'static str {
        match self {
            ClearRange::LastHour => "hour",
            ClearRange::LastDay => "day",
            ClearRange::LastWeek => "week",
            ClearRange::AllTime => "all",
        }
    }

    /// The start of the range for [`UiCommand::HistoryClear`] at `now_ms`; `None` = all time.
    pub fn since_ms(self, now_ms: i64) -> Option<i64> {
        const HOUR: i64 = 3_600_000;
        match self {
            ClearRange::LastHour => Some(now_ms - HOUR),
            ClearRange::LastDay => Some(now_ms - 24 * HOUR),
            ClearRange::LastWeek => Some(now_ms - 7 * 24 * HOUR),
            ClearRange::AllTime => None,
        }
    }
}

/// The open panel's state.
pub(super) struct HistoryPanel {
    query: String,
    /// Focus the search field on the next frame.
    focus: bool,
    /// The range choice, while "Clear browsing history…" is open.
    clear: Option<ClearRange>,
}

fn search_id() -> Id {
    Id::unique("aperture_history_search")
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Rows grouped by day in `tz`, newest first, with a heading per day ("Today",
/// "Yesterday", "Monday, 3 March 2025") and each row's time of day.
fn day_groups<'a, Tz: TimeZone>(
    rows: &'a [HistoryRow],
    tz: &Tz,
    today: NaiveDate,
) -> Vec<(String, Vec<(String, &'a HistoryRow)>)>
where
    Tz::Offset: std::fmt::Display,
{
    let mut sorted: Vec<&HistoryRow> = rows.iter().collect();
    sorted.sort_by_key(|r| std::cmp::Reverse(r.visited_at_ms));
    let mut groups: Vec<(NaiveDate, Vec<(String, &HistoryRow)>)> = Vec::new();
    for row in sorted {
        let Some(at) = tz.timestamp_millis_opt(row.visited_at_ms).single() else {
            continue;
        };
        let day = at.date_naive();
        let time = at.format("%H:%M").to_string();
        match groups.last_mut() {
            Some((d, rows)) if *d == day => rows.push((time, row)),
            _ => groups.push((day, vec![(time, row)])),
        }
    }
    groups
        .into_iter()
        .map(|(day, rows)| {
            let heading = if day == today {
                "Today".to_string()
            } else if today.pred_opt() == Some(day) {
                "Yesterday".to_string()
            } else {
                day.format("%A, %-d %B %Y").to_string()
            };
            (heading, rows)
        })
        .collect()
}

/// `host` of `scheme://host/…`, else the whole URL.
pub(super) fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

impl Chrome {
    /// Ctrl+H: open the panel (asking the app for the recent history), or close it.
    pub(super) fn toggle_history(&mut self, ctx: &Context) {
        if self.history.is_some() {
            self.close_history(ctx);
            return;
        }
        // The settings view shares the panel's side.
        self.close_settings(ctx);
        self.history = Some(HistoryPanel {
            query: String::new(),
            focus: true,
            clear: None,
        });
        self.emit(UiCommand::HistoryQuery { text: String::new() });
        self.set_page_focus(false);
    }

    pub(super) fn close_history(&mut self, ctx: &Context) {
        self.history = None;
        if ctx.memory(|m| m.has_focus(search_id())) {
            ctx.memory_mut(|m| m.surrender_focus(search_id()));
            self.page_focused = true;
        }
    }

    pub(super) fn history_search_focused(&self, ctx: &Context) -> bool {
        self.history.is_some() && ctx.memory(|m| m.has_focus(search_id()))
    }

    pub(super) fn history_panel(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let ctx = ui.ctx().clone();
        let Some(mut panel) = self.history.take() else {
            return;
        };
        if std::mem::take(&mut panel.focus) {
            ctx.memory_mut(|m| m.request_focus(search_id()));
        }
        let mut cmds = Vec::new();
        let mut close = false;
        let shown = egui::Panel::right("aperture_history")
            .resizable(true)
            .default_size(380.0)
            .size_range(280.0..=720.0)
            .frame(
                egui::Frame::new()
                    .fill(ui.visuals().panel_fill)
                    .inner_margin(egui::Margin::same(10)),
            )
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.label(RichText::new("History").strong().size(15.0));
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        let x = ui
                            .add(egui::Button::new(RichText::new("×").size(16.0)).frame(false))
                            .on_hover_text("Close (Ctrl+H)");
                        self.rects.insert(controls::HISTORY_CLOSE.to_string(), x.rect);
                        close = x.clicked();
                    });
                });
                let search = ui.add(
                    egui::TextEdit::singleline(&mut panel.query)
                        .id(search_id())
                        .hint_text("🔍 Search history")
                        .desired_width(f32::INFINITY),
                );
                self.rects
                    .insert(controls::HISTORY_SEARCH.to_string(), search.rect);
                if search.changed() {
                    cmds.push(UiCommand::HistoryQuery {
                        text: panel.query.clone(),
                    });
                }
                self.clear_history_choice(ui, &mut panel, &mut cmds);
                ui.separator();
                egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        if model.history.is_empty() {
                            let empty = if panel.query.is_empty() {
                                "No history"
                            } else {
                                "No matching pages"
                            };
                            ui.label(RichText::new(empty).weak());
                            return;
                        }
                        let today = Local::now().date_naive();
                        for (heading, rows) in day_groups(&model.history, &Local, today) {
                            ui.add_space(6.0);
                            ui.label(RichText::new(heading).strong());
                            for (time, row) in rows {
                                let icon = model.favicons.get(host_of(&row.url));
                                self.history_row(ui, row, &time, icon, &mut cmds);
                            }
                        }
                    });
            });
        self.rects
            .insert(controls::HISTORY.to_string(), shown.response.rect);
        for c in cmds {
            self.emit(c);
        }
        if close {
            self.close_history(&ctx);
        } else {
            self.history = Some(panel);
        }
    }

    fn clear_history_choice(&mut self, ui: &mut Ui, panel: &mut HistoryPanel, cmds: &mut Vec<UiCommand>) {
        let Some(mut range) = panel.clear else {
            let open = ui.link("Clear browsing history…");
            self.rects.insert(controls::HISTORY_CLEAR.to_string(), open.rect);
            if open.clicked() {
                panel.clear = Some(ClearRange::LastHour);
            }
            return;
        };
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.label("Clear browsing history from:");
            for r in ClearRange::ALL {
                let b = ui.radio_value(&mut range, r, r.label());
                self.rects.insert(history_range_control(r), b.rect);
            }
            ui.horizontal(|ui| {
                let ok = ui.button("Clear");
                let no = ui.button("Cancel");
                self.rects.insert(controls::HISTORY_CLEAR_OK.to_string(), ok.rect);
                self.rects
                    .insert(controls::HISTORY_CLEAR_CANCEL.to_string(), no.rect);
                if ok.clicked() {
                    cmds.push(UiCommand::HistoryClear {
                        since_ms: range.since_ms(now_ms()),
                    });
                    panel.clear = None;
                } else if no.clicked() {
                    panel.clear = None;
                } else {
                    panel.clear = Some(range);
                }
            });
        });
    }

    fn history_row(
        &mut self,
        ui: &mut Ui,
        row: &HistoryRow,
        time: &str,
        icon: Option<&crate::model::Favicon>,
        cmds: &mut Vec<UiCommand>,
    ) {
        let (rect, resp) = ui.allocate_exact_size(vec2(ui.available_width(), ROW_HEIGHT), Sense::click());
        self.rects.insert(history_row_control(row.id), rect);
        let visuals = ui.visuals().clone();
        if resp.hovered() {
            ui.painter()
                .rect_filled(rect, 4.0, visuals.widgets.hovered.weak_bg_fill);
        }
        let del_rect = Rect::from_center_size(pos2(rect.max.x - 14.0, rect.center().y), vec2(22.0, 22.0));
        let painter = ui.painter_at(Rect::from_min_max(
            rect.min,
            pos2(del_rect.min.x - 4.0, rect.max.y),
        ));
        painter.text(
            pos2(rect.min.x + 4.0, rect.center().y),
            Align2::LEFT_CENTER,
            time,
            FontId::proportional(11.0),
            visuals.weak_text_color(),
        );
        let mut x = rect.min.x + 46.0;
        if let Some(icon) = icon {
            let r = Rect::from_min_size(pos2(x, rect.center().y - 8.0), vec2(16.0, 16.0));
            if super::favicon::paint(ui.ctx(), &painter, r, icon) {
                x += 22.0;
            }
        }
        let title = if row.title.trim().is_empty() {
            &row.url
        } else {
            &row.title
        };
        painter.text(
            pos2(x, rect.center().y - 1.0),
            Align2::LEFT_BOTTOM,
            title,
            FontId::proportional(13.0),
            visuals.strong_text_color(),
        );
        let second = if row.container.is_empty() {
            host_of(&row.url).to_string()
        } else {
            format!("{} · {}", host_of(&row.url), row.container)
        };
        painter.text(
            pos2(x, rect.center().y + 1.0),
            Align2::LEFT_TOP,
            second,
            FontId::proportional(11.0),
            visuals.weak_text_color(),
        );
        let del = ui
            .put(
                del_rect,
                egui::Button::new(RichText::new("×").size(14.0)).frame(false),
            )
            .on_hover_text("Remove from history");
        self.rects.insert(history_delete_control(row.id), del.rect);
        let resp = resp.on_hover_text(&row.url);
        let ctrl = ui.input(|i| i.modifiers.command || i.modifiers.ctrl);
        if del.clicked() {
            cmds.push(UiCommand::HistoryDelete { id: row.id });
        } else if resp.middle_clicked() || (resp.clicked() && ctrl) {
            cmds.push(UiCommand::OpenUrl {
                url: row.url.clone(),
                new_tab: true,
            });
        } else if resp.clicked() {
            cmds.push(UiCommand::OpenUrl {
                url: row.url.clone(),
                new_tab: false,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::FixedOffset;

    use super::*;

    fn row(id: i64, at_ms: i64) -> HistoryRow {
        HistoryRow {
            id,
            url: format!("https://example.com/{id}"),
            title: String::new(),
            visited_at_ms: at_ms,
            container: "Personal".into(),
        }
    }

    /// 2025-03-03T12:00:00Z, a Monday.
    const NOON_UTC: i64 = 1_741_003_200_000;
    const HOUR: i64 = 3_600_000;

    #[test]
    fn rows_group_by_local_day_newest_first() {
        // Out of order on purpose: the panel sorts.
        let rows = vec![
            row(1, NOON_UTC - 30 * HOUR),
            row(2, NOON_UTC),
            row(3, NOON_UTC - 3 * 24 * HOUR),
            row(4, NOON_UTC - 11 * HOUR),
        ];
        let utc = FixedOffset::east_opt(0).unwrap();
        let today = NaiveDate::from_ymd_opt(2025, 3, 3).unwrap();
        let groups = day_groups(&rows, &utc, today);
        let shape: Vec<(&str, Vec<(&str, i64)>)> = groups
            .iter()
            .map(|(h, rs)| (h.as_str(), rs.iter().map(|(t, r)| (t.as_str(), r.id)).collect()))
            .collect();
        assert_eq!(
            shape,
            vec![
                ("Today", vec![("12:00", 2), ("01:00", 4)]),
                ("Yesterday", vec![("06:00", 1)]),
                ("Friday, 28 February 2025", vec![("12:00", 3)]),
            ]
        );
        // Nine hours west, 01:00 UTC on Monday is still Sunday afternoon, and Sunday 06:00
        // UTC is Saturday evening.
        let west = FixedOffset::west_opt(9 * 3600).unwrap();
        let groups = day_groups(&rows, &west, today);
        let heads: Vec<(&str, Vec<i64>)> = groups
            .iter()
            .map(|(h, rs)| (h.as_str(), rs.iter().map(|(_, r)| r.id).collect()))
            .collect();
        assert_eq!(
            heads,
            vec![
                ("Today", vec![2]),
                ("Yesterday", vec![4]),
                ("Saturday, 1 March 2025", vec![1]),
                ("Friday, 28 February 2025", vec![3]),
            ]
        );
        assert_eq!(groups[1].1[0].0, "16:00");
    }

    #[test]
    fn clear_ranges_count_back_from_now() {
        let now = NOON_UTC;
        assert_eq!(ClearRange::LastHour.since_ms(now), Some(now - HOUR));
        assert_eq!(ClearRange::LastDay.since_ms(now), Some(now - 24 * HOUR));
        assert_eq!(ClearRange::LastWeek.since_ms(now), Some(now - 168 * HOUR));
        assert_eq!(ClearRange::AllTime.since_ms(now), None);
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://example.com/a?b"), "example.com");
        assert_eq!(host_of("http://127.0.0.1:8080"), "127.0.0.1:8080");
        assert_eq!(host_of("about:blank"), "about:blank");
    }
}
