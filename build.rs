//! Generates the C header with cbindgen into OUT_DIR (a test compares it with the committed
//! `include/visindigo_agent.h`; `VI_UPDATE_HEADER=1 cargo build` refreshes the committed one)
//! and gives the shared library its SONAME (ELF) or install name (Apple).
//!
//! cbindgen reads `src/ffi/` and nothing else: the core's items can never leak
//! into the C header, whatever they are named.

use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version parts");
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets the version parts");
    let patch = std::env::var("CARGO_PKG_VERSION_PATCH").expect("cargo sets the version parts");

    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml is readable");
    config.after_includes = Some(format!(
        "\n/** The version this header belongs to; compare with vi_version() at run time. */\n#define VI_VERSION \"{version}\"\n/** Its major number. */\n#define VI_VERSION_MAJOR {major}\n/** Its minor number. */\n#define VI_VERSION_MINOR {minor}\n/** Its patch number. */\n#define VI_VERSION_PATCH {patch}\n"
    ));
    let generated = out_dir.join("visindigo_agent.h");
    // From src/ffi/mod.rs cbindgen follows the `mod` items of the C ABI, and only those.
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi/mod.rs"))
        .generate()
        .expect("cbindgen could not read src/ffi")
        .write_to_file(&generated);
    if std::env::var_os("VI_UPDATE_HEADER").is_some() {
        std::fs::copy(&generated, crate_dir.join("include/visindigo_agent.h")).expect("include/ is writable");
    }

    // The shared library's stable name, which whatever links it records: the SONAME on ELF
    // platforms, the install name on Apple's (CMake lays out and installs the matching links:
    // cmake/VisindigoAgentRustLibrary.cmake). Windows DLLs have no such name: the import library
    // names visindigo_agent.dll.
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_vendor = std::env::var("CARGO_CFG_TARGET_VENDOR").unwrap_or_default();
    match target_os.as_str() {
        "linux" | "android" | "freebsd" | "dragonfly" | "netbsd" | "openbsd" => {
            println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libvisindigo_agent.so.{major}");
        }
        // @rpath: an application finds it through its own LC_RPATH entries, as CMake sets them
        // (the Qt layer's is @loader_path, beside it). rustc itself passes no -install_name.
        "macos" | "ios" if target_vendor == "apple" => {
            println!("cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/libvisindigo_agent.{major}.dylib");
        }
        _ => {}
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=VI_UPDATE_HEADER");
}
