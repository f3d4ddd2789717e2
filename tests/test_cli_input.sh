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
warns "--format has no effect in full training" --mode train --format fp8
# ... and not when they do have one.
run plan --mode lora --lora-rank 8 --json
check_eq "LoRA with a rank: exit" "$rc" 0
if grep -q "has no effect" "$TMP/out"; then fail "LoRA with a rank warned: $(grep 'no effect' "$TMP/out")"; else pass; fi
run plan --model llama-3.1-70b --gpus 2 --tp 2 --sequence-parallel --json
if grep -q "sequence-parallel has no effect" "$TMP/out"; then fail "TP 2 --sequence-parallel warned"; else pass; fi
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

finish
