//! The window's icon (what the taskbar, the window switcher and the title bar show), drawn here
//! rather than shipped as a file: an aperture's six blades around a hexagonal opening.

/// The icon's side in pixels.
pub const SIZE: u32 = 64;

/// The icon as straight RGBA, row by row, [`SIZE`]×[`SIZE`].
pub fn rgba() -> Vec<u8> {
    let n = SIZE as f32;
    let (c, outer, inner) = (n / 2.0, n / 2.0 - 1.0, n * 0.16);
    let mut out = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let (dx, dy) = (x as f32 + 0.5 - c, y as f32 + 0.5 - c);
            let r = (dx * dx + dy * dy).sqrt();
            // Edge coverage of the disc, for a smooth rim.
            let alpha = (outer - r + 0.5).clamp(0.0, 1.0);
            let a = dy.atan2(dx).to_degrees() + 180.0;
            // The opening: a hexagon, its edges where the blades end.
            let sector = (a % 60.0 - 30.0).to_radians();
            let hex = inner / sector.cos();
            let rgb = if r < hex {
                [0x12, 0x1a, 0x2b]
            } else if r > outer - 3.0 {
                [0x1f, 0x29, 0x37]
            } else {
                // Blades twist with the radius; neighbours alternate two blues.
                let blade = ((a + r * 2.2) / 60.0) as u32 % 2;
                if blade == 0 {
                    [0x3b, 0x82, 0xf6]
                } else {
                    [0x60, 0xa5, 0xfa]
                }
            };
            out.extend_from_slice(&[rgb[0], rgb[1], rgb[2], (alpha * 255.0) as u8]);
        }
    }
    out
}

/// The icon for winit's windows.
pub fn window_icon() -> Option<winit::window::Icon> {
    winit::window::Icon::from_rgba(rgba(), SIZE, SIZE).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_icon_is_a_round_opaque_disc_with_a_dark_opening() {
        let px = super::rgba();
        let at = |x: u32, y: u32| &px[((y * super::SIZE + x) * 4) as usize..][..4];
        assert_eq!(px.len(), (super::SIZE * super::SIZE * 4) as usize);
        assert_eq!(at(0, 0)[3], 0, "the corners are transparent");
        assert_eq!(at(32, 32), [0x12, 0x1a, 0x2b, 255], "the opening is dark");
        assert_eq!(at(32, 12)[3], 255, "the blades are opaque");
        assert!(super::window_icon().is_some());
    }
}
