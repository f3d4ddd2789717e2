#!/bin/sh
# Text and JSON of plan and search compared with reviewed golden files in
# tests/golden/. Regenerate with UPDATE_GOLDEN=1 (then review every number
# against the formulas before committing: a golden file that snapshots a
# bug is a defect).
#
# JSON goldens leave out the "explain" object: its wording belongs to the
# engine (tests/test_engine.c) and changes as explanations improve; its
# presence and shape are checked by tests/test_cli_options.sh.
. "${top_srcdir:-.}/tests/cli_lib.sh"

# Drop the top-level "explain" member of vramlab's pretty-printed JSON.
strip_explain() {
    awk '/^  "explain": \{/ { skip = 1; next } skip && /^  \},?$/ { skip = 0; next } !skip'
}

# golden NAME ARGS...: run vramlab and compare stdout with golden/NAME.
golden() {
    name=$1
    shift
    run "$@"
    check_eq "$name exit" "$rc" 0
    case $name in
    *.json) strip_explain < "$TMP/out" > "$TMP/out.strip" && mv "$TMP/out.strip" "$TMP/out" ;;
    esac
    if [ -n "$UPDATE_GOLDEN" ]; then
        cp "$TMP/out" "$GOLDEN/$name"
        echo "updated $GOLDEN/$name"
    elif diff -u "$GOLDEN/$name" "$TMP/out" > "$TMP/diff"; then
        pass
    else
        fail "$name differs from $GOLDEN/$name:"
        sed 's/^/    /' "$TMP/diff" >&2
    fi
}

# Llama 3.1 8B, FP16, one H100 SXM (the defaults).
golden plan_default.txt plan
golden plan_default.json plan --json
# The product sketch: 70B INT4 g32 on 2 x H100, batch 8, context 8192.
golden plan_70b_int4_tp2.txt plan --model llama-3.1-70b --format int4-g32 --gpus 2 --tp 2 \
    --batch 8 --context 8192
golden plan_70b_int4_tp2.json plan --model llama-3.1-70b --format int4-g32 --gpus 2 --tp 2 \
    --batch 8 --context 8192 --json
# A bare size in GiB.
golden plan_params_70b_gib.txt plan --params 70B --units gib
# Llama 3.1 405B pre-training: 8 x 16 x 128 H100, 15.6T tokens (seed 000).
golden plan_405b_train.txt plan --model llama-3.1-405b --mode train --tp 8 --pp 16 \
    --dp 128 --micro-batches 64 --zero 1 --sequence-parallel --tokens 15.6T
golden plan_405b_train.json plan --model llama-3.1-405b --mode train --tp 8 --pp 16 \
    --dp 128 --micro-batches 64 --zero 1 --sequence-parallel --tokens 15.6T --json
# Llama 3.1 8B on 8 GPUs, ZeRO-3 as DeepSpeed allocates it (4 B x the
# gathered embedding + 18 B / d, issue 12), the optimizer in host RAM
# (ZeRO-Offload: 2 N / d + 4 LLP on the GPU, 16 N / d on the host).
golden plan_8b_zero3_offload.txt plan --model llama-3.1-8b --mode train --gpus 8 --dp 8 \
    --zero 3 --memory-convention deepspeed --offload cpu
golden plan_8b_zero3_offload.json plan --model llama-3.1-8b --mode train --gpus 8 --dp 8 \
    --zero 3 --memory-convention deepspeed --offload cpu --json
# Layout search for Llama 3.1 70B inference on 8 GPUs.
golden search_70b_8.txt search --model llama-3.1-70b --gpus 8
golden search_70b_8.json search --model llama-3.1-70b --gpus 8 --json
finish
