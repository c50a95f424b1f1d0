//! Typed opaque handles: each `Vi*` type stands for one Rust type, boxed. Conversions go
//! through this one trait so that no export casts raw pointers by hand.

use super::boundary::{Failure, Result};

/// A C handle type `Self` that owns a `Box<Self::Target>`.
pub(crate) trait Handle: Sized {
    type Target;
    /// The class name used in error messages.
    const NAME: &'static str;

    fn into_raw(value: Self::Target) -> *mut Self {
        Box::into_raw(Box::new(value)).cast()
    }

    /// Borrows the target; NULL is an error.
    ///
    /// # Safety
    /// A non-NULL `ptr` must come from `into_raw` of this type and still be alive.
    unsafe fn get<'a>(ptr: *const Self) -> Result<&'a Self::Target> {
        // SAFETY: per the contract above.
        unsafe { ptr.cast::<Self::Target>().as_ref() }.ok_or_else(|| Failure::null(Self::NAME))
    }

    /// Borrows the target mutably; NULL is an error.
    ///
    /// # Safety
    /// As `get`, and no other reference to it may be in use.
    unsafe fn get_mut<'a>(ptr: *mut Self) -> Result<&'a mut Self::Target> {
        // SAFETY: per the contract above.
        unsafe { ptr.cast::<Self::Target>().as_mut() }.ok_or_else(|| Failure::null(Self::NAME))
    }

    /// Takes ownership back (None for NULL).
    ///
    /// # Safety
    /// As `get`; the handle must not be used afterwards.
    unsafe fn take(ptr: *mut Self) -> Option<Self::Target> {
        // SAFETY: per the contract above.
        (!ptr.is_null()).then(|| *unsafe { Box::from_raw(ptr.cast::<Self::Target>()) })
    }

    /// Writes a new handle to an out-parameter.
    ///
    /// # Safety
    /// `out` must be NULL or valid for a pointer write.
    unsafe fn write(out: *mut *mut Self, value: Self::Target) -> Result<()> {
        if out.is_null() {
            return Err(Failure::null("the out-parameter"));
        }
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { *out = Self::into_raw(value) };
        Ok(())
    }
}

/// Ties an opaque C type to the Rust type it boxes. (The C types themselves are written out
/// by hand: cbindgen does not see through macros.)
macro_rules! impl_handle {
    ($c:ty => $target:ty, $name:literal) => {
        impl $crate::ffi::handle::Handle for $c {
            type Target = $target;
            const NAME: &'static str = $name;
        }
    };
}
pub(crate) use impl_handle;

/// Setters and getters shared by the value classes, so that each export is one line.
pub(crate) mod access {
    use super::super::boundary::{self, Result};
    use super::super::status::ViStatus;
    use super::super::string::{self, ViStr};
    use super::Handle;
    use std::ffi::c_char;

    /// Applies a string argument to a handle.
    ///
    /// # Safety
    /// `h` as in `Handle::get_mut`; `data`/`len` as in `string::arg`.
    pub unsafe fn set_str<H: Handle>(
        function: &str,
        h: *mut H,
        data: *const c_char,
        len: usize,
        apply: impl FnOnce(&mut H::Target, &str),
    ) -> ViStatus {
        boundary::status(function, || {
            // SAFETY: forwarded contracts.
            let target = unsafe { H::get_mut(h) }?;
            let value = unsafe { string::arg("the string", data, len) }?;
            apply(target, value);
            Ok(())
        })
    }

    /// Reads a string field as a borrowed view ("" for NULL).
    ///
    /// # Safety
    /// `h` as in `Handle::get`.
    pub unsafe fn get_str<H: Handle>(function: &str, h: *const H, read: impl FnOnce(&H::Target) -> &str) -> ViStr {
        boundary::boundary(function, || {
            // SAFETY: forwarded contract.
            Ok(ViStr::of(read(unsafe { H::get(h) }?)))
        })
    }

    /// Reads any plain value (the type's default for NULL).
    ///
    /// # Safety
    /// `h` as in `Handle::get`.
    pub unsafe fn get<H: Handle, T: boundary::Outcome>(function: &str, h: *const H, read: impl FnOnce(&H::Target) -> T) -> T {
        // SAFETY: forwarded contract.
        boundary::boundary(function, || Ok(read(unsafe { H::get(h) }?)))
    }

    /// Changes a handle with a plain value.
    ///
    /// # Safety
    /// `h` as in `Handle::get_mut`.
    pub unsafe fn set<H: Handle>(function: &str, h: *mut H, apply: impl FnOnce(&mut H::Target)) -> ViStatus {
        boundary::status(function, || {
            // SAFETY: forwarded contract.
            apply(unsafe { H::get_mut(h) }?);
            Ok(())
        })
    }

    /// Writes an owned string computed from a handle.
    ///
    /// # Safety
    /// `h` as in `Handle::get`; `out` as in `string::write_owned`.
    pub unsafe fn owned<H: Handle>(
        function: &str,
        h: *const H,
        out: *mut *mut string::ViString,
        make: impl FnOnce(&H::Target) -> Result<String>,
    ) -> ViStatus {
        boundary::status(function, || {
            // SAFETY: forwarded contracts.
            let value = make(unsafe { H::get(h) }?)?;
            unsafe { string::write_owned(out, value) }
        })
    }

    /// `to_json` of a handle as owned JSON text.
    ///
    /// # Safety
    /// As `owned`.
    pub unsafe fn to_json<H: Handle>(
        function: &str,
        h: *const H,
        out: *mut *mut string::ViString,
        json: impl FnOnce(&H::Target) -> serde_json::Value,
    ) -> ViStatus {
        // SAFETY: forwarded contracts.
        unsafe { owned(function, h, out, |t| Ok(json(t).to_string())) }
    }

    /// `from_json` of a handle from JSON object text; `result_out` (optional) gets the class's
    /// documented return value.
    ///
    /// # Safety
    /// `h` as in `Handle::get_mut`; `data`/`len` as in `string::arg`; `result_out` NULL or
    /// writable.
    pub unsafe fn from_json<H: Handle>(
        function: &str,
        h: *mut H,
        data: *const c_char,
        len: usize,
        result_out: *mut bool,
        apply: impl FnOnce(&mut H::Target, &serde_json::Map<String, serde_json::Value>) -> bool,
    ) -> ViStatus {
        boundary::status(function, || {
            // SAFETY: forwarded contracts.
            let target = unsafe { H::get_mut(h) }?;
            let object = unsafe { string::json_object_arg("the JSON", data, len) }?;
            let result = apply(target, &object);
            unsafe { string::write_optional(result_out, result) };
            Ok(())
        })
    }

    /// Clones a handle into a new one.
    ///
    /// # Safety
    /// `h` as in `Handle::get`; `out` as in `Handle::write`.
    pub unsafe fn clone<H: Handle>(function: &str, h: *const H, out: *mut *mut H) -> ViStatus
    where
        H::Target: Clone,
    {
        boundary::status(function, || {
            // SAFETY: forwarded contracts.
            let copy = unsafe { H::get(h) }?.clone();
            unsafe { H::write(out, copy) }
        })
    }

    /// Frees a handle; NULL is a no-op.
    ///
    /// # Safety
    /// As `Handle::take`.
    pub unsafe fn free<H: Handle>(function: &str, h: *mut H) {
        // SAFETY: forwarded contract.
        boundary::boundary(function, || Ok(drop(unsafe { H::take(h) })))
    }

    /// Creates a handle.
    ///
    /// # Safety
    /// `out` as in `Handle::write`.
    pub unsafe fn new<H: Handle>(function: &str, out: *mut *mut H, make: impl FnOnce() -> Result<H::Target>) -> ViStatus {
        // SAFETY: forwarded contract.
        boundary::status(function, || unsafe { H::write(out, make()?) })
    }

    /// JSON text of a list of strings.
    pub fn strings_json(items: &[String]) -> Result<String> {
        Ok(serde_json::to_string(items).expect("strings serialise"))
    }
}
