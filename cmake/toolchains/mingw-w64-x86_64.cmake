# SPDX-License-Identifier: MIT
#
# Cross compiling for 64-bit Windows with mingw-w64 (Debian: gcc-mingw-w64-x86-64,
# g++-mingw-w64-x86-64), running what is built under Wine (tools/windows.sh):
#
#   cmake -S . -B build-windows/c -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake -DVISINDIGO_AGENT_QT=OFF
#
# The Rust library is then built for x86_64-pc-windows-gnu (CMakeLists.txt derives it; rustup
# target add x86_64-pc-windows-gnu), whose default linker is the same x86_64-w64-mingw32-gcc.
# VI_MINGW_PREFIX (cache or environment) names another compiler prefix.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

if(NOT VI_MINGW_PREFIX)
    if(DEFINED ENV{VI_MINGW_PREFIX})
        set(VI_MINGW_PREFIX "$ENV{VI_MINGW_PREFIX}")
    else()
        set(VI_MINGW_PREFIX x86_64-w64-mingw32)
    endif()
endif()
set(CMAKE_C_COMPILER "${VI_MINGW_PREFIX}-gcc")
set(CMAKE_CXX_COMPILER "${VI_MINGW_PREFIX}-g++")
set(CMAKE_RC_COMPILER "${VI_MINGW_PREFIX}-windres")

# Libraries, headers and packages from the target's root only (plus whatever a caller adds to
# CMAKE_FIND_ROOT_PATH, e.g. an install prefix to consume: cmake/VisindigoAgentInstallTest.cmake);
# programs (cargo, pkg-config, doxygen) from the host.
list(APPEND CMAKE_FIND_ROOT_PATH "/usr/${VI_MINGW_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest runs the test programs through Wine: wine64 where it is a command of its own, else the
# `wine` launcher (Debian 12 installs wine64 as /usr/lib/wine/wine64 and `wine`, which picks it).
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
    find_program(VI_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
    if(VI_WINE)
        set(CMAKE_CROSSCOMPILING_EMULATOR "${VI_WINE}")
    endif()
endif()
