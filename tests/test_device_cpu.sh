#!/bin/sh
# --device cpu (issue 26): this machine's CPU as the device of plan and
# bench, its rates measured, driven by the fake CPU probe
# (tests/fixtures/probe/fake-cpu.sh through VRAMLAB_PROBE: w4a16 at 8.0
# GB/s of a 4096 x 8192 W in 18,907,136 bytes, so 14.2e9 weights/s; w8a16
# 8.5 GB/s in 35,684,352 bytes; FP16 at batch 1, 4 and 16; read 10.5 GB/s;
# FMA peak 180 GFLOP/s). Without a saved measurement the first plan
# measures (and saves); the next one reads it. The core-bound ceiling is
# checked against its formula with the fake rates: W / rate for a
# catalogue format, the sum over the width classes of a model file's
# tensors for a file; decode is the lowest ceiling; prefill's compute runs
# at the cores' dot rate; explain names the kernels and their rates.
# Errors: another device value, --device with --gpu or --gpus, a broken
# saved file. No timing: the rates are the fake probe's.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)
fail=0
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
XDG_STATE_HOME=$t/state XDG_CONFIG_HOME=$t/config HOME=$t/home
export XDG_STATE_HOME XDG_CONFIG_HOME HOME
[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }

. "${top_srcdir:-.}/tests/check_lib.sh"
run() { # args... -> $t/out, $t/err, $rc
    VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" "$@" >"$t/out" 2>"$t/err"
    rc=$?
}
# py EXPR: a Python expression over the plan JSON p (and math)
py() {
    python3 -c 'import json,math,sys; p=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$t/out" "$1"
}

SAVED=$t/state/vramlab/measure-cpu.json
run plan --device cpu --model llama-3.1-8b --format q4-k --batch 1 --prompt 512 --json
check "no saved measurement: measured now, exit 0" [ "$rc" -eq 0 ]
check "it says so on stderr" grep -q "no saved measurement; measuring this CPU (at most 10 s" "$t/err"
check "and saves it" [ -s "$SAVED" ]
check "the device is this machine's CPU" [ "$(py 'p["scenario"]["gpu"]')" = cpu ]
py '(p["decode"], p["prefill"])' >"$t/first"
run plan --device cpu --model llama-3.1-8b --format q4-k --batch 1 --prompt 512 --json
check "saved: read, not measured again" [ ! -s "$t/err" ]
py '(p["decode"], p["prefill"])' >"$t/second"
check "saved: the same figures" cmp -s "$t/first" "$t/second"

# the core-bound ceiling of a catalogue format (Q4_K, 4.5 bits: the 4-bit
# class): the weights a token dots (active less the untied embedding
# 128,256 x 4,096) over the probe's 4-bit rate with x in 8 bits (w4a8:
# what CPU runtimes run; the fake probe's weights_per_s 15.97e9)
W4=15.97e9
check "core-bound = w4a8's weights/s / dotted weights" [ "$(py "abs(p['decode']['tokens_per_s_core_bound'] - $W4 / (p['params']['active'] - 128256 * 4096)) < 1e-9 * p['decode']['tokens_per_s_core_bound']")" = True ]
check "decode is the lowest ceiling" [ "$(py "p['decode']['tokens_per_s'] == min(p['decode']['tokens_per_s_memory_bound'], p['decode']['tokens_per_s_compute_bound'], p['decode']['tokens_per_s_core_bound'])")" = True ]
check "the memory-bound ceiling uses the read bandwidth" [ "$(py "p['decode']['bandwidth_bytes_per_s'] == 10.5e9")" = True ]
check "the FMA peak is the compute peak" [ "$(py "p['decode']['peak_flop_per_s'] == 180e9")" = True ]
check "explain names the kernel and its rate" [ "$(py "'(w4a8, measured at batch 1, 2 threads)' in p['explain']['decode.tokens_per_s_core_bound']['values'] and 'at 16.0B weights/s' in p['explain']['decode.tokens_per_s_core_bound']['values']")" = True ]
# prefill: one step of 512 (plain), compute at min(FMA peak, 2 x 15.97e9 x 1)
check "prefill's compute runs at the cores' dot rate" [ "$(py "'the cores\\' measured dot rate 31.9 GFLOP/s' in p['explain']['prefill.seconds']['values']")" = True ]
# a probe without the A8 kernels (older): the A16 rate, w4a16's
# 8.0e9 B/s x 4096 x 8192 / 18,907,136 B = 14.2e9 weights/s
W4A16=$(python3 -c 'print(8.0e9 * 4096 * 8192 / 18907136)')
XDG_STATE_HOME=$t/state-a16 FAKE_PROBE_REFUSE_A8=1 VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" plan \
    --device cpu --model llama-3.1-8b --format q4-k --batch 1 --prompt 512 --json >"$t/out" 2>"$t/err"
rc=$?
check "no A8 kernels: exit 0" [ "$rc" -eq 0 ]
check "no A8 kernels: core-bound = w4a16's weights/s / dotted weights" [ "$(py "abs(p['decode']['tokens_per_s_core_bound'] - $W4A16 / (p['params']['active'] - 128256 * 4096)) < 1e-9 * p['decode']['tokens_per_s_core_bound']")" = True ]
check "no A8 kernels: explain names w4a16" [ "$(py "'(w4a16, measured at batch 1, 2 threads)' in p['explain']['decode.tokens_per_s_core_bound']['values']")" = True ]
run plan --device cpu --model llama-3.1-8b --format q4-k --batch 1 --prompt 512 --json
check "capacity is the memory available" [ "$(py "0 < p['capacity'] <= $(awk '/MemTotal/ {print $2 * 1024}' /proc/meminfo)")" = True ]

# a model file: its tensors by width (Q4_K 4.5 bits: the 4-bit class;
# Q6_K 6.56 and Q8_0 8.5: the 8-bit class; F16: FP16), each at its rate
python3 "$top_srcdir/tests/gguf_write.py" "$t/q4km.gguf" q4km >/dev/null
run plan --device cpu --model-file "$t/q4km.gguf" --batch 1 --json
check "a model file: exit 0" [ "$rc" -eq 0 ]
check "a model file: the sum over its width classes" [ "$(python3 - "$t/out" "$t/q4km.gguf" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
# rates of the fake probe: the A8 kernels' weights_per_s (4 and 8 bits);
# FP16's weights/s = bytes/s x rows x cols / bytes
r4 = 15.97e9
r8 = 8.745e9
r16 = 8.9e9 * 4096 * 8192 / 67141632
w = {4: 0.0, 8: 0.0, 16: 0.0}
for ty in p["model"]["tensor_types"]:
    bits = ty["bytes"] * 8 / ty["parameters"]
    w[4 if bits < 6 else 8 if bits < 12 else 16] += ty["parameters"]
total = sum(w.values())
dot = p["params"]["active"] - 512 * 256  # untied: the embedding is a lookup
step = dot * (w[4] / total / r4 + w[8] / total / r8 + w[16] / total / r16)
got = p["decode"]["tokens_per_s_core_bound"]
print(abs(got - 1 / step) < 1e-9 * got)
PY
)" = True ]

# llama.cpp's own kernels (vramlab-ggml) time a GGUF file's matrices: a
# ggml build found (VRAMLAB_GGML_DIR), the fake program's rates ((t + 1) x
# 1e9 weights/s at batch 1 for GGUF type t) make each width class's rate
# its matrices' weights over their seconds; the shares stay the file's.
mkdir -p "$t/ggml"
: >"$t/ggml/libggml-cpu.so"
: >"$t/ggml/libggml-base.so"
GG="VRAMLAB_GGML_DIR=$t/ggml VRAMLAB_GGML_PROBE=$FIX/fake-ggml.sh FAKE_GGML_LOG=$t/ggml.log"
env $GG VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" plan --device cpu --model-file "$t/q4km.gguf" \
    --batch 1 --json >"$t/out" 2>"$t/err"
rc=$?
check "llama.cpp's kernels: exit 0" [ "$rc" -eq 0 ]
check "llama.cpp's kernels: the file given" grep -q -- "--file $t/q4km.gguf " "$t/ggml.log"
# the matrices: the head (Q6_K, marked :1: a prompt multiplies it for one
# token), then each layer's q k v o gate up down
# (GGUF types 12 Q4_K, 14 Q6_K, 8 Q8_0, 1 F16; the embedding is not one),
# each at a byte of the file's data, in order and within the file
check "llama.cpp's kernels: each matrix of the file, in order, at its byte" [ "$(python3 - "$t/ggml.log" "$t/q4km.gguf" <<'PY'
import os, sys
mats = open(sys.argv[1]).read().split("--mat ")[1].split()[0].split(",")
types = [int(m.split(":")[0]) for m in mats]
offs = [int(m.split(":")[3]) for m in mats]
head = [m.endswith(":1") and m.count(":") == 4 for m in mats]
want = [14] + [12, 12, 14, 12, 12, 12, 14] + [12, 12, 8, 12, 12, 1, 12]
print(types == want and offs == sorted(offs) and offs[-1] < os.path.getsize(sys.argv[2])
      and head == [True] + [False] * 14)
PY
)" = True ]
check "llama.cpp's kernels: with the probe's threads, at batches 1, 2, 16 and 512" \
    grep -q -- "--threads 2 --batches 1,2,16,512" "$t/ggml.log"
check "llama.cpp's kernels: the core-bound from their rates" [ "$(python3 - "$t/out" "$t/ggml.log" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
mats = open(sys.argv[2]).read().split("--mat ")[1].split()[0]
# GGUF types: 12 Q4_K (4.5 bits: the 4-bit class), 14 Q6_K and 8 Q8_0
# (the 8-bit class), 1 F16
cls = {12: 4, 14: 8, 8: 8, 1: 16}
w = {4: 0.0, 8: 0.0, 16: 0.0}
sec = {4: 0.0, 8: 0.0, 16: 0.0}
for m in mats.split(","):
    t, rows, cols, off = (int(x) for x in m.split(":")[:4])
    w[cls[t]] += rows * cols
    sec[cls[t]] += rows * cols / ((t + 1) * 1e9)
share = {4: 0.0, 8: 0.0, 16: 0.0}
for ty in p["model"]["tensor_types"]:
    bits = ty["bytes"] * 8 / ty["parameters"]
    share[4 if bits < 6 else 8 if bits < 12 else 16] += ty["parameters"]
total = sum(share.values())
dot = p["params"]["active"] - 512 * 256
step = sum(share[k] / total * dot / (w[k] / sec[k]) for k in (4, 8, 16) if share[k] > 0)
got = p["decode"]["tokens_per_s_core_bound"]
print(abs(got - 1 / step) < 1e-9 * got)
PY
)" = True ]
check "llama.cpp's kernels: explain names them" [ "$(py "'(llama.cpp Q4_K, measured at batch 1, 2 threads)' in p['explain']['decode.tokens_per_s_core_bound']['values'] and '(llama.cpp Q6_K, measured at batch 1' in p['explain']['decode.tokens_per_s_core_bound']['values']")" = True ]
check "llama.cpp's kernels: prefill at their batch-512 rate" [ "$(py "'the cores\\' measured dot rate' in p['explain']['prefill.seconds']['values']")" = True ]
check "llama.cpp's kernels: saved" sh -c "ls '$t/state/vramlab/'ggml-*.json >/dev/null"
cp "$t/out" "$t/first"
env $GG FAKE_GGML_FAIL=1 VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" plan --device cpu \
    --model-file "$t/q4km.gguf" --batch 1 --json >"$t/out" 2>"$t/err"
check "llama.cpp's kernels saved: read, not timed again" [ "$(py "p['decode']" )" = "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["decode"])' "$t/first")" ]
check "llama.cpp's kernels saved: nothing said" [ ! -s "$t/err" ]
# a ggml that does not load (nothing saved in another state directory):
# the probe's kernels stand in, and it says why
env $GG FAKE_GGML_FAIL=1 XDG_STATE_HOME=$t/state-fail VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" \
    plan --device cpu --model-file "$t/q4km.gguf" --batch 1 --json >"$t/out" 2>"$t/err"
rc=$?
check "ggml fails: exit 0" [ "$rc" -eq 0 ]
check "ggml fails: says the probe's kernels stand in, and why" \
    grep -q "the probe's kernels stand for llama.cpp's: .*invalid ELF header" "$t/err"
check "ggml fails: the probe's kernels in explain" [ "$(py "'(w4a8, measured at batch 1' in p['explain']['decode.tokens_per_s_core_bound']['values']")" = True ]
VRAMLAB_GGML_DIR=$t/nothing-here VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" plan --device cpu \
    --model-file "$t/q4km.gguf" --batch 1 --json >"$t/out" 2>"$t/err"
check "VRAMLAB_GGML_DIR without ggml: said" grep -q "VRAMLAB_GGML_DIR=$t/nothing-here has no libggml-cpu.so" "$t/err"

# errors
run plan --device gpu
check "--device gpu: exit 2" [ "$rc" -eq 2 ]
check "--device gpu: what is allowed" grep -q -- "--device: expected cpu (a GPU is --gpu ID), found 'gpu'" "$t/err"
run plan --device cpu --gpu h100-sxm
check "--device cpu --gpu: exit 2" [ "$rc" -eq 2 ]
check "--device cpu --gpu: one device" grep -q -- "--device cpu and --gpu: one device" "$t/err"
run plan --device cpu --gpus 2
check "--device cpu --gpus 2: exit 2" [ "$rc" -eq 2 ]
printf '{"device": {"backend": "cuda"}, "results": []}\n' >"$SAVED"
run plan --device cpu
check "a saved file of another device: exit 4" [ "$rc" -eq 4 ]
check "a saved file of another device: the path and why" grep -q "measure-cpu.json: not a measurement of a CPU" "$t/err"
printf '{"device": ' >"$SAVED"
run plan --device cpu
check "a broken saved file: exit 4" [ "$rc" -eq 4 ]
check "a broken saved file: the path, the line" grep -q "measure-cpu.json: line 1:" "$t/err"

# vramlab measure on a CPU saves for --device cpu (the same object as --json)
rm -f "$SAVED"
VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" measure --device cpu --json >"$t/m.json" 2>/dev/null
check "measure --device cpu saves its --json object" cmp -s "$t/m.json" "$SAVED"
VRAMLAB_PROBE=$FIX/fake-error.sh "$VRAMLAB" measure --device cpu --json >/dev/null 2>&1
check "a failed run does not replace it" cmp -s "$t/m.json" "$SAVED"
exit $fail
