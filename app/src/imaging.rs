//! Frame → PNG.

use crate::browser::state::Frame;
use crate::tab::TabError;

/// Encodes a BGRA frame as PNG, scaled down so its long edge is at most `max_edge`.
pub fn png(
    f: &Frame,
    max_edge: Option<u32>,
    clip: Option<[f32; 4]>,
) -> Result<(Vec<u8>, u32, u32), TabError> {
    let mut rgba = Vec::with_capacity(f.bgra.len());
    for px in f.bgra.chunks_exact(4) {
        rgba.extend_from_slice(&[px[2], px[1], px[0], 255]);
    }
    let mut img = image::RgbaImage::from_raw(f.w, f.h, rgba)
        .ok_or_else(|| TabError::Other("frame size mismatch".into()))?;
    if let Some([x, y, w, h]) = clip {
        // Whole pixels covering the part, at least one, inside the frame. An edge within a
        // hundredth of a pixel is on it (fractions do not multiply back exactly).
        let (fw, fh) = (f.w as f32, f.h as f32);
        let snap = |v: f32| {
            if (v - v.round()).abs() < 0.01 {
                v.round()
            } else {
                v
            }
        };
        let x0 = snap(x * fw).floor().clamp(0.0, fw - 1.0) as u32;
        let y0 = snap(y * fh).floor().clamp(0.0, fh - 1.0) as u32;
        let x1 = snap((x + w) * fw).ceil().clamp(x0 as f32 + 1.0, fw) as u32;
        let y1 = snap((y + h) * fh).ceil().clamp(y0 as f32 + 1.0, fh) as u32;
        img = image::imageops::crop_imm(&img, x0, y0, x1 - x0, y1 - y0).to_image();
    }
    if let Some(max) = max_edge {
        let (iw, ih) = img.dimensions();
        let long = iw.max(ih);
        if long > max && max > 0 {
            let (w, h) = (
                (iw as u64 * max as u64 / long as u64) as u32,
                (ih as u64 * max as u64 / long as u64) as u32,
            );
            img = image::imageops::resize(&img, w.max(1), h.max(1), image::imageops::FilterType::Triangle);
        }
    }
    let (w, h) = img.dimensions();
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| TabError::Other(e.to_string()))?;
    Ok((out.into_inner(), w, h))
}

/// Mean Rec. 709 luma (0–255) of a BGRA frame: how light the page is.
pub fn mean_luma(f: &Frame) -> f64 {
    let mut sum = 0f64;
    let n = (f.bgra.len() / 4).max(1);
    for px in f.bgra.chunks_exact(4) {
        sum += 0.0722 * px[0] as f64 + 0.7152 * px[1] as f64 + 0.2126 * px[2] as f64;
    }
    sum / n as f64
}
