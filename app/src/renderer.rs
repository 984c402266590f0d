//! The render-process side: installs the walker in each main-frame V8 context at creation and
//! answers the browser's requests by calling it. Runs on the renderer's main thread.
//!
//! The walker function is held here, in native code, and never placed on the page's global:
//! page script cannot reach it, and it closed over pristine built-ins before any page script
//! ran (see engine/src/walker.js).

use crate::cef::{CefStr, RcBox, Ref, from_userfree, sys::*};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_int;

/// Browser → renderer request message name. Arguments: [id_lo, id_hi, request JSON].
pub const REQUEST: &str = "aperture.req";
/// Renderer → browser reply. Arguments: [id_lo, id_hi, reply JSON, error].
pub const REPLY: &str = "aperture.rep";

/// Asks the renderer for its process id.
pub const PID_REQUEST: &str = "{\"op\":\"pid\"}";

struct Installed {
    context: Ref<cef_v8context_t>,
    walker: Ref<cef_v8value_t>,
}

thread_local! {
    /// Per browser id: the walker of its main frame's current context.
    static WALKERS: RefCell<HashMap<i32, Installed>> = RefCell::new(HashMap::new());
}

/// A new reference to the render-process handler.
pub fn handler() -> *mut cef_render_process_handler_t {
    thread_local! {
        static H: *mut cef_render_process_handler_t = RcBox::<cef_render_process_handler_t, ()>::new(
            |h| {
                h.on_context_created = Some(on_context_created);
                h.on_context_released = Some(on_context_released);
                h.on_process_message_received = Some(on_process_message_received);
            },
            (),
        );
    }
    H.with(|h| unsafe { RcBox::<cef_render_process_handler_t, ()>::add_ref(*h) })
}

fn is_main(f: &Ref<cef_frame_t>) -> bool {
    crate::call!(f.is_main()) != 0
}

extern "C" fn on_context_created(
    _: *mut cef_render_process_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    ctx: *mut cef_v8context_t,
) {
    let (Some(b), Some(f), Some(ctx)) = (Ref::adopt(b), Ref::adopt(f), Ref::adopt(ctx)) else {
        return;
    };
    if !is_main(&f) {
        return; // Same-process iframes are walked from the main frame's walker.
    }
    let id = crate::call!(b.get_identifier());
    let code = CefStr::new(aperture_engine::WALKER_JS);
    let url = CefStr::new("aperture://walker.js");
    let mut ret: *mut cef_v8value_t = std::ptr::null_mut();
    let mut exc: *mut cef_v8exception_t = std::ptr::null_mut();
    let ok = crate::call!(ctx.eval(code.as_ptr(), url.as_ptr(), 1, &mut ret, &mut exc));
    let exc = Ref::adopt(exc);
    let ret = Ref::adopt(ret);
    match (ok, ret) {
        (1, Some(walker)) if crate::call!(walker.is_function()) != 0 => {
            WALKERS.with(|w| w.borrow_mut().insert(id, Installed { context: ctx, walker }));
        }
        _ => {
            let msg = exc
                .map(|e| from_userfree(crate::call!(e.get_message())))
                .unwrap_or_default();
            eprintln!("aperture renderer: walker install failed: {msg}");
        }
    }
}

extern "C" fn on_context_released(
    _: *mut cef_render_process_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    ctx: *mut cef_v8context_t,
) {
    let (Some(b), Some(f), Some(ctx)) = (Ref::adopt(b), Ref::adopt(f), Ref::adopt(ctx)) else {
        return;
    };
    if !is_main(&f) {
        return;
    }
    let id = crate::call!(b.get_identifier());
    let removed = WALKERS.with(|w| {
        let mut w = w.borrow_mut();
        let same = w
            .get(&id)
            .is_some_and(|i| crate::call!(ctx.is_same(i.context.clone().into_cef())) != 0);
        if same { w.remove(&id) } else { None }
    });
    drop(removed);
}

extern "C" fn on_process_message_received(
    _: *mut cef_render_process_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    _src: cef_process_id_t,
    msg: *mut cef_process_message_t,
) -> c_int {
    let (Some(b), Some(f), Some(msg)) = (Ref::adopt(b), Ref::adopt(f), Ref::adopt(msg)) else {
        return 0;
    };
    if from_userfree(crate::call!(msg.get_name())) != REQUEST {
        return 0;
    }
    let Some(args) = Ref::adopt(crate::call!(msg.get_argument_list())) else {
        return 1;
    };
    let lo = crate::call!(args.get_int(0));
    let hi = crate::call!(args.get_int(1));
    let req = from_userfree(crate::call!(args.get_string(2)));
    let id = crate::call!(b.get_identifier());
    let (body, err) = match run(id, &req) {
        Ok(s) => (s, String::new()),
        Err(e) => (String::new(), e),
    };
    reply(&f, lo, hi, &body, &err);
    1
}

fn run(id: i32, req: &str) -> Result<String, String> {
    // Which process serves this tab: lets tests (and crash reports) find the renderer.
    if req == PID_REQUEST {
        return Ok(std::process::id().to_string());
    }
    let (ctx, walker) = WALKERS
        .with(|w| w.borrow().get(&id).map(|i| (i.context.clone(), i.walker.clone())))
        .ok_or("the page has no script context yet (still loading?)")?;
    if crate::call!(ctx.enter()) == 0 {
        return Err("could not enter the page's script context".into());
    }
    let arg = CefStr::new(req);
    // SAFETY: inside the entered context, as create_string requires.
    let argv = unsafe { (crate::cef::api().cef_v8value_create_string)(arg.as_ptr()) };
    let out = Ref::adopt(crate::call!(walker.execute_function(
        std::ptr::null_mut(),
        1,
        &argv
    )));
    let result = match out {
        Some(v) if crate::call!(v.is_string()) != 0 => Ok(from_userfree(crate::call!(v.get_string_value()))),
        _ => {
            let e = if crate::call!(walker.has_exception()) != 0 {
                Ref::adopt(crate::call!(walker.get_exception()))
                    .map(|e| from_userfree(crate::call!(e.get_message())))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            crate::call!(walker.clear_exception());
            Err(format!("the walker failed: {e}"))
        }
    };
    crate::call!(ctx.exit());
    result
}

fn reply(f: &Ref<cef_frame_t>, lo: i32, hi: i32, body: &str, err: &str) {
    let name = CefStr::new(REPLY);
    // SAFETY: creating a message has no preconditions.
    let Some(msg) = Ref::adopt(unsafe { (crate::cef::api().cef_process_message_create)(name.as_ptr()) })
    else {
        return;
    };
    if let Some(args) = Ref::adopt(crate::call!(msg.get_argument_list())) {
        let (b, e) = (CefStr::new(body), CefStr::new(err));
        crate::call!(args.set_int(0, lo));
        crate::call!(args.set_int(1, hi));
        crate::call!(args.set_string(2, b.as_ptr()));
        crate::call!(args.set_string(3, e.as_ptr()));
    }
    crate::call!(f.send_process_message(cef_process_id_t::PID_BROWSER, msg.into_cef()));
}

/// Browser side: sends a request to the renderer of frame `f`.
pub fn send_request(f: &Ref<cef_frame_t>, rid: u64, req: &str) {
    let name = CefStr::new(REQUEST);
    // SAFETY: creating a message has no preconditions.
    let Some(msg) = Ref::adopt(unsafe { (crate::cef::api().cef_process_message_create)(name.as_ptr()) })
    else {
        return;
    };
    if let Some(args) = Ref::adopt(crate::call!(msg.get_argument_list())) {
        let r = CefStr::new(req);
        crate::call!(args.set_int(0, rid as u32 as i32));
        crate::call!(args.set_int(1, (rid >> 32) as u32 as i32));
        crate::call!(args.set_string(2, r.as_ptr()));
    }
    crate::call!(f.send_process_message(cef_process_id_t::PID_RENDERER, msg.into_cef()));
}
