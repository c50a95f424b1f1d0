//! visindigo-agent: the Visindigo Agent 0.17 module in Rust. The core (this crate's modules)
//! knows nothing of C or Qt; `ffi` converts it to the C ABI that the Qt layer wraps.

pub mod center;
pub mod dialog;
pub mod error;
pub mod event;
pub mod function;
pub mod id;
pub mod json;
pub mod mcp;
pub mod mcp_client;
pub mod message;
pub(crate) mod persist;
pub mod model;
pub mod prompt;
pub mod provider;
pub mod run;
pub mod skill;
pub mod sse;
pub mod text;

pub mod ffi;

pub use center::Center;
pub use dialog::Dialog;
pub use error::Error;
pub use event::{Event, EventSink};
pub use function::{Function, FunctionSpec, ToolReply};
pub use mcp::{Mcp, Transport};
pub use message::{Image, Message, Role};
pub use model::Model;
pub use prompt::Prompt;
pub use provider::Provider;
pub use skill::Skill;
pub use text::Text;
