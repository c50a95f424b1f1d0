#!/usr/bin/env bash
# Proves the project on Qt 6.8 LTS: Debian 13 "trixie" in a debootstrap'd chroot (SPEC §I.1.3:
# "the Qt layer and every test on Qt 6.4 (Debian 12) and Qt 6.8 LTS (Debian 13)"). The host is
# Debian 12 (Qt 6.4), where .ci/run proves the rest.
#
#   tools/qt68.sh            make the chroot once (or reuse it), copy the working tree into it
#                            as /src, run the README's test command there (BUILD_DIR=/build
#                            tools/test.sh: venv, configure, build, every ctest test)
#   tools/qt68.sh --smoke    the same, but only a fast subset of ctest
#                            (VI_QT68_SMOKE_TESTS, default 'tst_message|tst_dialog|c_header')
#   tools/qt68.sh --setup    only make / update the chroot (debootstrap, packages), no build
#   tools/qt68.sh --shell    an interactive shell in the chroot, with everything mounted
#   --fresh                  remake the chroot from nothing first (combines with the above)
#   --clean                  remove the chroot's build dir (/build) and /src/.venv first
#
# Needs root, debootstrap and the host's Rust toolchain (rustup). Environment:
#   VI_QT68_ROOT     the chroot (default /var/tmp/visindigo-qt68; outside the repo)
#   VI_QT68_MIRROR   the Debian mirror (default: the one this host's apt uses)
# Prints the versions seen (Qt, gcc, clang, cmake, rustc, python) and the ctest summary line
# at the end, and the compiler warnings and the Qt warnings (QWARN) the run produced; exits
# non-zero on any failure. Every mount is undone on exit, failure or Ctrl-C included, and the
# chroot is left in place to be reused.
#
# Rust: Debian 13's rustc (1.85) is older than the crate's rust-version (1.88), and rustup
# cannot download toolchains on this project's machines, so the chroot uses the host's
# toolchain: the host's RUSTUP_HOME and CARGO_HOME/bin are bind-mounted read-only at the same
# paths inside (absolute toolchain links keep working), and the chroot's own CARGO_HOME
# (the rest of the same directory, on the chroot's disk) holds the registry cache. On a real
# Debian 13 machine one installs rustup instead (Debian 13's `rustup` package, or rustup.rs)
# and runs `rustup default stable`.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

fresh=0 mode=full clean=0
for arg in "$@"; do
    case "$arg" in
        --fresh) fresh=1 ;;
        --smoke) mode=smoke ;;
        --setup) mode=setup ;;
        --shell) mode=shell ;;
        --clean) clean=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "qt68.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done

[ "$(id -u)" = 0 ] || { echo "qt68.sh: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "qt68.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${VI_QT68_ROOT:-/var/tmp/visindigo-qt68}
root=$(realpath -m "$root")
case "$root" in /|/usr|/var|/var/tmp|/tmp|"$repo"|"$repo"/*)
    echo "qt68.sh: refusing VI_QT68_ROOT=$root (must be a directory of its own outside the repo)" >&2; exit 2 ;;
esac
smoke_tests=${VI_QT68_SMOKE_TESTS:-tst_message|tst_dialog|c_header}
log=$root.last.log    # beside the chroot, on the host

# The mirror this host's apt uses (deb822 "URIs:" or one-line "deb" entries), else Debian's
# default; the security archive likewise.
host_uris() {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | sed -nE 's/^[[:space:]]*URIs:[[:space:]]*//p; s/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' \
        | tr ' ' '\n' | sed 's#/*$##'
}
mirror=${VI_QT68_MIRROR:-$(host_uris | grep -E '^https?://[^ ]+/debian$' | head -n1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}
security=${VI_QT68_SECURITY_MIRROR:-$(host_uris | grep -E '^https?://[^ ]+/debian-security$' | head -n1 || true)}
security=${security:-http://deb.debian.org/debian-security}

# What the chroot installs: exactly the packages .ci/run installs (read from it, so the two
# cannot drift), plus what a fresh Debian 13 lacks for the README's commands and tests:
#   build-essential  the C/C++ compiler, make, binutils (readelf for the soname check)
#   git, ca-certificates  a clone; TLS to crates.io and PyPI
#   locales          a UTF-8 locale (the run uses C.UTF-8, which glibc ships built in)
#   procps           `kill` (scripted-server's tests signal the server through /bin/kill;
#                    cmake depends on it anyway)
ci_packages=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$repo/.ci/run" | grep -E '^[[:space:]]*apt-get install' \
    | sed -E 's/^[[:space:]]*apt-get install//; s/>.*$//' | tr ' ' '\n' | grep -vE '^(-.*)?$' | sort -u | tr '\n' ' ')
[ -n "$ci_packages" ] || { echo "qt68.sh: found no 'apt-get install' line in .ci/run" >&2; exit 1; }
extra_packages="build-essential git ca-certificates locales procps"
packages="$ci_packages $extra_packages"

# Rust on the host (see the top): RUSTUP_HOME and CARGO_HOME/bin.
rustup_home=${RUSTUP_HOME:-}
if [ -z "$rustup_home" ] && command -v rustup >/dev/null; then rustup_home=$(rustup show home 2>/dev/null || true); fi
rustup_home=${rustup_home:-$HOME/.rustup}
cargo_home=${CARGO_HOME:-$HOME/.cargo}
[ -d "$rustup_home/toolchains" ] && [ -x "$cargo_home/bin/cargo" ] || {
    echo "qt68.sh: no host Rust toolchain (looked for $rustup_home/toolchains and $cargo_home/bin/cargo)" >&2; exit 2; }
rustup_home=$(realpath "$rustup_home") cargo_home=$(realpath "$cargo_home")

# One run at a time per chroot.
exec 9>"$root.lock"
flock -n 9 || { echo "qt68.sh: another qt68.sh is using $root (lock $root.lock)" >&2; exit 1; }

# ---- mounts, and undoing them -----------------------------------------------------------------
mounts=()    # mount points, in the order mounted
mounted_under_root() {   # every mount point at or below $root, deepest first
    awk -v r="$root" '{ m = $5; gsub(/\\040/, " ", m); if (m == r || index(m, r "/") == 1) print m }' \
        /proc/self/mountinfo | sort -r
}
in_chroot_pids() {
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
    done
    return 0
}
cleanup() {
    local rc=$? m left
    set +e
    # Whatever this run started in the chroot and left running (a daemon a postinst started, a
    # test's child, the run itself after a signal): stop it by its id, so the mounts can go.
    stop_chroot_processes
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null \
            || echo "qt68.sh: could not unmount ${mounts[i]}" >&2
    done
    mounts=()
    for m in $(mounted_under_root); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
    left=$(mounted_under_root)
    if [ -n "$left" ]; then
        echo "qt68.sh: mounts left under $root: $left" >&2
        [ "$rc" = 0 ] && rc=1
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

mount_at() {   # mount_at <target inside root> <mount args...>
    local target=$root$1; shift
    mkdir -p "$target"
    mount "$@" "$target"
    mounts+=("$target")
}
bind_ro() {    # bind_ro <host dir> <target inside root>
    mount_at "$2" --bind "$1"
    mount -o remount,bind,ro "$root$2"
}
stop_chroot_processes() {
    local pids p
    pids=$(in_chroot_pids)
    [ -n "$pids" ] || return 0
    echo "qt68.sh: stopping processes left in the chroot: $pids" >&2
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    sleep 2
    for p in $(in_chroot_pids); do kill -KILL "$p" 2>/dev/null; done
    sleep 1
}
mount_all() {
    [ ${#mounts[@]} = 0 ] || return 0
    # Mounts left by a run that was killed outright (SIGKILL; this run holds the lock, so no
    # other run is using them): undo them first.
    if [ -n "$(mounted_under_root)" ]; then
        echo "qt68.sh: undoing mounts a killed run left:" $(mounted_under_root) >&2
        stop_chroot_processes
        local m
        for m in $(mounted_under_root); do umount "$m" 2>/dev/null || umount -l "$m"; done
        [ -z "$(mounted_under_root)" ] || { echo "qt68.sh: could not undo them" >&2; exit 1; }
    fi
    # Name resolution for apt, cargo and pip (127.0.0.1 and localhost for the tests).
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    cp -L /etc/hosts "$root/etc/hosts"
    mount_at /proc -t proc proc
    mount_at /sys -t sysfs -o ro sysfs
    mount_at /dev --bind /dev
    mount_at /dev/pts --bind /dev/pts
    mount_at /dev/shm -t tmpfs -o mode=1777,nosuid,nodev shm     # Python's multiprocessing
    mount_at /tmp -t tmpfs -o mode=1777,nosuid,nodev tmp         # a clean /tmp per run
}

# Runs a command with its output also in $log, in the background so that a signal to this
# script (SIGTERM, SIGHUP) is handled at once, not when the command ends (the EXIT trap then
# stops what runs in the chroot and unmounts).
logged() {
    { "$@" 2>&1 | tee -a "$log"; } &
    wait $!
}

# Runs a command in the chroot (niced: the machine is shared), with a clean environment like a
# fresh login.
in_chroot() {
    nice -n 10 chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
        PATH="$cargo_home/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        RUSTUP_HOME="$rustup_home" CARGO_HOME="$cargo_home" RUSTUP_AUTO_INSTALL=0 \
        DEBIAN_FRONTEND=noninteractive "$@"
}

phases=()
phase_start=0
begin() { phase_start=$SECONDS; echo; echo "==== qt68.sh: $1"; }
end() { phases+=("$(printf '%-34s %4ds' "$1" $((SECONDS - phase_start)))"); }

# ---- the chroot ---------------------------------------------------------------------------------
remove_root() {   # only a chroot this script made (or began), and only with nothing mounted in it
    [ -z "$(mounted_under_root)" ] || { echo "qt68.sh: mounts under $root; not removing it" >&2; exit 1; }
    if [ -n "$(ls -A "$root")" ] && [ ! -e "$root/.qt68-debootstrap-done" ] && [ ! -d "$root/debootstrap" ]; then
        echo "qt68.sh: $root is not a chroot made by qt68.sh; not removing it" >&2; exit 1
    fi
    rm -rf --one-file-system "$root"
}
if [ "$fresh" = 1 ] && [ -e "$root" ]; then
    begin "removing $root (--fresh)"
    remove_root
    end "remove (--fresh)"
fi
if [ ! -f "$root/.qt68-debootstrap-done" ]; then
    [ ! -e "$root" ] || remove_root    # an interrupted debootstrap: start over
    begin "debootstrap --variant=minbase trixie $root $mirror"
    mkdir -p "$(dirname "$root")"
    nice -n 10 debootstrap --variant=minbase trixie "$root" "$mirror"
    # No service starts inside the chroot (tinyproxy's postinst would start a daemon).
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    rm -f "$root/etc/apt/sources.list"
    cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    touch "$root/.qt68-debootstrap-done"
    end "debootstrap"
fi

mount_all

# The packages, installed again only when the list changed (or the last install failed).
if [ "$(cat "$root/.qt68-packages" 2>/dev/null)" != "$packages" ]; then
    begin "apt-get install (trixie): $packages"
    rm -f "$root/.qt68-packages"
    in_chroot apt-get update -qq
    # shellcheck disable=SC2086
    in_chroot apt-get install -y -qq $packages >/dev/null
    in_chroot apt-get clean
    echo "$packages" >"$root/.qt68-packages"
    end "apt-get install"
fi
# The CAs this host added to its trust store (/usr/local/share/ca-certificates: a machine whose
# HTTPS goes through a TLS-inspecting proxy has its CA there), so that cargo and pip inside reach
# crates.io and PyPI as they do on the host. Not something a real Debian 13 machine needs.
if [ -d /usr/local/share/ca-certificates ] \
    && ! diff -rq /usr/local/share/ca-certificates "$root/usr/local/share/ca-certificates" >/dev/null 2>&1; then
    rm -rf "$root/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates "$root/usr/local/share/ca-certificates"
    in_chroot update-ca-certificates --fresh >/dev/null
fi
[ "$mode" = setup ] && { [ ${#phases[@]} = 0 ] || printf '%s\n' "${phases[@]}"; echo "qt68.sh: chroot ready at $root"; exit 0; }

# The host's Rust (see the top), read-only at the same paths.
bind_ro "$rustup_home" "$rustup_home"
bind_ro "$cargo_home/bin" "$cargo_home/bin"

# ---- the working tree: tracked files plus uncommitted ones, no build output ---------------------
if [ "$clean" = 1 ]; then
    begin "removing /build and /src/.venv (--clean)"
    rm -rf --one-file-system "$root/build" "$root/src/.venv"
    end "remove build (--clean)"
fi
begin "copying the working tree to $root/src"
mkdir -p "$root/src"
find "$root/src" -mindepth 1 -maxdepth 1 ! -name .venv -exec rm -rf --one-file-system {} +
(
    cd "$repo"
    git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
        case "$f" in build*/*|target/*|*/target/*|.venv/*|node_modules/*|*/node_modules/*) continue ;; esac
        if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi    # a deleted file is not copied
    done | tar --null -T - -cf - | tar -C "$root/src" -xf -
)
echo "$(find "$root/src" -path "$root/src/.venv" -prune -o -type f -print | wc -l) files"
end "copy working tree"

versions() {
    in_chroot bash -c '
        echo "Debian      $(cat /etc/debian_version)"
        echo "Qt          $(dpkg-query -W -f "\${Version}" qt6-base-dev) ($(qtpaths6 --qt-version 2>/dev/null || /usr/lib/qt6/bin/qtpaths --qt-version))"
        echo "gcc         $(gcc --version | head -n1)"
        echo "clang       $(clang --version | head -n1)"
        echo "cmake       $(cmake --version | head -n1)"
        echo "ninja       $(ninja --version)"
        echo "rustc       $(rustc --version) (host toolchain, $(command -v rustc))"
        echo "cargo       $(cargo --version)"
        echo "python3     $(python3 --version)"
        echo "locale      LANG=$LANG ($(locale -a | grep -iE "^c\.utf-?8$" | head -n1) available)"'
}
if [ "$mode" = shell ]; then
    versions
    in_chroot bash -c 'cd /src && exec bash -i'
    exit 0
fi
begin "versions"
versions | tee "$root/.qt68-versions"
end "versions"

# ---- the run ------------------------------------------------------------------------------------
status=0
: >"$log"
if [ "$mode" = smoke ]; then
    begin "venv (tests/requirements.txt)"
    logged in_chroot bash -c 'cd /src && { [ -x .venv/bin/python ] || python3 -m venv .venv; } &&
        .venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt' || status=1
    end "venv"
    # The npm peers too, as tools/test.sh installs them: a subset may hold the tests against
    # the MCP reference server (tst_mcp).
    begin "npm peers (tests/npm, npm ci)"
    logged in_chroot bash -c 'cd /src && npm ci --prefix tests/npm --no-audit --no-fund --silent' || status=1
    end "npm peers"
    if [ "$status" = 0 ]; then
        begin "configure (cmake -G Ninja, /build)"
        logged in_chroot cmake -S /src -B /build -G Ninja -DVI_PYTHON=/src/.venv/bin/python || status=1
        end "configure"
    fi
    if [ "$status" = 0 ]; then
        begin "build (cmake --build /build)"
        logged in_chroot cmake --build /build || status=1
        end "build"
    fi
    if [ "$status" = 0 ]; then
        begin "ctest -R '$smoke_tests'"
        logged in_chroot ctest --test-dir /build --output-on-failure --no-tests=error -R "$smoke_tests" || status=1
        end "ctest (smoke)"
    fi
else
    begin "BUILD_DIR=/build tools/test.sh (the README's test command)"
    logged in_chroot bash -c 'cd /src && BUILD_DIR=/build tools/test.sh' || status=1
    end "tools/test.sh"
fi

# ---- the summary ----------------------------------------------------------------------------------
echo
echo "==== qt68.sh: summary ($mode, chroot $root, log $log)"
cat "$root/.qt68-versions"
echo "-- phases"
printf '  %s\n' "${phases[@]}"
echo "-- compiler and build warnings"
{
    # CMake's warnings with their text (up to the blank line that ends each), then the compilers'
    # and cargo's (file:line: warning: …), pip's and the rest.
    awk '/^CMake (Deprecation )?Warning/ { on = 1 } on { print } on && /^$/ { on = 0 }' "$log"
    grep -E 'warning[:[]|WARNING:|Warning:' "$log" | grep -vE '^CMake ' | sort -u || true
} | sed 's/^/  /' | grep . || echo "  (none)"
echo "-- Qt warnings in the test output (Testing/Temporary/LastTest.log)"
if [ -f "$root/build/Testing/Temporary/LastTest.log" ]; then
    grep -E '^(QWARN|QCRITICAL|QFATAL|QSYSTEM)|^WARNING:' "$root/build/Testing/Temporary/LastTest.log" \
        | sed -E 's/^/  /' | sort | uniq -c | sort -rn | head -n 40 || echo "  (none)"
    echo "-- compiler warnings in the test output (cargo test builds inside ctest)"
    grep -E -A4 '^warning(\[|:)|: warning:' "$root/build/Testing/Temporary/LastTest.log" | sed 's/^/  /' \
        | head -n 80 || echo "  (none)"
fi
echo "-- ctest"
grep -E 'tests passed|tests failed|Total Test time|\*\*\*(Failed|Timeout|Exception)|Not Run' "$log" | sed 's/^/  /' \
    || echo "  (no ctest summary: the run stopped before ctest)"
[ "$status" = 0 ] && echo "qt68.sh: OK on Qt 6.8 ($mode)" || echo "qt68.sh: FAILED on Qt 6.8 ($mode)" >&2
exit "$status"
