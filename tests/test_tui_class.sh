#!/bin/sh
# test_tui_class.sh: the explorer's numbers agree with themselves and with
# `vramlab plan` (issue 16), through a real terminal (tmux), with TERM=vt100,
# NO_COLOR=1 and LANG=C (ASCII) unless a case needs UTF-8 widths:
#   - LoRA and QLoRA use one recompute rule whatever the path (--mode or t),
#     and the title says it;
#   - the GPU pane's FLOP/s is the column the mode computes in;
#   - the Format pane's formula adds up, super-block terms included;
#   - the Pythia evidence shows only for INT b-bit formats (and FP16);
#   - the tok/s-versus-batch chart leaves the no-fit columns empty;
#   - the figures are plan's (one formatter): days, ratios, TB, counts;
#   - widths are display cells (UTF-8 and ASCII cut at the same place),
#     cut text ends with an ellipsis, the 80-column hint line keeps
#     "? help" and "q quit".
# Skips (77) when tmux is missing.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the explorer's screen checks"
tui_setup class

# start NAME W H LANG ARGS...: run vramlab (--fresh) in a new W x H session.
start() {
    name=$1 w=$2 h=$3 lang=$4
    shift 4
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x "$w" -y "$h" \
        "env TERM=vt100 NO_COLOR=1 LANG=$lang LC_ALL=$lang '$VRAMLAB' --fresh $*; sleep 600"
    wait_for "$name" "Memory per GPU" || fail "$name: no screen"
}

# plan_text ARGS...: `vramlab plan ARGS`, run once per set of arguments
# (a 405B training plan takes seconds of CPU; its lines are read thrice).
plan_text() {
    key=$(printf '%s ' "$@" | cksum | cut -d' ' -f1)
    [ -s "$TMP/plan.$key" ] || "$VRAMLAB" plan "$@" | sed "s/$TUI_NBSP/ /g" >"$TMP/plan.$key"
    cat "$TMP/plan.$key"
}
# keys NAME KEY...: send keys one at a time, letting each frame draw.
keys() {
    n=$1
    shift
    for k in "$@"; do
        tmux -L "$SOCK" send-keys -t "$n" "$k"
        sleep 0.15
    done
}

# has NAME TEXT WHAT: ok when TEXT shows, else fail with the screen.
has() {
    if wait_for "$1" "$2"; then
        ok "$3"
    else
        fail "$3: '$2' not on screen"
        capture "$1"
    fi
}

# lacks NAME TEXT WHAT: ok when TEXT is not on screen.
lacks() {
    if capture "$1" | grep -qF -- "$2"; then
        fail "$3: '$2' on screen"
        capture "$1"
    else
        ok "$3"
    fi
}

# total NAME: the memory total on screen ("total 52.7 GB").
total() {
    capture "$1" | grep -o 'total [0-9.,]* [KMGT]i*B' | head -1
}

# --- LoRA/QLoRA: one recompute rule, shown where the mode is ----------------
# Llama 3.1 70B on an RTX A6000 (issue 16: 52.7 GB with --mode qlora, but
# 141.4 GB after t t t, under the same header).
SC="--model llama-3.1-70b --gpu rtx-a6000"
for size in "100 30" "80 24"; do
    set -- $size
    start "q$1" "$1" "$2" C $SC --mode qlora
    start "t$1" "$1" "$2" C $SC
    keys "t$1" t t t
    wait_for "t$1" "QLoRA" || fail "t$1: t t t did not reach QLoRA"
    settle "t$1"
    a=$(total "q$1") b=$(total "t$1")
    ta=$(capture "q$1" | head -1) tb=$(capture "t$1" | head -1)
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$ta" = "$tb" ]; then
        ok "$1x$2: --mode qlora and t t t give the same memory ($a) and title"
    else
        fail "$1x$2: --mode qlora: $a, '$ta'; t t t: $b, '$tb'"
    fi
    plan=$(plan_text $SC --mode qlora | grep '^  total per GPU' | head -1 | awk '{ print $4, $5 }')
    [ "$a" = "total $plan" ] && ok "$1x$2: QLoRA total is plan's ($plan)" ||
        fail "$1x$2: QLoRA total $a, plan $plan"
    has "q$1" "full" "$1x$2: the title says the recompute"
    capture "q$1" | head -1 | grep -qE "QLoRA, (full recompute|rc full)" ||
        fail "$1x$2: the recompute is not next to the mode: $(capture "q$1" | head -1)"
done
# Back to training: the training default again (selective), as --mode train.
keys t100 t
wait_title t100 "inference" || fail "t100: no inference"
keys t100 t
wait_title t100 "training" && settle t100
start tr100 100 30 C $SC --mode train
a=$(total t100) b=$(total tr100)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "training after QLoRA is --mode train's ($a)" ||
    fail "training after QLoRA: $a, --mode train: $b"
capture t100 | head -1 | grep -q "training, selective recompute" ||
    fail "training title: $(capture t100 | head -1)"
# A recompute the user set is kept across modes.
start rc100 100 30 C $SC --mode lora --recompute none
keys rc100 t t
wait_title rc100 "inference" || fail "rc100: not in inference"
keys rc100 t
wait_title rc100 "training" && settle rc100
capture rc100 | head -1 | grep -qE "training, (none recompute|rc none)" ||
    fail "--recompute none is not kept: $(capture rc100 | head -1)"

# --- the GPU pane's FLOP/s is what the mode computes in -----------------------
# H100 SXM: 1,979 TFLOP/s FP8, 989 TFLOP/s BF16 (data sheet); FP8 E5M2
# weights compute in FP8 in inference, but training runs BF16 (the recipe).
start fl 100 30 C --model llama-3.1-8b --gpu h100-sxm --format fp8-e5m2
has fl "1.98 PFLOP/s fp8" "inference with FP8 weights: the FP8 rate"
keys fl t
wait_for fl "training" || fail "fl: no training"
has fl "989 TFLOP/s bf16" "training: the BF16 rate the engine uses"
lacks fl "PFLOP/s fp8" "training: no FP8 rate"
peak=$("$VRAMLAB" plan --model llama-3.1-8b --gpu h100-sxm --format fp8-e5m2 --mode train |
    sed "s/$TUI_NBSP/ /g" | grep "peak used" | awk '{ print $3, $4 }')
[ "$peak" = "989 TFLOP/s" ] && ok "plan's training peak is the pane's (989 TFLOP/s)" || fail "plan's training peak: $peak"
keys fl t
wait_for fl "LoRA" || fail "fl: no LoRA"
has fl "989 TFLOP/s bf16" "LoRA: the BF16 rate"

# --- the Format pane's formula adds up ----------------------------------------
# sums FORMULA: the terms left of '=' summed, and the figure right of it.
sums() {
    echo "$1" | awk -F'=' '{
        n = split($1, t, "+"); s = 0
        for (i = 1; i <= n; i++) { gsub(/ /, "", t[i]); split(t[i], q, "/"); s += (q[2] ? q[1] / q[2] : q[1]) }
        r = $2; gsub(/[ b\/w]/, "", r); printf "%.12f %s\n", s, r }'
}
# Every weight format of the catalog, at the widths where its formula fits
# whole (120 columns) and where a narrower form must be used (80).
ids=$("$VRAMLAB" catalog formats | awk 'NR > 1 { print $1 }' | grep -vx int4)
"$VRAMLAB" catalog formats --json >"$TMP/formats.json"
for size in "120 40" "80 24"; do
    set -- $size
    for id in $ids; do
        n="f$1$id"
        start "$n" "$1" "$2" C --format "$id"
        wait_for "$n" "b/w" || { fail "$id at $1x$2: no bits per weight"; continue; }
        line=$(capture "$n" | grep -oE "[0-9][0-9 +/.]*= ?[0-9.]+ ?b/w|[0-9.]+ b/w" | head -1)
        tmux -L "$SOCK" kill-session -t "$n"
        bits=$(awk -v id="\"$id\"" '
            $0 ~ "\"id\": " id "," { f = 1 } f && /"bits_per_weight"/ { gsub(/[^0-9.e+-]/, "", $2); print $2; exit }' "$TMP/formats.json")
        case $line in
        *=*)
            set -- $(sums "$line") "$1" "$2"
            awk -v s="$1" -v r="$2" -v b="$bits" 'BEGIN { d = s - r; if (d < 0) d = -d; e = s - b; if (e < 0) e = -e;
                exit !(d <= 0.0005 && e <= 1e-9) }' ||
                fail "$id: '$line' sums to $1, shows $2, the catalog says $bits"
            shift 2
            ;;
        *)
            awk -v r="${line% b/w}" -v b="$bits" 'BEGIN { d = r - b; if (d < 0) d = -d; exit !(d <= 0.0005) }' ||
                fail "$id: '$line', the catalog says $bits"
            ;;
        esac
        [ -n "$line" ] || fail "$id at $1x$2: no formula"
    done
    ok "$1x$2: every format's formula adds up to its bits per weight"
done
# The super-block terms are there where the pane has room (issue 16: Q4_K
# showed "4 + 6/32 + 6/32 = 4.50", which is 4.375).
start q4k 120 40 C --format q4-k
has q4k "4+6/32+6/32+32/256=4.50b/w" "Q4_K: the super-block term"
start q6k 120 40 C --format q6-k
has q6k "6+8/16+16/256=6.5625b/w" "Q6_K: 6 + 8/16 + 16/256 = 6.5625"
start nf4dq 120 40 C --format nf4-dq
has nf4dq "4+8/64+32/16384=4.127b/w" "NF4 double quant: the FP32 per 16384"

# --- the Pythia-1.4B evidence: INT b-bit formats (and the FP16 baseline) only -
# (seed 000: symmetric INT b with an FP16 scale per group of 32 vs per matrix)
# format_pane NAME: the Format pane's column of the top row of panes.
format_pane() {
    capture "$1" | sed -n '2,9p' | awk '{ print substr($0, 27, 24) }'
}
for id in fp8-e4m3 fp8-e5m2 nf4 nf4-dq mxfp4 nvfp4 q4-0 q4-k; do
    start "ev$id" 100 30 C --format "$id"
    if format_pane "ev$id" | grep -qiE "loss|pythia|g32 [0-9]"; then
        fail "$id: the INT evidence is shown: $(format_pane "ev$id" | grep -iE 'loss|pythia|g32')"
    else
        ok "$id: no INT b-bit evidence"
    fi
    tmux -L "$SOCK" kill-session -t "ev$id"
done
for id in int4-g32 int8 int3-g32; do
    start "ev$id" 100 30 C --format "$id"
    format_pane "ev$id" | grep -qE "loss" && ok "$id: the INT evidence shows" ||
        fail "$id: no evidence: $(format_pane "ev$id")"
    tmux -L "$SOCK" kill-session -t "ev$id"
done
start evfp16 100 30 C --format fp16
format_pane evfp16 | grep -qF "loss 2.58 (FP16)" && ok "FP16: the baseline loss" ||
    fail "FP16: no baseline: $(format_pane evfp16)"

# --- the tok/s-versus-batch chart: the no-fit columns are empty --------------
# Llama 3.1 70B INT4 g32 on 2 x H100 at 8192 tokens: batches from 64 do not
# fit (plan's limits). The top is the largest batch that fits, as plan says.
CV="--model llama-3.1-70b --format int4-g32 --gpu h100-sxm --gpus 2 --tp 2 --context 8192"
maxb=$("$VRAMLAB" plan $CV --json | awk -F': ' '/"max_batch"/ { gsub(/[ ,]/, "", $2); print $2; exit }')
b=1 top=
while [ "$b" -le 4096 ] && [ "$b" -le "$maxb" ]; do
    top=$("$VRAMLAB" plan $CV --batch "$b" | sed "s/$TUI_NBSP/ /g" |
        awk '/decode \(lower ceiling\)/ { print $4 }')
    b=$((b * 2))
done
for size in "100 30" "120 40"; do
    set -- $size
    start "cv$1" "$1" "$2" C $CV
    has "cv$1" "top $top" "$1x$2: the chart's top is the largest batch that fits ($top tok/s)"
    # the frame whole (a capture can land mid-redraw, the chart's rows not
    # yet drawn under its caption)
    settle "cv$1"
    scr=$(cat "$TMP/settled")
    row=$(echo "$scr" | grep -n "tok/s vs batch" | head -1 | cut -d: -f1)
    # The Speed pane's inner width: up to its right border on the top row.
    iw=$(echo "$scr" | sed -n "$((row - 6))p" | awk '{ print index($0, "++") - 2 }')
    colw=$((iw / 13))
    [ "$colw" -gt 6 ] && colw=6
    bad=$(echo "$scr" | awk -v r0="$row" -v cw="$colw" -v maxb="$maxb" '
        NR > r0 && /^\|/ { rows[++n] = $0 }
        NR > r0 && !/^\|/ { exit }
        END {
            last = 0
            for (k = 1; k <= n; k++) if (index(rows[k], "!") > 0) last = k
            if (!last) { print "no ! row"; exit }
            for (i = 0; i < 13; i++) {
                b = 2 ^ i; x = 2 + i * cw
                cell = substr(rows[last], x, cw - (cw > 1))
                if (b > maxb) {
                    if (cell !~ /^!+$/) print "batch " b ": bottom " cell
                    for (k = 1; k < last; k++) {
                        c = substr(rows[k], x, cw - (cw > 1))
                        if (c ~ /[^ ]/) print "batch " b ": a bar above the !: " c
                    }
                } else if (cell ~ /!/) print "batch " b " fits but has a !"
            }
        }')
    [ -z "$bad" ] && ok "$1x$2: no bars above the batches that do not fit" ||
        { fail "$1x$2: $bad"; echo "$scr" | sed -n "$row,$((row + 11))p"; }
done

# --- one formatter: the explorer writes plan's figures -------------------------
# pl ARGS... -- LABEL: plan's value for a line of its text table.
pl() {
    args=""
    while [ "$1" != "--" ]; do args="$args $1"; shift; done
    shift
    plan_text $args | awk -v l="$*" 'index($0, "  " l " ") == 1 {
        v = substr($0, 3 + length(l)); sub(/^ +/, "", v); sub(/   .*$/, "", v); print v; exit }'
}
# Llama 3.1 405B training on one H100: 6.78 TB (not "6782.7 GB"), 578,295
# days (not "578295.4 days").
T405="--model llama-3.1-405b --gpu h100-sxm --mode train"
start f405 120 40 C $T405
v=$(pl $T405 -- total per GPU)
has f405 "total $v" "the memory total is plan's ($v)"
case $v in *TB) ok "past 1000 GB the total is in TB ($v)" ;; *) fail "the total is not in TB: $v" ;; esac
v=$(pl $T405 -- training time)
has f405 "$v for" "the training time is plan's ($v)"
case $v in *,*days) ok "days with thousands separators ($v)" ;; *) fail "days: $v" ;; esac
v=$(pl $T405 -- cost)
has f405 "$v" "the cost is plan's ($v)"
# The verdict's ratio is plan's warning's ("1.0x" where plan says 1.02x).
T8="--model llama-3.1-405b --gpu h100-sxm --mode train --gpus 8 --tp 8"
r=$(plan_text $T8 | sed -n 's/^  - needs \([0-9.,]*x\) the memory.*/\1/p')
start f8 120 40 C $T8
has f8 "needs $r the memory" "the verdict's ratio is plan's ($r)"
# Llama 3.1 70B QLoRA on an RTX A6000: 52.7 of 51.5 GB, 1.02x (not "1.0x").
r=$(plan_text $SC --mode qlora | sed -n 's/^  - needs \([0-9.,]*x\) the memory.*/\1/p')
[ "$r" = "1.02x" ] && ok "plan: 1.02x" || fail "plan's ratio: $r"
start rq 100 30 C $SC --mode qlora
has rq "needs $r the memory" "the verdict's ratio near 1 is plan's ($r)"
# A cost past a thousand trillion dollars: e-notation, as plan.
start fm 120 40 C --mode train --price 1e29
v=$(pl --mode train --price 1e29 -- cost)
has fm "cost           $v" "a huge cost is plan's ($v), not 30 digits"
# Calibrated with 1e30 B/s and FLOP/s: e-notation, no "1000000000000 EB/s".
start fb 120 40 C --measured-bw 1e30 --measured-flops 1e30
has fb "1.00e+30" "the measured bandwidth in e-notation"
lacks fb "EB/s" "no EB/s with 13 digits"
v=$(pl --measured-bw 1e30 --measured-flops 1e30 -- prefill \(one prompt\))
has fb "prefill        $v" "a tiny prefill time is plan's ($v), not '7.02e-11 us'"
# Counts with thousands separators, in plan and on screen.
v=$(pl --model llama-3.1-8b --context 512 --gpus 8 -- most concurrent sequences)
case $v in *,*) ok "plan: largest batch $v" ;; *) fail "plan: largest batch '$v'" ;; esac
start fc 120 40 C --model llama-3.1-8b --context 131072
has fc "ctx 131,072" "the Layout pane's context with separators"

# --- widths in display cells: UTF-8 and ASCII cut at the same place ----------
# "link 900 GB/s · 8/node" is 22 cells (23 bytes in UTF-8): at 100x30 the
# GPU pane's 22 columns hold it in both.
UTF=C.UTF-8
start wa 100 30 C --model llama-3.1-70b --gpu h100-sxm --gpus 2
start wu 100 30 "$UTF" --model llama-3.1-70b --gpu h100-sxm --gpus 2
has wa "8/node" "ASCII: the GPU pane keeps '8/node'"
has wu "8/node" "UTF-8: the GPU pane keeps '8/node' (cells, not bytes)"
# The Model pane's long form has the same width in both.
a=$(capture wa | sed -n 4p | cut -c1-26 | tr -d ' ')
u=$(capture wu | sed -n 4p | sed 's/\xc2\xb7/-/g; s/\xe2\x94\x82/|/g' | cut -c1-26 | tr -d ' ')
[ "$a" = "$u" ] && ok "the Model pane picks the same form in UTF-8 and ASCII ($a)" ||
    fail "Model pane: ASCII '$a', UTF-8 '$u'"

# --- cut text ends with an ellipsis --------------------------------------------
# The title at 60 columns cannot hold the scenario: it is cut, marked.
start ea 60 20 C --model llama-3.1-70b --gpu h100-sxm --gpus 2
start eu 60 20 "$UTF" --model llama-3.1-70b --gpu h100-sxm --gpus 2
capture ea | head -1 | grep -qE '\.\.\. +GB  \? help' && ok "ASCII: the cut title ends with '...'" ||
    fail "ASCII title: $(capture ea | head -1)"
capture eu | head -1 | grep -qE "$(printf '\342\200\246') +GB  \? help" && ok "UTF-8: the cut title ends with an ellipsis" ||
    fail "UTF-8 title: $(capture eu | head -1)"
# Text that fits is not marked.
capture wa | grep -q '[^.]\.\.\.[^.]' && fail "'...' at 100x30: $(capture wa | grep '[^.]\.\.\.[^.]')" ||
    ok "nothing cut at 100x30 (ASCII)"
if capture wu | grep -q "$(printf '\342\200\246')"; then fail "an ellipsis at 100x30: $(capture wu | grep "$(printf '\342\200\246')")"; else ok "nothing cut at 100x30 (UTF-8)"; fi

# --- the hint line keeps "? help" and "q quit" at 80 columns and below ---------
for size in "80 24 C" "80 24 $UTF" "60 20 C" "100 30 C"; do
    set -- $size
    n="h$1$(echo "$3" | tr -cd 'A-Za-z0-9')"
    start "$n" "$1" "$2" "$3" --model llama-3.1-70b --gpu h100-sxm --gpus 2
    last=$(capture "$n" | tail -1 | sed 's/ *$//')
    case $last in
    *"? help  q quit") ok "$1x$2 ($3): the hint line ends with '? help  q quit'" ;;
    *) fail "$1x$2 ($3): hint line '$last'" ;;
    esac
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all explorer consistency checks passed"
exit 0
