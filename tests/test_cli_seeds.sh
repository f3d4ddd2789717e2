#!/bin/sh
# Every seed figure of the engine issue, through the command line.
# Sources: seeds/000 (course text), engine.md; tolerances next to each.
. "${top_srcdir:-.}/tests/cli_lib.sh"

# Weights of a 70B model: N * bits / 8 (seed 000: 280/140/70/39.4 GB).
for pair in fp32:280e9:0 fp16:140e9:0 int8:70e9:0.001 int4-g32:39.375e9:0; do
    fmt=${pair%%:*}; rest=${pair#*:}; want=${rest%%:*}; tol=${rest#*:}
    run plan --params 70B --format "$fmt" --json
    check_eq "70B $fmt exit" "$rc" 0
    check_near "70B $fmt memory.weights" "$(json_get "$TMP/out" memory.weights)" "$want" "$tol"
done
run plan --params 70B --format int4-g32
check_contains "70B int4-g32 text" "$TMP/out" "39.4 GB"
run plan --params 70B --format fp32
check_contains "70B fp32 text" "$TMP/out" "280.0 GB"

# Training states: 16 bytes per parameter with the default recipe
# (seed 000: 70B x 16 B = 1120 GB), 18 with FP32 gradients (seed 003).
states() {
    f=$1
    awk -v a="$(json_get "$f" memory.weights)" -v b="$(json_get "$f" memory.gradients)" \
        -v c="$(json_get "$f" memory.master_weights)" -v d="$(json_get "$f" memory.optimizer)" \
        'BEGIN { printf "%.0f", a + b + c + d }'
}
run plan --params 70B --mode train --json
check_near "70B adam-mixed states" "$(states "$TMP/out")" 1120e9 0
run plan --params 70B --mode train --optimizer adam-mixed-fp32-grads --json
check_near "70B adam-mixed-fp32-grads states" "$(states "$TMP/out")" 1260e9 0
# Inference FP16 (2 B/param) is 8x less than the 16 B of training.
run plan --params 70B --json
check_near "70B fp16 weights = 1120/8" "$(json_get "$TMP/out" memory.weights)" 140e9 0

# Decode ceiling: 3350 GB/s / 16 GB = 209 tokens/s (seed 000); one token
# of context so the KV cache adds nothing visible.
run plan --params 8B --context 1 --json
check_near "8B fp16 H100 memory-bound tokens/s" \
    "$(json_get "$TMP/out" decode.tokens_per_s_memory_bound)" 209.375 0.001
# Ridge point 989e12 / 3.35e12 = 295 FLOP/byte (engine.md).
check_near "H100 ridge" "$(json_get "$TMP/out" decode.ridge_flop_per_byte)" 295.22 0.001

# Llama 3.1 8B: 8,030,261,248 parameters exactly; KV cache of 8192 tokens
# in FP16 at batch 1 = 2 * 32 * 8 * 128 * 8192 * 2 B = 1 GiB exactly.
run plan --model llama-3.1-8b --context 8192 --json
check_eq "Llama 3.1 8B params.total" "$(json_get "$TMP/out" params.total)" 8030261248
check_eq "Llama 3.1 8B KV 8192 tokens" "$(json_get "$TMP/out" memory.kv_cache)" 1073741824
check_eq "KV bytes per token" "$(json_get "$TMP/out" kv_cache.bytes_per_token)" 131072

# Llama 3.1 405B in BF16 (810 GB) does not fit 8 x H100 (640 GB), engine.md.
run plan --model llama-3.1-405b --format bf16 --gpus 8 --json
check_eq "405B bf16 on 8 x H100 fits" "$(json_get "$TMP/out" fits)" false
check_eq "405B layout tp" "$(json_get "$TMP/out" layout.tp)" 8
run plan --model llama-3.1-405b --format bf16 --gpus 8
check_contains "405B verdict first" "$TMP/out" "DOES NOT FIT"

# Llama 3.1 8B in INT8 fits a 12 GB RTX 3060.
run plan --model llama-3.1-8b --format int8 --gpu rtx-3060 --json
check_eq "8B int8 on RTX 3060 fits" "$(json_get "$TMP/out" fits)" true

# Llama 3.1 405B training layout: 8 x 16 x 128 = 16,384 H100 (seed 000).
run plan --model llama-3.1-405b --mode train --tp 8 --pp 16 --dp 128 --json
check_eq "405B layout gpus" "$(json_get "$TMP/out" layout.gpus)" 16384
# Pipeline bubble (p-1)/(m+p-1) (GPipe): p = 16, m = 64 -> 15/79.
run plan --model llama-3.1-405b --mode train --tp 8 --pp 16 --dp 128 --micro-batches 64 --json
check_near "bubble 15/79" "$(json_get "$TMP/out" training.bubble_fraction)" 0.189873417721519 1e-9
# Training FLOPs per token: 6*N (--flops-model 6n), or 6*N + 12*L*h*s with
# the attention term (PaLM appendix B; L 126, h 16384, s 4096).
N=$(json_get "$TMP/out" params.total)
check_near "training FLOP per token = 6N + 12 L h s" \
    "$(json_get "$TMP/out" training.flops_per_token)" \
    "$(awk -v n="$N" 'BEGIN { printf "%.17g", 6 * n + 12 * 126 * 16384 * 4096 }')" 1e-9
run plan --model llama-3.1-405b --mode train --tp 8 --pp 16 --dp 128 --micro-batches 64 \
    --flops-model 6n --json
check_near "training FLOP per token = 6N (--flops-model 6n)" \
    "$(json_get "$TMP/out" training.flops_per_token)" \
    "$(awk -v n="$N" 'BEGIN { printf "%.17g", 6 * n }')" 1e-9
# The seed's arithmetic with MFU end to end (Llama 3 paper): 6 N T / (G peak
# MFU) on 16,384 H100 SXM at 989 TFLOP/s dense BF16, 41%: 66.2 days, 26.0M
# GPU-hours; the bubble and communication are inside the MFU.
run plan --model llama-3.1-405b --mode train --gpu h100-sxm --gpus 16384 --tp 8 --pp 16 \
    --dp 128 --mfu 0.41 --tokens 15.6T --flops-model 6n --json
check_near "405B at MFU 0.41 (6N): days" "$(json_get "$TMP/out" training.days)" 66.2 0.001
check_near "405B at MFU 0.41 (6N): GPU-hours" "$(json_get "$TMP/out" training.gpu_hours)" \
    26.0e6 0.002
check_near "405B at MFU 0.41: training.mfu" "$(json_get "$TMP/out" training.mfu)" 0.41 1e-12
TPS=$(json_get "$TMP/out" training.tokens_per_step)
STEP=$(json_get "$TMP/out" training.step_seconds)
check_near "405B on 16,384 H100, 15.6T tokens: days = tokens / tokens per step * step" \
    "$(json_get "$TMP/out" training.days)" \
    "$(awk -v s="$STEP" -v t="$TPS" 'BEGIN { printf "%.17g", 15.6e12 / t * s / 86400 }')" 1e-9

# Inference figures are null in JSON in training keys, and vice versa.
run plan --json
check_eq "training.days null in inference" "$(json_get "$TMP/out" training.days)" null
# Seed 002's method ("Estimación del tiempo de entrenamiento"): 10,000
# examples x 512 tokens x 3 epochs = 15.36M tokens at 1,000 tokens/s (a 7B
# on one A100-40GB) = 15,360 s = 4.3 h; cost at the seed's table, $4.00/h
# on-demand and $1.20/h spot: the seed rounds to 4 h ($16, $4.80), the
# exact 4.267 h gives $17.07 and $5.12 (each within 7% of the seed's).
run plan --params 7B --mode lora --gpu a100-40gb --dataset 10000x512 --epochs 3 \
    --throughput 1000 --json
check_near "seed 002: 15.36M tokens" "$(json_get "$TMP/out" training.tokens)" 15360000 1e-12
check_near "seed 002: 4.3 h" "$(json_get "$TMP/out" training.gpu_hours)" 4.3 0.01
check_near "seed 002: 15,360 s" \
    "$(awk -v d="$(json_get "$TMP/out" training.days)" 'BEGIN { printf "%.17g", d * 86400 }')" \
    15360 1e-9
check_near "seed 002: on-demand \$4.00/h" "$(json_get "$TMP/out" training.cost_usd)" \
    "$(awk 'BEGIN { printf "%.17g", 15360 / 3600 * 4.00 }')" 1e-9
check_near "seed 002: \$16 at the seed's 4 h" "$(json_get "$TMP/out" training.cost_usd)" 16 0.07
check_near "seed 002: spot \$1.20/h" "$(json_get "$TMP/out" training.cost_spot_usd)" \
    "$(awk 'BEGIN { printf "%.17g", 15360 / 3600 * 1.20 }')" 1e-9
check_near "seed 002: \$4.80 spot at the seed's 4 h" \
    "$(json_get "$TMP/out" training.cost_spot_usd)" 4.80 0.07
# The same set as --dataset-tokens; per-GPU throughput multiplies by G.
run plan --params 7B --mode lora --gpu a100-40gb --dataset-tokens 5.12M --epochs 3 \
    --throughput 500/gpu --gpus 2 --dp 2 --json
check_near "--dataset-tokens x epochs" "$(json_get "$TMP/out" training.tokens)" 15360000 1e-12
check_near "500/gpu on 2 GPUs = 1,000 tokens/s: 2 x 4.267 GPU-hours" \
    "$(json_get "$TMP/out" training.gpu_hours)" "$(awk 'BEGIN { printf "%.17g", 2 * 15360 / 3600 }')" 1e-9
finish
