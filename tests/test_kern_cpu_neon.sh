#!/bin/sh
# The NEON path of the fast CPU kernels, on an x86-64 machine: the kernel
# sources and tests/test_kern_cpu.c cross-compiled for aarch64 and run
# under qemu's user-mode emulator (Criterion replaced by tests/shim, which
# has the few macros the test uses). On an aarch64 machine the NEON path
# is tested natively by tests/test_kern_cpu; here this is the only way it
# runs. Skips (77) without aarch64-linux-gnu-gcc or qemu-aarch64 (Debian:
# gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user; scripts/deps
# installs them).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
CC=${AARCH64_CC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-qemu-aarch64}
if ! command -v "$CC" >/dev/null 2>&1 || ! command -v "$QEMU" >/dev/null 2>&1; then
    echo "SKIP: $CC or $QEMU not found; the NEON path is not run on this machine"
    exit 77
fi
[ "$(uname -m)" = aarch64 ] && { echo "SKIP: native aarch64: tests/test_kern_cpu runs NEON"; exit 77; }
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
src=$top_srcdir/kernels
# config.h of this build is host-neutral (package names, paths)
if ! "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror \
    -fno-trapping-math -I"$top_srcdir/tests/shim" -I"$top_builddir" -I"$top_srcdir" \
    -o "$t/test_kern_cpu" "$top_srcdir/tests/test_kern_cpu.c" "$src/kern_cpu.c" \
    "$src/kern_cpu_check.c" "$src/kern_cpu_scalar.c" "$src/kern_cpu_neon.c" \
    "$src/kern_cpu_avx2.c" "$src/kern_cpu_avx512.c" "$src/kern_quant.c" "$src/kern_gemv.c" \
    "$src/kern_half.c" -lm -lpthread 2>"$t/cc.log"; then
    cat "$t/cc.log"
    echo "FAIL - the aarch64 build of the kernels"
    exit 1
fi
sysroot=${AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}
# -cpu max has FP16 arithmetic (FEAT_FHM: the FMLAL FP16 GEMV); a Cortex-A53
# (ARMv8.0) has not, so both NEON FP16 paths run.
fail=0
for cpu in max cortex-a53; do
    if "$QEMU" -cpu $cpu -L "$sysroot" "$t/test_kern_cpu"; then
        echo "ok   - the NEON and portable paths under $QEMU -cpu $cpu"
    else
        echo "FAIL - the NEON and portable paths under $QEMU -cpu $cpu"
        fail=1
    fi
done
exit $fail
