//! A host's `user_data` pointer as the library holds it: handed back to the host's callbacks,
//! never touched, and released through the host's `destroy` exactly once, when the last holder
//! (an event sink, a network hook) is dropped — that is, once no call through it can happen.

use std::ffi::c_void;

/// Releases a callback's `user_data` once no call through it can happen any more (the
/// callback was replaced or its owner destroyed). Any thread.
pub type ViUserDataDestroy = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

pub(crate) struct UserData {
    pointer: *mut c_void,
    destroy: ViUserDataDestroy,
}

// SAFETY: every callback contract (header) requires `user_data` to be usable from any thread;
// the library never dereferences it.
unsafe impl Send for UserData {}
// SAFETY: as above.
unsafe impl Sync for UserData {}

impl UserData {
    pub fn new(pointer: *mut c_void, destroy: ViUserDataDestroy) -> UserData {
        UserData { pointer, destroy }
    }

    pub fn pointer(&self) -> *mut c_void {
        self.pointer
    }
}

impl Drop for UserData {
    fn drop(&mut self) {
        if let Some(destroy) = self.destroy {
            // SAFETY: per the contract, once, after the last call.
            unsafe { destroy(self.pointer) };
        }
    }
}
