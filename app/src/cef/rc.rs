//! Reference counting for CEF objects: [`RcBox`] for the handler structs we implement,
//! [`Ref`] for the objects CEF hands us.

use super::sys::cef_base_ref_counted_t;
use std::ffi::c_int;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

/// A CEF struct we implement (`C`, whose first field is `cef_base_ref_counted_t`) followed by
/// our refcount and data. `#[repr(C)]` so a `*mut C` from CEF is also a `*mut RcBox<C, T>`.
#[repr(C)]
pub struct RcBox<C, T> {
    cef: C,
    refs: AtomicUsize,
    data: T,
}

impl<C, T> RcBox<C, T> {
    /// Builds a new object with one reference (the caller's). `init` fills the callbacks.
    // Returns the CEF-facing pointer, not `Self`: the box is owned by its refcount from here on.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(init: impl FnOnce(&mut C), data: T) -> *mut C {
        // SAFETY: CEF structs are plain C structs of sizes and nullable fn pointers: all-zero is
        // "no callbacks", which CEF treats as "use the default".
        let mut cef: C = unsafe { std::mem::zeroed() };
        init(&mut cef);
        let base = &mut cef as *mut C as *mut cef_base_ref_counted_t;
        // SAFETY: by this type's contract `C` starts with a `cef_base_ref_counted_t`.
        unsafe {
            (*base).size = std::mem::size_of::<C>();
            (*base).add_ref = Some(add_ref::<C, T>);
            (*base).release = Some(release::<C, T>);
            (*base).has_one_ref = Some(has_one_ref::<C, T>);
            (*base).has_at_least_one_ref = Some(has_at_least_one_ref::<C, T>);
        }
        Box::into_raw(Box::new(RcBox {
            cef,
            refs: AtomicUsize::new(1),
            data,
        })) as *mut C
    }

    /// The data of an object made by [`RcBox::new`] with the same `C` and `T`.
    ///
    /// # Safety
    /// `p` must come from `RcBox::<C, T>::new` and still be alive.
    pub unsafe fn data<'a>(p: *mut C) -> &'a T {
        unsafe { &(*(p as *mut RcBox<C, T>)).data }
    }

    /// Adds a reference before handing `p` to CEF again (returns and arguments transfer one).
    ///
    /// # Safety
    /// `p` must come from `RcBox::<C, T>::new` and still be alive.
    pub unsafe fn add_ref(p: *mut C) -> *mut C {
        unsafe { (*(p as *mut RcBox<C, T>)).refs.fetch_add(1, Ordering::Relaxed) };
        p
    }
}

extern "C" fn add_ref<C, T>(b: *mut cef_base_ref_counted_t) {
    unsafe { (*(b as *mut RcBox<C, T>)).refs.fetch_add(1, Ordering::Relaxed) };
}

extern "C" fn release<C, T>(b: *mut cef_base_ref_counted_t) -> c_int {
    let this = b as *mut RcBox<C, T>;
    if unsafe { (*this).refs.fetch_sub(1, Ordering::Release) } == 1 {
        fence(Ordering::Acquire);
        drop(unsafe { Box::from_raw(this) });
        1
    } else {
        0
    }
}

extern "C" fn has_one_ref<C, T>(b: *mut cef_base_ref_counted_t) -> c_int {
    (unsafe { (*(b as *mut RcBox<C, T>)).refs.load(Ordering::Acquire) } == 1) as c_int
}

extern "C" fn has_at_least_one_ref<C, T>(b: *mut cef_base_ref_counted_t) -> c_int {
    (unsafe { (*(b as *mut RcBox<C, T>)).refs.load(Ordering::Acquire) } >= 1) as c_int
}

/// An owned reference to a CEF-implemented object (`T` starts with `cef_base_ref_counted_t`).
/// Dropping it releases the reference.
pub struct Ref<T>(*mut T);

// SAFETY: CEF objects are thread-safe reference counted; which thread may *call* them is
// documented per method and respected by callers (most browser calls go to the UI thread).
unsafe impl<T> Send for Ref<T> {}
unsafe impl<T> Sync for Ref<T> {}

impl<T> Ref<T> {
    /// Takes over a reference CEF gave us (a callback argument or a returned object).
    /// Returns `None` for NULL.
    pub fn adopt(p: *mut T) -> Option<Ref<T>> {
        if p.is_null() { None } else { Some(Ref(p)) }
    }
    /// Wraps a borrowed pointer, adding a reference of our own.
    pub fn borrowed(p: *mut T) -> Option<Ref<T>> {
        let r = Ref::adopt(p)?;
        unsafe { ((*r.base()).add_ref.expect("add_ref"))(r.base()) };
        Some(r)
    }
    pub fn as_ptr(&self) -> *mut T {
        self.0
    }
    /// A new reference for handing to CEF (it will release it).
    pub fn into_cef(self) -> *mut T {
        let p = self.0;
        std::mem::forget(self);
        p
    }
    fn base(&self) -> *mut cef_base_ref_counted_t {
        self.0 as *mut cef_base_ref_counted_t
    }
}

impl<T> Clone for Ref<T> {
    fn clone(&self) -> Self {
        Ref::borrowed(self.0).expect("non-null")
    }
}

impl<T> Drop for Ref<T> {
    fn drop(&mut self) {
        unsafe { ((*self.base()).release.expect("release"))(self.base()) };
    }
}

impl<T> std::ops::Deref for Ref<T> {
    type Target = T;
    fn deref(&self) -> &T {
        unsafe { &*self.0 }
    }
}

/// Calls a method of a CEF object: `call!(ptr.method(args...))`.
#[macro_export]
macro_rules! call {
    ($obj:ident . $m:ident ( $($a:expr),* $(,)? )) => {{
        let __p = $obj.as_ptr();
        #[allow(unused_unsafe)]
        unsafe { ((*__p).$m.expect(stringify!($m)))(__p $(, $a)*) }
    }};
    (($obj:expr) . $m:ident ( $($a:expr),* $(,)? )) => {{
        let __p = $obj;
        #[allow(unused_unsafe)]
        unsafe { ((*__p).$m.expect(stringify!($m)))(__p $(, $a)*) }
    }};
}
