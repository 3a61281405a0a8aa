#!/usr/bin/env bash
# deps.sh -- install, from Debian's packages, what Ferrite's build, run,
# tests and benchmarks need; only what is missing, and say what it does.
#
#   tools/deps.sh           what make, make test and most benchmarks need
#   tools/deps.sh --bench   also what only `make bench` uses
#
# Cheap when everything is present: one dpkg-query, no network.
set -eu

# package -> why we need it
packages=(
	make            # the build
	gcc             # kernel, libc, objstore, host tools
	binutils        # ld, objcopy
	grub-pc-bin     # BIOS GRUB modules for the rescue ISO
	grub-common     # grub-mkrescue
	xorriso         # grub-mkrescue writes the ISO with it
	mtools          # grub-mkrescue builds the EFI image with it
	qemu-system-x86 # the machine
	qemu-system-data # qboot.rom, the fast firmware for --accel kvm
	gdb             # make debug
	python3         # the test harness
	python3-pytest  # system tests
	python3-pytest-xdist # the system tests in one worker per CPU (tests/run-all)
	libpmemobj-dev  # make bench-objstore: PMDK's libpmemobj and its hashmap_tx example, the yardstick
	libpmem-dev     # libpmemobj's flush layer (pulled by libpmemobj-dev; named for clarity)
	gnuplot-nox     # the benchmark report's plots (tests/bench/report, and its test)
	busybox-static  # Debian's static busybox, run unmodified in Ferrite (tests/system/test_linux.py); and the Linux + busybox boot of make bench
	musl-tools      # musl-gcc: Linux programs built -static against musl (tests/linux/)
	strace          # the host's trace of a Linux program, which osh's trace is compared with (tests/system/test_linux.py)
	liblua5.4-dev   # liblua5.4.a: the Lua REPL the Linux-programs tests run (tests/linux/lua-repl.c)
	libsqlite3-dev  # libsqlite3.a: the SQL shell the Linux-programs tests run (tests/linux/sql.c), and sqlbench (make bench-lxprog)
	e2fsprogs       # mkfs.ext4: the Linux guest's ext4 disk that SQLite is measured on (make bench-lxprog)
	sqlite3         # Debian's dynamic /usr/bin/sqlite3, run unmodified in Ferrite with its libraries (tests/system/test_lxdyn.py)
	lua5.4          # Debian's dynamic /usr/bin/lua5.4, the same
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	sudo=sudo
else
	sudo=
fi
export DEBIAN_FRONTEND=noninteractive
# The package lists may be absent on a fresh machine; refresh them once.
if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
	echo "deps: refreshing the package lists and trying again"
	$sudo apt-get update
	$sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
echo "deps: done"
