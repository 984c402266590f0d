//! Reference counting for CEF objects: [`RcBox`] for the handler structs we implement,
//! [`Ref`] for the objects CEF hands us. Both are crate-private: outside this crate only the
//! typed wrappers exist, and they decide where `Send`/`Sync` is sound.

use crate::sys::cef_base_ref_counted_t;
use std::ffi::c_int;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

/// A CEF struct we implement (`C`, whose first field is `cef_base_ref_counted_t`) followed by
/// our refcount and data. `#[repr(C)]` so a `*mut C` from CEF is also a `*mut RcBox<C, T>`.
#[repr(C)]
pub(crate) struct RcBox<C, T> {
    cef: C,
    refs: AtomicUsize,
    data: T,
}

impl<C, T> RcBox<C, T> {
    /// Builds a new object with one reference (the caller's). `init` fills the callbacks.
    ///
    /// # Safety
    /// `C` must be a CEF handler struct whose first field is `cef_base_ref_counted_t` and
    /// whose other fields are sizes or nullable function pointers (all-zero is valid).
    // Returns the CEF-facing pointer, not `Self`: the box is owned by its refcount from here on.
    #[allow(clippy::new_ret_no_self)]
    pub(crate) unsafe fn new(init: impl FnOnce(&mut C), data: T) -> *mut C {
        // SAFETY: by the contract, all-zero is "no callbacks", which CEF treats as defaults.
        let mut cef: C = unsafe { std::mem::zeroed() };
        init(&mut cef);
        let base = &mut cef as *mut C as *mut cef_base_ref_counted_t;
        // SAFETY: by the contract `C` starts with a `cef_base_ref_counted_t`.
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
    pub(crate) unsafe fn data<'a>(p: *mut C) -> &'a T {
        unsafe { &(*(p as *mut RcBox<C, T>)).data }
    }

    /// Adds a reference before handing `p` to CEF again (returns and arguments transfer one).
    ///
    /// # Safety
    /// `p` must come from `RcBox::<C, T>::new` and still be alive.
    pub(crate) unsafe fn add_ref(p: *mut C) -> *mut C {
        unsafe { (*(p as *mut RcBox<C, T>)).refs.fetch_add(1, Ordering::Relaxed) };
        p
    }
}

extern "C" fn add_ref<C, T>(b: *mut cef_base_ref_counted_t) {
    // SAFETY: CEF calls this only on objects we made with RcBox::<C, T>::new.
    unsafe { (*(b as *mut RcBox<C, T>)).refs.fetch_add(1, Ordering::Relaxed) };
}

extern "C" fn release<C, T>(b: *mut cef_base_ref_counted_t) -> c_int {
    let this = b as *mut RcBox<C, T>;
    // SAFETY: as above; the last release frees the box exactly once.
    if unsafe { (*this).refs.fetch_sub(1, Ordering::Release) } == 1 {
        fence(Ordering::Acquire);
        drop(unsafe { Box::from_raw(this) });
        1
    } else {
        0
    }
}

extern "C" fn has_one_ref<C, T>(b: *mut cef_base_ref_counted_t) -> c_int {
    // SAFETY: as above.
    (unsafe { (*(b as *mut RcBox<C, T>)).refs.load(Ordering::Acquire) } == 1) as c_int
}

extern "C" fn has_at_least_one_ref<C, T>(b: *mut cef_base_ref_counted_t) -> c_int {
    // SAFETY: as above.
    (unsafe { (*(b as *mut RcBox<C, T>)).refs.load(Ordering::Acquire) } >= 1) as c_int
}

/// An owned reference to a CEF-implemented object (`T` starts with `cef_base_ref_counted_t`).
/// Dropping it releases the reference. Neither `Send` nor `Sync`: the wrapper types that hold
/// one say which CEF objects may cross threads.
pub(crate) struct Ref<T>(*mut T);

impl<T> Ref<T> {
    /// Takes over a reference CEF gave us (a callback argument or a returned object).
    /// Returns `None` for NULL.
    ///
    /// # Safety
    /// `p` is NULL or a live CEF object of type `T` carrying a reference that is ours to
    /// release.
    pub(crate) unsafe fn adopt(p: *mut T) -> Option<Ref<T>> {
        if p.is_null() { None } else { Some(Ref(p)) }
    }
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.0
    }
    /// A new reference for handing to CEF (it will release it).
    pub(crate) fn into_cef(self) -> *mut T {
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
        // SAFETY: we hold a reference, so the object is alive; add_ref gives the clone its own.
        unsafe { ((*self.base()).add_ref.expect("add_ref"))(self.base()) };
        Ref(self.0)
    }
}

impl<T> Drop for Ref<T> {
    fn drop(&mut self) {
        // SAFETY: we own exactly one reference and give it back once.
        unsafe { ((*self.base()).release.expect("release"))(self.base()) };
    }
}

/// Calls a method of a CEF object through its vtable: `unsafe { call!(ptr.method(args...)) }`.
/// Expands to an unsafe operation, so every use sits in an `unsafe` block with its reason.
macro_rules! call {
    ($obj:ident . $m:ident ( $($a:expr),* $(,)? )) => {{
        let __p = $obj.as_ptr();
        ((*__p).$m.expect(stringify!($m)))(__p $(, $a)*)
    }};
    (($obj:expr) . $m:ident ( $($a:expr),* $(,)? )) => {{
        let __p = $obj;
        ((*__p).$m.expect(stringify!($m)))(__p $(, $a)*)
    }};
}
pub(crate) use call;
