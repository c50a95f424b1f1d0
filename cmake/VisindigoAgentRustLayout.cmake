# SPDX-License-Identifier: MIT
#
# cmake -DCARGO_OUT=<dir> -DLIBDIR=<dir> -DBINDIR=<dir> -DPLATFORM=<p> -DVERSION=<v>
#       -DSOVERSION=<s> -P VisindigoAgentRustLayout.cmake
#
# Run after every cargo build (the custom target visindigo_agent_cargo): lays out the Rust
# library cargo wrote in CARGO_OUT under the names of cmake/VisindigoAgentRustLibrary.cmake —
# the shared library (in BINDIR on Windows, else LIBDIR) with its links or import library, and
# the static library (LIBDIR). Files are only copied when they changed, so that what links them
# is not relinked needlessly.
#
# On ELF it first checks that the library carries the SONAME the install layout relies on
# (build.rs passes -Wl,-soname,libvisindigo_agent.so.<soversion>): without it, whatever links
# the library would record the path it was linked by and would not find it once installed.
# On Apple the same for the install name (@rpath/libvisindigo_agent.<soversion>.dylib), when a
# tool that reads it (otool, llvm-otool, llvm-objdump) is found.
cmake_minimum_required(VERSION 3.21)
include("${CMAKE_CURRENT_LIST_DIR}/VisindigoAgentRustLibrary.cmake")

foreach(_v CARGO_OUT LIBDIR BINDIR PLATFORM VERSION SOVERSION)
    if(NOT DEFINED ${_v} OR "${${_v}}" STREQUAL "")
        message(FATAL_ERROR "VisindigoAgentRustLayout.cmake: ${_v} not set")
    endif()
endforeach()
visindigo_agent_rust_names(_n "${PLATFORM}" "${VERSION}" "${SOVERSION}")

function(vi_copy from to)
    if(NOT EXISTS "${from}")
        message(FATAL_ERROR "cargo did not write ${from}")
    endif()
    get_filename_component(_dir "${to}" DIRECTORY)
    file(MAKE_DIRECTORY "${_dir}")
    file(COPY_FILE "${from}" "${to}" ONLY_IF_DIFFERENT)
endfunction()

function(vi_link target link)
    # A link that already points at target is left as it is.
    if(IS_SYMLINK "${link}")
        file(READ_SYMLINK "${link}" _current)
        if(_current STREQUAL target)
            return()
        endif()
    endif()
    file(REMOVE "${link}")
    file(CREATE_LINK "${target}" "${link}" SYMBOLIC)
endfunction()

set(_shared "${CARGO_OUT}/${_n_CARGO_SHARED}")

if(PLATFORM STREQUAL "ELF")
    find_program(_readelf NAMES readelf llvm-readelf)
    if(_readelf)
        execute_process(COMMAND "${_readelf}" -d "${_shared}"
            OUTPUT_VARIABLE _dyn ERROR_VARIABLE _err RESULT_VARIABLE _result)
        if(NOT _result STREQUAL "0")
            message(FATAL_ERROR "readelf -d ${_shared} failed: ${_err}")
        endif()
        set(_soname "")
        if(_dyn MATCHES "\\(SONAME\\)[^[]*\\[([^]]*)\\]")
            set(_soname "${CMAKE_MATCH_1}")
        endif()
        if(NOT _soname STREQUAL _n_SONAME)
            message(FATAL_ERROR
                "${_shared} has SONAME '${_soname}', expected '${_n_SONAME}'. build.rs must emit "
                "cargo:rustc-cdylib-link-arg=-Wl,-soname,${_n_SONAME}.")
        endif()
    endif()
elseif(PLATFORM STREQUAL "APPLE")
    find_program(_otool NAMES otool llvm-otool)
    find_program(_llvm_objdump NAMES llvm-objdump)
    set(_id "")
    if(_otool)
        execute_process(COMMAND "${_otool}" -D "${_shared}" OUTPUT_VARIABLE _out RESULT_VARIABLE _result)
        if(_result STREQUAL "0" AND _out MATCHES ":\n([^\n]+)")
            set(_id "${CMAKE_MATCH_1}")
        endif()
    elseif(_llvm_objdump)
        execute_process(COMMAND "${_llvm_objdump}" --macho --dylib-id "${_shared}" OUTPUT_VARIABLE _out RESULT_VARIABLE _result)
        if(_result STREQUAL "0" AND _out MATCHES ":\n([^\n]+)")
            set(_id "${CMAKE_MATCH_1}")
        endif()
    endif()
    if(_otool OR _llvm_objdump)
        string(STRIP "${_id}" _id)
        if(NOT _id STREQUAL _n_SONAME)
            message(FATAL_ERROR
                "${_shared} has the install name '${_id}', expected '${_n_SONAME}'. build.rs must emit "
                "cargo:rustc-cdylib-link-arg=-Wl,-install_name,${_n_SONAME}.")
        endif()
    endif()
endif()

if(_n_RUNTIME_IN_BIN)
    vi_copy("${_shared}" "${BINDIR}/${_n_SHARED}")
    vi_copy("${CARGO_OUT}/${_n_CARGO_IMPLIB}" "${LIBDIR}/${_n_IMPLIB}")
    # MSVC: the debugger's symbols beside the DLL, where they are looked for.
    if(PLATFORM STREQUAL "WINDOWS_MSVC" AND EXISTS "${CARGO_OUT}/visindigo_agent.pdb")
        vi_copy("${CARGO_OUT}/visindigo_agent.pdb" "${BINDIR}/visindigo_agent.pdb")
    endif()
else()
    vi_copy("${_shared}" "${LIBDIR}/${_n_SHARED}")
    set(_to "${_n_SHARED}")
    foreach(_link IN LISTS _n_LINKS)
        vi_link("${_to}" "${LIBDIR}/${_link}")
        set(_to "${_link}")
    endforeach()
endif()
vi_copy("${CARGO_OUT}/${_n_STATIC}" "${LIBDIR}/${_n_STATIC}")
