#!/bin/sh
# Runs a command with a system keychain of its own (SPEC §I.5.2; ctest's tst_chatwindow_keychain):
# a private D-Bus session bus (dbus-run-session) holding a fresh gnome-keyring whose "login"
# keyring is created and unlocked with a throwaway password, in a temporary HOME — the user's
# own session and keyrings are never touched. Headless: no display, no prompt.
#   tools/with-keyring.sh <command> [arguments…]
# When dbus-run-session or gnome-keyring-daemon is missing, the command runs anyway with
# VI_TOKEN_STORE="skip:<why>" so that the test skips visibly (Debian: dbus-daemon, gnome-keyring).
#
# gnome-keyring 42 creates the login keyring from the password on stdin only when it is not
# empty: with `echo -n ""` it stays missing, and the first write asks a (here impossible)
# graphical prompt to create one.
set -eu
for tool in dbus-run-session gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        VI_TOKEN_STORE="skip:$tool is not installed (Debian packages dbus-daemon and gnome-keyring): no keychain to test with"
        export VI_TOKEN_STORE
        exec "$@"
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vi-keyring.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/run"
HOME="$tmp" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run"
export HOME XDG_DATA_HOME XDG_CONFIG_HOME XDG_CACHE_HOME XDG_RUNTIME_DIR
# (As root, dbus-daemon says "Failed to set fd limit …: Operation not permitted": harmless.)
status=0
# The daemon answers on the bus a moment after --unlock returns; the command starts once it
# does (else the first request D-Bus-activates a second daemon, which then hands over).
dbus-run-session -- sh -c '
    printf %s vi-test-keyring | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true" && break
        sleep 0.1
    done
    exec "$@"' with-keyring "$@" || status=$?
exit "$status"
