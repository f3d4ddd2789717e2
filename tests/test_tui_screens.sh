#!/bin/sh
# test_tui_screens.sh: what the explorer draws for scenarios a review
# checked, through a real terminal (tmux): the GPU count's layout and
# advice, full training's weights, the training time line, the size, the
# labelled evidence, overlays that scroll, and the memory legend adding up.
# Skips (77) when tmux is missing.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the explorer's screen checks"
tui_setup screens

# start NAME W H ARGS...: run vramlab in a new session of W x H.
start() {
    name=$1 w=$2 h=$3
    shift 3
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x "$w" -y "$h" \
        "env TERM=screen-256color '$VRAMLAB' $*; sleep 60"
}

# keys NAME KEY...: send keys one at a time, letting each frame draw.
keys() {
    n=$1
    shift
    for k in "$@"; do
        tmux -L "$SOCK" send-keys -t "$n" "$k"
        sleep 0.1
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

# --- GPU count: 70B FP16 on 4 x H100 takes a layout that fits ---------------
start gpus 120 40 --model llama-3.1-70b --gpu h100-sxm
wait_for gpus "Roofline" || fail "gpus: no screen"
keys gpus Tab Tab Down Right Right Right
has gpus "fits on 4 x H100 SXM" "4 GPUs take a layout that fits"
lacks gpus "try 2 GPUs" "no advice below the GPUs on screen"

# --- full training: the recipe's weights, the run's time -------------------
start train 120 40 --model llama-3.1-70b --gpu h100-sxm --mode train --gpus 1024
wait_for train "Roofline" || fail "train: no screen"
has train "BF16 (recipe)" "full training shows the recipe's weights"
has train "days for 1.41T tokens (20/param)" "the training time names its tokens"
start train80 80 24 --model llama-3.1-70b --gpu h100-sxm --mode train --gpus 1024 --tp 8
wait_for train80 "Roofline" || fail "train80: no screen"
has train80 "GPU-h    7" "80x24: the GPU-hours value stands apart from its label"

# --- the Format pane's evidence is labelled at every width -------------------
for size in "120 40" "100 30" "80 24"; do
    set -- $size
    start "ev$1" "$1" "$2" --model llama-3.1-70b --gpu h100-sxm --format int4-g32
    wait_for "ev$1" "Roofline" || fail "ev$1: no screen"
    capture "ev$1" | grep -qE "g32 ?[0-9.]+ ?\| ?(m|mat|matrix) ?[0-9.]+|[0-9.]+ g32 ?\| ?[0-9.]+ (mat|matrix)" ||
        { fail "$1x$2: the evidence line is unlabelled"; capture "ev$1"; }
    ok "$1x$2: the evidence line says which loss is per group and which per matrix"
done

# --- the size slider shows the model's size ---------------------------------
start size 100 30 --params 70B --gpu h100-sxm
has size "▸ 70.0B" "--params 70B: the slider shows 70.0B"
lacks size "75.0B" "--params 70B: not the notch's 75.0B"
has size "shape from the size" "the derived-shape note fits the pane"

# --- help and explain scroll at 40x12 ----------------------------------------
start help 40 12
wait_for help "Memory per GPU" || fail "help: no screen"
keys help '?'
has help "more" "40x12 help: says there is more"
keys help PgDn PgDn PgDn PgDn PgDn PgDn PgDn PgDn PgDn PgDn
has help "best layout for it" "40x12 help: PgDn reaches the notes at the end"
has help "(--no-mouse)" "40x12 help: the mouse key wraps instead of being cut"
keys help q e
has help "explain:" "40x12 explain opens"
keys help PgDn PgDn PgDn PgDn PgDn
has help "source" "40x12 explain: the source can be reached"
has help "8,030,261,248" "40x12 explain: the result can be reached"

# --- a long lesson caption pages instead of losing its end ------------------
nsteps=$(grep -c '^  - ' "$top_srcdir/share/lessons/seed-000.en.yaml")
start cap 80 24 --fresh --lesson seed-000
has cap "1/$nsteps (1/2)" "80x24 lesson: the caption says it has two pages"
keys cap n
has cap "does not fit." "80x24 lesson: n shows the caption's end"
lacks cap "2/$nsteps" "80x24 lesson: paging stays on the step"
keys cap n
has cap "2/$nsteps" "80x24 lesson: then n steps"
keys cap p
has cap "1/$nsteps (1/2)" "p goes back to the step's first page"
keys cap n p
has cap "1/$nsteps (1/2)" "p pages back within the caption"
lacks cap "first step" "p paged rather than stepped"

# --- the memory legend keeps every part; labels shortened, not cut ------------
for w in 60 80; do
    start "leg$w" "$w" 24 --model llama-3.1-70b --gpu h100-sxm --gpus 2 --format int8
    wait_for "leg$w" "Memory per GPU" || fail "leg$w: no screen"
    capture "leg$w" | grep -qE "(reserve|res) 1.00" && ok "${w} columns: the legend shows the reserve" ||
        { fail "${w} columns: no reserve in the legend"; capture "leg$w"; }
    if capture "leg$w" | grep -E "INT8 \(per-chan($|[^n])" >/dev/null; then
        fail "${w} columns: the format name is cut mid-word"
    else
        ok "${w} columns: the format name is shortened at a word"
    fi
done
start train60 80 24 --model llama-3.1-70b --gpu h100-sxm --gpus 8 --mode train
wait_for train60 "Roofline" || fail "train60: no screen"
lacks train60 "KV: inference onl" "80x24 training: the KV note is not cut"
lacks train60 "training is comput" "80x24 training: the roofline note is not cut"

# --- batches that no longer fit are marked on the curve ------------------------
start curve 120 40 --model llama-3.1-70b --gpu h100-sxm --gpus 2 --context 32768
has curve "! from 4: no fit" "the tok/s curve names the first batch that does not fit"

# --- TERM=vt100 (no alternate screen): the shell writes below the frame -----
tmux -L "$SOCK" -f /dev/null new-session -d -s vt -x 80 -y 24 \
    "env TERM=vt100 '$VRAMLAB'; echo SHELL-SAYS-HI; sleep 60"
wait_for vt "Memory per GPU" || fail "vt100: no screen"
keys vt q
if wait_for vt "SHELL-SAYS-HI"; then
    line=$(capture vt | grep -F "SHELL-SAYS-HI")
    [ "$line" = "SHELL-SAYS-HI" ] && ok "vt100: after q the footer is cleared for the shell" ||
        fail "vt100: the shell's output is mixed with the footer: '$line'"
else
    fail "vt100: no shell output after q"
fi

# --- a broken user catalog file is reported on the screen, then on stderr ----
mkdir -p "$TMP/cfg/vramlab"
printf 'gpus:\n  - id: broken\n    memory: [\n' >"$TMP/cfg/vramlab/bad.yaml"
tmux -L "$SOCK" -f /dev/null new-session -d -s badcat -x 100 -y 30 \
    "env TERM=screen-256color XDG_CONFIG_HOME='$TMP/cfg' '$VRAMLAB' 2>'$TMP/badcat.err'; sleep 60"
has badcat "catalog: bad.yaml:4" "a broken user catalog file shows on the status line"
keys badcat q
i=0
while [ $i -lt 300 ] && ! grep -qF "bad.yaml:4:1" "$TMP/badcat.err"; do sleep 0.1; i=$((i + 1)); done
grep -qF "bad.yaml:4:1" "$TMP/badcat.err" && ok "and is printed after quitting" ||
    fail "the catalog message was not printed after quitting"

# --- the Format and GPU panes' rarer lines, in every build ----------------------
# (test_tui_class.sh walks every format and figure in the plain build; these
# are the lines only it reached, so that the sanitizers' build draws them
# too: docs/tests.md) A scale and a zero per block and a super-block scale
# (GGUF Q5_K), and a GPU without the format's FLOP/s (FP8 on a V100).
start q5k 120 40 --fresh --format q5-k
has q5k "5+6/32+6/32+32/256=5.50b/w" "Q5_K: the scale, the zero and the super-block terms"
start fp8v 120 40 --fresh --gpu v100-32gb --format fp8-e4m3
has fp8v "125 TFLOP/s FP16 (no fp8)" "FP8 on a V100: the FP16 rate, said so"
has fp8v "V100 SXM2 32GB has no fp8 figure: FP16 FLOP/s used" "FP8 on a V100: the warning"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all explorer screen checks passed"
exit 0
