#!/bin/sh
# `plan --model-file` and `search --model-file` on safetensors files, sharded
# sets (model.safetensors.index.json) and Hugging Face folders written at
# test time: by our own writer (tests/safetensors_write.py, stdlib only) and,
# where it imports or installs, by the `safetensors` Python package of
# Hugging Face (other people's code), into a virtual environment kept in
# the build tree (VRAMLAB_TEST_NO_PIP=1: no install is tried).
# The golden rule: the weights equal the sum of the file's tensor sizes
# exactly, the parameters count a packed int32 word as 32/bits weights,
# and the KV cache equals 2 x layers x kv heads x head size x context x
# bytes from config.json. Broken files exit 3 with "PATH: byte N: what";
# missing shards are named; a directory without a model says so.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
VRAMLAB=$top_builddir/vramlab
W=$top_srcdir/tests/safetensors_write.py
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

# $1 path, $2 expected tensor bytes, $3 expected parameters, $4 a type that
# must be in the mix (its parameters are $5 when given): weights == bytes,
# KV golden (2 layers, 2 KV heads of 64, 4096 tokens, FP16), model.* keys.
golden() {
    "$VRAMLAB" plan --model-file "$1" --context 4096 --json >"$t/out.json" || return 1
    python3 - "$t/out.json" "$2" "$3" "$4" "${5:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want, params, typ, tparams = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
m = d["model"]
assert d["memory"]["weights"] == want, (d["memory"]["weights"], want)
assert m["bytes"] == want and m["format"] == "safetensors", m
assert sum(x["bytes"] for x in m["tensor_types"]) == want
assert m["parameters"] == params, (m["parameters"], params)
assert sum(x["parameters"] for x in m["tensor_types"]) == params
# KV = 2 x layers x kv heads x head size x context x 2 bytes (config.json)
assert d["memory"]["kv_cache"] == 2 * 2 * 2 * 64 * 4096 * 2, d["memory"]["kv_cache"]
types = {x["type"]: x for x in m["tensor_types"]}
assert typ in types, (typ, list(types))
if tparams:
    assert types[typ]["parameters"] == int(tparams), (types[typ], tparams)
for x in m["tensor_types"]:
    assert set(x) >= {"type", "tensors", "parameters", "bytes"}
assert "scenario" in d and "explain" in d and d["scenario"]["model"]
PY
}

# Parameters of the linears (7 per layer, 2 layers): what a packed type holds.
LIN=$(( 2 * (256*256 + 128*256 + 128*256 + 256*256 + 3*512*256) ))

for kind in folder sharded gptq awq ct fp8; do
    set -- $(python3 "$W" $kind "$t/$kind") || { echo "FAIL - writer $kind"; fail=1; continue; }
    eval "${kind}_bytes=$1 params=$2"
done
check "folder: weights = sum of tensor sizes, KV from config.json" golden "$t/folder" "$folder_bytes" "$params" BF16
check "a lone model.safetensors beside config.json" golden "$t/folder/model.safetensors" "$folder_bytes" "$params" BF16
check "config.json given: its folder" golden "$t/folder/config.json" "$folder_bytes" "$params" BF16
check "sharded set through its index" golden "$t/sharded/model.safetensors.index.json" "$sharded_bytes" "$params" BF16
check "sharded folder" golden "$t/sharded" "$sharded_bytes" "$params" BF16
check "one shard stands for its set" golden "$t/sharded/model-00002-of-00002.safetensors" "$sharded_bytes" "$params" BF16
check "GPTQ: an int32 qweight counts 8 weights; scales, zeros, g_idx none" golden "$t/gptq" "$gptq_bytes" "$params" GPTQ_INT4_G64 "$LIN"
check "AWQ export" golden "$t/awq" "$awq_bytes" "$params" AWQ_INT4_G64 "$LIN"
check "compressed-tensors pack-quantized" golden "$t/ct" "$ct_bytes" "$params" INT4_G64 "$LIN"
check "FP8 with block scales" golden "$t/fp8" "$fp8_bytes" "$params" F8_E4M3 "$LIN"
check "text shows the type mix and the quantization" sh -c "'$VRAMLAB' plan --model-file '$t/gptq' | grep -q 'gptq 4-bit, group 64.*GPTQ_INT4_G64 55%.*bits per weight'"
check "text names the shards" sh -c "'$VRAMLAB' plan --model-file '$t/sharded' | grep -q 'safetensors, 2 shards, llama'"
check "bits per weight: bytes x 8 / parameters" sh -c "'$VRAMLAB' plan --model-file '$t/folder' | grep -q 'BF16 100%; 16.00 bits per weight'"
check "pipeline stages use the file's bytes" sh -c "'$VRAMLAB' plan --model-file '$t/sharded' --pp 2 --json >/dev/null"
check "search takes a folder" sh -c "'$VRAMLAB' search --model-file '$t/gptq' --gpus 2 >/dev/null"

# Per layer: two pipeline stages split the layers' exact bytes; the first
# holds the embedding, the last the head (engine's stage rule), and each
# stage's weights are at most the whole.
pp_split() {
    "$VRAMLAB" plan --model-file "$t/folder" --pp 2 --json >"$t/pp.json" || return 1
    python3 - "$t/pp.json" "$folder_bytes" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); whole = int(sys.argv[2])
w = d["memory"]["weights"]
assert 0 < w < whole, (w, whole)
PY
}
check "PP 2: a stage holds part of the file's bytes" pp_split

# Quantization from AutoGPTQ's quantize_config.json when config.json has none.
mkdir -p "$t/gptq2" && cp "$t/gptq/model.safetensors" "$t/gptq2/" &&
python3 - "$t/gptq/config.json" "$t/gptq2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); q = c.pop("quantization_config"); q.pop("quant_method")
json.dump(c, open(sys.argv[2] + "/config.json", "w")); json.dump(q, open(sys.argv[2] + "/quantize_config.json", "w"))
PY
check "quantize_config.json gives the bits" golden "$t/gptq2" "$gptq_bytes" "$params" GPTQ_INT4_G64 "$LIN"
# No quantization config at all: the bits come from qweight and g_idx shapes.
mkdir -p "$t/gptq3" && cp "$t/gptq/model.safetensors" "$t/gptq2/config.json" "$t/gptq3/"
check "no quantization config: bits from the shapes" golden "$t/gptq3" "$gptq_bytes" "$params" GPTQ_INT4

# Only headers are read: a 60 GiB sparse data section (no disk used) plans
# at once; reading it would take minutes, and the test's limit stops it.
sparse() {
    python3 - "$t/huge" <<'PY' || return 1
import json, os, struct, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
src = json.load(open(os.path.join(os.path.dirname(d), "folder", "config.json")))
json.dump(src, open(os.path.join(d, "config.json"), "w"))
n = 30 << 30  # BF16 elements: 60 GiB, fits one 80 GB GPU
h = json.dumps({"model.layers.0.mlp.up_proj.weight": {"dtype": "BF16", "shape": [n], "data_offsets": [0, 2 * n]}}).encode()
with open(os.path.join(d, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h))); f.write(h); f.truncate(8 + len(h) + 2 * n)
PY
    timeout 60 "$VRAMLAB" plan --model-file "$t/huge" --json >"$t/huge.json" &&
        python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['memory']['weights'] == 60 << 30" "$t/huge.json"
}
check "a 60 GiB file: only its header is read" sparse

# A folder with one GGUF file and no safetensors is that file.
mkdir -p "$t/ggdir" && gb=$(python3 "$top_srcdir/tests/gguf_write.py" "$t/ggdir/tiny-Q4_K_M.gguf" q4km | cut -d' ' -f1)
ggdir() {
    "$VRAMLAB" plan --model-file "$t/ggdir" --json >"$t/gg.json" &&
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['model']['format'] == 'gguf' and d['memory']['weights'] == int(sys.argv[2]), d['model']" "$t/gg.json" "$gb"
}
check "a folder holding one GGUF file" ggdir

# Broken files and folders: exit 3, the file and what was wrong.
notfile() {
    "$VRAMLAB" plan --model-file "$1" >/dev/null 2>"$t/err"
    rc=$?
    [ $rc -eq 3 ] && grep -q -- "$2" "$t/err" || { echo "  rc=$rc: $(cat "$t/err")"; return 1; }
}
cp -r "$t/sharded" "$t/missing" && rm "$t/missing/model-00002-of-00002.safetensors"
check "missing shards are named" notfile "$t/missing" "1 of 2 shards is missing: model-00002-of-00002.safetensors"
mkdir -p "$t/patt" && cp "$t/sharded/model-00001-of-00002.safetensors" "$t/sharded/config.json" "$t/patt/"
check "missing shards without an index, by their names" notfile "$t/patt" "missing: model-00002-of-00002.safetensors"
mkdir -p "$t/empty"
check "a directory without a model says so" notfile "$t/empty" "no model in this directory"
mkdir -p "$t/noconfig" && cp "$t/folder/model.safetensors" "$t/noconfig/"
check "safetensors without config.json" notfile "$t/noconfig" "no config.json"
cp -r "$t/sharded" "$t/badindex" && printf '{"weight_map": {"a": "../x.safetensors"}}' >"$t/badindex/model.safetensors.index.json"
check "an index naming a file elsewhere" notfile "$t/badindex" "model.safetensors.index.json: byte 21: tensor 'a': shard"
printf '{"weight_map": {"a": "model-00001-of-00002.safetensors",}}' >"$t/badindex/model.safetensors.index.json"
check "an index that is bad JSON" notfile "$t/badindex" "index.json: byte [0-9]*: JSON syntax"
printf '{"weight_map": {"nope": "model-00001-of-00002.safetensors"}}' >"$t/badindex/model.safetensors.index.json"
check "an index naming a tensor its shard lacks" notfile "$t/badindex" "tensor 'nope': the index puts it in model-00001-of-00002.safetensors"
cp -r "$t/sharded" "$t/dup2" && cp "$t/dup2/model-00001-of-00002.safetensors" "$t/dup2/model-00002-of-00002.safetensors"
printf '{"weight_map": {}}' >"$t/dup2/model.safetensors.index.json"
check "an empty weight_map" notfile "$t/dup2" "weight_map is empty"
rm "$t/dup2/model.safetensors.index.json"
check "a tensor in two shards" notfile "$t/dup2" "appears twice: also in model-0000"

bad() {
    kind=$1 what=$2
    mkdir -p "$t/bad" && cp "$t/folder/config.json" "$t/bad/"
    python3 "$W" bad "$t/bad/$kind.safetensors" "$kind"
    "$VRAMLAB" plan --model-file "$t/bad/$kind.safetensors" >/dev/null 2>"$t/err"
    rc=$?
    [ $rc -eq 3 ] && grep -q "$t/bad/$kind.safetensors: byte [0-9]*: .*$what" "$t/err" ||
        { echo "  rc=$rc: $(cat "$t/err")"; return 1; }
}
check "header length past the end" bad hdrlen "runs past the end of the file"
check "truncated header" bad truncated "runs past the end"
check "bad JSON" bad badjson "JSON syntax"
check "unknown dtype" bad dtype "unknown dtype 'Q4_K'"
check "overlapping offsets" bad overlap "overlaps tensor 'a'"
check "data outside the file" bad outside "past the end of the file"
check "duplicate tensor" bad dup "appears twice"
check "nesting past the limit" bad deep "nested more than 64 deep"
check "shape overflows" bad overflow "overflows"
check "shape disagrees with the offsets" bad mismatch "give 24 bytes but data_offsets span 16"
check "header not an object" bad notobject "must be a JSON object"
mkfifo "$t/bad/pipe.safetensors"
check "a FIFO is refused, unopened" notfile "$t/bad/pipe.safetensors" "FIFO"

# The safetensors package (Hugging Face) writes the same models: use it
# where it imports, else install it into a venv kept in the build tree, or
# at $VRAMLAB_TEST_VENV (.ci/run: one for both of its builds; a lock, where
# flock exists, lets one test install it while another waits).
PY=python3
if ! HOME=$REALHOME python3 -c "import safetensors.numpy, numpy" 2>/dev/null; then
    venv=${VRAMLAB_TEST_VENV:-$top_builddir/tests/st-venv}
    make_venv() {
        if [ ! -x "$venv/bin/python" ] && [ -z "${VRAMLAB_TEST_NO_PIP:-}" ]; then
            { python3 -m venv "$venv" &&
                timeout 300 "$venv/bin/python" -m pip install -q --retries 0 --timeout 20 \
                    safetensors numpy; } >/dev/null 2>&1 || rm -rf "$venv"
        fi
    }
    mkdir -p "$(dirname "$venv")"
    if command -v flock >/dev/null 2>&1; then
        exec 8>"$venv.lock"
        flock 8
        make_venv
        flock -u 8
        exec 8>&-
    else
        make_venv
    fi
    PY=$venv/bin/python
fi
if HOME=$REALHOME "$PY" -c "import safetensors.numpy, numpy" 2>/dev/null; then
    pkg() { # $1 dir, $2 kind (plain, sharded, gptq): prints the bytes the package reads back
        HOME=$REALHOME "$PY" - "$@" "$W" <<'PY'
import json, os, sys, importlib.util
import numpy as np
from safetensors.numpy import save_file
from safetensors import safe_open
d, kind, w = sys.argv[1], sys.argv[2], sys.argv[3]
spec = importlib.util.spec_from_file_location("sw", w); sw = importlib.util.module_from_spec(spec); spec.loader.exec_module(sw)
np_t = {"F16": np.float16, "I32": np.int32, "F32": np.float32}
lin = sw.gptq_linear if kind == "gptq" else None
tensors = [(n, dt, s) for n, dt, s in sw.llama("F16", lin)]
extra = {"quantization_config": sw.QUANT["gptq"][2]} if kind == "gptq" else None
os.makedirs(d, exist_ok=True)
json.dump(sw.config(extra, "float16"), open(os.path.join(d, "config.json"), "w"))
parts = [tensors[:len(tensors) // 2], tensors[len(tensors) // 2:]] if kind == "sharded" else [tensors]
wm, files = {}, []
for i, part in enumerate(parts):
    name = "model-%05d-of-%05d.safetensors" % (i + 1, len(parts)) if len(parts) > 1 else "model.safetensors"
    save_file({n: np.zeros(s, dtype=np_t[dt]) for n, dt, s in part}, os.path.join(d, name), metadata={"format": "pt"})
    files.append(name); wm.update({n: name for n, _, _ in part})
if len(parts) > 1:
    json.dump({"metadata": {}, "weight_map": wm}, open(os.path.join(d, "model.safetensors.index.json"), "w"))
total = 0
for name in files:
    with safe_open(os.path.join(d, name), framework="np") as f:
        for k in f.keys():
            a = f.get_tensor(k); total += a.nbytes
print(total)
PY
    }
    b=$(pkg "$t/pkg" plain) && check "safetensors package: weights = the bytes it reads back" golden "$t/pkg" "$b" "$params" F16
    b=$(pkg "$t/pkgs" sharded) && check "safetensors package: a sharded set" golden "$t/pkgs" "$b" "$params" F16
    b=$(pkg "$t/pkgq" gptq) && check "safetensors package: a GPTQ-like export" golden "$t/pkgq" "$b" "$params" GPTQ_INT4_G64 "$LIN"
    check "safetensors package and own writer agree (GPTQ)" [ "$b" = "$gptq_bytes" ]
else
    echo "note: the safetensors Python package is missing and could not be installed; its fixtures are not written"
fi
exit $fail
