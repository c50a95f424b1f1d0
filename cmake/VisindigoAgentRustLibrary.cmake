# SPDX-License-Identifier: MIT
#
# The one place that knows what the Rust library (the C ABI, crate visindigo-agent) is called
# on each platform, and how its imported target VisindigoAgent::C is made. Used by the build
# tree (CMakeLists.txt, cmake/VisindigoAgentRustLayout.cmake, cmake/VisindigoAgentInstallTest.cmake)
# and installed next to VisindigoAgentConfig.cmake, which includes it.
#
# Platforms (decided from the Rust target triple, so that the names are cargo's):
#   ELF           Linux, the BSDs: libvisindigo_agent.so.<version>, the SONAME link
#                 libvisindigo_agent.so.<soversion> (build.rs sets that SONAME) and the link-time
#                 name libvisindigo_agent.so; static libvisindigo_agent.a.
#   APPLE         macOS: libvisindigo_agent.<version>.dylib, libvisindigo_agent.<soversion>.dylib
#                 and libvisindigo_agent.dylib (links); install name
#                 @rpath/libvisindigo_agent.<soversion>.dylib (build.rs); static libvisindigo_agent.a.
#   WINDOWS_GNU   MinGW: visindigo_agent.dll (installed to bin/) with the import library
#                 libvisindigo_agent.dll.a; static libvisindigo_agent.a.
#   WINDOWS_MSVC  MSVC: visindigo_agent.dll with the import library visindigo_agent.dll.lib;
#                 static visindigo_agent.lib.
#
# The system libraries a STATIC link of the Rust library needs: what
# `cargo rustc --lib --crate-type staticlib -- --print native-static-libs` prints for the crate
# (the note "native-static-libs: ..."), per platform, as of this version's Cargo.lock. Re-check
# them when a dependency that links a system library is added (the static C tests and
# tools/windows.sh's ctest-static fail to link otherwise):
#   x86_64-unknown-linux-gnu : -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
#   x86_64-pc-windows-gnu    : -lbcrypt -ladvapi32 -lkernel32 -lntdll -luserenv -lws2_32 -ldbghelp
#   x86_64-pc-windows-msvc   : bcrypt.lib advapi32.lib kernel32.lib ntdll.lib userenv.lib
#                              ws2_32.lib dbghelp.lib /defaultlib:msvcrt
#   aarch64-apple-darwin     : -framework Security -framework CoreFoundation -liconv -lSystem -lc -lm
# (The DLLs Rust's std and windows-sys bind with raw-dylib — bcryptprimitives, crypt32,
# api-ms-win-core-synch — need no import library and are not listed.) MSVC: the Rust objects
# name the release DLL runtime themselves (/defaultlib:msvcrt); a Debug (/MDd) static link
# may warn LNK4098 about that (not tried here: no MSVC).
include_guard(GLOBAL)

set(_VISINDIGO_AGENT_SYSTEM_LIBS_ELF gcc_s util rt pthread m dl c)
set(_VISINDIGO_AGENT_SYSTEM_LIBS_APPLE "-framework Security" "-framework CoreFoundation" iconv System c m)
set(_VISINDIGO_AGENT_SYSTEM_LIBS_WINDOWS_GNU bcrypt advapi32 kernel32 ntdll userenv ws2_32 dbghelp)
set(_VISINDIGO_AGENT_SYSTEM_LIBS_WINDOWS_MSVC bcrypt advapi32 kernel32 ntdll userenv ws2_32 dbghelp)

# visindigo_agent_rust_platform_of(<out-var> <rust-target-triple>)
#   ELF, APPLE, WINDOWS_GNU or WINDOWS_MSVC for a Rust target triple.
function(visindigo_agent_rust_platform_of out triple)
    if(triple MATCHES "-windows-msvc")
        set(_p WINDOWS_MSVC)
    elseif(triple MATCHES "-windows-gnu")
        set(_p WINDOWS_GNU)
    elseif(triple MATCHES "-apple-")
        set(_p APPLE)
    else()
        set(_p ELF)
    endif()
    set(${out} ${_p} PARENT_SCOPE)
endfunction()

# visindigo_agent_rust_names(<prefix> <platform> <version> <soversion>)
#   Sets in the caller's scope:
#   <prefix>_CARGO_SHARED   the shared library as cargo writes it (cdylib)
#   <prefix>_CARGO_IMPLIB   its import library as cargo writes it (Windows; else empty)
#   <prefix>_SHARED         the shared library's file in the build and install layout
#   <prefix>_LINKS          symbolic links made next to it, each pointing at the one before
#                           (the first at <prefix>_SHARED): the SONAME / install-name file,
#                           then the link-time name (ELF, APPLE; else empty)
#   <prefix>_SONAME         IMPORTED_SONAME: the SONAME (ELF), the install name (APPLE); else empty
#   <prefix>_IMPLIB         the import library in the layout (Windows; else empty)
#   <prefix>_STATIC         the static library (cargo's name, kept)
#   <prefix>_RUNTIME_IN_BIN TRUE where the shared library is a runtime file (Windows: bin/)
#   <prefix>_SYSTEM_LIBS    what a static link needs besides the static library
function(visindigo_agent_rust_names prefix platform version soversion)
    set(_implib "")
    set(_cargo_implib "")
    set(_links "")
    set(_soname "")
    set(_in_bin FALSE)
    if(platform STREQUAL "ELF")
        set(_cargo_shared "libvisindigo_agent.so")
        set(_shared "libvisindigo_agent.so.${version}")
        set(_soname "libvisindigo_agent.so.${soversion}")
        set(_links "libvisindigo_agent.so.${soversion}" "libvisindigo_agent.so")
        set(_static "libvisindigo_agent.a")
    elseif(platform STREQUAL "APPLE")
        set(_cargo_shared "libvisindigo_agent.dylib")
        set(_shared "libvisindigo_agent.${version}.dylib")
        set(_soname "@rpath/libvisindigo_agent.${soversion}.dylib")
        set(_links "libvisindigo_agent.${soversion}.dylib" "libvisindigo_agent.dylib")
        set(_static "libvisindigo_agent.a")
    elseif(platform STREQUAL "WINDOWS_GNU")
        set(_cargo_shared "visindigo_agent.dll")
        set(_shared "visindigo_agent.dll")
        set(_cargo_implib "libvisindigo_agent.dll.a")
        set(_implib "libvisindigo_agent.dll.a")
        set(_static "libvisindigo_agent.a")
        set(_in_bin TRUE)
    elseif(platform STREQUAL "WINDOWS_MSVC")
        set(_cargo_shared "visindigo_agent.dll")
        set(_shared "visindigo_agent.dll")
        set(_cargo_implib "visindigo_agent.dll.lib")
        set(_implib "visindigo_agent.dll.lib")
        set(_static "visindigo_agent.lib")
        set(_in_bin TRUE)
    else()
        message(FATAL_ERROR "visindigo_agent_rust_names: unknown platform '${platform}'")
    endif()
    set(${prefix}_CARGO_SHARED "${_cargo_shared}" PARENT_SCOPE)
    set(${prefix}_CARGO_IMPLIB "${_cargo_implib}" PARENT_SCOPE)
    set(${prefix}_SHARED "${_shared}" PARENT_SCOPE)
    set(${prefix}_LINKS "${_links}" PARENT_SCOPE)
    set(${prefix}_SONAME "${_soname}" PARENT_SCOPE)
    set(${prefix}_IMPLIB "${_implib}" PARENT_SCOPE)
    set(${prefix}_STATIC "${_static}" PARENT_SCOPE)
    set(${prefix}_RUNTIME_IN_BIN ${_in_bin} PARENT_SCOPE)
    set(${prefix}_SYSTEM_LIBS "${_VISINDIGO_AGENT_SYSTEM_LIBS_${platform}}" PARENT_SCOPE)
endfunction()

# visindigo_agent_rust_add_library(<target> PLATFORM <p> VERSION <v> SOVERSION <s>
#                                  TYPE SHARED|STATIC INCLUDE_DIRS <dir>... [GLOBAL])
#   Creates the IMPORTED library <target> (VisindigoAgent::C) for the layout above; its files'
#   directories are then given with visindigo_agent_rust_set_location().
function(visindigo_agent_rust_add_library target)
    cmake_parse_arguments(PARSE_ARGV 1 _vi "GLOBAL" "PLATFORM;VERSION;SOVERSION;TYPE" "INCLUDE_DIRS")
    set(_global "")
    if(_vi_GLOBAL)
        set(_global GLOBAL)
    endif()
    if(NOT _vi_TYPE MATCHES "^(SHARED|STATIC)$")
        message(FATAL_ERROR "visindigo_agent_rust_add_library: TYPE must be SHARED or STATIC")
    endif()
    visindigo_agent_rust_names(_vi_n "${_vi_PLATFORM}" "${_vi_VERSION}" "${_vi_SOVERSION}")
    add_library(${target} ${_vi_TYPE} IMPORTED ${_global})
    set_target_properties(${target} PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${_vi_INCLUDE_DIRS}"
        IMPORTED_LINK_INTERFACE_LANGUAGES C
        # Read back by visindigo_agent_rust_set_location().
        VISINDIGO_AGENT_RUST_LAYOUT "${_vi_PLATFORM};${_vi_VERSION};${_vi_SOVERSION};${_vi_TYPE}")
    if(_vi_TYPE STREQUAL "STATIC")
        set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${_vi_n_SYSTEM_LIBS}")
    elseif(_vi_n_SONAME)
        set_property(TARGET ${target} PROPERTY IMPORTED_SONAME "${_vi_n_SONAME}")
    endif()
endfunction()

# visindigo_agent_rust_set_location(<target> [CONFIG <config>] LIBDIR <dir> [BINDIR <dir>])
#   Where the files of <target> are: IMPORTED_LOCATION (and IMPORTED_IMPLIB on Windows), for
#   one configuration (IMPORTED_LOCATION_<CONFIG>, multi-config build trees) or for all.
#   BINDIR holds the DLL on Windows (default LIBDIR); LIBDIR everything else.
function(visindigo_agent_rust_set_location target)
    cmake_parse_arguments(PARSE_ARGV 1 _vi "" "CONFIG;LIBDIR;BINDIR" "")
    if(NOT _vi_BINDIR)
        set(_vi_BINDIR "${_vi_LIBDIR}")
    endif()
    get_target_property(_layout ${target} VISINDIGO_AGENT_RUST_LAYOUT)
    list(GET _layout 0 _platform)
    list(GET _layout 1 _version)
    list(GET _layout 2 _soversion)
    list(GET _layout 3 _type)
    visindigo_agent_rust_names(_vi_n "${_platform}" "${_version}" "${_soversion}")
    set(_suffix "")
    if(_vi_CONFIG)
        string(TOUPPER "_${_vi_CONFIG}" _suffix)
        set_property(TARGET ${target} APPEND PROPERTY IMPORTED_CONFIGURATIONS "${_vi_CONFIG}")
    endif()
    if(_type STREQUAL "STATIC")
        set_property(TARGET ${target} PROPERTY IMPORTED_LOCATION${_suffix} "${_vi_LIBDIR}/${_vi_n_STATIC}")
    elseif(_vi_n_RUNTIME_IN_BIN)
        set_property(TARGET ${target} PROPERTY IMPORTED_LOCATION${_suffix} "${_vi_BINDIR}/${_vi_n_SHARED}")
        set_property(TARGET ${target} PROPERTY IMPORTED_IMPLIB${_suffix} "${_vi_LIBDIR}/${_vi_n_IMPLIB}")
    else()
        set_property(TARGET ${target} PROPERTY IMPORTED_LOCATION${_suffix} "${_vi_LIBDIR}/${_vi_n_SHARED}")
    endif()
endfunction()
