/* SPDX-License-Identifier: MIT
 *
 * Installed C ABI smoke test: the header compiles from the install prefix, the program links
 * against the installed Rust library (through pkg-config: tests/consumer-c; through
 * find_package: tests/consumer-c-cmake, which builds this file with VI_CONSUMER_NAME set) and
 * the loader finds the library without LD_LIBRARY_PATH (Windows: in the prefix's bin/). It
 * calls the library, so that the link really depends on it (a MinGW link imports a DLL only
 * for what is called): the loaded library's version must be the header's, and a private
 * Center is made and freed. Prints "<name>: ok" and exits 0.
 */
#include <visindigo_agent.h>

#include <stdio.h>
#include <string.h>

#ifndef VI_CONSUMER_NAME
#define VI_CONSUMER_NAME "consumer_c"
#endif

int main(void)
{
    const char* version = vi_version();
    if (version == NULL || strcmp(version, VI_VERSION) != 0) {
        fprintf(stderr, VI_CONSUMER_NAME ": FAILED: the library is %s, the header %s\n",
                version ? version : "(null)", VI_VERSION);
        return 1;
    }
    struct ViCenter* center = NULL;
    if (vi_center_new(&center) != VI_STATUS_OK || center == NULL) {
        fprintf(stderr, VI_CONSUMER_NAME ": FAILED: vi_center_new: %s\n", vi_last_error());
        return 1;
    }
    vi_center_free(center);
    printf(VI_CONSUMER_NAME ": ok (library %s)\n", version);
    return 0;
}
