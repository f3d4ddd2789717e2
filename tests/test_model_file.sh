#!/bin/sh
# `plan --model-file` and `search --model-file` on GGUF files written at
# test time: by our own writer (tests/gguf_write.py, struct only) and, where
# it can be imported, by the `gguf` Python package of the llama.cpp project
# (other people's code). The golden rule: the weights equal the sum of the
# file's tensor sizes exactly, and the KV cache equals
# 2 x layers x kv heads x head size x context x bytes from the metadata.
# Broken files exit 3 with "PATH: byte N: what"; a FIFO is refused unopened
# (the test would hang otherwise), /dev/zero is not "a directory".
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
VRAMLAB=$top_builddir/vramlab
W=$top_srcdir/tests/gguf_write.py
fail=0
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
REALHOME=${HOME:-/}
XDG_CONFIG_HOME=$t/xdg HOME=$t/home
export XDG_CONFIG_HOME HOME
check() {
    name=$1
    shift
    if "$@"; then echo "ok   - $name"; else echo "FAIL - $name"; fail=1; fi
}
[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is needed to write the files"; exit 77; }

# $1 file, $2 expected tensor bytes: weights == bytes, KV golden (2 layers,
# 2 KV heads of 64, 4096 tokens, FP16), model.* keys present.
golden() {
    "$VRAMLAB" plan --model-file "$1" --context 4096 --json >"$t/out.json" || return 1
    python3 - "$t/out.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
m = d["model"]
assert d["memory"]["weights"] == want, (d["memory"]["weights"], want)
assert m["bytes"] == want
assert sum(x["bytes"] for x in m["tensor_types"]) == want
assert d["memory"]["kv_cache"] == 2 * 2 * 2 * 64 * 4096 * 2, d["memory"]["kv_cache"]
assert m["file"].endswith(".gguf") and m["format"] == "gguf"
for x in m["tensor_types"]:
    assert set(x) >= {"type", "tensors", "parameters", "bytes"}
# existing keys are kept
assert "scenario" in d and "explain" in d and d["scenario"]["model"]
PY
}

set -- $(python3 "$W" "$t/own.gguf" q4km)
own_bytes=$1
check "own writer: weights = sum of tensor sizes, KV = 2 L kv d ctx bytes" golden "$t/own.gguf" "$own_bytes"
check "text shows the type mix" sh -c "'$VRAMLAB' plan --model-file '$t/own.gguf' | grep -q 'Q4_K 50%.*bits per weight'"
check "pipeline stages use the file's bytes" sh -c "'$VRAMLAB' plan --model-file '$t/own.gguf' --pp 2 --json >/dev/null"
check "search takes --model-file" sh -c "'$VRAMLAB' search --model-file '$t/own.gguf' --gpus 2 >/dev/null"
check "exclusive with --model" sh -c "'$VRAMLAB' plan --model-file '$t/own.gguf' --model llama-3.1-8b 2>/dev/null; [ \$? -eq 2 ]"

# The gguf package (llama.cpp's gguf-py) writes the same model.
if HOME=$REALHOME python3 -c "import gguf, numpy" 2>/dev/null; then
    pkg_bytes=$(HOME=$REALHOME python3 - "$t/pkg.gguf" <<'PY'
import sys
import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q
w = gguf.GGUFWriter(sys.argv[1], "llama")
w.add_name("Tiny (gguf-py)")
w.add_block_count(2)
w.add_embedding_length(256)
w.add_feed_forward_length(512)
w.add_head_count(4)
w.add_head_count_kv(2)
w.add_context_length(8192)
w.add_vocab_size(512)
def q(name, shape, t):
    # raw bytes of a quantized tensor: rows x (cols / block x bytes per block)
    blk, size = gguf.GGML_QUANT_SIZES[t]
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    raw = np.zeros((rows, shape[-1] // blk * size), dtype=np.uint8)
    w.add_tensor(name, raw, raw_dtype=t)
q("token_embd.weight", (512, 256), Q.Q4_K)
q("output.weight", (512, 256), Q.Q6_K)
w.add_tensor("output_norm.weight", np.ones(256, dtype=np.float32))
for i in range(2):
    b = "blk.%d." % i
    w.add_tensor(b + "attn_norm.weight", np.ones(256, dtype=np.float32))
    w.add_tensor(b + "ffn_norm.weight", np.ones(256, dtype=np.float32))
    q(b + "attn_q.weight", (256, 256), Q.Q4_K)
    q(b + "attn_k.weight", (128, 256), Q.Q4_K)
    q(b + "attn_v.weight", (128, 256), Q.Q6_K if i == 0 else Q.Q8_0)
    q(b + "attn_output.weight", (256, 256), Q.Q4_K)
    q(b + "ffn_gate.weight", (512, 256), Q.Q4_K)
    if i == 0:
        q(b + "ffn_up.weight", (512, 256), Q.Q4_K)
    else:
        w.add_tensor(b + "ffn_up.weight", np.zeros((512, 256), dtype=np.float16))
    q(b + "ffn_down.weight", (256, 512), Q.Q6_K if i == 0 else Q.Q4_K)
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
r = gguf.GGUFReader(sys.argv[1])
print(sum(int(t.n_bytes) for t in r.tensors))
PY
) && check "gguf package: weights = the sizes GGUFReader reports" golden "$t/pkg.gguf" "$pkg_bytes"
    check "gguf package and own writer agree" [ "$pkg_bytes" = "$own_bytes" ]
else
    echo "note: the gguf Python package is missing; its fixture is not written"
fi

# Hostile files: exit 3, the file and a byte named, and what was wrong.
bad() {
    kind=$1 what=$2
    python3 "$W" "$t/$kind.gguf" "$kind" >/dev/null
    "$VRAMLAB" plan --model-file "$t/$kind.gguf" >/dev/null 2>"$t/err"
    rc=$?
    [ $rc -eq 3 ] && grep -q "$t/$kind.gguf: byte [0-9]*: .*$what" "$t/err" ||
        { echo "  rc=$rc: $(cat "$t/err")"; return 1; }
}
check "truncated file" bad truncated "past the end"
check "string length past the end" bad strlen "runs past the end"
check "array bomb" bad bomb "array of 1152921504606846976"
check "nested arrays" bad deep "nested more than"
check "unknown tensor type" bad badtype "unknown ggml tensor type 77"
check "dimensions overflow" bad overflow "overflows"
check "duplicate tensor" bad dup "appears twice"
check "overlapping data" bad overlap "overlap"
check "data outside the file" bad outside "past the end of the file"

notfile() {
    "$VRAMLAB" plan --model-file "$1" >/dev/null 2>"$t/err"
    rc=$?
    [ $rc -eq 3 ] && grep -q "$2" "$t/err" || { echo "  rc=$rc: $(cat "$t/err")"; return 1; }
}
mkfifo "$t/pipe.gguf"
check "a FIFO is refused, unopened" notfile "$t/pipe.gguf" "FIFO"
check "/dev/zero is a character device" notfile /dev/zero "character device"
check "/dev/zero is not called a directory" sh -c "! '$VRAMLAB' plan --model-file /dev/zero 2>&1 | grep -q directory"
check "a missing file" notfile "$t/none.gguf" "No such file"
exit $fail
