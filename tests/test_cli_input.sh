#!/bin/sh
# Input that used to be accepted and then ignored or misread (issue 16):
# --price 0 is one's own GPUs (no cost), --tokens 0 is no tokens, inf and
# NaN are refused; options without effect are warned about in the text and
# in JSON warnings[], or refused when they cannot be meant; KV-only formats
# are refused for the weights.
. "${top_srcdir:-.}/tests/cli_lib.sh"

# refuse "text in stderr" ARGS...: exit 2, the message, nothing on stdout.
refuse() {
    text=$1
    shift
    run "$@"
    check_eq "vramlab $* exit" "$rc" 2
    check_contains "vramlab $* message" "$TMP/err" "$text"
    if [ -s "$TMP/out" ]; then fail "vramlab $*: stdout not empty on error"; else pass; fi
}

# warns "note" ARGS...: exit 0, the note among the text warnings and in
# the JSON warnings[].
warns() {
    note=$1
    shift
    run plan "$@"
    check_eq "plan $* exit" "$rc" 0
    check_contains "plan $* text warning" "$TMP/out" "  - $note"
    run plan "$@" --json
    check_eq "plan $* --json exit" "$rc" 0
    check_contains "plan $* JSON warnings[]" "$TMP/out" "\"$note"
}

# --- price and tokens: 0 means zero; inf and NaN are refused ---------------
TRAIN="--model llama-3.1-8b --gpu h100-sxm --mode train"
run plan $TRAIN --json
check_eq "default price exit" "$rc" 0
hours=$(json_get "$TMP/out" training.gpu_hours)
cost=$(json_get "$TMP/out" training.cost_usd)
tokens=$(json_get "$TMP/out" training.tokens)
# Chinchilla's default, 20 tokens per parameter (Hoffmann et al. 2022).
check_near "default tokens are 20 per parameter" "$tokens" "$(json_get "$TMP/out" params.total | awk '{ printf "%.17g", $1 * 20 }')" 1e-9
# The catalog's on-demand H100 price: cost = GPU-hours x price.
awk -v c="$cost" -v h="$hours" 'BEGIN { exit !(c > 0 && h > 0) }' && pass ||
    fail "default cost $cost for $hours GPU-hours"
run plan $TRAIN --price 0 --json
check_eq "--price 0 exit" "$rc" 0
check_eq "--price 0: own GPUs cost nothing" "$(json_get "$TMP/out" training.cost_usd)" 0
check_near "--price 0: the same GPU-hours" "$(json_get "$TMP/out" training.gpu_hours)" "$hours" 1e-12
run plan $TRAIN --price 0
check_contains "--price 0 text" "$TMP/out" '$0.00'
run plan $TRAIN --price 2.5 --json
check_near "--price 2.5" "$(json_get "$TMP/out" training.cost_usd)" "$(awk -v h="$hours" 'BEGIN { printf "%.17g", h * 2.5 }')" 1e-9
run plan $TRAIN --tokens 0 --json
check_eq "--tokens 0 exit" "$rc" 0
check_eq "--tokens 0: no tokens" "$(json_get "$TMP/out" training.tokens)" 0
check_eq "--tokens 0: no days" "$(json_get "$TMP/out" training.days)" 0
for v in inf -inf nan NaN infinity 1e400; do
    refuse "--price" plan $TRAIN --price "$v"
    refuse "--tokens" plan $TRAIN --tokens "$v"
done
refuse "--price" plan $TRAIN --price -1
refuse "--price" plan $TRAIN --price 1e300
for f in mfu bw-efficiency flops-efficiency; do
    refuse "--$f" plan --$f nan
    refuse "--$f" plan --$f inf
done
for f in reserve intra-node-bw inter-node-bw allreduce-latency measured-bw measured-flops params; do
    refuse "--$f" plan --$f nan
    refuse "--$f" plan --$f inf
done

# --- options without effect: warned, in text and JSON ----------------------
warns "--zero has no effect in inference" --zero 3
warns "--lora-rank has no effect outside --mode lora or qlora" --lora-rank 8
warns "--lora-rank has no effect outside --mode lora or qlora" --mode train --lora-rank 8
warns "--sequence-parallel has no effect with TP 1" --sequence-parallel
warns "--interleave has no effect without a training pipeline" --interleave 2
warns "--format has no effect in full training" --mode train --format int8
warns "--moe-imbalance has no effect without expert parallelism" --mode train --moe-imbalance 1.5
# ... and not when they do have one.
run plan --mode lora --lora-rank 8 --json
check_eq "LoRA with a rank: exit" "$rc" 0
if grep -q "has no effect" "$TMP/out"; then fail "LoRA with a rank warned: $(grep 'no effect' "$TMP/out")"; else pass; fi
run plan --model llama-3.1-70b --gpus 2 --tp 2 --sequence-parallel --json
if grep -q "sequence-parallel has no effect" "$TMP/out"; then fail "TP 2 --sequence-parallel warned"; else pass; fi
# FP8 training (issue 25): --format fp8 in --mode train runs the GEMMs in FP8.
run plan --mode train --format fp8 --json
if grep -q "format has no effect" "$TMP/out"; then fail "train --format fp8 warned"; else pass; fi
# The search command warns too.
run search --gpus 8 --lora-rank 8
check_eq "search --lora-rank exit" "$rc" 0
check_contains "search --lora-rank warning" "$TMP/out" "--lora-rank has no effect"

# --- options that cannot be meant: refused ----------------------------------
refuse "--interleave 40 exceeds the 16 layers per pipeline stage" \
    plan --mode train --pp 2 --gpus 2 --interleave 40
refuse "--active-experts needs a mixture of experts" \
    plan --layers 4 --hidden 64 --heads 4 --vocab 100 --active-experts 2
refuse "--shared-experts needs a mixture of experts" \
    plan --model llama-3.1-8b --shared-experts 1
run plan --layers 4 --hidden 64 --heads 4 --vocab 100 --experts 8 --active-experts 2 --json
check_eq "a MoE with --active-experts exit" "$rc" 0

# --- KV-only formats: refused for the weights, named ------------------------
refuse "int4 (INT4 (KV cache, g32)) is a format for the KV cache (--kv-format); for the weights use int4-g32" \
    plan --format int4
run plan --kv-format int4 --json
check_eq "--kv-format int4 exit" "$rc" 0
printf 'model: llama-3.1-8b\nformat: int4\n' >"$TMP/kvw.yaml"
refuse "a format for the KV cache" plan --scenario "$TMP/kvw.yaml"

# --- quantize: non-finite weights and overflowing scales are named and
# excluded; nothing valid left is an error ------------------------------------
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP" <<'PY'
import json, random, struct, sys
d = sys.argv[1]
random.seed(1)
def write(name, tensors):
    header, data = {}, b""
    for tname, dtype, shape, raw in tensors:
        header[tname] = {"dtype": dtype, "shape": shape,
                         "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    open(f"{d}/{name}", "wb").write(struct.pack("<Q", len(h)) + h + data)
def f32(xs):
    return b"".join(struct.pack("<f", x) for x in xs)
good = [random.gauss(0, 0.02) for _ in range(16 * 64)]
nan = list(good); nan[70] = float("nan")
inf = list(good); inf[5] = float("inf")
big = [x * 5e7 for x in good]  # max|w| ~ 3e6: / 7 overflows FP16's 65504
huge = list(good); huge[0] = 1e38
write("good-only.safetensors", [("good.weight", "F32", [16, 64], f32(good))])
write("mixed.safetensors", [
    ("good.weight", "F32", [16, 64], f32(good)),
    ("nan.weight", "F32", [16, 64], f32(nan)),
    ("inf.weight", "F32", [16, 64], f32(inf)),
    ("big.weight", "F32", [16, 64], f32(big)),
    ("huge.weight", "F32", [16, 64], f32(huge)),
])
write("bad-only.safetensors", [
    ("nan.weight", "F32", [16, 64], f32(nan)),
    ("huge.weight", "F32", [16, 64], f32(huge)),
])
PY
    run quantize "$TMP/mixed.safetensors" --json
    check_eq "quantize with invalid tensors: exit 0 (one is valid)" "$rc" 0
    for tn in nan inf big huge; do
        check_contains "quantize names $tn.weight" "$TMP/err" "tensor '$tn.weight'"
    done
    check_contains "NaN named" "$TMP/err" "not finite: 1 NaN and 0 infinite weights, the first at [1, 6]"
    check_contains "Inf named" "$TMP/err" "not finite: 0 NaN and 1 infinite weights, the first at [0, 5]"
    check_contains "overflow named" "$TMP/err" "scale overflows FP16"
    check_contains "excluded" "$TMP/err" "excluded from the totals"
    cp "$TMP/out" "$TMP/mixed.json"
    run quantize "$TMP/good-only.safetensors" --json
    # The totals are those of the valid tensor alone.
    check_eq "overall: the valid tensor only" \
        "$(json_get "$TMP/mixed.json" overall.relative_error)" "$(json_get "$TMP/out" overall.relative_error)"
    check_eq "overall tensors" "$(json_get "$TMP/mixed.json" overall.tensors)" 1
    check_contains "JSON skipped reason" "$TMP/mixed.json" '"reason": "not finite: 1 NaN'
    run quantize "$TMP/mixed.safetensors"
    check_contains "text: skipped with the reason" "$TMP/out" "skipped: scale overflows FP16"
    if grep -qE "(^| )-?(nan|inf)(%| |$)" "$TMP/out"; then fail "quantize printed a NaN: $(grep -E "(^| )-?(nan|inf)(%| |$)" "$TMP/out")"; else pass; fi
    run quantize "$TMP/bad-only.safetensors"
    check_eq "nothing valid left: exit 2" "$rc" 2
    check_contains "nothing valid left: said" "$TMP/err" "no valid tensor left (2 excluded"
    if grep -qE "(^| )-?(nan|inf)(%| |$)" "$TMP/out"; then fail "quantize printed a NaN: $(grep -E "(^| )-?(nan|inf)(%| |$)" "$TMP/out")"; else pass; fi
    run quantize "$TMP/bad-only.safetensors" --group matrix --json
    check_eq "nothing valid left (matrix): exit 2" "$rc" 2
else
    echo "note: python3 missing; quantize value checks not run"
fi

# --- files: FIFOs and devices refused without blocking; the kind named -----
# (timeout only guards against a hang: a FIFO without a writer blocked
# forever; the checks are the exit status and the message.)
mkfifo "$TMP/fifo" 2>/dev/null || fail "mkfifo"
mkdir -p "$TMP/adir"
# refuse_file WHAT KIND ARGS...: exit 2 or 3 at once, "cannot read: KIND".
refuse_file() {
    what=$1 kind=$2
    shift 2
    timeout 20 "$VRAMLAB" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    case $rc in
    2 | 3) pass ;;
    124) fail "$what: blocked (killed after 20 s)" ;;
    *) fail "$what: exit $rc" ;;
    esac
    check_contains "$what names the kind" "$TMP/err" "cannot read: $kind, not a regular file"
}
for f in "$TMP/fifo:a FIFO (named pipe)" "/dev/zero:a character device" "/dev/null:a character device" \
    "$TMP/adir:a directory"; do
    file=${f%%:*}
    kind=${f#*:}
    refuse_file "--catalog $file" "$kind" plan --catalog "$file"
    refuse_file "--scenario $file" "$kind" plan --scenario "$file"
    refuse_file "quantize $file" "$kind" quantize "$file"
    refuse_file "--lesson $file" "$kind" --lesson "$file"
done
# --model-config and import take a directory as DIR/config.json.
refuse_file "--model-config FIFO" "a FIFO (named pipe)" plan --model-config "$TMP/fifo"
refuse_file "--model-config /dev/zero" "a character device" plan --model-config /dev/zero
refuse_file "import FIFO" "a FIFO (named pipe)" import "$TMP/fifo"
mkdir -p "$TMP/m/config.json"
refuse_file "import DIR/config.json a directory" "a directory" import "$TMP/m"
# A FIFO in the user's catalog directory is skipped with a message.
mkdir -p "$XDG_CONFIG_HOME/vramlab"
mkfifo "$XDG_CONFIG_HOME/vramlab/pipe.yaml"
timeout 20 "$VRAMLAB" plan >"$TMP/out" 2>"$TMP/err" </dev/null
check_eq "a FIFO in the user catalog: plan still runs" "$?" 0
check_contains "a FIFO in the user catalog is named" "$TMP/err" "pipe.yaml: cannot read: a FIFO (named pipe), not a regular file"
rm -f "$XDG_CONFIG_HOME/vramlab/pipe.yaml"

# --- deep nesting: bounded, with the file, line and column -------------------
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
n = 80000  # 80 KB of '[': seconds in libyaml's loader before the bound
open(f"{d}/deep.json", "w").write('{"num_hidden_layers": ' + "[" * n + "]" * n + "}\n")
open(f"{d}/deep-catalog.yaml", "w").write("gpus: " + "[" * n + "\n")
open(f"{d}/deep-block.yaml", "w").write("gpus:\n  " + "- " * (n // 2) + "x\n")
open(f"{d}/deep-scenario.yaml", "w").write("model: " + "{a: " * n + "\n")
open(f"{d}/deep-lesson.yaml", "w").write("title: x\nsteps: " + "[" * n + "\n")
# 33 levels is one too many; 32 is allowed (the check is exact).
open(f"{d}/depth33.yaml", "w").write("gpus: " + "[" * 32 + "]" * 32 + "\n")
open(f"{d}/depth32.yaml", "w").write("gpus: " + "[" * 31 + "]" * 31 + "\n")
PY
    for f in deep.json:--model-config deep-catalog.yaml:--catalog deep-block.yaml:--catalog \
        deep-scenario.yaml:--scenario depth33.yaml:--catalog; do
        file=${f%%:*}
        opt=${f#*:}
        timeout 20 "$VRAMLAB" plan $opt "$TMP/$file" >"$TMP/out" 2>"$TMP/err"
        rc=$?
        [ "$rc" = 2 ] || [ "$rc" = 3 ] && pass || fail "$opt $file: exit $rc"
        check_contains "$opt $file: bounded depth" "$TMP/err" "nested at most 32 deep, found deeper"
        check_contains "$opt $file: file:line:col" "$TMP/err" "$TMP/$file:"
    done
    timeout 20 "$VRAMLAB" --lesson "$TMP/deep-lesson.yaml" >"$TMP/out" 2>"$TMP/err" </dev/null
    check_eq "--lesson deep: exit" "$?" 2
    check_contains "--lesson deep: bounded depth" "$TMP/err" "nested at most 32 deep, found deeper"
    # 32 deep is not refused for its depth (the catalog says what is wrong).
    run plan --catalog "$TMP/depth32.yaml"
    if grep -q "nested at most" "$TMP/err"; then fail "32 levels refused for depth"; else pass; fi
    # Size: a catalog file over 1 MiB is refused, named.
    python3 -c "import sys; open(sys.argv[1], 'w').write('# ' + 'x' * (1 << 20) + '\n')" "$TMP/big.yaml"
    run plan --catalog "$TMP/big.yaml"
    check_eq "a catalog over 1 MiB: exit" "$rc" 3
    check_contains "a catalog over 1 MiB: said" "$TMP/err" "larger than the 1024 KiB allowed"
fi

# --- config.json: as strict as the command line -----------------------------
mkdir -p "$TMP/hf"
# config NAME JSON "message": --model-config refuses it (exit 3) saying why.
config() {
    printf '%s\n' "$2" >"$TMP/hf/$1.json"
    run plan --model-config "$TMP/hf/$1.json"
    check_eq "config.json $1: exit" "$rc" 3
    check_contains "config.json $1: message" "$TMP/err" "$3"
}
BASE='"num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 100'
config kv3 "{$BASE, \"num_attention_heads\": 32, \"num_key_value_heads\": 3, \"head_dim\": 2}" \
    "num_key_value_heads: expected a divisor of num_attention_heads (32), found 3"
config heads0 "{$BASE, \"num_attention_heads\": 0}" \
    "num_attention_heads: expected a positive whole number, found 0"
config kv0 "{$BASE, \"num_attention_heads\": 4, \"num_key_value_heads\": 0}" \
    "num_key_value_heads: expected a positive whole number, found 0"
config string '{"num_hidden_layers": 2, "hidden_size": "4096", "num_attention_heads": 4, "vocab_size": 100}' \
    'hidden_size: expected a whole number, found the string "4096"'
config boolstr "{$BASE, \"num_attention_heads\": 4, \"tie_word_embeddings\": \"true\"}" \
    "tie_word_embeddings: expected true or false, found a string"
config dup "{$BASE, \"num_attention_heads\": 4, \"num_attention_heads\": 8}" \
    "num_attention_heads: expected each key once, found it again (first at line 1, column"
config hidden3 "{$BASE, \"num_attention_heads\": 3}" \
    "num_attention_heads: expected a divisor of hidden_size (64), found 3 (or give head_dim)"
# The same shape on the command line is refused too (the control).
run plan --layers 2 --hidden 64 --heads 32 --kv-heads 3 --head-dim 2 --vocab 100
check_eq "--kv-heads 3 --heads 32: refused (control)" "$rc" 2
printf '%s\n' "{$BASE, \"num_attention_heads\": 4, \"num_key_value_heads\": 2}" >"$TMP/hf/ok.json"
run plan --model-config "$TMP/hf/ok.json"
check_eq "a valid config.json: exit 0" "$rc" 0

finish
