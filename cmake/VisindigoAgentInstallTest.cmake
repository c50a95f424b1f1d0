# SPDX-License-Identifier: MIT
#
# cmake -P script behind the install/consumer ctest tests (see CMakeLists.txt).
#
#   MODE=install   rm -rf PREFIX; cmake --install BUILD_DIR --prefix PREFIX; checks the
#                  installed files of this PLATFORM (cmake/VisindigoAgentRustLibrary.cmake's
#                  names; shared or static, SHARED; with or without the Qt layer, QT) and, on
#                  ELF, that no installed library points into the build tree.
#   MODE=consumer  configures SOURCE_DIR in a fresh WORK_DIR against PREFIX (CMAKE_PREFIX_PATH,
#                  and PKG_CONFIG_PATH when given; NO_QT: with Qt made unfindable), builds it,
#                  runs EXECUTABLE with LD_LIBRARY_PATH removed, and requires exit code 0 (and
#                  EXPECT_OUTPUT in its output). ELF: its RUNPATH must not name BUILD_LIB_DIR,
#                  and the loader must resolve our libraries from PREFIX (a static build: not
#                  load them at all). Windows: the DLLs are looked for in PREFIX/bin alone
#                  (PATH, or WINEPATH under the EMULATOR — where running without it must fail).
#   MODE=version   find_package(VisindigoAgent <v>) against PREFIX: 0.17 / 0.17.0 match,
#                  0.16 / 0.18 / 1.0 do not.
#
# The consumer builds use the same generator, toolchain (TOOLCHAIN_FILE; EMULATOR runs what
# they build), compilers, build type and flags as the main build (a sanitizer build needs its
# runtime in the consumer too).
cmake_minimum_required(VERSION 3.21)

function(vi_fail)
    string(JOIN "" _message ${ARGN})
    message(FATAL_ERROR "${_message}")
endfunction()

function(vi_run)
    # vi_run(<what> COMMAND ...) — runs, echoes the output, fails on a non-zero exit.
    cmake_parse_arguments(PARSE_ARGV 1 _run "" "WORKING_DIRECTORY;OUTPUT_VARIABLE" "COMMAND")
    set(_wd "${CMAKE_CURRENT_BINARY_DIR}")
    if(_run_WORKING_DIRECTORY)
        set(_wd "${_run_WORKING_DIRECTORY}")
    endif()
    execute_process(COMMAND ${_run_COMMAND}
        WORKING_DIRECTORY "${_wd}"
        RESULT_VARIABLE _result
        OUTPUT_VARIABLE _output
        ERROR_VARIABLE _output)
    message("---- ${ARGV0}: exit ${_result}\n${_output}")
    if(NOT _result STREQUAL "0")
        vi_fail("${ARGV0} failed (exit ${_result}): ${_run_COMMAND}")
    endif()
    if(_run_OUTPUT_VARIABLE)
        set(${_run_OUTPUT_VARIABLE} "${_output}" PARENT_SCOPE)
    endif()
endfunction()

function(vi_runpath file out_var)
    find_program(_readelf NAMES readelf llvm-readelf)
    if(NOT _readelf)
        message(WARNING "readelf not found: RUNPATH of ${file} not checked")
        set(${out_var} "" PARENT_SCOPE)
        return()
    endif()
    execute_process(COMMAND "${_readelf}" -d "${file}"
        OUTPUT_VARIABLE _dyn RESULT_VARIABLE _result ERROR_VARIABLE _err)
    if(NOT _result STREQUAL "0")
        vi_fail("readelf -d ${file} failed: ${_err}")
    endif()
    set(_runpath "")
    if(_dyn MATCHES "\\((RUNPATH|RPATH)\\)[^[]*\\[([^]]*)\\]")
        set(_runpath "${CMAKE_MATCH_2}")
    endif()
    set(${out_var} "${_runpath}" PARENT_SCOPE)
endfunction()

function(vi_configure_args out_var)
    set(_args -G "${GENERATOR}" --no-warn-unused-cli)
    if(GENERATOR_PLATFORM)
        list(APPEND _args -A "${GENERATOR_PLATFORM}")
    endif()
    if(MAKE_PROGRAM)
        list(APPEND _args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
    endif()
    if(TOOLCHAIN_FILE)
        # A cross toolchain searches its own root only: the prefix under test is one more root.
        list(APPEND _args "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE}" "-DCMAKE_FIND_ROOT_PATH=${PREFIX}")
    endif()
    if(BUILD_TYPE)
        list(APPEND _args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
    endif()
    list(APPEND _args
        "-DCMAKE_C_COMPILER=${C_COMPILER}"
        "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
        "-DCMAKE_C_FLAGS=${C_FLAGS}"
        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
        "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
        # Only the prefix under test (and Qt's own location) may be searched.
        "-DCMAKE_PREFIX_PATH=${PREFIX}"
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
    if(NO_QT)
        # The C ABI's package must not need Qt: make it unfindable.
        list(APPEND _args -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON)
    elseif(QT_DIR)
        list(APPEND _args "-DQt6_DIR=${QT_DIR}")
    endif()
    set(${out_var} "${_args}" PARENT_SCOPE)
endfunction()

function(vi_require_files)
    foreach(_file IN LISTS ARGN)
        if(NOT EXISTS "${_file}")
            vi_fail("not installed: ${_file}")
        endif()
    endforeach()
endfunction()

function(vi_require_absent)
    foreach(_file IN LISTS ARGN)
        if(EXISTS "${_file}" OR IS_SYMLINK "${_file}")
            vi_fail("installed, but should not be (this build is ${_vi_kind}): ${_file}")
        endif()
    endforeach()
endfunction()

# Windows: the DLL names a PE file imports (objdump -p), for the consumer checks.
function(vi_pe_imports file out_var)
    set(${out_var} "" PARENT_SCOPE)
    if(NOT OBJDUMP OR NOT EXISTS "${OBJDUMP}")
        return()
    endif()
    execute_process(COMMAND "${OBJDUMP}" -p "${file}" OUTPUT_VARIABLE _out RESULT_VARIABLE _result)
    if(NOT _result STREQUAL "0")
        vi_fail("${OBJDUMP} -p ${file} failed")
    endif()
    string(REGEX MATCHALL "DLL Name: [^\n]+" _names "${_out}")
    list(TRANSFORM _names REPLACE "DLL Name: " "")
    set(${out_var} "${_names}" PARENT_SCOPE)
endfunction()

if(NOT PREFIX)
    vi_fail("PREFIX not set")
endif()
if(NOT PLATFORM)
    set(PLATFORM ELF)
endif()
if(NOT DEFINED SHARED)
    set(SHARED ON)
endif()
if(NOT DEFINED QT)
    set(QT ON)
endif()
if(SHARED)
    set(_vi_kind "shared")
else()
    set(_vi_kind "static")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/VisindigoAgentRustLibrary.cmake")
if(NOT SOVERSION)
    set(SOVERSION 0)
endif()
visindigo_agent_rust_names(_rust "${PLATFORM}" "${PROJECT_VERSION}" "${SOVERSION}")

if(MODE STREQUAL "install")
    file(REMOVE_RECURSE "${PREFIX}")
    set(_config_args "")
    if(BUILD_TYPE)
        set(_config_args --config "${BUILD_TYPE}")
    endif()
    vi_run("cmake --install" COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${_config_args})

    set(_lib "${PREFIX}/${LIBDIR}")
    set(_bin "${PREFIX}/${BINDIR}")
    set(_inc "${PREFIX}/${INCLUDEDIR}")
    vi_require_files(
        "${_lib}/pkgconfig/visindigo-agent.pc"
        "${_lib}/cmake/VisindigoAgent/VisindigoAgentConfig.cmake"
        "${_lib}/cmake/VisindigoAgent/VisindigoAgentConfigVersion.cmake"
        "${_lib}/cmake/VisindigoAgent/VisindigoAgentRustLibrary.cmake"
        "${_inc}/visindigo_agent.h")
    if(QT)
        vi_require_files(
            "${_lib}/cmake/VisindigoAgent/VisindigoAgentTargets.cmake"
            "${_inc}/Agent/Export.h"
            "${_inc}/Utility/JsonConfig.h")
    else()
        # The C ABI alone: nothing of the Qt layer.
        set(_vi_kind "${_vi_kind}, C ABI only")
        vi_require_absent(
            "${_lib}/cmake/VisindigoAgent/VisindigoAgentTargets.cmake"
            "${_inc}/Agent" "${_inc}/Utility")
    endif()

    # The Rust library.
    vi_require_files("${_lib}/${_rust_STATIC}")
    set(_rust_shared_files "")
    if(_rust_RUNTIME_IN_BIN)
        set(_rust_shared_files "${_bin}/${_rust_SHARED}" "${_lib}/${_rust_IMPLIB}")
    else()
        set(_rust_shared_files "${_lib}/${_rust_SHARED}")
        foreach(_link IN LISTS _rust_LINKS)
            list(APPEND _rust_shared_files "${_lib}/${_link}")
        endforeach()
    endif()
    if(SHARED)
        vi_require_files(${_rust_shared_files})
        foreach(_link IN LISTS _rust_LINKS)
            if(NOT IS_SYMLINK "${_lib}/${_link}")
                vi_fail("${_lib}/${_link} should be a symbolic link")
            endif()
        endforeach()
    else()
        vi_require_absent(${_rust_shared_files})
    endif()

    # The Qt layer, under the names CMake gave it (QT_LAYER_*).
    if(QT)
        if(NOT SHARED)
            vi_require_files("${_lib}/${QT_LAYER_FILE}")
        elseif(_rust_RUNTIME_IN_BIN)
            vi_require_files("${_bin}/${QT_LAYER_FILE}" "${_lib}/${QT_LAYER_LINKER_FILE}")
        else()
            vi_require_files("${_lib}/${QT_LAYER_FILE}" "${_lib}/${QT_LAYER_SONAME_FILE}"
                "${_lib}/${QT_LAYER_LINKER_FILE}")
        endif()
    endif()

    # ELF: the installed C++ library finds the Rust library next to itself, and nothing
    # installed points back into the build tree.
    if(PLATFORM STREQUAL "ELF" AND SHARED)
        if(QT)
            vi_runpath("${_lib}/${QT_LAYER_FILE}" _runpath)
            if(NOT _runpath STREQUAL "$ORIGIN")
                vi_fail("${QT_LAYER_FILE} RUNPATH is '${_runpath}', expected '$ORIGIN'")
            endif()
        endif()
        vi_runpath("${_lib}/${_rust_SHARED}" _runpath)
        if(_runpath MATCHES "^${BUILD_DIR}" OR _runpath MATCHES ":${BUILD_DIR}")
            vi_fail("${_rust_SHARED} RUNPATH points into the build tree: ${_runpath}")
        endif()
    endif()
    file(READ "${_lib}/pkgconfig/visindigo-agent.pc" _pc)
    if(NOT _pc MATCHES "prefix=${PREFIX}\n")
        vi_fail("visindigo-agent.pc does not name the install prefix ${PREFIX}:\n${_pc}")
    endif()
    if(NOT _pc MATCHES "\nLibs: -L\\$\\{libdir\\} -lvisindigo_agent")
        vi_fail("visindigo-agent.pc does not link -L\${libdir} -lvisindigo_agent:\n${_pc}")
    endif()
    message("install_to_prefix: ok (${PLATFORM}, ${_vi_kind})")

elseif(MODE STREQUAL "consumer")
    file(REMOVE_RECURSE "${WORK_DIR}")
    vi_configure_args(_args)
    if(PKG_CONFIG_PATH)
        # Only the prefix under test.
        set(ENV{PKG_CONFIG_PATH} "${PKG_CONFIG_PATH}")
        set(ENV{PKG_CONFIG_LIBDIR} "${PKG_CONFIG_PATH}")
        if(PKG_CONFIG_EXECUTABLE)
            list(APPEND _args "-DPKG_CONFIG_EXECUTABLE=${PKG_CONFIG_EXECUTABLE}")
        endif()
    endif()
    vi_run("configure ${SOURCE_DIR}"
        COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" ${_args})
    set(_config_args "")
    if(BUILD_TYPE)
        set(_config_args --config "${BUILD_TYPE}")
    endif()
    vi_run("build ${SOURCE_DIR}" COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}" --verbose ${_config_args})

    # Single-config generators write it to WORK_DIR, multi-config ones to WORK_DIR/<Config>.
    set(_exe "${WORK_DIR}/${EXECUTABLE}${EXE_SUFFIX}")
    if(NOT EXISTS "${_exe}" AND BUILD_TYPE AND EXISTS "${WORK_DIR}/${BUILD_TYPE}/${EXECUTABLE}${EXE_SUFFIX}")
        set(_exe "${WORK_DIR}/${BUILD_TYPE}/${EXECUTABLE}${EXE_SUFFIX}")
    endif()
    if(NOT EXISTS "${_exe}")
        vi_fail("${_exe} was not built")
    endif()

    if(PLATFORM STREQUAL "ELF")
        # Linked against the prefix, not the build tree.
        vi_runpath("${_exe}" _runpath)
        if(BUILD_LIB_DIR AND _runpath MATCHES "(^|:)${BUILD_LIB_DIR}/?(:|$)")
            vi_fail("${EXECUTABLE} RUNPATH '${_runpath}' contains the build tree's ${BUILD_LIB_DIR}")
        endif()

        # The loader must find our libraries in the prefix, on RUNPATHs alone. (A library
        # the program does not use may be left out by --as-needed linking: only those that
        # are loaded are checked, and the C++ consumer must load libVisindigoAgent.) A static
        # build's consumers load neither.
        find_program(_ldd ldd)
        if(_ldd AND NOT EMULATOR)
            vi_run("ldd ${EXECUTABLE}"
                COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH --unset=LD_PRELOAD "${_ldd}" "${_exe}"
                OUTPUT_VARIABLE _ldd_out)
            if(_ldd_out MATCHES "not found")
                vi_fail("${EXECUTABLE} has unresolved libraries without LD_LIBRARY_PATH:\n${_ldd_out}")
            endif()
            if(NOT SHARED)
                if(_ldd_out MATCHES "lib[Vv]isindigo_?[Aa]gent")
                    vi_fail("${EXECUTABLE} of a static build loads a shared VisindigoAgent library:\n${_ldd_out}")
                endif()
            elseif(EXECUTABLE STREQUAL "consumer" AND NOT _ldd_out MATCHES "libVisindigoAgent\\.so\\.0 =>")
                vi_fail("${EXECUTABLE} does not load libVisindigoAgent.so.0:\n${_ldd_out}")
            elseif(EXECUTABLE MATCHES "^consumer_c" AND NOT _ldd_out MATCHES "libvisindigo_agent\\.so\\.0 =>")
                vi_fail("${EXECUTABLE} does not load libvisindigo_agent.so.0:\n${_ldd_out}")
            endif()
            foreach(_soname libVisindigoAgent libvisindigo_agent)
                if(_ldd_out MATCHES "${_soname}\\.so\\.0 => ([^ \n]+)")
                    set(_resolved "${CMAKE_MATCH_1}")
                    string(FIND "${_resolved}" "${PREFIX}/" _at)
                    if(NOT _at EQUAL 0)
                        vi_fail("${EXECUTABLE} loads ${_soname}.so.0 from ${_resolved}, not from ${PREFIX}")
                    endif()
                    message("${EXECUTABLE} loads ${_soname}.so.0 from ${_resolved}")
                endif()
            endforeach()
        endif()
    elseif(PLATFORM MATCHES "^WINDOWS")
        # What the program imports: the Rust DLL in a shared build, not in a static one.
        vi_pe_imports("${_exe}" _imports)
        if(_imports)
            message("${EXECUTABLE} imports: ${_imports}")
            string(TOLOWER "${_imports}" _imports_lc)
            if(SHARED AND NOT "${_rust_SHARED}" IN_LIST _imports_lc)
                vi_fail("${EXECUTABLE} of a shared build does not import ${_rust_SHARED}: ${_imports}")
            elseif(NOT SHARED AND "${_rust_SHARED}" IN_LIST _imports_lc)
                vi_fail("${EXECUTABLE} of a static build imports ${_rust_SHARED}: ${_imports}")
            endif()
        endif()
        if(SHARED AND EMULATOR)
            # Without the prefix's bin/ the DLL must not be found anywhere (so that the run
            # below proves it came from there).
            execute_process(COMMAND ${EMULATOR} "${_exe}" WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE _result OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
            if(_result STREQUAL "0")
                vi_fail("${EXECUTABLE} ran without ${PREFIX}/${BINDIR} on WINEPATH: it found "
                    "${_rust_SHARED} elsewhere:\n${_out}")
            endif()
            message("${EXECUTABLE} without ${PREFIX}/${BINDIR} on WINEPATH: exit ${_result}, as it must")
        endif()
        # The DLL search path gets the prefix's bin/ (and, natively, Qt's bin/).
        file(TO_NATIVE_PATH "${PREFIX}/${BINDIR}" _bin_native)
        if(EMULATOR)
            string(REPLACE "/" "\\" _bin_wine "Z:${PREFIX}/${BINDIR}")
            if(DEFINED ENV{WINEPATH} AND NOT "$ENV{WINEPATH}" STREQUAL "")
                set(ENV{WINEPATH} "${_bin_wine};$ENV{WINEPATH}")
            else()
                set(ENV{WINEPATH} "${_bin_wine}")
            endif()
        else()
            set(_path "${_bin_native}")
            if(QT_DIR AND NOT NO_QT AND EXISTS "${QT_DIR}/../../../bin")
                file(TO_NATIVE_PATH "${QT_DIR}/../../../bin" _qt_bin)
                string(APPEND _path ";${_qt_bin}")
            endif()
            set(ENV{PATH} "${_path};$ENV{PATH}")
        endif()
    endif()

    vi_run("run ${EXECUTABLE} without LD_LIBRARY_PATH"
        COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH ${EMULATOR} "${_exe}"
        WORKING_DIRECTORY "${WORK_DIR}"
        OUTPUT_VARIABLE _run_out)
    if(EXPECT_OUTPUT AND NOT _run_out MATCHES "${EXPECT_OUTPUT}")
        vi_fail("${EXECUTABLE} output lacks '${EXPECT_OUTPUT}'")
    endif()
    message("${EXECUTABLE}: ok")

elseif(MODE STREQUAL "version")
    file(REMOVE_RECURSE "${WORK_DIR}")
    file(MAKE_DIRECTORY "${WORK_DIR}/src")
    file(WRITE "${WORK_DIR}/src/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.21)
project(VisindigoAgentVersionCheck LANGUAGES C CXX)
foreach(_v 0.16 0.18 1.0 0.16.9)
    find_package(VisindigoAgent ${_v} CONFIG QUIET)
    if(VisindigoAgent_FOUND)
        message(FATAL_ERROR "find_package(VisindigoAgent ${_v}) matched version ${VisindigoAgent_VERSION}")
    endif()
    if(NOT VisindigoAgent_CONSIDERED_VERSIONS)
        message(FATAL_ERROR "find_package(VisindigoAgent ${_v}) did not even see the package")
    endif()
endforeach()
foreach(_v 0.17 0.17.0)
    find_package(VisindigoAgent ${_v} CONFIG QUIET)
    if(NOT VisindigoAgent_FOUND)
        message(FATAL_ERROR "find_package(VisindigoAgent ${_v}) did not match")
    endif()
    message(STATUS "find_package(VisindigoAgent ${_v}): ${VisindigoAgent_VERSION}")
endforeach()
]=])
    if(NOT QT)
        set(NO_QT ON)
    endif()
    vi_configure_args(_args)
    vi_run("version check" COMMAND "${CMAKE_COMMAND}" -S "${WORK_DIR}/src" -B "${WORK_DIR}/build" ${_args})
    message("package_version: ok")

else()
    vi_fail("unknown MODE '${MODE}'")
endif()
