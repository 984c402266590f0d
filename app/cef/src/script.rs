//! The script channel between the browser process and a page's renderers: at each frame's
//! V8 context creation the renderer evaluates the app's script (which must evaluate to a
//! function) and keeps that function in native code, never on the page's global; the browser
//! sends a frame string requests as process messages and gets string answers back from the
//! script of that frame's current context. Every frame gets the script, so a frame of another
//! site (in its own renderer, out of reach of the main frame's script) answers for itself.
//!
//! Messages: `aperture.req` [id_lo, id_hi, request] and `aperture.rep` [id_lo, id_hi, reply,
//! error]. The script may also tell the browser of something as it happens (media starting to
//! sound): at install it is handed a native `notify(string)` function, kept in its closure like
//! itself, and each call is an `aperture.evt` [event] message from its frame. When a context
//! that sent events goes away, its frame sends `aperture.evt` [`{"ev":"gone"}`]. The request named by [`crate::AppConfig::pid_request`] is answered natively with the
//! renderer's process id (tests and crash reports find the renderer with it).

use crate::api::api;
use crate::rc::{RcBox, Ref, call};
use crate::strings::{CefStr, from_userfree};
use crate::sys::*;
use crate::types::Frame;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_int;
use std::rc::Rc;

const REQUEST: &str = "aperture.req";
const REPLY: &str = "aperture.rep";
const EVENT: &str = "aperture.evt";
/// The longest event a frame may send: events are small facts, not page content.
const EVENT_MAX: usize = 512;
/// What a context that had sent events says when it goes away.
const GONE: &str = r#"{"ev":"gone"}"#;

fn new_message(name: &str) -> Option<Ref<cef_process_message_t>> {
    let name = CefStr::new(name);
    // SAFETY: creating a message has no preconditions; it returns a new reference.
    unsafe { Ref::adopt((api().cef_process_message_create)(name.as_ptr())) }
}

impl Frame {
    /// Sends request `rid` to the script in this frame's renderer; the answer arrives as
    /// [`crate::ClientHandler::on_script_reply`].
    pub fn send_script_request(&self, rid: u64, req: &str) {
        let Some(msg) = new_message(REQUEST) else { return };
        // SAFETY: a fresh message; its argument list is a new reference; CEF copies strings.
        unsafe {
            if let Some(args) = Ref::adopt(call!(msg.get_argument_list())) {
                let r = CefStr::new(req);
                call!(args.set_int(0, rid as u32 as i32));
                call!(args.set_int(1, (rid >> 32) as u32 as i32));
                call!(args.set_string(2, r.as_ptr()));
            }
            call!(self.send_process_message(cef_process_id_t::PID_RENDERER, msg.into_cef()));
        }
    }
}

/// Browser side: a reply message's request id and answer, or `None` for other messages.
pub(crate) fn read_reply(msg: &Ref<cef_process_message_t>) -> Option<(u64, Result<String, String>)> {
    // SAFETY: getters on a live message; userfree strings freed once; the list is a new ref.
    unsafe {
        if from_userfree(call!(msg.get_name())) != REPLY {
            return None;
        }
        let args = Ref::adopt(call!(msg.get_argument_list()))?;
        let rid = call!(args.get_int(0)) as u32 as u64 | ((call!(args.get_int(1)) as u32 as u64) << 32);
        let body = from_userfree(call!(args.get_string(2)));
        let err = from_userfree(call!(args.get_string(3)));
        Some((rid, if err.is_empty() { Ok(body) } else { Err(err) }))
    }
}

/// Browser side: an event message's body, or `None` for other messages.
pub(crate) fn read_event(msg: &Ref<cef_process_message_t>) -> Option<String> {
    // SAFETY: getters on a live message; userfree strings freed once; the list is a new ref.
    unsafe {
        if from_userfree(call!(msg.get_name())) != EVENT {
            return None;
        }
        let args = Ref::adopt(call!(msg.get_argument_list()))?;
        let body = from_userfree(call!(args.get_string(0)));
        (body.len() <= EVENT_MAX).then_some(body)
    }
}

// ---------------------------------------------------------------------------------------------
// Render process side.

struct Installed {
    context: Ref<cef_v8context_t>,
    function: Ref<cef_v8value_t>,
    /// The context's script has sent an event (so its frame says when the context goes).
    sent: Rc<Cell<bool>>,
}

/// Sends `body` as an event from frame `f` to the browser.
fn send_event(f: &Frame, body: &str) {
    let Some(msg) = new_message(EVENT) else { return };
    // SAFETY: a fresh message; CEF copies the string; the message reference is transferred.
    unsafe {
        if let Some(args) = Ref::adopt(call!(msg.get_argument_list())) {
            let b = CefStr::new(body);
            call!(args.set_string(0, b.as_ptr()));
        }
        call!(f.send_process_message(cef_process_id_t::PID_BROWSER, msg.into_cef()));
    }
}

/// The native `notify` handed to a context's script. Its data is only touched on the
/// renderer's main thread, where V8 calls it.
type Notifier = RcBox<cef_v8handler_t, Rc<Cell<bool>>>;

extern "C" fn notify_execute(
    this: *mut cef_v8handler_t,
    _name: *const cef_string_t,
    _object: *mut cef_v8value_t,
    argc: usize,
    argv: *const *mut cef_v8value_t,
    _retval: *mut *mut cef_v8value_t,
    _exception: *mut cef_string_t,
) -> c_int {
    if argc < 1 || argv.is_null() {
        return 1;
    }
    // SAFETY: V8 passes `argc` live values. They are read, not adopted: should CEF hand each
    // with a reference for us, one small wrapper leaks per media change, where releasing one we
    // did not own would free a live value. The current context and its frame are new
    // references we adopt; the handler data is ours.
    unsafe {
        let v = *argv;
        if v.is_null() || call!((v).is_string()) == 0 {
            return 1;
        }
        let body = from_userfree(call!((v).get_string_value()));
        if body.len() > EVENT_MAX {
            return 1;
        }
        let Some(ctx) = Ref::adopt((api().cef_v8context_get_current_context)()) else {
            return 1;
        };
        let Some(f) = Frame::adopt(call!(ctx.get_frame())) else {
            return 1;
        };
        Notifier::data(this).set(true);
        send_event(&f, &body);
    }
    1
}

/// Hands the freshly installed script its `notify` function (request `{"op":"hook"}` with the
/// function as a second argument).
///
/// # Safety
/// On the renderer thread, with `ctx` the live context `function` was made in.
unsafe fn hook(ctx: &Ref<cef_v8context_t>, function: &Ref<cef_v8value_t>, sent: &Rc<Cell<bool>>) {
    unsafe {
        if call!(ctx.enter()) == 0 {
            return;
        }
        let name = CefStr::new("notify");
        let handler = Notifier::new(|h| h.execute = Some(notify_execute), sent.clone());
        let notify = (api().cef_v8value_create_function)(name.as_ptr(), handler);
        let req = CefStr::new(r#"{"op":"hook"}"#);
        let argv = [(api().cef_v8value_create_string)(req.as_ptr()), notify];
        let out = Ref::adopt(call!(function.execute_function(
            std::ptr::null_mut(),
            2,
            argv.as_ptr()
        )));
        drop(out);
        if call!(function.has_exception()) != 0 {
            call!(function.clear_exception());
        }
        call!(ctx.exit());
    }
}

/// The render-process handler's data. CEF calls the handler only on the renderer's main
/// thread, so the `RefCell` is never shared between threads.
pub(crate) struct ScriptHost {
    source: &'static str,
    pid_request: &'static str,
    /// Per frame identifier: the script function of the frame's current context.
    installed: RefCell<HashMap<String, Installed>>,
}

type Host = RcBox<cef_render_process_handler_t, ScriptHost>;

/// A new render-process handler that hosts `source` in every frame's context.
pub(crate) fn render_process_handler(
    source: &'static str,
    pid_request: &'static str,
) -> *mut cef_render_process_handler_t {
    // SAFETY: a CEF handler struct.
    unsafe {
        Host::new(
            |h| {
                h.on_context_created = Some(on_context_created);
                h.on_context_released = Some(on_context_released);
                h.on_process_message_received = Some(on_process_message_received);
            },
            ScriptHost {
                source,
                pid_request,
                installed: RefCell::new(HashMap::new()),
            },
        )
    }
}

extern "C" fn on_context_created(
    this: *mut cef_render_process_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    ctx: *mut cef_v8context_t,
) {
    // SAFETY: callback arguments carry references for us to release.
    let (b, f, ctx) = unsafe { (Ref::adopt(b), Frame::adopt(f), Ref::adopt(ctx)) };
    let (Some(_b), Some(f), Some(ctx)) = (b, f, ctx) else {
        return;
    };
    // SAFETY: the handler data of an object made by render_process_handler.
    let host = unsafe { Host::data(this) };
    let code = CefStr::new(host.source);
    let url = CefStr::new("aperture://walker.js");
    let mut ret: *mut cef_v8value_t = std::ptr::null_mut();
    let mut exc: *mut cef_v8exception_t = std::ptr::null_mut();
    // SAFETY: a live browser and context on the renderer thread; eval's out-parameters are
    // new references (or NULL) that we adopt.
    unsafe {
        let id = f.id();
        let ok = call!(ctx.eval(code.as_ptr(), url.as_ptr(), 1, &mut ret, &mut exc));
        let exc = Ref::adopt(exc);
        match (ok, Ref::adopt(ret)) {
            (1, Some(function)) if call!(function.is_function()) != 0 => {
                let sent = Rc::new(Cell::new(false));
                hook(&ctx, &function, &sent);
                host.installed.borrow_mut().insert(
                    id,
                    Installed {
                        context: ctx,
                        function,
                        sent,
                    },
                );
            }
            _ => {
                let msg = exc
                    .map(|e| from_userfree(call!(e.get_message())))
                    .unwrap_or_default();
                eprintln!("aperture renderer: script install failed: {msg}");
            }
        }
    }
}

extern "C" fn on_context_released(
    this: *mut cef_render_process_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    ctx: *mut cef_v8context_t,
) {
    // SAFETY: callback arguments carry references for us to release.
    let (b, f, ctx) = unsafe { (Ref::adopt(b), Frame::adopt(f), Ref::adopt(ctx)) };
    let (Some(_b), Some(f), Some(ctx)) = (b, f, ctx) else {
        return;
    };
    // SAFETY: as in on_context_created.
    let host = unsafe { Host::data(this) };
    let id = f.id();
    let removed = {
        let mut m = host.installed.borrow_mut();
        // SAFETY: is_same takes a reference to its argument, which into_cef provides.
        let same = m
            .get(&id)
            .is_some_and(|i| unsafe { call!(ctx.is_same(i.context.clone().into_cef())) } != 0);
        if same { m.remove(&id) } else { None }
    };
    if removed.as_ref().is_some_and(|i| i.sent.get()) {
        send_event(&f, GONE);
    }
    drop(removed); // Released outside the borrow.
}

extern "C" fn on_process_message_received(
    this: *mut cef_render_process_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    _src: cef_process_id_t,
    msg: *mut cef_process_message_t,
) -> c_int {
    // SAFETY: callback arguments carry references for us to release.
    let (b, f, msg) = unsafe { (Ref::adopt(b), Frame::adopt(f), Ref::adopt(msg)) };
    let (Some(_b), Some(f), Some(msg)) = (b, f, msg) else {
        return 0;
    };
    // SAFETY: getters on live objects; userfree strings freed once.
    let (lo, hi, req) = unsafe {
        if from_userfree(call!(msg.get_name())) != REQUEST {
            return 0;
        }
        let Some(args) = Ref::adopt(call!(msg.get_argument_list())) else {
            return 1;
        };
        (
            call!(args.get_int(0)),
            call!(args.get_int(1)),
            from_userfree(call!(args.get_string(2))),
        )
    };
    let id = f.id();
    // SAFETY: as in on_context_created.
    let host = unsafe { Host::data(this) };
    let (body, err) = match run(host, &id, &req) {
        Ok(s) => (s, String::new()),
        Err(e) => (String::new(), e),
    };
    let Some(reply) = new_message(REPLY) else { return 1 };
    // SAFETY: a fresh message; CEF copies the strings; the message reference is transferred.
    unsafe {
        if let Some(args) = Ref::adopt(call!(reply.get_argument_list())) {
            let (b, e) = (CefStr::new(&body), CefStr::new(&err));
            call!(args.set_int(0, lo));
            call!(args.set_int(1, hi));
            call!(args.set_string(2, b.as_ptr()));
            call!(args.set_string(3, e.as_ptr()));
        }
        call!(f.send_process_message(cef_process_id_t::PID_BROWSER, reply.into_cef()));
    }
    1
}

fn run(host: &ScriptHost, id: &str, req: &str) -> Result<String, String> {
    if req == host.pid_request {
        return Ok(std::process::id().to_string());
    }
    let (ctx, function) = host
        .installed
        .borrow()
        .get(id)
        .map(|i| (i.context.clone(), i.function.clone()))
        .ok_or("the page has no script context yet (still loading?)")?;
    // SAFETY: V8 calls on the renderer thread, inside the entered context as CEF requires;
    // returned values are new references we adopt.
    unsafe {
        if call!(ctx.enter()) == 0 {
            return Err("could not enter the page's script context".into());
        }
        let arg = CefStr::new(req);
        let argv = (api().cef_v8value_create_string)(arg.as_ptr());
        let out = Ref::adopt(call!(function.execute_function(std::ptr::null_mut(), 1, &argv)));
        let result = match out {
            Some(v) if call!(v.is_string()) != 0 => Ok(from_userfree(call!(v.get_string_value()))),
            _ => {
                let e = if call!(function.has_exception()) != 0 {
                    Ref::adopt(call!(function.get_exception()))
                        .map(|e| from_userfree(call!(e.get_message())))
                        .unwrap_or_default()
                } else {
                    String::new()
                };
                call!(function.clear_exception());
                Err(format!("the walker failed: {e}"))
            }
        };
        call!(ctx.exit());
        result
    }
}
