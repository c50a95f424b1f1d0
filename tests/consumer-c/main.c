/* SPDX-License-Identifier: MIT
 *
 * Installed C ABI smoke test: the header compiles from the install prefix, the program
 * links against libvisindigo_agent through pkg-config and the loader finds the library
 * without LD_LIBRARY_PATH. Prints "consumer_c: ok" and exits 0.
 *
 * TODO(lead): call a few vi_* functions once the C ABI settles.
 */
#include <visindigo_agent.h>

#include <stdio.h>

int main(void)
{
    puts("consumer_c: ok");
    return 0;
}
