# SPDX-License-Identifier: MIT
#
# cmake -P script behind the install/consumer ctest tests (see CMakeLists.txt).
#
#   MODE=install   rm -rf PREFIX; cmake --install BUILD_DIR --prefix PREFIX; checks the
#                  installed files and that no installed library points into the build tree.
#   MODE=consumer  configures SOURCE_DIR in a fresh WORK_DIR against PREFIX (CMAKE_PREFIX_PATH,
#                  and PKG_CONFIG_PATH when given), builds it, runs EXECUTABLE with
#                  LD_LIBRARY_PATH removed, and requires exit code 0 (and EXPECT_OUTPUT in its
#                  output); its RUNPATH must not name BUILD_LIB_DIR, and the loader must
#                  resolve our libraries from PREFIX.
#   MODE=version   find_package(VisindigoAgent <v>) against PREFIX: 0.17 / 0.17.0 match,
#                  0.16 / 0.18 / 1.0 do not.
#
# The consumer builds use the same generator, compilers, build type and flags as the
# main build (a sanitizer build needs its runtime in the consumer too).
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
    if(MAKE_PROGRAM)
        list(APPEND _args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
    endif()
    list(APPEND _args
        "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
        "-DCMAKE_C_COMPILER=${C_COMPILER}"
        "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
        "-DCMAKE_C_FLAGS=${C_FLAGS}"
        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
        "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
        # Only the prefix under test (and Qt's own location) may be searched.
        "-DCMAKE_PREFIX_PATH=${PREFIX}"
        "-DQt6_DIR=${QT_DIR}"
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
    set(${out_var} "${_args}" PARENT_SCOPE)
endfunction()

if(NOT PREFIX)
    vi_fail("PREFIX not set")
endif()

if(MODE STREQUAL "install")
    file(REMOVE_RECURSE "${PREFIX}")
    vi_run("cmake --install" COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")

    set(_lib "${PREFIX}/${LIBDIR}")
    foreach(_file
            "${_lib}/libvisindigo_agent.so.${PROJECT_VERSION}"
            "${_lib}/libvisindigo_agent.so.0"
            "${_lib}/libvisindigo_agent.so"
            "${_lib}/libvisindigo_agent.a"
            "${_lib}/libVisindigoAgent.so.${PROJECT_VERSION}"
            "${_lib}/libVisindigoAgent.so.0"
            "${_lib}/libVisindigoAgent.so"
            "${_lib}/pkgconfig/visindigo-agent.pc"
            "${_lib}/cmake/VisindigoAgent/VisindigoAgentConfig.cmake"
            "${_lib}/cmake/VisindigoAgent/VisindigoAgentConfigVersion.cmake"
            "${_lib}/cmake/VisindigoAgent/VisindigoAgentTargets.cmake"
            "${PREFIX}/include/visindigo_agent.h"
            "${PREFIX}/include/Agent/Export.h"
            "${PREFIX}/include/Utility/JsonConfig.h")
        if(NOT EXISTS "${_file}")
            vi_fail("not installed: ${_file}")
        endif()
    endforeach()
    foreach(_link libvisindigo_agent.so.0 libvisindigo_agent.so)
        if(NOT IS_SYMLINK "${_lib}/${_link}")
            vi_fail("${_lib}/${_link} should be a symbolic link")
        endif()
    endforeach()

    # The installed C++ library finds the Rust library next to itself, and nothing
    # installed points back into the build tree.
    vi_runpath("${_lib}/libVisindigoAgent.so.${PROJECT_VERSION}" _runpath)
    if(NOT _runpath STREQUAL "$ORIGIN")
        vi_fail("libVisindigoAgent.so RUNPATH is '${_runpath}', expected '$ORIGIN'")
    endif()
    vi_runpath("${_lib}/libvisindigo_agent.so.${PROJECT_VERSION}" _runpath)
    if(_runpath MATCHES "^${BUILD_DIR}" OR _runpath MATCHES ":${BUILD_DIR}")
        vi_fail("libvisindigo_agent.so RUNPATH points into the build tree: ${_runpath}")
    endif()
    file(READ "${_lib}/pkgconfig/visindigo-agent.pc" _pc)
    if(NOT _pc MATCHES "prefix=${PREFIX}\n")
        vi_fail("visindigo-agent.pc does not name the install prefix ${PREFIX}:\n${_pc}")
    endif()
    message("install_to_prefix: ok")

elseif(MODE STREQUAL "consumer")
    file(REMOVE_RECURSE "${WORK_DIR}")
    vi_configure_args(_args)
    if(PKG_CONFIG_PATH)
        # Only the prefix under test.
        set(ENV{PKG_CONFIG_PATH} "${PKG_CONFIG_PATH}")
        set(ENV{PKG_CONFIG_LIBDIR} "${PKG_CONFIG_PATH}")
    endif()
    vi_run("configure ${SOURCE_DIR}"
        COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" ${_args})
    vi_run("build ${SOURCE_DIR}" COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}" --verbose)

    set(_exe "${WORK_DIR}/${EXECUTABLE}")
    if(NOT EXISTS "${_exe}")
        vi_fail("${_exe} was not built")
    endif()

    # Linked against the prefix, not the build tree.
    vi_runpath("${_exe}" _runpath)
    if(BUILD_LIB_DIR AND _runpath MATCHES "(^|:)${BUILD_LIB_DIR}/?(:|$)")
        vi_fail("${EXECUTABLE} RUNPATH '${_runpath}' contains the build tree's ${BUILD_LIB_DIR}")
    endif()

    # The loader must find our libraries in the prefix, on RUNPATHs alone. (A library
    # the program does not use may be left out by --as-needed linking: only those that
    # are loaded are checked, and the C++ consumer must load libVisindigoAgent.)
    find_program(_ldd ldd)
    if(_ldd)
        vi_run("ldd ${EXECUTABLE}"
            COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH --unset=LD_PRELOAD "${_ldd}" "${_exe}"
            OUTPUT_VARIABLE _ldd_out)
        if(_ldd_out MATCHES "not found")
            vi_fail("${EXECUTABLE} has unresolved libraries without LD_LIBRARY_PATH:\n${_ldd_out}")
        endif()
        if(EXECUTABLE STREQUAL "consumer" AND NOT _ldd_out MATCHES "libVisindigoAgent\\.so\\.0 =>")
            vi_fail("${EXECUTABLE} does not load libVisindigoAgent.so.0:\n${_ldd_out}")
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

    vi_run("run ${EXECUTABLE} without LD_LIBRARY_PATH"
        COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "${_exe}"
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
project(VisindigoAgentVersionCheck LANGUAGES CXX)
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
    vi_configure_args(_args)
    vi_run("version check" COMMAND "${CMAKE_COMMAND}" -S "${WORK_DIR}/src" -B "${WORK_DIR}/build" ${_args})
    message("package_version: ok")

else()
    vi_fail("unknown MODE '${MODE}'")
endif()
