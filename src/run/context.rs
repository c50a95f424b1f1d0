//! Long conversations (SPEC §I.4): what a request costs in tokens, and what it leaves out when
//! it would not fit the model's context window.

pub(crate) mod estimate;
#[cfg(test)]
mod accuracy;
