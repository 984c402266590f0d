//! The OpenGL bootstrap of the browser window (`aperture_ui`'s runner): the glutin and glow
//! calls that are `unsafe fn`, behind safe functions whose types keep their preconditions.
//!
//! It lives here, not in `ui`, because this is the workspace's one crate with `unsafe`. It
//! knows nothing of CEF. glutin 0.32 makes context and window-surface creation `unsafe fn`
//! (it cannot check that the native window stays alive), glow 0.17 makes its loader and every
//! GL call `unsafe fn` (the context must be current and the function table must be its own),
//! and neither glutin-winit 0.5 nor egui_glow 0.37 offers a safe way to build a context
//! (egui_glow takes a ready `glow::Context`). So:
//! - a surface only exists inside a [`GlWindow`], which owns the window it draws to and drops
//!   the surface first;
//! - the glow function table only exists inside a [`Gl`], loaded from the display its context
//!   was made on;
//! - GL calls are made only by [`BgraTexture`], after checking that [`Gl`]'s context is
//!   current on the calling thread.

use std::num::NonZeroU32;
use std::sync::Arc;

use glow::HasContext as _;
use glutin::config::{Config, ConfigTemplateBuilder};
use glutin::context::{
    ContextApi, ContextAttributesBuilder, NotCurrentGlContext as _, PossiblyCurrentContext,
    PossiblyCurrentGlContext as _,
};
use glutin::display::{GetGlDisplay as _, GlDisplay as _};
use glutin::surface::{Surface, SurfaceAttributesBuilder, WindowSurface};
use raw_window_handle::HasWindowHandle as _;
use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowAttributes};

/// Why a GL object could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GlError {
    /// No framebuffer configuration matched.
    #[error("no GL config: {0}")]
    Config(String),
    /// Neither a desktop GL nor a GLES context could be created.
    #[error("no GL context: {0}")]
    Context(String),
    /// No window surface.
    #[error("no GL surface: {0}")]
    Surface(String),
    /// The context could not be made current on the new surface.
    #[error("make_current: {0}")]
    MakeCurrent(String),
    /// winit could not create the window or hand out its handle.
    #[error("{0}")]
    Window(String),
    /// A GL call was asked for while [`Gl`]'s context is not current on this thread.
    #[error("the GL context is not current on this thread")]
    NotCurrent,
    /// `glGenTextures` failed.
    #[error("no GL texture: {0}")]
    Texture(String),
    /// A frame's size and its pixel buffer disagree, or the size is not one GL takes.
    #[error("a {width}x{height} BGRA frame needs {needed} bytes, got {got}")]
    BadFrame {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// `width * height * 4`.
        needed: usize,
        /// The buffer's length.
        got: usize,
    },
}

/// A window and the GL surface drawn on it. The surface is declared first, so it is dropped
/// before the window: glutin requires the native window to outlive its surface, and the window
/// is only lent out by reference.
pub struct GlWindow {
    surface: Surface<WindowSurface>,
    window: Window,
}

impl GlWindow {
    /// The winit window.
    pub fn window(&self) -> &Window {
        &self.window
    }

    /// The surface, for `make_current`, `swap_buffers` and `resize`.
    pub fn surface(&self) -> &Surface<WindowSurface> {
        &self.surface
    }
}

/// The window's GL context and the glow function table loaded for it.
pub struct Gl {
    glow: Arc<glow::Context>,
    context: PossiblyCurrentContext,
    config: Config,
}

impl Gl {
    /// The function table, for `egui_glow::Painter` (which makes its own GL calls) and for
    /// safe queries such as `version()`.
    pub fn glow(&self) -> &Arc<glow::Context> {
        &self.glow
    }

    /// The context, for `make_current` on a [`GlWindow`]'s surface and `swap_buffers`.
    pub fn context(&self) -> &PossiblyCurrentContext {
        &self.context
    }

    fn ensure_current(&self) -> Result<(), GlError> {
        if self.context.is_current() {
            Ok(())
        } else {
            Err(GlError::NotCurrent)
        }
    }
}

/// The browser window with a GL context current on it (desktop GL, else GLES; EGL first with
/// GLX as the fallback: both work on Mesa, llvmpipe under Xvfb included, and EGL is what
/// Wayland and most drivers prefer) and the glow function table for that context.
pub fn create_main_window(
    event_loop: &ActiveEventLoop,
    attrs: WindowAttributes,
) -> Result<(GlWindow, Gl), GlError> {
    let template = ConfigTemplateBuilder::new()
        .prefer_hardware_accelerated(None)
        .with_depth_size(0)
        .with_stencil_size(0)
        .with_transparency(false);
    let (window, config) = glutin_winit::DisplayBuilder::new()
        .with_preference(glutin_winit::ApiPreference::FallbackEgl)
        .with_window_attributes(Some(attrs.clone()))
        .build(event_loop, template, |mut configs| {
            configs.next().expect("glutin yields at least one config")
        })
        .map_err(|e| GlError::Config(e.to_string()))?;
    let display = config.display();
    let raw_handle = window
        .as_ref()
        .and_then(|w| w.window_handle().ok())
        .map(|h| h.as_raw());
    let core = ContextAttributesBuilder::new().build(raw_handle);
    let gles = ContextAttributesBuilder::new()
        .with_context_api(ContextApi::Gles(None))
        .build(raw_handle);
    // SAFETY: `raw_handle`, when there is one, is the handle of `window`, which is alive for
    // the whole call; glutin reads it only while creating the context.
    let context = unsafe {
        display
            .create_context(&config, &core)
            .or_else(|_| display.create_context(&config, &gles))
    }
    .map_err(|e| GlError::Context(e.to_string()))?;
    let window = match window {
        Some(w) => w,
        None => glutin_winit::finalize_window(event_loop, attrs, &config)
            .map_err(|e| GlError::Window(e.to_string()))?,
    };
    let main = window_surface(window, &config)?;
    let context = context
        .make_current(&main.surface)
        .map_err(|e| GlError::MakeCurrent(e.to_string()))?;
    // SAFETY: the symbols come from the display `context` was created on, and `context` is
    // current on this thread; the table is kept next to that context in `Gl`.
    let glow = unsafe {
        glow::Context::from_loader_function(|s| {
            let s = std::ffi::CString::new(s).expect("GL symbol names have no NUL");
            display.get_proc_address(&s)
        })
    };
    Ok((
        main,
        Gl {
            glow: Arc::new(glow),
            context,
            config,
        },
    ))
}

/// Another window drawn with `gl`'s context (made current on its surface while it draws).
pub fn create_window(
    event_loop: &ActiveEventLoop,
    gl: &Gl,
    attrs: WindowAttributes,
) -> Result<GlWindow, GlError> {
    let window = glutin_winit::finalize_window(event_loop, attrs, &gl.config)
        .map_err(|e| GlError::Window(e.to_string()))?;
    window_surface(window, &gl.config)
}

fn window_surface(window: Window, config: &Config) -> Result<GlWindow, GlError> {
    let size = window.inner_size();
    let handle = window
        .window_handle()
        .map_err(|e| GlError::Window(e.to_string()))?
        .as_raw();
    let attrs = SurfaceAttributesBuilder::<WindowSurface>::new().build(
        handle,
        NonZeroU32::new(size.width).unwrap_or(NonZeroU32::MIN),
        NonZeroU32::new(size.height).unwrap_or(NonZeroU32::MIN),
    );
    // SAFETY: `handle` is `window`'s, and the surface is moved into a `GlWindow` together with
    // that window, which drops the surface first and never gives the window away.
    let surface = unsafe { config.display().create_window_surface(config, &attrs) }
        .map_err(|e| GlError::Surface(e.to_string()))?;
    Ok(GlWindow { surface, window })
}

/// A texture filled straight from CEF's BGRA frames: desktop GL takes BGRA as is, so the
/// page needs no per-frame swizzle. Made and filled only while its [`Gl`] is current; it lives
/// as long as the context (the window has one page texture and reuses it).
pub struct BgraTexture {
    tex: glow::Texture,
    size: [u32; 2],
}

impl BgraTexture {
    /// A new, empty texture in `gl`'s context.
    pub fn new(gl: &Gl) -> Result<Self, GlError> {
        gl.ensure_current()?;
        // SAFETY: `gl.glow` was loaded for `gl.context`, which was just checked to be current.
        let tex = unsafe { gl.glow.create_texture() }.map_err(GlError::Texture)?;
        Ok(BgraTexture { tex, size: [0, 0] })
    }

    /// The GL name, for `egui_glow::Painter::register_native_texture`.
    pub fn native(&self) -> glow::Texture {
        self.tex
    }

    /// Width and height of the last upload (`[0, 0]` before the first).
    pub fn size(&self) -> [u32; 2] {
        self.size
    }

    /// Replace the texture's pixels with a `width` x `height` BGRA frame (top row first, no
    /// row padding), reallocating it only when the size changed. `bgra` may be longer than the
    /// frame; the rest is ignored.
    pub fn upload(&mut self, gl: &Gl, width: u32, height: u32, bgra: &[u8]) -> Result<(), GlError> {
        let needed = width as usize * height as usize * 4;
        let bad = || GlError::BadFrame {
            width,
            height,
            needed,
            got: bgra.len(),
        };
        let (Ok(w), Ok(h)) = (i32::try_from(width), i32::try_from(height)) else {
            return Err(bad());
        };
        if width == 0 || height == 0 || bgra.len() < needed {
            return Err(bad());
        }
        gl.ensure_current()?;
        let data = glow::PixelUnpackData::Slice(Some(&bgra[..needed]));
        let same_size = self.size == [width, height];
        let g = &gl.glow;
        // SAFETY: `g` was loaded for `gl.context`, which is current (checked above); the
        // texture was made in that context; `data` holds exactly w*h*4 bytes, which with
        // UNPACK_ALIGNMENT 4 and no row length is what a w x h BGRA/UNSIGNED_BYTE upload reads.
        unsafe {
            g.bind_texture(glow::TEXTURE_2D, Some(self.tex));
            g.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
            g.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
            g.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE as i32);
            g.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE as i32);
            g.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
            if same_size {
                g.tex_sub_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    0,
                    0,
                    w,
                    h,
                    glow::BGRA,
                    glow::UNSIGNED_BYTE,
                    data,
                );
            } else {
                // Plain RGBA8 like egui_glow's own textures: egui blends in gamma space, so an
                // sRGB format would darken the page.
                g.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    glow::RGBA8 as i32,
                    w,
                    h,
                    0,
                    glow::BGRA,
                    glow::UNSIGNED_BYTE,
                    data,
                );
            }
            g.bind_texture(glow::TEXTURE_2D, None);
        }
        self.size = [width, height];
        Ok(())
    }
}
