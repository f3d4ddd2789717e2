#!/bin/sh
# `vramlab quantize` on small safetensors files written here (python3's
# struct module, no numpy): the text and --json reports, the contract keys,
# per group versus per matrix on a planted 13-sigma outlier (seed 000), and
# broken files rejected with a message naming the tensor.
set -u
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
fail=0
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
check() {
    name=$1
    shift
    if "$@"; then echo "ok   - $name"; else echo "FAIL - $name"; fail=1; fi
}
[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is needed to write the files"; exit 77; }

python3 - "$t" <<'PY'
import json, math, random, struct, sys
d = sys.argv[1]
random.seed(0)

def f16(x):
    return struct.pack("<e", x)

def bf16(x):
    return struct.pack("<f", x)[2:]

def write(name, tensors, header_override=None, tail=b""):
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for tname, dtype, shape, raw in tensors:
        header[tname] = {"dtype": dtype, "shape": shape,
                         "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header if header_override is None else header_override).encode()
    open(f"{d}/{name}", "wb").write(struct.pack("<Q", len(h)) + h + data + tail)

sd = 0.02
gauss = [random.gauss(0, sd) for _ in range(64 * 256)]
outl = list(gauss)
outl[1000] = 13 * sd  # the seed's median matrix: outliers up to 13 sd
write("good.safetensors", [
    ("layers.0.mlp.weight", "F16", [64, 256], b"".join(f16(x) for x in outl)),
    ("layers.0.attn.weight", "F32", [32, 128], b"".join(struct.pack("<f", x) for x in gauss[:4096])),
    ("layers.0.ln.weight", "F32", [256], struct.pack("<256f", *([1.0] * 256))),
    ("layers.1.w", "BF16", [16, 64], b"".join(bf16(x) for x in gauss[:1024])),
    ("positions", "I64", [2, 4], struct.pack("<8q", *range(8))),
])
write("bad-offsets.safetensors", [], header_override={
    "evil.weight": {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, 64]}})
write("bad-dtype.safetensors", [("odd.weight", "Q4_K", [2, 2], b"\0" * 4)], header_override={
    "odd.weight": {"dtype": "Q4_K", "shape": [2, 2], "data_offsets": [0, 4]}}, tail=b"\0" * 4)
write("bad-shape.safetensors", [], header_override={
    "huge.weight": {"dtype": "F16", "shape": [2**40, 2**40], "data_offsets": [0, 8]}},
    tail=b"\0" * 8)
write("only-1d.safetensors", [
    ("ln.weight", "F32", [256], struct.pack("<256f", *([1.0] * 256))),
])
open(f"{d}/bad-length.safetensors", "wb").write(struct.pack("<Q", 10**6) + b"{}")
PY

"$VRAMLAB" quantize "$t/good.safetensors" >"$t/out" 2>"$t/err"
check "text report exits 0" [ $? -eq 0 ]
check "text report lists a tensor" grep -q "layers.0.mlp.weight" "$t/out"
check "1-D tensor skipped with a reason" grep -q "layers.0.ln.weight.*skipped: not 2-D" "$t/out"
check "integer tensor skipped" grep -q "positions.*skipped: dtype" "$t/out"
check "overall line" grep -q "^overall" "$t/out"

"$VRAMLAB" quantize "$t/good.safetensors" --json --bits 4 --group 32 >"$t/g.json" 2>"$t/err"
check "json (group 32) exits 0" [ $? -eq 0 ]
"$VRAMLAB" quantize "$t/good.safetensors" --json --bits 4 --group matrix >"$t/m.json" 2>"$t/err"
check "json (matrix) exits 0" [ $? -eq 0 ]
python3 - "$t/g.json" "$t/m.json" <<'PY'
import json, sys
g, m = (json.load(open(p)) for p in sys.argv[1:3])
keys = ("name", "dtype", "shape", "bits", "group", "relative_error", "zero_fraction",
        "outlier_ratio", "bytes_before", "bytes_after")
assert len(g["tensors"]) == 3, [t["name"] for t in g["tensors"]]
for t in g["tensors"] + m["tensors"]:
    for k in keys:
        assert k in t, k
for k in ("relative_error", "zero_fraction", "outlier_ratio", "bytes_before", "bytes_after"):
    assert k in g["overall"], k
assert g["group"] == 32 and m["group"] == "matrix"
gt = {t["name"]: t for t in g["tensors"]}
mt = {t["name"]: t for t in m["tensors"]}
w = "layers.0.mlp.weight"
# 4 bits, g = 32: 64*256 weights -> 8192 code bytes + 512 scales * 2
assert gt[w]["bytes_before"] == 64 * 256 * 2 and gt[w]["bytes_after"] == 8192 + 1024, gt[w]
assert gt[w]["shape"] == [64, 256] and gt[w]["dtype"] == "F16"
assert 12 < gt[w]["outlier_ratio"] < 14, gt[w]["outlier_ratio"]
# seed 000: per matrix, the 13-sigma outlier puts ~2/3 of weights on zero at 4 bits
assert 0.58 < mt[w]["zero_fraction"] < 0.72, mt[w]["zero_fraction"]
assert gt[w]["zero_fraction"] < 0.25
assert gt[w]["relative_error"] < 0.5 * mt[w]["relative_error"]
assert 0.05 < gt[w]["relative_error"] < 0.15
assert len(g["skipped"]) == 2
PY
check "json contract and the seed's per-matrix claim" [ $? -eq 0 ]

"$VRAMLAB" quantize "$t/good.safetensors" --json --bits 8 >"$t/8.json" &&
    "$VRAMLAB" quantize "$t/good.safetensors" --json --bits 2 >"$t/2.json"
python3 - "$t/8.json" "$t/g.json" "$t/2.json" <<'PY'
import json, sys
e = [json.load(open(p))["overall"]["relative_error"] for p in sys.argv[1:4]]
assert e[0] < e[1] < e[2], e
PY
check "error falls as bits rise (8 < 4 < 2)" [ $? -eq 0 ]

for f in bad-offsets:evil.weight bad-dtype:odd.weight bad-shape:huge.weight; do
    file=${f%%:*}
    tensor=${f#*:}
    "$VRAMLAB" quantize "$t/$file.safetensors" >"$t/out" 2>"$t/err"
    rc=$?
    check "$file rejected as bad input (exit 2)" [ $rc -eq 2 ]
    check "$file message names '$tensor'" grep -q "'$tensor'" "$t/err"
done
"$VRAMLAB" quantize "$t/bad-length.safetensors" >"$t/out" 2>"$t/err"
check "header length past the end rejected" grep -q "past the end" "$t/err"
"$VRAMLAB" quantize "$t/nonexistent.safetensors" >"$t/out" 2>"$t/err"
check "a missing file is bad input (exit 2)" [ $? -eq 2 ]
"$VRAMLAB" quantize "$t/only-1d.safetensors" >"$t/out" 2>"$t/err"
check "nothing to quantize exits 0" [ $? -eq 0 ]
check "nothing to quantize says so" grep -q "no 2-D tensors quantized" "$t/out"
check "nothing to quantize: no overall row" sh -c "! grep -q '^overall' '$t/out'"
check "one tensor is singular" grep -q ": 1 tensor, 4 bits" "$t/out"
"$VRAMLAB" quantize "$t/good.safetensors" --bits 9 >"$t/out" 2>"$t/err"
check "--bits 9 is a usage error" [ $? -eq 2 ]
"$VRAMLAB" quantize "$t/good.safetensors" --group 12 >"$t/out" 2>"$t/err"
check "--group 12 is a usage error" [ $? -eq 2 ]
"$VRAMLAB" quantize >"$t/out" 2>"$t/err"
check "no file is a usage error" [ $? -eq 2 ]
exit $fail
