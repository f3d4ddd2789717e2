#!/bin/sh
# Errors of the headless commands: exit codes 2 (usage) and 3 (catalog),
# the closest valid names in the message, and nothing on stdout.
. "${top_srcdir:-.}/tests/cli_lib.sh"

# expect CODE "text in stderr" ARGS...: exit code, message, empty stdout.
expect() {
    code=$1 text=$2
    shift 2
    run "$@"
    check_eq "vramlab $* exit" "$rc" "$code"
    check_contains "vramlab $* message" "$TMP/err" "$text"
    if [ -s "$TMP/out" ]; then
        fail "vramlab $*: stdout not empty on error"
    else
        pass
    fi
}

# Unknown flags, commands and ids name the closest valid ones.
expect 2 "--model" plan --modle llama-3.1-8b
expect 2 "--micro-batches" plan --micro-batch 4
expect 2 "--kv-format" search --gpus 8 --kv-fromat fp8
expect 2 "plan" plna
expect 2 "search" serch --gpus 8
expect 2 "llama-3.1-8b" plan --model llama-3.1-8
expect 2 "h100-sxm" plan --gpu h100-sx
expect 2 "int4-g32" plan --format int4-g23
expect 2 "fp16" plan --kv-format fp61
expect 2 "adam-mixed" plan --mode train --optimizer adam-mix
expect 2 "models" catalog modles
# Impossible combinations name the flags.
expect 2 "--gpus" plan --tp 2 --pp 2 --dp 2 --gpus 4
expect 2 "--tp 3" plan --tp 3
expect 2 "--pp 64 exceeds" plan --pp 64
expect 2 "--gpus 6 is not a multiple of --tp 4" plan --gpus 6 --tp 4
expect 2 "--model, --params" plan --model llama-3.1-8b --params 8B
expect 2 "--layers" plan --hidden 4096 --heads 32 --vocab 32000
expect 2 "--gpu-bandwidth" plan --gpu-memory 80GiB
expect 2 "--heads 3 does not divide --hidden 64" plan --layers 2 --hidden 64 --heads 3 --vocab 100
# ZeRO conventions and offload (issue 12): the combinations that do not exist.
expect 2 "--memory-convention: expected paper, deepspeed, megatron or peak" plan --mode train \
    --memory-convention zero
expect 2 "--offload: expected none, cpu or nvme" plan --mode train --zero 2 --offload gpu
expect 2 "--offload cpu needs --zero 1, 2 or 3 (found --zero 0)" plan --mode train --offload cpu
expect 2 "--offload nvme needs --zero 3 (found --zero 2)" plan --mode train --gpus 8 --dp 8 \
    --zero 2 --offload nvme
expect 2 "--offload cpu needs --mode train" plan --zero 2 --offload cpu
expect 2 "not megatron" plan --mode train --zero 1 --offload cpu --memory-convention megatron
expect 2 "--memory-convention megatron has no ZeRO-3" plan --mode train --gpus 8 --dp 8 \
    --zero 3 --memory-convention megatron
expect 2 "--host-link-bw" plan --mode train --zero 2 --offload cpu --host-link-bw fast
# Serving (issue 13): every bad value names its flag.
expect 2 "--prompt 8192 is longer than --context 4096" plan --prompt 8k --context 4k
expect 2 "--gpu-layers 33 exceeds the model's 32 layers" plan --gpu-layers 33
expect 2 "-ngl 33 is --gpu-layers 32" plan --runtime llama.cpp --gpu-layers 33
expect 2 "--gpu-memory-utilization" plan --runtime vllm --gpu-memory-utilization 1.5
expect 2 "--gpu-memory-utilization" plan --runtime vllm --gpu-memory-utilization 0
expect 2 "--block-size" plan --runtime vllm --block-size 0
expect 2 "--runtime: expected plain, vllm[@VERSION], llama.cpp, ollama" plan --runtime tgi
expect 2 "--runtime: no profile for 'vllm@0.10.1.1'" plan --runtime vllm@0.10.1.1
expect 2 "--runtime: no profile for 'llama.cpp@1.0'" plan --runtime llama.cpp@1.0
expect 2 "--mem-fraction-static" plan --runtime sglang --mem-fraction-static 1.2
expect 2 "--free-gpu-memory-fraction" plan --runtime trtllm --free-gpu-memory-fraction abc
expect 2 "are the same setting of three runtimes" plan --runtime vllm \
    --gpu-memory-utilization 0.9 --mem-fraction-static 0.8
expect 2 "--cuda-graph-memory" plan --runtime vllm@0.21 --cuda-graph-memory 0
expect 2 "--request-rate: expected a number from 0 to 1e+09, found '-1'" plan --request-rate -1
expect 2 "--flash-attention" plan --runtime llama.cpp --flash-attention maybe
expect 2 "--fit" plan --runtime llama.cpp --fit=sometimes
expect 2 "--n-cpu-moe needs a mixture-of-experts" plan --n-cpu-moe 4
expect 2 "--host-bandwidth" plan --host-bandwidth 0
expect 2 "--host-cpu: unknown CPU" plan --host-cpu epyc-9655
expect 2 "--concurrency 4 and --batch 2" plan --concurrency 4 --batch 2
expect 2 "--max-concurrency finds the batch itself" plan --max-concurrency --batch 2
expect 2 "vllm does not offload layers" plan --runtime vllm --gpu-layers 10
expect 2 "sglang does not offload layers" plan --runtime sglang --gpu-layers 10
expect 2 "--rank: expected throughput, latency or memory" search --gpus 8 --rank fastest
expect 2 "--gpu-layers 1 is fewer than the --pp 2" plan --pp 2 --gpu-layers 1
expect 2 "--kv-heads 3 does not divide --heads 4" plan --layers 2 --hidden 64 --heads 4 \
    --kv-heads 3 --vocab 100
# Bad values.
expect 2 "--gpus" plan --gpus eight
expect 2 "--gpus" plan --gpus 0
expect 2 "--batch" plan --batch -1
expect 2 "--mfu" plan --mfu 1.5
expect 2 "--global-batch 1000 sequences is not a multiple of --micro-batch-size 1 x --dp 128" \
    plan --model llama-3.1-405b --mode train --tp 8 --pp 16 --dp 128 --global-batch 1000
expect 2 "is not a whole number of sequences of --context 4096" \
    plan --mode train --global-batch 3000-tokens
expect 2 "--global-batch applies to training" plan --global-batch 16
expect 2 "--batch 2 and --micro-batch-size 4" plan --mode train --batch 2 --micro-batch-size 4
expect 2 "needs m = 16, but --micro-batches is 4" plan --mode train --global-batch 16 --micro-batches 4
expect 2 "--flops-model" plan --mode train --flops-model 8n
expect 2 "--throughput and --mfu" plan --mode train --throughput 1000 --mfu 0.4
expect 2 "--epochs counts passes" plan --mode train --epochs 3
expect 2 "--tokens and --dataset" plan --mode train --dataset 10x512 --tokens 1M
expect 2 "--dataset: expected examples x tokens" plan --mode train --dataset 10000
expect 2 "--units" plan --units tb
expect 2 "--mode" plan --mode serve
expect 2 "--recompute" plan --recompute some
# Expert parallelism (issue 12): EP inside DP, dividing the experts.
expect 2 "--ep 3 does not divide the 8 experts" plan --model mixtral-8x7b --mode train --dp 8 --ep 3
expect 2 "--ep 8 does not divide --dp 4" plan --model mixtral-8x7b --mode train --dp 4 --ep 8
expect 2 "--ep 2 needs a mixture-of-experts model: llama-3.1-8b" \
    plan --model llama-3.1-8b --mode train --dp 2 --ep 2
expect 2 "--ep 8 applies to training" plan --model mixtral-8x7b --dp 8 --ep 8
expect 2 "--ep: expected a whole number from 1 to 65536, found '0'" plan --model mixtral-8x7b --mode train --ep 0
# Full recompute's method and layers (Megatron-LM's flags).
expect 2 "--recompute-num-layers applies to full recompute" \
    plan --mode train --recompute selective --recompute-num-layers 4
expect 2 "--recompute-num-layers 40 exceeds the model's 32 layers" \
    plan --mode train --recompute full --recompute-num-layers 40
expect 2 "--recompute-method: expected uniform or block" \
    plan --mode train --recompute full --recompute-method blocks
expect 2 "--zero" plan --zero 4
expect 2 "--json takes no value" plan --json=yes
expect 2 "--model needs a value" plan --model
expect 2 "--params" plan --params 70Q
expect 2 "--reserve" plan --reserve 1XB
expect 2 "--gpu-bandwidth" plan --gpu h100-sxm --gpu-bandwidth fast
# A forgotten unit: bytes, B/s and FLOP/s below any real GPU are refused.
expect 2 "did you mean 80GiB?" plan --gpu-memory 80 --gpu-bandwidth 3.35TB/s --gpu-flops 989T
expect 2 "did you mean 3.35TB/s?" plan --gpu h100-sxm --gpu-bandwidth 3.35
expect 2 "did you mean 989T?" plan --gpu h100-sxm --gpu-flops 989
expect 2 "did you mean 900GB/s?" plan --measured-bw 900
# A bad unit is named before the missing companion flags.
expect 2 "'80 GX'" plan --gpu-memory "80 GX"
# An unknown lesson name lists the lessons there are.
expect 2 "no lesson file or name 'seed-999'" --lesson seed-999
expect 2 "--bias" plan --layers 2 --hidden 64 --heads 4 --vocab 100 --bias=some
expect 2 "unexpected argument" plan llama
expect 2 "needs --gpus" search
expect 2 "import needs" import
# Catalog errors: exit 3, the file named.
expect 3 "nonexistent.yaml" plan --catalog "$TMP/nonexistent.yaml"
printf 'gpus:\n  - id: bad\n    name: Bad\n    memory: 80 GX\n' > "$TMP/bad.yaml"
expect 3 "bad.yaml" plan --catalog "$TMP/bad.yaml"
expect 3 "bad.yaml" catalog gpus --catalog="$TMP/bad.yaml"
expect 3 "missing.json" import "$TMP/missing.json"
expect 3 "missing.json" plan --model-config "$TMP/missing.json"

# A failed write to stdout is a failure (exit 1), never a silent success.
if [ -w /dev/full ]; then
    for args in "plan" "plan --json" "catalog gpus" "plan --help" "--version"; do
        # shellcheck disable=SC2086
        "$VRAMLAB" $args > /dev/full 2> "$TMP/err"
        check_eq "vramlab $args > /dev/full exit" "$?" 1
    done
fi

# One scanner, one wording (issue 23): every command, the explorer and the
# probe word an unknown option, a missing value and a bad value alike.
same() {
    name=$1 want=$2
    shift 2
    run "$@"
    check_eq "$name exit" "$rc" 2
    check_eq "$name message" "$(cat "$TMP/err")" "$want"
}
for cmd in plan search measure quantize catalog import; do
    same "$cmd --bogus" "vramlab: unknown option '--bogus' (see --help)" "$cmd" --bogus
done
same "explorer --bogus" "vramlab: unknown option '--bogus' (see --help)" --bogus
same "plan --modle" "vramlab: unknown option '--modle'; did you mean --mode, --model?" plan --modle
same "catalog --jsno" "vramlab: unknown option '--jsno'; did you mean --json?" catalog gpus --jsno
same "quantize --bist" "vramlab: unknown option '--bist'; did you mean --bits?" quantize --bist 4
same "plan --model" "vramlab: --model needs a value (ID)" plan --model
same "measure --tests" "vramlab: --tests needs a value (LIST)" measure --tests
same "quantize --bits" "vramlab: --bits needs a value (2..8)" quantize --bits
same "catalog --units" "vramlab: --units needs a value (U)" catalog gpus --units
same "plan --json=yes" "vramlab: --json takes no value" plan --json=yes
same "measure --json=1" "vramlab: --json takes no value" measure --json=1
same "plan --gpus 0" "vramlab: --gpus: expected a whole number from 1 to 16777216, found '0'" \
    plan --gpus 0
same "plan --zero 4" "vramlab: --zero: expected a whole number from 0 to 3, found '4'" plan --zero 4
same "quantize --bits 9" "vramlab: --bits: expected a whole number from 2 to 8, found '9'" \
    quantize --bits 9 x.safetensors
same "catalog --units tb" "vramlab: --units: expected gb or gib, found 'tb'" catalog gpus --units tb
same "plan --units tb" "vramlab: --units: expected gb or gib, found 'tb'" plan --units tb
same "catalog word" "vramlab: unexpected argument 'models' (see --help)" catalog gpus models
same "import word" "vramlab: unexpected argument 'b' (see --help)" import a b
same "plan word" "vramlab: unexpected argument 'llama' (see --help)" plan llama
PROBE=$top_builddir/vramlab-probe
probe_same() {
    name=$1 want=$2
    shift 2
    "$PROBE" "$@" > "$TMP/out" 2> "$TMP/err"
    check_eq "probe $name exit" "$?" 2
    check_eq "probe $name event" "$(cat "$TMP/out")" \
        "{\"event\":\"error\",\"message\":\"$want\",\"code\":\"usage\"}"
}
if [ -x "$PROBE" ]; then
    probe_same "--bogus" "unknown option '--bogus' (see --help)" --bogus
    probe_same "--qiuck" "unknown option '--qiuck'; did you mean --quick?" --qiuck
    probe_same "--threads" "--threads needs a value (N)" --threads
    probe_same "--quick=1" "--quick takes no value" --quick=1
    probe_same "--threads 0" "--threads: expected a whole number from 1 to 1024, found '0'" --threads 0
    probe_same "word" "unexpected argument 'x' (see --help)" x
else
    fail "$PROBE not built"
fi

# Help and version succeed on stdout.
for cmd in plan search catalog import; do
    run "$cmd" --help
    check_eq "$cmd --help exit" "$rc" 0
    check_contains "$cmd --help" "$TMP/out" "usage: vramlab $cmd"
done
run --help
check_eq "--help exit" "$rc" 0
check_contains "--help lists plan" "$TMP/out" "plan"
run --version
check_eq "--version exit" "$rc" 0
check_contains "--version" "$TMP/out" "vramlab "
finish
