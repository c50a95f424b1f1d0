//! How often one request may have its authorization renewed (SPEC §H.4.6, §I.3.6): after a
//! 401 twice — first by refreshing where it can, then through the user — and after a
//! `403 insufficient_scope` once, by a step-up authorization for the union of the scopes. A
//! refusal past that is the request's failure. One `Renewals` per request (or per connection
//! attempt) owns the count.

use super::Authorization;
use crate::mcp_client::http::SendError;

/// What the failure of a step-up is called: the server still wants more scope than the new
/// authorization gave.
pub const STEP_UP_REFUSED: &str = "insufficient scope after step-up";

#[derive(Default)]
pub(crate) struct Renewals {
    /// Renewals after a 401.
    unauthorized: u32,
    stepped_up: bool,
}

impl Renewals {
    /// After `failure`: new tokens, so that the caller sends again; or the reason to give up
    /// (any other failure is its own reason).
    pub async fn renew(&mut self, auth: &Authorization, failure: SendError) -> Result<(), String> {
        let SendError::Unauthorized { challenge, generation, status } = failure else { return Err(failure.reason()) };
        match self.next(challenge.wants_scope()) {
            Next::Refresh => auth.recover(&challenge, generation, false).await,
            Next::Authorize => auth.recover(&challenge, generation, true).await,
            Next::GiveUp if challenge.wants_scope() => Err(format!(
                "{STEP_UP_REFUSED}: the server still refuses with HTTP {status} insufficient_scope{}",
                challenge.scope.map(|s| format!(" and wants the scope \"{}\"", s.chars().take(300).collect::<String>())).unwrap_or_default()
            )),
            Next::GiveUp => Err(format!("the server refused the new authorization: HTTP {status}")),
        }
    }

    fn next(&mut self, wants_scope: bool) -> Next {
        if wants_scope {
            if std::mem::replace(&mut self.stepped_up, true) { Next::GiveUp } else { Next::Authorize }
        } else {
            self.unauthorized += 1;
            match self.unauthorized {
                1 => Next::Refresh,
                2 => Next::Authorize,
                _ => Next::GiveUp,
            }
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Next {
    /// Refresh when the tokens can be (`recover` authorizes otherwise).
    Refresh,
    Authorize,
    GiveUp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twice_after_401_once_after_insufficient_scope() {
        let mut r = Renewals::default();
        assert_eq!([r.next(false), r.next(false), r.next(false)], [Next::Refresh, Next::Authorize, Next::GiveUp]);
        let mut r = Renewals::default();
        assert_eq!([r.next(true), r.next(true)], [Next::Authorize, Next::GiveUp]);
        let mut r = Renewals::default();
        assert_eq!([r.next(false), r.next(true), r.next(false), r.next(true)], [Next::Refresh, Next::Authorize, Next::Authorize, Next::GiveUp]);
    }
}
