#!/bin/sh
# The probe's CUDA kernels checked without a GPU (issue 11, item 6), with
# scripts/cuda-static on the sm_90 code of the objects the build made:
# every kernel within its register budget, no local memory (spills), 16-byte
# loads on the weight streams of the GEMVs and on copy/read, the static
# model's issue budget; and the check itself fails on the deliberately bad
# fixtures of tests/fixtures/cuda (a spill, a local array, 32-bit loads, a
# budget too tight or missing, a catalog that contradicts the GPU table).
# SKIP (exit 77, with the reason) where configure found no nvcc, or where
# cuobjdump, nvdisasm or c++filt is missing. No GPU is needed or used.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
NVCC=${CUDA_STATIC_NVCC:-}
NVCC_OPTFLAGS=${CUDA_STATIC_NVCCFLAGS:--O3 -std=c++17}
tool=$top_srcdir/scripts/cuda-static
fx=$top_srcdir/tests/fixtures/cuda
fail=0

check() {
    name=$1
    shift
    if "$@"; then echo "ok   - $name"; else echo "FAIL - $name"; fail=1; fi
}

if [ -z "$NVCC" ]; then
    echo "SKIP: configure found no nvcc (the static CUDA check needs the CUDA toolkit)"
    exit 77
fi
export NVCC
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump 2>/dev/null)}
[ -n "$CUOBJDUMP" ] || [ ! -x "$(dirname "$NVCC")/cuobjdump" ] || CUOBJDUMP=$(dirname "$NVCC")/cuobjdump
if [ -z "$CUOBJDUMP" ] || [ ! -x "$CUOBJDUMP" ]; then
    echo "SKIP: cuobjdump not found beside $NVCC nor on PATH (scripts/deps installs it)"
    exit 77
fi
export CUOBJDUMP
if ! PATH=$(dirname "$CUOBJDUMP"):$PATH command -v nvdisasm >/dev/null 2>&1; then
    echo "SKIP: nvdisasm (run by cuobjdump -sass) not found beside $CUOBJDUMP nor on PATH"
    exit 77
fi
if ! echo _Z1fv | c++filt >/dev/null 2>&1; then
    echo "SKIP: c++filt (binutils) not found"
    exit 77
fi
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT

# ---- the probe, as the build compiled it ----------------------------------
objs=
for f in kern_cuda probe_cuda probe_cuda_mat probe_cuda_lab; do
    objs="$objs $top_builddir/kernels/$f.o"
    check "$f.o was built" [ -f "$top_builddir/kernels/$f.o" ]
done
[ $fail -eq 0 ] || exit 1
if ! "$CUOBJDUMP" -lelf "$top_builddir/kernels/kern_cuda.o" | grep -q 'sm_90\.cubin'; then
    echo "SKIP: the build has no sm_90 code (NVCC_ARCH without compute_90/sm_90)"
    exit 77
fi
# shellcheck disable=SC2086
sh "$tool" -m $objs >"$t/probe" 2>&1
rc=$?
cat "$t/probe"
check "the probe's kernels are within budget (exit 0)" [ $rc -eq 0 ]
check "64 kernels checked" grep -q '^cuda-static: 64 kernels in 4 objects within budget' "$t/probe"
for k in k_copy k_read k_gemv_f16 'k_gemv_q<8,1>' 'k_gemv_q<4,1>' 'k_gemv_q<4,16>' 'k_quantize<4>' \
    'k_dequantize<8>' 'k_qstats<2>' k_amax k_fill_pattern k_fill_f16 k_mismatch k_matrix_scale; do
    check "$k checked" grep -q "^kern_cuda.o  *$k " "$t/probe"
done
for f in probe_cuda probe_cuda_mat probe_cuda_lab; do
    check "$f.o: host code only" grep -q "^$f.o .*no kernels" "$t/probe"
done
check "no fixture kernel in the probe" sh -c "! grep -q 'fx_' '$t/probe'"
# the tool enforces the counts (a whole unroll of the row's 16-byte
# accesses, narrow ones only for the scales); here: the rows say ok
for k in k_copy k_read k_gemv_f16 'k_gemv_q<8,1>' 'k_gemv_q<4,1>'; do
    check "$k: 16-byte stream, within budget" \
        grep -q "^kern_cuda.o  *$k  .* x[0-9][0-9]*  *[1-9][0-9]*  *[0-9][0-9]*  *[0-9.][0-9.]*  ok\$" "$t/probe"
done
# golden: the issue slots per 16 B of bandwidth from the data sheets
# (H100 SXM: 132 SMs x 128 lanes x 1.98 GHz x 16 B / 3.35 TB/s = 159.8;
# H200: the same over 4.8 TB/s = 111.5)
check "model: H100 SXM 159.8 slots per 16 B" grep -q 'h100-sxm .*3.35 TB/s -> 159.8 issue slots' "$t/probe"
check "model: H200 111.5 slots per 16 B" grep -q 'h200 .*4.80 TB/s -> 111.5 issue slots' "$t/probe"
check "model: a row for w4a16 at batch 1" grep -q '^k_gemv_q<4,1>  *w4a16 b=1 ' "$t/probe"
check "model: copy at bandwidth on both" grep -q '^k_copy .*at bandwidth .*at bandwidth' "$t/probe"

# ---- the check can fail ----------------------------------------------------
for f in good narrow spill; do
    # shellcheck disable=SC2086
    "$NVCC" $NVCC_OPTFLAGS -gencode arch=compute_90,code=sm_90 -c -o "$t/$f.o" "$fx/$f.cu" ||
        { echo "FAIL - nvcc $f.cu"; fail=1; }
done
# shellcheck disable=SC2086
"$NVCC" $NVCC_OPTFLAGS -gencode arch=compute_90,code=sm_90 -maxrregcount=16 -c \
    -o "$t/good16.o" "$fx/good.cu" || { echo "FAIL - nvcc good.cu -maxrregcount=16"; fail=1; }
# shellcheck disable=SC2086
"$NVCC" $NVCC_OPTFLAGS -gencode arch=compute_80,code=sm_80 -c -o "$t/good80.o" "$fx/good.cu" ||
    { echo "FAIL - nvcc good.cu for sm_80"; fail=1; }

# run NAME EXPECTED-STATUS PATTERN -- ARGS: the tool's status and a line
run() {
    name=$1 want=$2 pat=$3
    shift 4
    sh "$tool" "$@" >"$t/out" 2>&1
    got=$?
    if [ "$got" -eq "$want" ] && grep -q -- "$pat" "$t/out"; then
        echo "ok   - $name"
    else
        echo "FAIL - $name (status $got, want $want; no '$pat' in:)"
        sed 's/^/    /' "$t/out"
        fail=1
    fi
}
run "a good kernel passes" 0 'fx_gemv_good .* ok$' -- -b "$fx/budget.txt" "$t/good.o"
run "a dynamically indexed local array fails" 1 'fx_spill .*FAIL: local memory' -- \
    -b "$fx/budget.txt" "$t/spill.o"
run "register spills (-maxrregcount=16) fail" 1 'fx_gemv_good .*FAIL: local memory' -- \
    -b "$fx/budget.txt" "$t/good16.o"
run "32-bit loads on the weight stream fail" 1 'fx_gemv_narrow .*stream not 128 bits wide' -- \
    -b "$fx/budget.txt" "$t/narrow.o"
sed 's/^fx_gemv_good     32/fx_gemv_good     16/' "$fx/budget.txt" >"$t/regs.txt"
run "more registers than the budget fail" 1 'FAIL: [0-9]* registers, budget 16' -- \
    -b "$t/regs.txt" "$t/good.o"
sed 's/^\(fx_gemv_good .*\)144/\1 20/' "$fx/budget.txt" >"$t/i16.txt"
run "more instructions per 16 B than the budget fail" 1 'instructions per 16 B of the stream, budget 20' -- \
    -b "$t/i16.txt" "$t/good.o"
grep -v '^fx_gemv_good' "$fx/budget.txt" >"$t/none.txt"
run "a kernel without a budget row fails" 1 'FAIL: no budget row' -- -b "$t/none.txt" "$t/good.o"
run "the probe's table has no row for a fixture" 1 'fx_gemv_good .*FAIL: no budget row' -- "$t/good.o"
printf 'fx_gemv_good 32 2\n' >"$t/short.txt"
run "a malformed budget line is an error" 1 'budget line 1' -- -b "$t/short.txt" "$t/good.o"
sed '/^  - id: h200$/,/^  - id:/s/^      fp32: 67 TFLOPS/      fp32: 50 TFLOPS/' \
    "$top_srcdir/share/catalog/gpus.yaml" >"$t/gpus.yaml"
run "a catalog FP32 rate that contradicts the SM table fails" 1 \
    'h200: 132 SMs x 1980 MHz give 66.9 TFLOPS FP32, the catalog says 50.0' -- \
    -m -c "$t/gpus.yaml" -b "$fx/budget.txt" "$t/good.o"
run "an object without sm_90 code fails" 1 'good80.o: no sm_90 code' -- -b "$fx/budget.txt" \
    "$t/good80.o"
run "a missing object is a usage error" 2 'cannot read' -- "$t/absent.o"
exit $fail
