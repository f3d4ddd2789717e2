#!/bin/sh
# Scenario options through the command line: GNU forms, defaults, custom
# architectures with exact counts, custom GPUs, overrides, units, import.
. "${top_srcdir:-.}/tests/cli_lib.sh"

# --opt=value and --opt value mean the same.
run plan --model llama-3.1-70b --format int4-g32 --gpus 2 --json
cp "$TMP/out" "$TMP/a.json"
run plan --model=llama-3.1-70b --format=int4-g32 --gpus=2 --json
if cmp -s "$TMP/a.json" "$TMP/out"; then pass; else fail "--opt=value differs from --opt value"; fi
# Order does not matter: an override before --model still applies.
run plan --layers 16 --model llama-3.1-8b --json
cp "$TMP/out" "$TMP/b.json"
run plan --model llama-3.1-8b --layers 16 --json
if cmp -s "$TMP/b.json" "$TMP/out"; then pass; else fail "option order changes the result"; fi

# Defaults: llama-3.1-8b, fp16, kv fp16, h100-sxm, 1 GPU, context 4096, batch 1.
run plan --json
check_eq "default model" "$(json_get "$TMP/out" scenario.model)" '"llama-3.1-8b"'
check_eq "default format" "$(json_get "$TMP/out" scenario.format)" '"fp16"'
check_eq "default kv format" "$(json_get "$TMP/out" scenario.kv_format)" '"fp16"'
check_eq "default gpu" "$(json_get "$TMP/out" scenario.gpu)" '"h100-sxm"'
check_eq "default gpus" "$(json_get "$TMP/out" layout.gpus)" 1
check_eq "default context" "$(json_get "$TMP/out" scenario.context)" 4096
check_eq "default batch" "$(json_get "$TMP/out" scenario.batch)" 1
run plan --mode train --json
check_eq "training default format" "$(json_get "$TMP/out" scenario.format)" '"bf16"'

# --gpus alone: plan takes the engine's best fitting layout, as the explorer
# and search do (issue 13), and says which. 8B FP16 fits one H100: DP 16
# gives the most tokens/s; 70B FP16 on 3 GPUs: TP 3 does not divide 64
# heads and DP 3 holds 141 GB per GPU, so PP 3.
run plan --gpus 16 --json
check_eq "--gpus 16 tp" "$(json_get "$TMP/out" layout.tp)" 1
check_eq "--gpus 16 dp" "$(json_get "$TMP/out" layout.dp)" 16
check_contains "--gpus 16 says which layout" "$TMP/out" "layout TP 1 x PP 1 x DP 16: the best of 16 GPUs"
run search --gpus 16 --json
check_eq "--gpus 16 is search's first" "$(json_get "$TMP/out" layouts.dp)" 16
run plan --model llama-3.1-70b --gpus 3 --json
check_eq "70B --gpus 3 pp" "$(json_get "$TMP/out" layout.pp)" 3
check_eq "70B --gpus 3 fits" "$(json_get "$TMP/out" fits)" true
run plan --model llama-3.1-70b --gpus 8 --rank latency --json
check_eq "--rank latency picks TP 8" "$(json_get "$TMP/out" layout.tp)" 8
run plan --gpus 8 --tp 2 --json
check_eq "--gpus 8 --tp 2 solves dp" "$(json_get "$TMP/out" layout.dp)" 4
run plan --tp 2 --pp 2 --json
check_eq "--tp 2 --pp 2 gives 4 GPUs" "$(json_get "$TMP/out" layout.gpus)" 4

# Custom architectures: exact published counts.
# GPT-3 175B (Brown et al. 2020; GPT-2 style): equal to the catalog entry.
run plan --model gpt-3-175b --json
want=$(json_get "$TMP/out" params.total)
run plan --layers 96 --hidden 12288 --heads 96 --vocab 50257 --bias --norm layer \
    --pos-embeddings 2048 --tied --json
check_eq "GPT-3 style custom count" "$(json_get "$TMP/out" params.total)" "$want"
# OPT-1.3B (facebook/opt-1.3b: 1,315,758,080; 2050 learned positions).
run plan --layers 24 --hidden 2048 --heads 16 --vocab 50272 --bias --norm layer \
    --pos-embeddings 2050 --tied --json
check_eq "OPT-1.3B custom count" "$(json_get "$TMP/out" params.total)" 1315758080
# GPT-2 small (124,439,808: 1024 learned positions, tied head).
run plan --layers 12 --hidden 768 --heads 12 --vocab 50257 --bias --norm layer \
    --pos-embeddings 1024 --tied --json
check_eq "GPT-2 custom count" "$(json_get "$TMP/out" params.total)" 124439808
# OPT-125M (facebook/opt-125m: 125,239,296).
run plan --layers 12 --hidden 768 --heads 12 --vocab 50272 --bias --norm layer \
    --pos-embeddings 2050 --tied --json
check_eq "OPT-125M custom count" "$(json_get "$TMP/out" params.total)" 125239296
# Pythia-1.4B (GPT-NeoX; Pythia model table: 1,414,647,808).
run plan --layers 24 --hidden 2048 --heads 16 --vocab 50304 --bias --norm layer --json
check_eq "Pythia-1.4B custom count" "$(json_get "$TMP/out" params.total)" 1414647808
# Pythia-160M: 162,322,944.
run plan --layers 12 --hidden 768 --heads 12 --vocab 50304 --bias=all --norm=layer --json
check_eq "Pythia-160M custom count" "$(json_get "$TMP/out" params.total)" 162322944
# Llama 3.1 8B as an architecture: 8,030,261,248.
run plan --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256 \
    --gated --json
check_eq "Llama-style custom count" "$(json_get "$TMP/out" params.total)" 8030261248
# A catalog model with one field overridden: half the layers.
run plan --model llama-3.1-8b --layers 16 --json
n=$(json_get "$TMP/out" params.total)
check_near "llama-3.1-8b with 16 layers" "$n" \
    "$(awk 'BEGIN { h = 4096; l = (h*4096 + 2*h*1024 + 4096*h + 3*h*14336 + 2*h); printf "%.0f", 8030261248 - 16*l }')" 0
run plan --model llama-3.1-8b --gated=no --json
check_near "llama-3.1-8b ungated" "$(json_get "$TMP/out" params.total)" \
    "$(awk 'BEGIN { printf "%.0f", 8030261248 - 32*4096*14336 }')" 0

# A custom GPU with the H100 SXM's figures gives the H100's numbers.
run plan --model llama-3.1-70b --json
cp "$TMP/out" "$TMP/h100.json"
run plan --model llama-3.1-70b --gpu-memory 80GiB --gpu-bandwidth 3.35TB/s --gpu-flops 989T --json
for k in capacity decode.tokens_per_s_memory_bound decode.tokens_per_s_compute_bound \
    decode.ridge_flop_per_byte memory.total fits; do
    check_eq "custom GPU $k" "$(json_get "$TMP/out" "$k")" "$(json_get "$TMP/h100.json" "$k")"
done
check_eq "custom GPU id" "$(json_get "$TMP/out" scenario.gpu)" '"custom"'
run plan --gpu h100-sxm --gpu-memory 96GiB --json
check_eq "h100 with 96 GiB" "$(json_get "$TMP/out" capacity)" 103079215104

# Units: GiB in text; JSON stays in bytes.
run plan --context 8192 --units gib
check_contains "--units gib KV cache" "$TMP/out" "1.00 GiB"
run plan --context 8192 --units gb
check_contains "--units gb KV cache" "$TMP/out" "1.07 GB"
run plan --reserve 2GiB --json
check_eq "--reserve 2GiB" "$(json_get "$TMP/out" memory.reserve)" 2147483648
run plan --mode train --mfu 40% --json
check_eq "--mfu 40%" "$(json_get "$TMP/out" training.step_seconds)" \
    "$(sh -c "\"$VRAMLAB\" plan --mode train --mfu 0.4 --json" | json_get /dev/stdin training.step_seconds)"

# Every fixed JSON key of product.md is present.
run plan --json
for k in params.total params.active memory.weights memory.kv_cache memory.activations \
    memory.gradients memory.master_weights memory.optimizer memory.reserve memory.total \
    capacity fits layout.tp layout.pp layout.dp layout.gpus decode.tokens_per_s \
    decode.tokens_per_s_memory_bound decode.tokens_per_s_compute_bound \
    decode.tokens_per_s_per_sequence decode.bytes_per_step decode.ridge_flop_per_byte \
    decode.compute_bound_batch kv_cache.bytes_per_token activations.per_layer_bytes \
    activations.layers_held activations.logits_bytes prefill.seconds \
    training.flops_per_token training.step_seconds training.bubble_fraction training.days \
    training.gpu_hours training.cost_usd explain.memory.weights.formula \
    explain.memory.weights.values explain.memory.weights.source; do
    if json_flat < "$TMP/out" | grep -q "^$k="; then pass; else fail "JSON key $k missing"; fi
done
check_contains "warnings array" "$TMP/out" '"warnings": '
# explain.<key>: formula, values and source for every key that applies;
# null for those that do not (training keys in inference).
for k in params.total params.active memory.weights memory.kv_cache memory.total capacity \
    decode.tokens_per_s decode.tokens_per_s_memory_bound decode.tokens_per_s_compute_bound \
    decode.tokens_per_s_per_sequence decode.bytes_per_step decode.ridge_flop_per_byte \
    decode.compute_bound_batch kv_cache.bytes_per_token prefill.seconds; do
    for part in formula values source; do
        if json_flat < "$TMP/out" | grep -q "^explain\.$k\.$part=\"."; then pass; else
            fail "explain.$k.$part missing or empty"; fi
    done
done
check_eq "explain.training.days in inference" "$(json_get "$TMP/out" explain.training.days)" null
run plan --mode train --json
for k in training.flops_per_token training.step_seconds training.bubble_fraction \
    training.days training.gpu_hours training.cost_usd activations.per_layer_bytes \
    activations.layers_held memory.gradients memory.optimizer; do
    if json_flat < "$TMP/out" | grep -q "^explain\.$k\.formula=\"."; then pass; else
        fail "explain.$k.formula missing in training"; fi
done

# plan --explain: formula, values and source under the figures.
run plan --explain
check_contains "--explain formula" "$TMP/out" "      = 2 * layers * kv_heads"
check_contains "--explain source" "$TMP/out" "      [course text, lesson seed-000"

# Catalog listings and import.
for kind in gpus models formats; do
    run catalog "$kind"
    check_eq "catalog $kind exit" "$rc" 0
    run catalog "$kind" --json
    check_contains "catalog $kind --json" "$TMP/out" "\"$kind\": ["
done
run catalog models
check_contains "catalog models lists llama" "$TMP/out" "llama-3.1-8b"
cat > "$TMP/config.json" <<'JSON'
{
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "vocab_size": 128256,
  "max_position_embeddings": 131072,
  "tie_word_embeddings": false,
  "hidden_act": "silu",
  "rms_norm_eps": 1e-05
}
JSON
run import "$TMP/config.json"
check_eq "import exit" "$rc" 0
check_contains "import prints params" "$TMP/out" "8030261248"
run plan --model-config "$TMP/config.json" --json
check_eq "--model-config count" "$(json_get "$TMP/out" params.total)" 8030261248
mkdir -p "$TMP/model"
cp "$TMP/config.json" "$TMP/model/config.json"
run plan --model-config "$TMP/model" --json
check_eq "--model-config DIR count" "$(json_get "$TMP/out" params.total)" 8030261248
run import "$TMP/model"
check_contains "import DIR" "$TMP/out" "8030261248"

# --catalog FILE and the user's directory add entries.
cat > "$TMP/extra.yaml" <<'YAML'
gpus:
  - id: lab-gpu
    name: Lab GPU
    vendor: nvidia
    memory: 48 GiB
    bandwidth: 1 TB/s
    flops:
      fp16: 200 TFLOPS
    source: "test fixture"
YAML
run plan --catalog "$TMP/extra.yaml" --gpu lab-gpu --json
check_eq "--catalog GPU capacity" "$(json_get "$TMP/out" capacity)" 51539607552
check_near "--catalog GPU ridge" "$(json_get "$TMP/out" decode.ridge_flop_per_byte)" 200 1e-12
mkdir -p "$XDG_CONFIG_HOME/vramlab"
cp "$TMP/extra.yaml" "$XDG_CONFIG_HOME/vramlab/extra.yaml"
run plan --gpu lab-gpu --json
check_eq "user catalog GPU" "$(json_get "$TMP/out" capacity)" 51539607552
rm -f "$XDG_CONFIG_HOME/vramlab/extra.yaml"
# A workstation of 2-4 GeForce cards is one node: --gpus 2 is TP 2 and a
# 70B model at INT4 fits two 24 GB cards; search takes TP 2 as well.
run plan --model llama-3.1-70b --format int4-g32 --gpu rtx-4090 --gpus 2 --json
check_eq "2 x RTX 4090 tp" "$(json_get "$TMP/out" layout.tp)" 2
check_eq "2 x RTX 4090 70B int4 fits" "$(json_get "$TMP/out" fits)" true
run search --model llama-3.1-70b --format int4-g32 --gpu rtx-3090 --gpus 2
check_eq "search 2 x RTX 3090 exit" "$rc" 0
if grep -q "exceeds the GPUs of one node" "$TMP/out"; then
    fail "search 2 x RTX 3090 refuses TP 2"
else
    pass
fi
# Full training stores the weights as the --optimizer recipe says: the
# header shows the recipe, and an explicit --format is a warning, not a change.
run plan --params 10B --mode train --format fp32
check_contains "train header shows the recipe" "$TMP/out" "adam-mixed (2 B weights)"
check_contains "train --format warning" "$TMP/out" \
    "--format has no effect in full training but fp8 or mxfp8 (FP8 GEMMs): the --optimizer recipe sets the bytes"
run plan --params 10B --mode train --format fp32 --json
check_contains "train --format warning (JSON)" "$TMP/out" \
    '"--format has no effect in full training but fp8 or mxfp8 (FP8 GEMMs): the --optimizer recipe sets the bytes"'
w32=$(json_get "$TMP/out" memory.weights)
run plan --params 10B --mode train --json
check_eq "train weights ignore --format" "$(json_get "$TMP/out" memory.weights)" "$w32"
if grep -q "has no effect" "$TMP/out"; then fail "train warning without --format"; else pass; fi
run plan --params 10B --mode train --optimizer adam-fp32
check_contains "train header adam-fp32" "$TMP/out" "adam-fp32 (4 B weights)"
# LoRA and QLoRA default to full recompute (gradient checkpointing, as the
# QLoRA paper): a 70B QLoRA fits one H100; --recompute still overrides.
run plan --model llama-3.1-70b --mode qlora --gpu h100-sxm --json
check_eq "qlora default recompute" "$(json_get "$TMP/out" scenario.recompute)" '"full"'
check_eq "70B qlora fits one H100" "$(json_get "$TMP/out" fits)" true
run plan --mode lora --json
check_eq "lora default recompute" "$(json_get "$TMP/out" scenario.recompute)" '"full"'
run plan --mode qlora --recompute selective --json
check_eq "qlora --recompute selective" "$(json_get "$TMP/out" scenario.recompute)" '"selective"'
run plan --mode train --json
check_eq "train default recompute" "$(json_get "$TMP/out" scenario.recompute)" '"selective"'
# import prints a complete catalog file: saved as a file of its own in the
# user's directory it adds the model, named after the config's directory.
mkdir -p "$TMP/My_Model 8B"
cp "$TMP/config.json" "$TMP/My_Model 8B/config.json"
run import "$TMP/My_Model 8B/config.json"
check_eq "import DIR/config.json exit" "$rc" 0
check_contains "import prints a models: header" "$TMP/out" "models:"
check_contains "import id from the directory" "$TMP/out" "- id: my-model-8b"
mkdir -p "$XDG_CONFIG_HOME/vramlab"
cp "$TMP/out" "$XDG_CONFIG_HOME/vramlab/my-model.yaml"
run plan --model my-model-8b --json
check_eq "imported file loads" "$rc" 0
check_eq "imported model count" "$(json_get "$TMP/out" params.total)" 8030261248
rm -f "$XDG_CONFIG_HOME/vramlab/my-model.yaml"
vr="$(cd "$(dirname "$VRAMLAB")" && pwd)/$(basename "$VRAMLAB")"
(cd "$TMP/My_Model 8B" && "$vr" import config.json) > "$TMP/out" 2> "$TMP/err"
check_contains "import ./config.json id" "$TMP/out" "- id: my-model-8b"
# search --tp/--pp/--dp restrict the layouts and say so; counts are singular
# where one.
run search --gpus 8 --tp 2
check_eq "search --tp 2 exit" "$rc" 0
check_contains "search --tp 2 header" "$TMP/out" "only layouts with TP 2 (as given), of 10 in all"
if awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $2 != 2 { bad = 1 } END { exit !bad }' "$TMP/out"; then
    fail "search --tp 2 lists another TP"
else
    pass
fi
run search --gpus 8 --tp 2 --json
check_eq "search --tp 2 candidates" "$(json_get "$TMP/out" candidates)" 3
check_eq "search --tp 2 all_candidates" "$(json_get "$TMP/out" all_candidates)" 10
check_eq "search --tp 2 only.tp" "$(json_get "$TMP/out" only.tp)" 2
check_eq "search --tp 2 only.pp" "$(json_get "$TMP/out" only.pp)" null
run search --gpus 1
check_contains "search singular" "$TMP/out" "1 layout of 1 GPU, 1 fits"
run plan --mode train
check_contains "plan singular micro-batch" "$TMP/out" ", 1 micro-batch"
if grep -q "1 micro-batches" "$TMP/out"; then fail "1 micro-batches"; else pass; fi
# Tables line up whatever the longest name (in cells: a no-break space
# before a unit is one); counts round up a suffix
# ("1.00B", not "1000M") and absurd ones print in e-notation.
for kind in gpus models formats; do
    run catalog $kind
    widths=$(sed "s/$NBSP/ /g" "$TMP/out" | awk '{ print length($0) }' | sort -u | wc -l)
    check_eq "catalog $kind columns line up" "$widths" 1
done
run plan --model gemma-3-1b
check_contains "gemma-3-1b count" "$TMP/out" "Gemma 3 1B (1.00B params)"
run plan --params 1e30
check_contains "absurd count in e-notation" "$TMP/out" "(1.00e+30 params)"
if grep -v "^  - " "$TMP/out" | grep -q "000000000000"; then fail "absurd size printed in full"; else pass; fi
# Token counts take k = 1024 as model cards mean it; a Hugging Face name
# finds its catalog id; an unknown lesson lists the lessons.
run plan --context 128K --prompt 8k --json
check_eq "--context 128K" "$(json_get "$TMP/out" scenario.context)" 131072
check_eq "--prompt 8k" "$(json_get "$TMP/out" scenario.prompt)" 8192
run plan --context 1.5k --json
check_eq "--context 1.5k" "$(json_get "$TMP/out" scenario.context)" 1536
run plan --context 0.3k
check_eq "--context 0.3k exit" "$rc" 2
check_contains "--context 0.3k message" "$TMP/err" "k = 1024"
run plan --model meta-llama/Llama-3.1-8B --json
check_eq "--model org/Name exit" "$rc" 0
check_eq "--model org/Name id" "$(json_get "$TMP/out" scenario.model)" '"llama-3.1-8b"'
check_contains "--model org/Name note" "$TMP/err" "llama-3.1-8b"
run plan --model meta-llama/Llama-3.1-8B-Instruct
check_eq "--model org/Name-Instruct exit" "$rc" 2
check_contains "--model org/Name-Instruct suggests" "$TMP/err" "closest: llama-3.1-8b"
run --lesson seed-999
check_eq "--lesson unknown exit" "$rc" 2
check_contains "--lesson unknown lists lessons" "$TMP/err" "lessons: seed-000"
run search --gpus 8 --mode train --format fp32 --json
check_contains "search train --format warning" "$TMP/out" '"--format has no effect in full training'
# --- serving (issue 13) -------------------------------------------------------
# vLLM: its max_model_len defaults to the model's maximum; the figures it
# prints at start-up are JSON keys under serving.
run plan --runtime vllm --json
check_eq "vllm default context: the model's maximum" "$(json_get "$TMP/out" scenario.context)" 131072
check_eq "vllm runtime echoed" "$(json_get "$TMP/out" scenario.runtime)" '"vllm"'
for k in available_kv_bytes kv_blocks kv_tokens max_concurrency max_model_len_that_fits \
    overhead_bytes ttft_s tpot_s; do
    v=$(json_get "$TMP/out" serving.$k)
    case $v in '' | null) fail "vllm serving.$k: '$v'" ;; *) pass ;; esac
done
check_contains "vllm explains its blocks" "$TMP/out" '"serving.kv_blocks": {'
check_contains "vllm explain names its version" "$TMP/out" "vLLM 0.11"
check_eq "vllm profile echoed" "$(json_get "$TMP/out" scenario.runtime_profile)" '"vLLM 0.11"'
for k in memory_reported_bytes requested_bytes rotary_cache_bytes activation_peak_bytes \
    non_torch_bytes; do
    v=$(json_get "$TMP/out" serving.$k)
    case $v in '' | null) fail "vllm serving.$k: '$v'" ;; *) pass ;; esac
done
check_eq "vllm 0.11 does not count CUDA graphs" "$(json_get "$TMP/out" serving.cuda_graph_bytes)" null
# --max-concurrency: the batch becomes the most that fit, floor(max_concurrency).
run plan --runtime vllm --context 32k --max-concurrency --json
check_eq "--max-concurrency batch" "$(json_get "$TMP/out" scenario.batch)" 12
check_eq "--max-concurrency is vLLM's" "$(json_get "$TMP/out" limits.max_concurrency)" 12
run plan --runtime vllm --context 32k --concurrency 13 --json
check_eq "--concurrency 13 does not fit" "$(json_get "$TMP/out" fits)" false
check_contains "--concurrency 13 says the KV cache runs out" "$TMP/out" "runs out of KV cache"
# vLLM 0.21 counts its CUDA graphs before the KV cache (the log's estimate
# given) at its default utilisation 0.92; SGLang and TensorRT-LLM size their
# pools by their own fractions (issue 25).
run plan --runtime vllm@0.21 --cuda-graph-memory 1.5GiB --json
check_eq "vllm@0.21 profile" "$(json_get "$TMP/out" scenario.runtime_profile)" '"vLLM 0.21"'
check_eq "vllm@0.21 graphs" "$(json_get "$TMP/out" serving.cuda_graph_bytes)" 1610612736
check_near "vllm@0.21 default utilisation" "$(json_get "$TMP/out" serving.memory_fraction)" 0.92 0
run plan --runtime sglang --mem-fraction-static 0.8 --json
check_eq "sglang profile" "$(json_get "$TMP/out" scenario.runtime_profile)" '"SGLang 0.5"'
check_near "sglang fraction" "$(json_get "$TMP/out" serving.memory_fraction)" 0.8 0
run plan --runtime trtllm --json
check_near "trtllm default fraction" "$(json_get "$TMP/out" serving.memory_fraction)" 0.9 0
v=$(json_get "$TMP/out" serving.kv_tokens)
case $v in '' | null) fail "trtllm kv_tokens: '$v'" ;; *) pass ;; esac
run plan --runtime vllm --mem-fraction-static 0.8
check_contains "--mem-fraction-static needs sglang" "$TMP/out" "--mem-fraction-static is SGLang's"
# The steady state of a workload (prompt 128, output 2048) and its ceiling;
# batch-1 decode as run; the TP all-reduces of a prefill (issue 25).
run plan --runtime trtllm --format fp8 --kv-format fp8 --context 2176 --prompt 128 --json
v=$(json_get "$TMP/out" serving.steady_tokens_per_s)
case $v in '' | null | 0) fail "steady_tokens_per_s: '$v'" ;; *) pass ;; esac
check_contains "steady state explained" "$TMP/out" '"serving.steady_concurrency": {'
run plan --json
check_eq "no output tokens, no steady state" "$(json_get "$TMP/out" serving.steady_tokens_per_s)" null
v=$(json_get "$TMP/out" decode.batch1_tokens_per_s)
case $v in '' | null) fail "batch1_tokens_per_s: '$v'" ;; *) pass ;; esac
run plan --model llama-3.1-70b --gpus 2 --tp 2 --context 8k --json
v=$(json_get "$TMP/out" prefill.allreduce_seconds)
case $v in '' | null | 0) fail "prefill.allreduce_seconds at TP 2: '$v'" ;; *) pass ;; esac
# llama.cpp's Q4_K_M as llama-quantize builds it (llama-bench: 4.58 GiB).
run plan --format q4_k_m --json
check_near "Q4_K_M 8B bytes" "$(json_get "$TMP/out" memory.weights)" 4917000000 0.01
# Rope scaling: past the native context, said.
run plan --context 16k
check_contains "native context said" "$TMP/out" "had before rope scaling (llama3, factor 8)"
# llama.cpp on a 24 GB card: --fit puts what fits on it; --host-cpu gives the
# host's bandwidth (EPYC 9654: 12 x 64 bit x 4800 MT/s = 460.8 GB/s).
run plan --runtime llama.cpp --gpu rtx-4090 --model llama-3.1-70b --format q4-k \
    --host-cpu epyc-9654 --json
v=$(json_get "$TMP/out" serving.gpu_layers)
case $v in [1-7][0-9]) pass ;; *) fail "llama.cpp --fit layers on a 4090: '$v'" ;; esac
check_eq "--host-cpu bandwidth" "$(json_get "$TMP/out" serving.host_bytes_per_s)" 460800000000
check_eq "llama.cpp reserve: --fit's 1 GiB" "$(json_get "$TMP/out" memory.reserve)" 1073741824
check_eq "limits: the most layers that fit" "$(json_get "$TMP/out" limits.max_gpu_layers)" "$v"
run plan --runtime llama.cpp --gpu rtx-4090 --model llama-3.1-70b --format q4-k --gpu-layers 20
check_contains "--gpu-layers 20 in the text" "$TMP/out" "layers on the GPUs                       20"
check_contains "host RAM line" "$TMP/out" "host RAM (not in total)"
# Ollama: its context by VRAM (24-48 GiB: 32k) and its 457 MiB minimum.
run plan --runtime ollama --gpu rtx-4090 --json
check_eq "ollama context on 24 GiB" "$(json_get "$TMP/out" scenario.context)" 32768
check_eq "ollama per-GPU minimum" "$(json_get "$TMP/out" memory.reserve)" 479199232
# Settings of another runtime are noted, not silently taken.
run plan --block-size 32 --json
check_contains "--block-size without vllm noted" "$TMP/out" "need --runtime vllm"
# A bare size takes --kv-heads over its derived shape; the count stays N.
run plan --params 8B --kv-heads 2 --json
check_eq "--params with --kv-heads: count" "$(json_get "$TMP/out" params.total)" 8000000000
check_eq "--params with --kv-heads: KV per token" "$(json_get "$TMP/out" kv_cache.bytes_per_token)" 34816
# search: per-sequence tok/s in each layout, --rank orders them.
run search --model llama-3.1-70b --gpus 8 --rank latency --json
check_eq "search --rank latency first TP" "$(json_get "$TMP/out" layouts.tp)" 8
check_eq "search per sequence" "$(json_get "$TMP/out" layouts.tokens_per_s_per_sequence)" \
    "$(json_get "$TMP/out" layouts.tokens_per_s)"
check_eq "search rank echoed" "$(json_get "$TMP/out" rank)" '"latency"'
# Limits: the model's maximum stops "longest context", and the bound is said.
run plan --model mistral-7b
check_contains "longest context stops at the model's maximum" "$TMP/out" "32,768   the model's maximum"
# 1e15 parameters in training: 16 B each over 80 GiB needs more than 65,536.
run plan --params 1e15 --mode train
check_contains "a limit past its search bound says so" "$TMP/out" "more than 65,536 GPUs"
# A 1 GiB GPU cannot hold Llama 3.1 8B's embedding on any stage: no count
# fits, and more GPUs only add replicas (issue 27: said at once).
run plan --gpu-memory 1GiB --gpu-bandwidth 100GB/s --gpu-flops 10T
check_contains "no count fits at all" "$TMP/out" "no TP x PP holds one replica"
# Training batches (issue 12): --global-batch in sequences or tokens, the
# micro-batches derived as global / (micro-batch size x dp). Seed 002: per-
# device batch 1 x accumulation 16 = effective 16.
run plan --model llama-3.1-8b --mode train --micro-batch-size 1 --global-batch 16 --json
check_eq "seed 002: 1 x 16 accumulation" "$(json_get "$TMP/out" training.gradient_accumulation_steps)" 16
check_eq "seed 002: effective batch 16" "$(json_get "$TMP/out" training.global_batch)" 16
# Llama 3 Table 4: 16M tokens of 8,192 on DP 128 = 16 sequences per replica.
run plan --model llama-3.1-405b --mode train --tp 8 --pp 16 --dp 128 --context 8192 \
    --global-batch 16M-tokens --json
check_eq "16M-tokens / 8192 = 2048 sequences" "$(json_get "$TMP/out" training.global_batch)" 2048
check_eq "2048 / (1 x 128) = 16 micro-batches" \
    "$(json_get "$TMP/out" training.gradient_accumulation_steps)" 16
check_eq "tokens per step = 16M" "$(json_get "$TMP/out" training.tokens_per_step)" 16777216
check_contains "16 < 4 x 16 micro-batches warned" "$TMP/out" "use at least 4 x p = 64"
# Without a batch given, the model's published one (catalog global_batch_tokens).
run plan --model llama-3.1-405b --mode train --tp 8 --pp 16 --dp 128 --context 8192 --json
check_eq "405B default: its 16M tokens" "$(json_get "$TMP/out" training.global_batch)" 2048
check_contains "the recipe batch is noted" "$TMP/out" "published global batch"
# --batch is the micro-batch size in training: the same as --micro-batch-size.
run plan --model llama-3.1-8b --mode train --batch 2 --micro-batches 8 --dp 1 --json
a=$(json_get "$TMP/out" training.step_seconds)
run plan --model llama-3.1-8b --mode train --micro-batch-size 2 --micro-batches 8 --json
check_eq "--batch = --micro-batch-size in training" "$(json_get "$TMP/out" training.step_seconds)" "$a"
check_eq "2 x 8 = 16 sequences" "$(json_get "$TMP/out" training.global_batch)" 16
# --system (issue 12 item 7): a catalog server or rack sets the GPU, one
# whole system of GPUs, GPUs per node (the NVLink domain), the links and the
# power. GB300 NVL72: 72 B300 in one NVLink domain, so TP 16 stays on NVLink
# (the same 64 GPUs as HGX B300 nodes of 8 warn that TP spans nodes).
run plan --system gb300-nvl72 --model llama-3.1-8b --json
check_eq "--system exit" "$rc" 0
check_eq "--system sets the GPU" "$(json_get "$TMP/out" scenario.gpu)" '"b300"'
check_eq "--system in the JSON" "$(json_get "$TMP/out" scenario.system)" '"gb300-nvl72"'
check_eq "--system alone: one system" "$(json_get "$TMP/out" layout.gpus)" 72
check_eq "one system" "$(json_get "$TMP/out" scenario.systems)" 1
run plan --model llama-3.1-8b --json
check_eq "no system: null" "$(json_get "$TMP/out" scenario.system)" null
run plan --system gb300-nvl72 --model llama-3.1-405b --gpus 64 --tp 16
if grep -q "spans nodes" "$TMP/out"; then fail "TP 16 inside NVL72 warned as across nodes"; else pass; fi
check_contains "the header names the system" "$TMP/out" "64 x B300 (HGX, Blackwell Ultra) in 1 x NVIDIA GB300 NVL72"
run plan --gpu b300 --model llama-3.1-405b --gpus 64 --tp 16
check_contains "HGX B300: TP 16 spans nodes" "$TMP/out" "spans nodes of 8 GPUs"
# The system's power: 2,048 DGX H100 x 10.2 kW over the 405B run, 1.82x the boards'.
run plan --system dgx-h100 --model llama-3.1-405b --mode train --gpus 16384 --tp 8 --pp 16 \
    --dp 128 --mfu 0.41 --tokens 15.6T --flops-model 6n --json
check_eq "2048 systems" "$(json_get "$TMP/out" scenario.systems)" 2048
check_near "system energy 33.2 GWh" "$(json_get "$TMP/out" training.system_energy_joules)" 1.195e14 0.003
check_near "board energy 18.2 GWh" "$(json_get "$TMP/out" training.energy_joules)" 6.56e13 0.003
# What is given wins over the system's figures; a contradicting --gpu is refused.
run plan --system dgx-h100 --gpus-per-node 4 --model llama-3.1-70b --gpus 8 --tp 8
check_contains "--gpus-per-node wins" "$TMP/out" "spans nodes of 4 GPUs"
run plan --system dgx-h100 --gpu h200
check_eq "--system with another --gpu: exit 2" "$rc" 2
check_contains "names both" "$TMP/err" "--system dgx-h100 comes with --gpu h100-sxm, not 'h200'"
run plan --system dgx-h101
check_eq "unknown --system: exit 2" "$rc" 2
check_contains "lists the systems" "$TMP/err" "unknown system 'dgx-h101' (the catalog has: dgx-h100"
# In a scenario file, and saved back.
printf 'system: gb300-nvl72\nmodel: llama-3.1-405b\ngpus: 64\ntp: 16\n' > "$TMP/sys.yaml"
run plan --scenario "$TMP/sys.yaml" --json
check_eq "scenario file system" "$(json_get "$TMP/out" scenario.system)" '"gb300-nvl72"'
# vramlab catalog systems: the table and its JSON.
run catalog systems
check_contains "catalog systems lists NVL72" "$TMP/out" "gb300-nvl72 NVIDIA GB300 NVL72 b300        72      72   1.80 TB/s    100 GB/s    142 kW"
run catalog systems --json
check_eq "catalog systems JSON power" "$(json_get "$TMP/out" systems.power_w)" 10200
# --global-batch with --gpus N alone: divided by the picked layout's DP, not
# by the first guess's (TP 2 x DP 4 for 8B on 8 H100: 12 / 4 = 3).
run plan --model llama-3.1-8b --mode train --gpus 8 --global-batch 12 --json
check_eq "picked layout dp" "$(json_get "$TMP/out" layout.dp)" 4
check_eq "micro-batches from the picked dp" "$(json_get "$TMP/out" scenario.micro_batches)" 3
check_eq "accumulation from the picked dp" "$(json_get "$TMP/out" training.gradient_accumulation_steps)" 3
run plan --model llama-3.1-8b --mode train --gpus 8 --global-batch 12
check_contains "the header says 3" "$TMP/out" ", 3 micro-batches"
# Expert parallelism (issue 12): Megatron-LM's theoretical_memory_usage.py
# for Mixtral 8x7B, EP 8 on DP 8 with the distributed optimizer (6 + 12/d B,
# adam-mixed-fp32-grads at ZeRO-1): 113.5e9 B of weights and states per GPU.
run plan --model mixtral-8x7b --mode train --gpus 8 --dp 8 --ep 8 --zero 1 \
    --optimizer adam-mixed-fp32-grads --json
states=$(json_flat < "$TMP/out" | awk -F= '$1 ~ /^memory\.(weights|gradients|master_weights|optimizer)$/ { s += $2 } END { printf "%.0f", s }')
check_near "Mixtral EP 8: Megatron's 113.5e9 B" "$states" 113.5e9 0.0005
check_eq "scenario.ep echoed" "$(json_get "$TMP/out" scenario.ep)" 8
a2a=$(json_get "$TMP/out" training.all_to_all_seconds)
check_eq "the all-to-all is a positive time" "$(awk -v x="$a2a" 'BEGIN { print (x > 0) }')" 1
run plan --model mixtral-8x7b --mode train --gpus 8 --dp 8 --ep 8
check_contains "the header names EP" "$TMP/out" "EP 8 inside DP"
check_contains "the all-to-all line" "$TMP/out" "EP all-to-all per step"
run plan --model mixtral-8x7b --mode train --gpus 8 --dp 8 --zero 1 \
    --optimizer adam-mixed-fp32-grads --json
states=$(json_flat < "$TMP/out" | awk -F= '$1 ~ /^memory\.(weights|gradients|master_weights|optimizer)$/ { s += $2 } END { printf "%.0f", s }')
check_near "Mixtral without EP: 46.7e9 x 7.5 = 350e9 B" "$states" 350.27e9 0.0005
check_eq "no EP: no all-to-all" "$(json_get "$TMP/out" training.all_to_all_seconds)" 0
# --gpus alone with --ep: the search keeps the d that ep divides.
run plan --model mixtral-8x7b --mode train --gpus 16 --ep 8 --json
check_eq "d a multiple of ep" "$(( $(json_get "$TMP/out" layout.dp) % 8 ))" 0
# Recompute by block (Megatron-LM --recompute-method block --recompute-num-layers N).
run plan --model llama-3.1-8b --mode train --recompute full --json
full=$(json_get "$TMP/out" memory.activations)
run plan --model llama-3.1-8b --mode train --recompute full --recompute-method block \
    --recompute-num-layers 16 --json
half=$(json_get "$TMP/out" memory.activations)
check_eq "block 16 of 32 holds more than full" "$(awk -v a="$half" -v b="$full" 'BEGIN { print (a > b) }')" 1
check_eq "recompute_num_layers echoed" "$(json_get "$TMP/out" scenario.recompute_num_layers)" 16
check_eq "recompute_method echoed" "$(json_get "$TMP/out" scenario.recompute_method)" '"block"'
# New recipes.
for r in lion lion-fp32-grads adafactor; do
    run plan --model llama-3.1-8b --mode train --optimizer $r --json
    check_eq "--optimizer $r runs" "$rc" 0
done
# Memory conventions and offload (issue 12; docs/training.md). Llama 3.1 8B
# (8,030,261,248 parameters; embedding 128256 x 4096) on 8 GPUs.
run plan --model llama-3.1-8b --mode train --gpus 8 --dp 8 --zero 3 --json
check_eq "default convention is the paper's" "$(json_get "$TMP/out" scenario.memory_convention)" \
    '"paper"'
check_eq "default offload none" "$(json_get "$TMP/out" scenario.offload)" '"none"'
check_eq "paper: no gathered layer" "$(json_get "$TMP/out" memory.zero3_working)" 0
run plan --model llama-3.1-8b --mode train --gpus 8 --dp 8 --zero 3 --memory-convention deepspeed \
    --json
check_eq "deepspeed named" "$(json_get "$TMP/out" scenario.memory_convention)" '"deepspeed"'
check_eq "DeepSpeed: 4 B x the embedding gathered" "$(json_get "$TMP/out" memory.zero3_working)" \
    2101346304
check_eq "the largest layer is the embedding" \
    "$(json_get "$TMP/out" training.largest_layer_params)" 525336576
check_contains "explain names DeepSpeed's estimator" "$TMP/out" "estimate_zero3_model_states_mem_needs"
run plan --model llama-3.1-8b --mode train --gpus 8 --dp 8 --zero 3 --memory-convention deepspeed \
    --offload nvme --json
check_eq "nvme named" "$(json_get "$TMP/out" scenario.offload)" '"nvme"'
check_near "ZeRO-Infinity: (2 + 4 + 8) N / 8 on NVMe" "$(json_get "$TMP/out" memory.nvme)" \
    14052957184 1e-9
check_near "the FP32 gradients pinned in host RAM: 4 N / 8" "$(json_get "$TMP/out" memory.host)" \
    4015130624 1e-9
check_eq "no parameters on the GPU" "$(json_get "$TMP/out" memory.weights)" 0
run plan --model llama-3.1-8b --mode train --gpus 8 --dp 8 --zero 2 --offload cpu \
    --host-link-bw 32GB/s --json
check_near "ZeRO-Offload: 14 N / 8 in host RAM" "$(json_get "$TMP/out" memory.host)" \
    14052957184 1e-9
check_eq "host link given" "$(json_get "$TMP/out" training.host_link_bytes_per_s)" 32000000000
T=$(json_get "$TMP/out" training.offload_bytes_per_step)
check_near "offload seconds = bytes / link" "$(json_get "$TMP/out" training.offload_seconds)" \
    "$(awk -v t="$T" 'BEGIN { printf "%.17g", t / 32e9 }')" 1e-12
run plan --model llama-3.1-8b --mode train --gpus 8 --dp 8 --zero 2 --offload cpu
check_contains "text: host RAM line" "$TMP/out" "host RAM (not in total)"
check_contains "text: offload traffic line" "$TMP/out" "offload traffic per step"
finish
