//! Page icons as textures: one upload per icon (by the app's key), kept in the egui context's
//! memory so any part of the chrome can draw them.

use egui::{Color32, Context, Id, Rect, TextureHandle, TextureId, TextureOptions, pos2};
use std::collections::HashMap;

use crate::model::Favicon;

/// Icons kept at most; past this the cache starts over (icons are tiny and re-uploaded when
/// next drawn).
const KEEP: usize = 256;

#[derive(Clone, Default)]
struct Cache(HashMap<u64, TextureHandle>);

/// The icon's texture, uploaded the first time it is drawn.
pub(super) fn texture(ctx: &Context, icon: &Favicon) -> Option<TextureId> {
    let len = (icon.width as usize) * (icon.height as usize) * 4;
    if icon.width == 0 || icon.height == 0 || icon.rgba.len() != len {
        return None;
    }
    let id = Id::unique("aperture_favicons");
    if let Some(t) = ctx.data(|d| {
        d.get_temp::<Cache>(id)
            .and_then(|c| c.0.get(&icon.key).map(|t| t.id()))
    }) {
        return Some(t);
    }
    let image =
        egui::ColorImage::from_rgba_unmultiplied([icon.width as usize, icon.height as usize], &icon.rgba);
    let handle = ctx.load_texture(format!("favicon-{}", icon.key), image, TextureOptions::LINEAR);
    let tex = handle.id();
    ctx.data_mut(|d| {
        let c = d.get_temp_mut_or_default::<Cache>(id);
        if c.0.len() >= KEEP {
            c.0.clear();
        }
        c.0.insert(icon.key, handle);
    });
    Some(tex)
}

/// Draws the icon into `rect`.
pub(super) fn paint(ctx: &Context, painter: &egui::Painter, rect: Rect, icon: &Favicon) -> bool {
    let Some(t) = texture(ctx, icon) else { return false };
    painter.image(
        t,
        rect,
        Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
        Color32::WHITE,
    );
    true
}
