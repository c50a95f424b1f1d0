// SPDX-License-Identifier: MIT
//
/// \file
/// Visindigo Agent — symbol export macro for the Qt C++ layer (libVisindigoAgent).
///
/// Every public class and free function of the C++ layer is marked
/// VISINDIGO_AGENT_EXPORT. The library is compiled with hidden visibility
/// (-fvisibility=hidden, -fvisibility-inlines-hidden), so only what carries
/// this macro is part of the shared library's ABI.
///
/// * GCC / Clang (ELF, Mach-O): __attribute__((visibility("default"))) both
///   when building and when using the library.
/// * Windows (MSVC, MinGW, Cygwin): __declspec(dllexport) while building the
///   library (the build defines VISINDIGO_AGENT_BUILDING), __declspec(dllimport)
///   when using it.
/// * VISINDIGO_AGENT_STATIC: define it (building and using) for a static build
///   of the C++ layer; the macro is then empty.
///
/// Hand-written on purpose (no generate_export_header): the file is tiny, is
/// installed as is, and needs nothing from the build system but the
/// VISINDIGO_AGENT_BUILDING definition.
#ifndef VISINDIGO_AGENT_EXPORT_H
#define VISINDIGO_AGENT_EXPORT_H

#if defined(VISINDIGO_AGENT_STATIC)
#  define VISINDIGO_AGENT_EXPORT
#elif defined(_WIN32) || defined(__CYGWIN__)
#  if defined(VISINDIGO_AGENT_BUILDING)
#    define VISINDIGO_AGENT_EXPORT __declspec(dllexport)
#  else
#    define VISINDIGO_AGENT_EXPORT __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define VISINDIGO_AGENT_EXPORT __attribute__((visibility("default")))
#else
#  define VISINDIGO_AGENT_EXPORT
#endif

#endif // VISINDIGO_AGENT_EXPORT_H
