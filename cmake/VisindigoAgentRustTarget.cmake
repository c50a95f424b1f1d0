# SPDX-License-Identifier: MIT
#
# Which Rust target cargo builds for (CMakeLists.txt; not installed).
#
# visindigo_agent_rust_target(<out-triple> <out-cargo-target-args> <out-host-triple> CARGO <cargo>
#                             [TARGET <triple>])
#   TARGET (the cache variable VISINDIGO_AGENT_RUST_TARGET) wins when not empty. Otherwise:
#   * cross compiling for Windows: <arch>-pc-windows-msvc with an MSVC-like compiler (cl,
#     clang-cl), else <arch>-pc-windows-gnu (MinGW);
#   * Apple: CMAKE_OSX_ARCHITECTURES when it names one architecture (also on a Mac: an
#     x86_64 build on arm64 is not "cross compiling" to CMake), else CMAKE_SYSTEM_PROCESSOR
#     when cross compiling: <arch>-apple-darwin;
#   * cross compiling for Linux: <arch>-unknown-linux-gnu;
#   * otherwise the host (cargo's own target; no --target).
#   <arch> comes from CMAKE_SYSTEM_PROCESSOR (AMD64/x64 → x86_64, ARM64/arm64 → aarch64,
#   x86/i386…i686 → i686). <out-cargo-target-args> is "--target;<triple>" or empty,
#   <out-triple> the target whatever it is (cargo -vV's host when none is given).
include_guard(GLOBAL)

function(_visindigo_agent_rust_arch out processor)
    string(TOLOWER "${processor}" _p)
    if(_p MATCHES "^(x86_64|amd64|x64)$")
        set(_a x86_64)
    elseif(_p MATCHES "^(aarch64|arm64)$")
        set(_a aarch64)
    elseif(_p MATCHES "^(x86|i[3-6]86)$")
        set(_a i686)
    else()
        set(_a "${_p}")
    endif()
    set(${out} "${_a}" PARENT_SCOPE)
endfunction()

function(visindigo_agent_rust_target out_triple out_args out_host)
    # TARGET may be given empty (the cache variable's default): CMake 3.31 (CMP0174) keeps it
    # empty rather than unsetting it, and warns without the policy; either way it is "none".
    if(POLICY CMP0174)
        cmake_policy(SET CMP0174 NEW)
    endif()
    cmake_parse_arguments(PARSE_ARGV 3 _vi "" "CARGO;TARGET" "")
    execute_process(COMMAND "${_vi_CARGO}" -vV
        OUTPUT_VARIABLE _version RESULT_VARIABLE _result ERROR_VARIABLE _err)
    if(NOT _result STREQUAL "0" OR NOT _version MATCHES "\nhost: ([^\n]+)")
        message(FATAL_ERROR "`${_vi_CARGO} -vV` did not name its host: ${_err}")
    endif()
    set(_host "${CMAKE_MATCH_1}")

    set(_triple "${_vi_TARGET}")
    if(NOT _triple)
        _visindigo_agent_rust_arch(_arch "${CMAKE_SYSTEM_PROCESSOR}")
        if(APPLE AND CMAKE_OSX_ARCHITECTURES)
            list(LENGTH CMAKE_OSX_ARCHITECTURES _n)
            if(_n GREATER 1)
                message(FATAL_ERROR
                    "CMAKE_OSX_ARCHITECTURES names ${_n} architectures (${CMAKE_OSX_ARCHITECTURES}): "
                    "the Rust library is built for one. Build once per architecture (and lipo), or set "
                    "VISINDIGO_AGENT_RUST_TARGET.")
            endif()
            _visindigo_agent_rust_arch(_arch "${CMAKE_OSX_ARCHITECTURES}")
            set(_triple "${_arch}-apple-darwin")
        elseif(CMAKE_CROSSCOMPILING)
            if(WIN32)
                if(MSVC OR CMAKE_C_SIMULATE_ID STREQUAL "MSVC")
                    set(_triple "${_arch}-pc-windows-msvc")
                else()
                    set(_triple "${_arch}-pc-windows-gnu")
                endif()
            elseif(APPLE)
                set(_triple "${_arch}-apple-darwin")
            elseif(CMAKE_SYSTEM_NAME STREQUAL "Linux")
                set(_triple "${_arch}-unknown-linux-gnu")
            else()
                message(FATAL_ERROR
                    "Cross compiling for ${CMAKE_SYSTEM_NAME}/${CMAKE_SYSTEM_PROCESSOR}: set "
                    "VISINDIGO_AGENT_RUST_TARGET to the Rust target triple.")
            endif()
        endif()
    endif()

    if(_triple)
        # Also when it is the host's triple, named explicitly: cargo then writes to cargo/<triple>/.
        set(${out_triple} "${_triple}" PARENT_SCOPE)
        set(${out_args} --target "${_triple}" PARENT_SCOPE)
    else()
        set(${out_triple} "${_host}" PARENT_SCOPE)
        set(${out_args} "" PARENT_SCOPE)
    endif()
    set(${out_host} "${_host}" PARENT_SCOPE)
endfunction()
