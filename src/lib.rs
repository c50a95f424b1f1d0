//! visindigo-agent: the Visindigo Agent 0.17 module in Rust.
//!
//! Two layers in one crate. The core (every module but `ffi`) knows nothing of C or Qt; its
//! modules are private, and what other crates may use of it is re-exported here, item by
//! item — this list is the Rust API. `ffi` converts the core to the C ABI (and is the only
//! module cbindgen reads, see `build.rs`). Why one crate and not rustls' two: README,
//! "Architecture".

mod center;
mod dialog;
mod error;
mod event;
mod function;
mod id;
mod json;
mod log;
mod mcp;
mod mcp_client;
mod message;
mod model;
mod network;
mod outbox;
mod persist;
mod prompt;
mod provider;
mod reclaim;
mod redact;
mod run;
mod runtime;
mod skill;
mod sse;
mod text;

pub mod ffi;

pub use center::{Center, Secrets};
pub use dialog::{ContextPolicy, ContextSummary, Dialog};
pub use error::Error;
pub use event::{CenterEvent, CenterSink, Event, EventSink};
pub use function::{Function, FunctionSpec, HostToken, ToolReply};
pub use log::{CATEGORIES as LOG_CATEGORIES, LogSink, Severity, set_level as set_log_level, set_sink as set_log_sink};
pub use mcp::{Mcp, Transport};
pub use mcp_client::oauth::Tokens as OAuthTokens;
pub use mcp_client::shutdown_all as shutdown_mcp_servers;
pub use message::{Image, Message, Role};
pub use model::{Api, Model, capability};
pub use network::{HostNetwork, NetworkSettings, set_host_network, update_network_defaults};
pub use prompt::Prompt;
pub use provider::Provider;
pub use skill::Skill;
pub use text::Text;

/// What `benches/` measures below the public API. Not part of the API: it may change with
/// any release.
#[doc(hidden)]
pub mod bench {
    pub use crate::run::wire::chat_completions_body;

    /// The context window's work for one request as the run does it (SPEC §I.4, issue 32), on
    /// the Chat Completions wire, without a measured round: every message's estimate, then the
    /// first cut whose request fits `budget` tokens. (cut, estimated tokens of that request.)
    pub fn context_fit(system: &str, messages: &[crate::Message], budget: i64) -> (usize, i64) {
        use crate::run::context;
        let wire = crate::run::wire::for_api(crate::Api::ChatCompletions);
        let tokenizer = context::Tokenizer::Current;
        let sizes = context::Sizes::new(wire, tokenizer, context::fixed_tokens(tokenizer, system, &[], None), messages, None);
        let (Ok(fit) | Err(fit)) = context::fit(&sizes, messages, 0, budget);
        (fit.cut, fit.estimated)
    }
}

/// What `fuzz/` drives below the public API (compiled only by cargo-fuzz, `cfg(fuzzing)`).
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzz {
    pub use crate::run::chunk::{Parsed, parse as parse_chunk, parse_in_stream as parse_chunk_in_stream, reference::reference as reference_chunk, stream_shape as chunk_stream_shape};
    pub use crate::run::wire::read_server_text;
    pub use crate::mcp_client::{read_revision_message, read_server_message};
    pub use crate::mcp_client::oauth::{Challenge, Redirect, bearer_params, read_auth_server, read_redirect, read_tokens};
    pub use crate::prompt::reference::without_placeholders;
    pub use crate::sse::{Event as SseEvent, SseDecoder};
}
