#!/bin/sh
# test_cli_nonsense.sh: nonsense is refused or named (issue 27 item 6), each
# with the field and what is allowed: a config.json without model_type says
# what it was taken as; import refuses an entry without a context (unless
# --context N gives one) and never prints an entry that does not load;
# --params 7 asks whether 7B was meant; --gpu 3060 finds rtx-3060 first; a
# fill past 999% reads >999%; quantize and --model-file name what a file
# that is not a model file is; a config.json's impossible sizes (experts,
# a context of 0, latent attention's widths, heads, negatives) and a batch
# that does not fit. The CLI's refusals of zero and negative sizes
# and of heads not dividing the hidden size are tests/test_cli_errors.sh's
# and tests/test_model_file_hf.sh's.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
FIX=$top_srcdir/tests/fixtures
[ -x "$VRAMLAB" ] || { echo "FAIL: $VRAMLAB not built"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (writes the configs)"; exit 77; }
t=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-nonsense.XXXXXX") || exit 99
trap 'rm -rf "$t"' EXIT INT TERM
XDG_CONFIG_HOME=$t/xdg HOME=$t/home XDG_STATE_HOME=$t/state
export XDG_CONFIG_HOME HOME XDG_STATE_HOME
unset LANGUAGE LC_ALL
export LANG=C
fails=0
check() { # name command...
    name=$1
    shift
    if "$@"; then
        echo "ok: $name"
    else
        echo "FAIL: $name"
        echo "  stdout: $(head -c 400 "$t/out" 2>/dev/null)"
        echo "  stderr: $(head -c 400 "$t/err" 2>/dev/null)"
        fails=$((fails + 1))
    fi
}
run() { # command... -> $t/out, $t/err, $rc
    "$@" >"$t/out" 2>"$t/err"
    rc=$?
}
has() { grep -qF -- "$2" "$t/$1"; }

# config EDITS... > $t/NAME: Llama 3.1 8B's config.json (or $CFG_FROM's
# fixture's) with keys deleted (KEY=) or set (KEY=JSON).
config() {
    python3 - "$FIX/catalog/hf/${CFG_FROM:-Llama-3.1-8B}/config.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for a in sys.argv[2:]:
    k, v = a.split("=", 1)
    if v == "":
        d.pop(k, None)
    else:
        d[k] = json.loads(v)
json.dump(d, sys.stdout, indent=1)
PY
}

# --- a config.json without model_type: what was assumed is said ----------
mkdir -p "$t/no-type"
config model_type= >"$t/no-type/config.json"
run "$VRAMLAB" plan --model-config "$t/no-type/config.json"
check "no model_type: plan works" [ $rc -eq 0 ]
check "no model_type: taken as llama from architectures, said" \
    has err "config.json: note: no model_type; taken as llama, from architectures (LlamaForCausalLM)"
config model_type= architectures= >"$t/bare.json"
run "$VRAMLAB" plan --model-config "$t/bare.json"
check "no model_type nor architectures: the assumptions said" \
    has err "no model_type nor architectures; assumed a gated (SwiGLU) MLP (hidden_act silu), RMSNorm, no biases"
config 'model_type="frobnitz"' 'hidden_act="gelu"' tie_word_embeddings= >"$t/odd.json"
run "$VRAMLAB" plan --model-config "$t/odd.json"
check "an unknown model_type: the assumptions said" \
    has err "model_type 'frobnitz' is not one vramlab knows; assumed a plain MLP (hidden_act gelu), RMSNorm, no biases, tied embeddings"
run "$VRAMLAB" plan --model-config "$FIX/catalog/hf/Llama-3.1-8B/config.json"
check "a known model_type: no note" [ $rc -eq 0 ] && ! has err "note:"

# --- import: a context is needed; what is printed loads ------------------
mkdir -p "$t/no-ctx"
config max_position_embeddings= model_type= >"$t/no-ctx/config.json"
run "$VRAMLAB" import "$t/no-ctx/config.json"
check "import without max_position_embeddings: refused (exit 3)" [ $rc -eq 3 ]
check "... naming the field and --context" \
    has err "max_position_embeddings: expected in a config.json for a catalog entry (the model's longest context), found none; give it: vramlab import --context N"
check "... and printing no entry" [ ! -s "$t/out" ]
run "$VRAMLAB" import --context 8k "$t/no-ctx/config.json"
check "import --context 8k: printed" [ $rc -eq 0 ] && has out "max_context: 8192"
check "import keeps what was assumed as a comment" \
    has out "# $t/no-ctx/config.json: note: no model_type; taken as llama"
mkdir -p "$XDG_CONFIG_HOME/vramlab"
cp "$t/out" "$XDG_CONFIG_HOME/vramlab/no-ctx.yaml"
run "$VRAMLAB" plan --model no-ctx --json
check "the imported entry loads and plans" [ $rc -eq 0 ] && has out '"max_context": 8192'
rm -f "$XDG_CONFIG_HOME/vramlab/no-ctx.yaml"
run "$VRAMLAB" import --context 4096 "$FIX/catalog/hf/Llama-3.1-8B/config.json"
check "--context over the config's: it wins, said so" [ $rc -eq 0 ] &&
    has err "--context 4096 replaces the config's max_position_embeddings (131072)" &&
    has out "max_context: 4096"
run "$VRAMLAB" import --context 0 "$FIX/catalog/hf/Llama-3.1-8B/config.json"
check "import --context 0: the option's range (exit 2)" [ $rc -eq 2 ] &&
    has err "--context: expected a whole number of tokens from 1 to"

# --- implausible sizes ---------------------------------------------------
run "$VRAMLAB" plan --params 7
check "--params 7: refused (exit 2), asking whether 7B was meant" [ $rc -eq 2 ] &&
    has err "--params: 7 parameters is surely not meant; did you mean 7B (7 billion)?"
run "$VRAMLAB" plan --params 500K
check "--params 500K: below 1M, refused" [ $rc -eq 2 ] && has err "below 1M parameters"
run "$VRAMLAB" plan --params 1M
check "--params 1M: planned" [ $rc -eq 0 ]
printf 'params: 7\n' >"$t/seven.yaml"
run "$VRAMLAB" plan --scenario "$t/seven.yaml"
check "params: 7 in a scenario file: refused the same way" [ $rc -eq 2 ] && has err "did you mean 7B"

# --- suggestions match what was typed ------------------------------------
run "$VRAMLAB" plan --gpu 3060
check "--gpu 3060: rtx-3060 is the first suggestion" [ $rc -eq 2 ] && has err "closest: rtx-3060"

# --- a fill past 999% ------------------------------------------------------
run "$VRAMLAB" plan --params 1e15
check "--params 1e15: the fill reads >999%" has out "available (>999%)"
check "... no seven-digit percentage" sh -c "! grep -q '[0-9]\{4,\}\.[0-9]%' '$t/out'"
run "$VRAMLAB" plan --params 1e15 --json
check "... the JSON keeps the ratio" python3 -c "
import json, sys
r = json.load(open('$t/out'))['memory']['ratio']
sys.exit(0 if r > 1000 else 1)"

# --- a file of the wrong kind is named ------------------------------------
printf 'GGUF\003\000\000\000' >"$t/model.gguf"
head -c 64 /dev/zero >>"$t/model.gguf"
printf 'hello, this is text\n' >"$t/notes.txt"
: >"$t/empty.safetensors"
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 9\n' >"$t/lfs.safetensors"
printf 'PK\003\004rest of a zip' >"$t/pytorch_model.bin"
for f in "model.gguf:a GGUF file (llama.cpp's format)" "notes.txt:text" \
    "empty.safetensors:an empty file" "lfs.safetensors:a Git LFS pointer" \
    "pytorch_model.bin:a ZIP archive (a PyTorch .bin or .pt checkpoint is one)"; do
    file=${f%%:*} kind=${f#*:}
    run "$VRAMLAB" quantize "$t/$file"
    check "quantize $file: exit 2, named as $kind" [ $rc -eq 2 ] &&
        has err "$t/$file: not a safetensors file: it is $kind"
done
check "quantize on a GGUF file points at plan --model-file" has err "" &&
    "$VRAMLAB" quantize "$t/model.gguf" 2>&1 | grep -qF "vramlab plan --model-file reads a GGUF"
run "$VRAMLAB" plan --model-file "$t/notes.txt"
check "--model-file on text: named, with what it reads" [ $rc -eq 3 ] &&
    has err "notes.txt: not a model file: it is text; --model-file reads a GGUF file"
cp "$t/model.gguf" "$t/misnamed.safetensors"
run "$VRAMLAB" plan --model-file "$t/misnamed.safetensors"
check "--model-file on a GGUF named .safetensors: said" [ $rc -eq 3 ] &&
    has err "not a safetensors file: it is a GGUF file (llama.cpp's format); name it .gguf"

# --- a config.json's sizes that cannot be -----------------------------------
# (found by tests/fuzz/fuzz_config: accepted, then an entry that did not load)
# hfcfg NAME FIXTURE EDITS...: that fixture's config.json, edited, in $t/NAME/.
hfcfg() {
    name=$1
    mkdir -p "$t/$name"
    CFG_FROM=$2
    shift 2
    config "$@" >"$t/$name/config.json"
    CFG_FROM=
}
hfcfg active0 Mixtral-8x7B-v0.1 num_experts_per_tok=0
run "$VRAMLAB" plan --model-config "$t/active0/config.json"
check "an MoE routing to 0 experts is refused" [ "$rc" -ne 0 ] &&
    has err "num_experts_per_tok: expected a positive whole number, found 0"
hfcfg active9 Mixtral-8x7B-v0.1 num_experts_per_tok=9
run "$VRAMLAB" import "$t/active9/config.json"
check "more active experts than experts is refused" [ "$rc" -ne 0 ] &&
    has err "num_experts_per_tok: expected at most num_local_experts (8), found 9" &&
    [ ! -s "$t/out" ]
hfcfg ctx0 Llama-3.1-8B max_position_embeddings=0
run "$VRAMLAB" plan --model-config "$t/ctx0/config.json"
check "a longest context of 0 is refused" [ "$rc" -ne 0 ] &&
    has err "max_position_embeddings: expected a positive whole number, found 0"
hfcfg mla DeepSeek-V3 qk_rope_head_dim=
run "$VRAMLAB" import "$t/mla/config.json"
check "latent attention without its rope width is refused" [ "$rc" -ne 0 ] &&
    has err "qk_rope_head_dim: expected in a config.json with kv_lora_rank" && [ ! -s "$t/out" ]
hfcfg heads Llama-3.1-8B hidden_size=4095
run "$VRAMLAB" plan --model-config "$t/heads/config.json"
check "heads not dividing the hidden size are refused" [ "$rc" -ne 0 ] &&
    has err "num_attention_heads: expected a divisor of hidden_size (4095), found 32 (or give head_dim)"
hfcfg neg Llama-3.1-8B num_hidden_layers=-2
run "$VRAMLAB" plan --model-config "$t/neg/config.json"
check "a negative size is refused" [ "$rc" -ne 0 ] &&
    has err "num_hidden_layers: expected a whole number that is not negative, found '-2'"

run "$VRAMLAB" plan --model llama-3.1-8b --gpu-memory 0
check "--gpu-memory 0: above zero asked, no 'did you mean 0GiB'" [ "$rc" -eq 2 ] &&
    has err "--gpu-memory: expected a figure above zero (at least 1 MiB), found '0'" &&
    ! has err "0GiB"
hfcfg rope Llama-3.1-8B 'rope_scaling={"rope_type": "}yarn: [x", "factor": 4, "original_max_position_embeddings": 8192}'
run "$VRAMLAB" import "$t/rope/config.json"
check "a rope type of YAML's syntax is written quoted: the entry loads" [ "$rc" -eq 0 ] &&
    has out 'type: "}yarn: [x"'

# --- a batch that does not fit says so -----------------------------------------
run "$VRAMLAB" plan --model llama-3.1-8b --gpu h100-sxm --batch 100000
check "--batch 100000: batch too large, not a context of 1" [ "$rc" -eq 0 ] &&
    has out "batch too large" && has out "100,000 sequences do not fit at 4,096 tokens"
run "$VRAMLAB" plan --model llama-3.1-8b --gpu h100-sxm --batch 10000000
check "--batch 10000000: not even one token each, not a context of 0" [ "$rc" -eq 0 ] &&
    has out "not even one token each fits" && ! has out "longest context is 0"
run "$VRAMLAB" plan --model llama-3.1-8b --gpu h100-sxm --batch 100000 --json
check "--json: batch_fits false beside the largest batch" [ "$rc" -eq 0 ] &&
    has out '"batch_fits": false' && has out '"max_batch": 128'

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all nonsense checks passed"
exit 0
