#!/bin/sh
# test_measure_pane_cpu.sh: the explorer's Measure pane on a CPU (issue 11,
# "compare like with like"), end to end through tmux with fake probes
# (tests/fixtures/probe/fake-cpu.sh, fake-slow.sh through VRAMLAB_PROBE), at
# 120x40, 100x30 and 80x24, TERM=vt100, LANG=C, NO_COLOR=1:
# - a VM that says "AMD EPYC": "unknown CPU (virtual machine)", fractions of
#   C, no ratio and no GPU data sheet on screen; the scenario "on this
#   machine" (checked against `vramlab plan` on a device with the measured
#   rates) next to the catalog's prediction on its GPU, labelled as two
#   devices;
# - a catalog CPU on bare metal: its data sheet (EPYC 9654, 461 GB/s) and the
#   ratio against it;
# - a on a CPU measurement with a GPU scenario asks first, naming both; any
#   other key keeps the data sheet, y applies it and says whose figures;
# - a probe too old for fma-peak is run again without it;
# - no probe left behind on q, SIGTERM or SIGHUP (tmux closing the window).
# Skips (77) without tmux.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)

. "$top_srcdir/tests/tui_lib.sh"
tui_setup mcpu
tui_need_tmux "the CPU Measure pane's tests"

SCEN="--model llama-3.1-8b --gpu h100-sxm --fresh"

# start NAME W H PROBE [ENV...] -- ARGS: vramlab in $TMP/NAME, its pid in
# $TMP/NAME.pid, its exit status in $TMP/NAME.rc.
start() {
    name=$1 w=$2 h=$3 probe=$4
    shift 4
    envs=""
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        envs="$envs $1"
        shift
    done
    [ "$#" -gt 0 ] && shift
    mkdir -p "$TMP/$name"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x "$w" -y "$h" \
        "cd '$TMP/$name' && env TERM=vt100 LANG=C LC_ALL=C NO_COLOR=1 VRAMLAB_PROBE='$probe' $envs sh -c 'echo \$\$ >\"$TMP/$name.pid\"; exec \"$VRAMLAB\" $*'; echo \$? > '$TMP/$name.rc'; sleep 60"
}
keys() {
    tmux -L "$SOCK" send-keys -t "$@"
    sleep 0.3
}
wait_exit() {
    i=0
    while [ $i -lt 300 ] && [ ! -s "$TMP/$1.rc" ]; do
        sleep 0.1
        i=$((i + 1))
    done
    cat "$TMP/$1.rc" 2>/dev/null || echo none
}
# focus NAME: Tab until the Measure pane has focus (its table shows).
focus() {
    i=0
    while [ $i -lt 10 ]; do
        capture "$1" | grep -q "test  *measured" && return 0
        capture "$1" >"$TMP/focus.before"
        keys "$1" Tab
        wait_change "$1" "$TMP/focus.before"
        i=$((i + 1))
    done
    return 1
}
# pane NAME: the Measure pane's lines (from its title to the bottom).
pane() {
    capture "$1" | sed -n '/+ Measure /,$p'
}
# gone PID: whether the process has exited (30 s at most: a bound).
gone() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    ! kill -0 "$1" 2>/dev/null
}

# The scenario on this machine as `vramlab plan` gives it: one device with
# the measured FP16 GEMV (8.9 GB/s), the FMA peak (180 GFLOP/s) and the
# machine's 8.32 GB.
here=""
if command -v python3 >/dev/null 2>&1; then
    "$VRAMLAB" plan --model llama-3.1-8b --gpu-memory 8321499136 --gpu-bandwidth 8.9GB/s \
        --gpu-flops 180G --reserve 0 --json >"$TMP/here.json" 2>"$TMP/here.err" &&
        here=$(python3 -c "import json,sys; print('%.3g' % json.load(open(sys.argv[1]))['decode']['tokens_per_s'])" "$TMP/here.json")
    [ -n "$here" ] || fail "plan for this machine: $(cat "$TMP/here.err")"
fi

for size in 120x40 100x30 80x24; do
    w=${size%x*} h=${size#*x}
    n=vm$w
    start "$n" "$w" "$h" "$FIX/fake-cpu.sh" -- $SCEN
    wait_for "$n" "Roofline" || fail "$size: no explorer"
    keys "$n" m
    wait_for "$n" "FMA peak" || fail "$size: no CPU results"
    if focus "$n"; then
        scr=$(pane "$n")
        echo "$scr" | grep -qF "unknown CPU" && ok "$size: the VM says unknown CPU" ||
            fail "$size: no 'unknown CPU': $scr"
        echo "$scr" | grep -qiE "ratio|predicted:|3\.35 TB/s|0\.00[0-9]" &&
            fail "$size: a CPU/GPU ratio or a GPU data sheet on screen: $scr" ||
            ok "$size: no ratio, no GPU data sheet for the CPU"
        echo "$scr" | grep -qE "on this machine|this machine:|here <=" &&
            echo "$scr" | grep -qF "H100 SXM (catalog" &&
            ok "$size: this machine and the catalog's H100 SXM, as two devices" ||
            fail "$size: the two devices are not both shown: $scr"
        if [ -n "$here" ]; then
            echo "$scr" | grep -qF "<= $here" && ok "$size: on this machine <= $here tok/s (plan agrees)" ||
                fail "$size: on this machine is not <= $here: $scr"
        fi
        for want in "copy (C)" "FMA peak" "FP16 GEMV" "W4A16 GEMV"; do
            echo "$scr" | grep -qF "$want" || fail "$size: '$want' missing: $scr"
        done
        # the A8 rows where the pane has room for every row; a shorter pane
        # says how many rows it left to `vramlab measure`
        for want in "W8A8 GEMV" "W4A8 GEMV"; do
            if [ "$h" -ge 40 ]; then
                echo "$scr" | grep -qF "$want" || fail "$size: '$want' missing: $scr"
            else
                echo "$scr" | grep -qF "$want" || echo "$scr" | grep -qE "\+[0-9]+ more rows" ||
                    fail "$size: neither '$want' nor the rows left out: $scr"
            fi
        done
        [ "$w" -ge 100 ] && { echo "$scr" | grep -qF "0.97x the plain STREAM copy loop" ||
            fail "$size: copy vs the STREAM-style reference missing"; }
    else
        fail "$size: the Measure pane never had focus"
        capture "$n"
    fi
    keys "$n" q
    [ "$(wait_exit "$n")" = 0 ] || fail "$size: q did not exit 0"
done

# --- a: asks first, naming both; n keeps, y applies -------------------------
start cal 100 30 "$FIX/fake-cpu.sh" -- $SCEN
wait_for cal "Roofline"
keys cal m
wait_for cal "FMA peak"
focus cal
keys cal a
if wait_for cal "apply the CPU AMD EPYC's figures to the H100 SXM? y yes, any other key no"; then
    ok "a on a CPU measurement asks first, naming both"
    capture cal | grep -qF "(measured)" && fail "applied before the answer"
    keys cal n
    wait_for cal "kept the H100 SXM data sheet" && ! capture cal | grep -qF "(measured)" &&
        ok "any other key keeps the data sheet" || fail "n did not keep the data sheet"
    keys cal a
    keys cal y
    wait_for cal "calibrated with AMD EPYC's figures, not H100 SXM's: 8.90 GB/s (gemv-fp16)" &&
        ok "y applies the CPU's figures, and says whose" || { fail "y: no note"; pane cal; }
    keys cal Tab
    wait_for cal "8.90 GB/s" && capture cal | grep -qF "meas.; sheet 3.35 TB/s" &&
        ok "the GPU pane shows the measured rate as such" || fail "the calibration is not shown"
else
    fail "a did not ask"
    pane cal
fi
keys cal q

# --- a catalog CPU on bare metal: its data sheet and the ratio ----------------
start epyc 100 30 "$FIX/fake-cpu.sh" "FAKE_PROBE_NAME='AMD EPYC 9654 96-Core Processor'" \
    FAKE_PROBE_VIRTUAL=false -- $SCEN
wait_for epyc "Roofline"
keys epyc m
wait_for epyc "FMA peak"
focus epyc
scr=$(pane epyc)
# AMD: 12 channels DDR5-4800 = 460.8 GB/s; copy 9.8 GB/s -> 0.021
echo "$scr" | grep -qE "predicted: AMD EPYC 9654 data sheet, 461 GB/s|data sheet 461 GB/s \(epyc-9654\)" &&
    echo "$scr" | grep -E "^\|copy \(C\)" | grep -qF "461 GB/s  0.021" &&
    ok "a known CPU: its data sheet and the ratio against it" ||
    { fail "the EPYC 9654's data sheet"; echo "$scr"; }
keys epyc q

# --- a probe too old to know fma-peak: run again without it ------------------
start old 100 30 "$FIX/fake-cpu.sh" FAKE_PROBE_NO_CUDA=1 FAKE_PROBE_REFUSE_FMA=1 -- $SCEN
wait_for old "Roofline"
keys old m
if wait_for old "FP16 GEMV" && wait_for old "this probe has no fma-peak test" 30; then
    ok "an older probe: measured again without fma-peak, said so"
else
    fail "older probe"
    pane old
fi
capture old | grep -qF "unknown test" && fail "the usage error shows instead of the results"
keys old q

start noa8 100 30 "$FIX/fake-cpu.sh" FAKE_PROBE_NO_CUDA=1 FAKE_PROBE_REFUSE_A8=1 -- $SCEN
wait_for noa8 "Roofline"
keys noa8 m
if wait_for noa8 "W4A16 GEMV" && wait_for noa8 "this probe has no W8A8 test" 30; then
    ok "a probe before W8A8: measured again with x in 16 bits only, said so"
else
    fail "a probe before W8A8"
    pane noa8
fi
capture noa8 | grep -qF "unknown test" && fail "the usage error shows instead of the results"
keys noa8 q

# --- no probe left behind: q, SIGTERM, SIGHUP ---------------------------------
for how in q TERM HUP; do
    n=stop$how
    rm -f "$TMP/$n.probe"
    start "$n" 100 30 "$FIX/fake-slow.sh" "FAKE_PROBE_PIDFILE='$TMP/$n.probe'" FAKE_PROBE_IGNORE_TERM=1 -- $SCEN
    wait_for "$n" "Roofline"
    keys "$n" m
    i=0
    while [ ! -s "$TMP/$n.probe" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    probe=$(cat "$TMP/$n.probe" 2>/dev/null)
    [ -n "$probe" ] || { fail "$how: the probe never started"; continue; }
    wait_for "$n" "measuring on AMD EPYC" || fail "$how: not measuring"
    case $how in
    q)
        keys "$n" q
        [ "$(wait_exit "$n")" = 0 ] || fail "q mid-run did not exit 0"
        ;;
    TERM)
        kill -TERM "$(cat "$TMP/$n.pid")"
        [ "$(wait_exit "$n")" = 143 ] || fail "SIGTERM mid-run: exit $(cat "$TMP/$n.rc" 2>/dev/null)"
        ;;
    HUP)
        tmux -L "$SOCK" kill-session -t "$n" # the terminal goes: SIGHUP
        ;;
    esac
    gone "$probe" && ok "$how mid-run: no probe left (it ignored SIGTERM: SIGKILL)" ||
        { fail "$how mid-run: the probe ($probe) still runs"; kill -KILL "$probe" 2>/dev/null; }
done

# --device cpu on a GGUF file at a short context (issue 26): llama.cpp's kernels (the fake
# vramlab-ggml's rates) bind below the memory and compute ceilings; the
# Speed pane says the cores bind, on the decode line, and neither ceiling
# is marked.
if command -v python3 >/dev/null 2>&1; then
    python3 "$top_srcdir/tests/gguf_write.py" "$TMP/q4km.gguf" q4km >/dev/null
    mkdir -p "$TMP/ggml"
    : >"$TMP/ggml/libggml-cpu.so"
    : >"$TMP/ggml/libggml-base.so"
    start cores 100 30 "$FIX/fake-cpu.sh" "VRAMLAB_GGML_DIR='$TMP/ggml'" \
        "VRAMLAB_GGML_PROBE='$FIX/fake-ggml.sh'" -- --device cpu --model-file "'$TMP/q4km.gguf'" --context 256 --fresh
    if wait_for cores "Roofline"; then
        settle cores
        grep -q "decode .* tok/s < the cores bind" "$TMP/settled" &&
            ok "a GGUF file on the CPU: the cores bind, on the decode line" ||
            fail "a GGUF file on the CPU: no 'the cores bind' on the decode line"
        grep -q "memory-bound .*binds\|compute-bound .*binds" "$TMP/settled" &&
            fail "a GGUF file on the CPU: a ceiling marked as binding below the cores" ||
            ok "a GGUF file on the CPU: neither ceiling marked"
    else
        fail "a GGUF file on the CPU: the explorer did not draw"
    fi
    keys cores q
else
    echo "SKIP: a GGUF file on the CPU (python3 writes the GGUF file)"
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
exit 0
