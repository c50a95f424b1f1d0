# SPDX-License-Identifier: MIT
#
# cmake -DLIBRARY=<file> -DSONAME=<expected> -P VisindigoAgentCheckSoname.cmake
#
# Run after every cargo build: the Rust cdylib must carry the SONAME the install layout
# relies on (build.rs passes -Wl,-soname,libvisindigo_agent.so.0). Without it, whatever
# links the library would record the path it was linked by instead of the SONAME and
# would not find the library once installed.
find_program(_readelf NAMES readelf llvm-readelf)
if(NOT _readelf)
    return()
endif()
execute_process(COMMAND "${_readelf}" -d "${LIBRARY}"
    OUTPUT_VARIABLE _dyn ERROR_VARIABLE _err RESULT_VARIABLE _result)
if(NOT _result STREQUAL "0")
    message(FATAL_ERROR "readelf -d ${LIBRARY} failed: ${_err}")
endif()
set(_soname "")
if(_dyn MATCHES "\\(SONAME\\)[^[]*\\[([^]]*)\\]")
    set(_soname "${CMAKE_MATCH_1}")
endif()
if(NOT _soname STREQUAL SONAME)
    message(FATAL_ERROR
        "${LIBRARY} has SONAME '${_soname}', expected '${SONAME}'. build.rs must emit "
        "cargo:rustc-cdylib-link-arg=-Wl,-soname,${SONAME} (Linux).")
endif()
