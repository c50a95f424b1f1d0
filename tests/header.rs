//! The committed C header must be what cbindgen makes of the sources now.

#[test]
fn committed_header_is_fresh() {
    let generated = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/visindigo_agent.h")).expect("build.rs wrote the header");
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/visindigo_agent.h"))
        .expect("include/visindigo_agent.h exists");
    assert!(
        generated == committed,
        "include/visindigo_agent.h is stale: run `VI_UPDATE_HEADER=1 cargo build` and commit it"
    );
}
