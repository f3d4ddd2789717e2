#!/bin/sh
# test_tui.sh: the explorer end to end through a real terminal (tmux).
#
# Each case starts ./vramlab in a detached tmux session of a given size on a
# private socket, sends keys, and reads the screen with capture-pane:
# layouts at 100x30, 80x24, 40x12 and the too-small notice at 20x8; the
# weights figure after picking a format equals `vramlab plan --json`; no
# non-ASCII byte with LANG=C; no colour with NO_COLOR=1; q exits 0, C-c and
# SIGTERM exit by signal, and the terminal is left sane (stty echo icanon);
# C-\ (SIGQUIT), SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGUSR1, SIGUSR2, SIGPIPE
# and SIGALRM leave the alternate screen, show the cursor, stop mouse
# tracking and keep their exit status;
# mouse clicks focus and pick; under --offload the Memory pane's host RAM /
# NVMe line and the gathered layer read what `vramlab plan --json` says.
# Skips (77) when tmux is missing.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the explorer's end-to-end tests"
tui_setup tui

# start NAME W H ENV...: run vramlab (args after --) in a new session; the
# shell records its exit status and the terminal settings afterwards.
start() {
    name=$1 w=$2 h=$3
    shift 3
    envs=""
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        envs="$envs $1"
        shift
    done
    [ "$#" -gt 0 ] && shift
    rm -f "$TMP/$name.rc" "$TMP/$name.stty"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x "$w" -y "$h" \
        "ulimit -c 0; env TERM=screen-256color $envs '$VRAMLAB' $*; echo \$? > '$TMP/$name.rc'; stty -a > '$TMP/$name.stty' 2>&1; sleep 60"
}

# wait_exit NAME: wait for the recorded exit status (30 s: a bound for a
# loaded machine); print it.
wait_exit() {
    i=0
    while [ $i -lt 300 ] && [ ! -s "$TMP/$1.stty" ]; do
        sleep 0.1
        i=$((i + 1))
    done
    cat "$TMP/$1.rc" 2>/dev/null || echo none
}

# sane NAME: the terminal has echo and canonical input back.
sane() {
    grep -qE '(^| )icanon( |$)' "$TMP/$1.stty" && grep -qE '(^| )echo( |$)' "$TMP/$1.stty"
}

# term_state NAME: the pane's alternate screen, cursor and mouse flags.
term_state() {
    tmux -L "$SOCK" display -p -t "$1" '#{alternate_on} #{cursor_flag} #{mouse_any_flag}'
}
# app_pid NAME: the explorer's pid in a session (env execs vramlab): the
# pane shell's child, from ps or, without procps, from /proc.
app_pid() {
    pp=$(tmux -L "$SOCK" list-panes -t "$1" -F '#{pane_pid}')
    if command -v ps >/dev/null 2>&1; then
        ps -o pid= --ppid "$pp" 2>/dev/null | head -1 | tr -d ' '
        return
    fi
    for s in /proc/[0-9]*/stat; do
        # pid (comm) state ppid ...: the fields after the last ')'
        st=$(cat "$s" 2>/dev/null) || continue
        rest=${st##*) }
        set -- $rest
        [ "${2:-}" = "$pp" ] && { p=${s#/proc/}; echo "${p%/stat}"; return; }
    done
}
SCEN="--model llama-3.1-70b --gpu h100-sxm --gpus 2"

# --- no terminal: refuse, point to plan, exit 2 --------------------------
"$VRAMLAB" </dev/null >"$TMP/notty.out" 2>"$TMP/notty.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "vramlab plan" "$TMP/notty.err"; then
    ok "refuses without a terminal (exit 2, points to plan)"
else
    fail "without a terminal: exit $rc, stderr: $(cat "$TMP/notty.err")"
fi

# --- TERM=dumb: refuse (exit 2) rather than draw garbage -------------------
start dumb 80 24 TERM=dumb -- $SCEN
rc=$(wait_exit dumb)
if [ "$rc" = 2 ] && wait_for dumb "cannot position the cursor"; then
    ok "TERM=dumb refused with a reason (exit 2)"
else
    fail "TERM=dumb: exit $rc"
    capture dumb
fi

# --- 100x30: the full layout ------------------------------------------------
start full 100 30 -- $SCEN
if wait_for full "Roofline"; then
    settle full
    scr=$(cat "$TMP/settled")
    for want in "Model" "Format" "GPU" "Layout" "Memory per GPU" "Speed" "Measure" \
        "Llama 3.1 70B" "fits on 2 x H100 SXM"; do
        echo "$scr" | grep -qF -- "$want" || fail "100x30: '$want' missing"
    done
    ok "100x30 full layout"
else
    fail "100x30: no full layout"
    capture full
fi

# Pick INT4 g32 through the format picker; the weights figure must be the
# engine's (plan --json), per GPU, in GB with the report's rounding. The
# explorer keeps the layout it started with (TP 2, the best fitting one for
# FP16) when the format changes; plan --gpus 2 alone would pick the best for
# INT4 (DP 2), so the comparison gives plan the explorer's TP 2.
tmux -L "$SOCK" send-keys -t full Tab Enter
wait_for full "pick a weight format" || fail "format picker did not open"
tmux -L "$SOCK" send-keys -t full -l "int4-g32"
tmux -L "$SOCK" send-keys -t full Enter
want=$("$VRAMLAB" plan --json $SCEN --tp 2 --format int4-g32 |
    grep -m1 '"weights":' | sed -E 's/.*: *([0-9.eE+-]+).*/\1/' |
    awk '{ v = $1 / 1e9; if (v >= 10) printf "%.1f", v; else printf "%.2f", v }')
if [ -n "$want" ] && wait_for full "weights $want"; then
    ok "after picking int4-g32 the weights read $want GB, as plan --json says"
else
    fail "weights after the format change: want 'weights $want'"
    capture full
fi
wait_for full "4 + 16/32 = 4.50 b/w" && ok "bits per weight spelled out" ||
    fail "no '4 + 16/32 = 4.50 b/w'"

# Help and explain overlays open and close.
tmux -L "$SOCK" send-keys -t full '?'
wait_for full "explain the focused number" && ok "help overlay" || fail "help overlay"
tmux -L "$SOCK" send-keys -t full q e
wait_for full "explain:" && ok "explain overlay" || fail "explain overlay"
tmux -L "$SOCK" send-keys -t full Escape
sleep 0.2 # let Esc stand alone, not start an Alt sequence
# m runs the probe (quick) in the Measure pane; the UI stays live meanwhile.
tmux -L "$SOCK" send-keys -t full m
if wait_for full "GEMV" || wait_for full "measure:"; then
    ok "m measures (or says why not) in the Measure pane"
else
    fail "m: nothing in the Measure pane"
    capture full | tail -5
fi
sleep 0.2
tmux -L "$SOCK" send-keys -t full q
rc=$(wait_exit full)
[ "$rc" = 0 ] && ok "q exits 0" || fail "q: exit status $rc"
sane full && ok "terminal sane after q" || fail "terminal not sane after q: $(cat "$TMP/full.stty")"

# --- 80x24 full, 40x12 compact, 20x8 too small --------------------------------
start s80 80 24 -- $SCEN
wait_for s80 "Measure" && wait_for s80 "Roofline" && ok "80x24 full layout" ||
    { fail "80x24"; capture s80; }
start s40 40 12 -- $SCEN
if wait_for s40 "Memory per GPU"; then
    capture s40 | grep -qF "Roofline" && fail "40x12 should be compact"
    ok "40x12 compact layout"
else
    fail "40x12"
    capture s40
fi
start s20 20 8 -- $SCEN
wait_for s20 "too small" && wait_for s20 "(need 40x12)" && ok "20x8 says too small" ||
    { fail "20x8"; capture s20; }
# Resizing the small one reflows to the full layout.
tmux -L "$SOCK" resize-window -t s20 -x 100 -y 30 2>/dev/null
wait_for s20 "Roofline" && ok "resize reflows" || fail "no reflow after resize"

# --- mouse: a click focuses, a second click picks, a click on a row chooses --
# X10 mouse reports (TERM=screen-256color: kmous=\E[M): ESC [ M b x y, each
# byte 32 + value, 1-based; a press then a release. (31,3): the Format
# pane's "weights" line; (41,14): a row of the picker.
click() {
    tmux -L "$SOCK" send-keys -t "$1" -l "$(printf '\033[M %s%s\033[M#%s%s' "$2" "$3" "$2" "$3")"
    sleep 0.2
}
start mouse 100 30 -- $SCEN
if wait_for mouse "Roofline"; then
    # The wheel over a field changes it: down = previous (fp32), up = next.
    tmux -L "$SOCK" send-keys -t mouse -l "$(printf '\033[M%s?#' a)"
    if wait_for mouse "weights FP32"; then
        tmux -L "$SOCK" send-keys -t mouse -l "$(printf '\033[M%s?#' '`')"
        wait_for mouse "weights FP16" && ok "mouse: the wheel changes the field under it" ||
            fail "mouse: wheel up did not step back"
    else
        fail "mouse: wheel down did not change the format"
    fi
    click mouse '?' '#'
    click mouse '?' '#'
    if wait_for mouse "pick a weight format"; then
        ok "mouse: click focuses, second click opens the picker"
        click mouse 'I' '.'
        wait_gone mouse "pick a" && settle mouse
        if capture mouse | grep -q "pick a" || capture mouse | grep -q "weights FP16 "; then
            fail "mouse: clicking a picker row did not choose it"
        else
            ok "mouse: clicking a row picks it"
        fi
    else
        fail "mouse: no picker after two clicks"
    fi
else
    fail "mouse: no screen"
fi

# --- LANG=C: not one non-ASCII byte ----------------------------------------------
start ascii 100 30 LANG=C LC_ALL=C -- $SCEN
if wait_for ascii "Roofline"; then
    capture ascii >"$TMP/ascii.before"
    tmux -L "$SOCK" send-keys -t ascii Tab Enter
    wait_change ascii "$TMP/ascii.before"
    if capture ascii | LC_ALL=C grep -q '[^ -~]'; then
        fail "LANG=C: non-ASCII bytes on screen"
        capture ascii | LC_ALL=C grep -n '[^ -~]' | head -5
    else
        ok "LANG=C: ASCII only"
    fi
else
    fail "LANG=C: no screen"
fi
start asciiflag 100 30 -- --ascii $SCEN
wait_for asciiflag "Roofline" && ! capture asciiflag | LC_ALL=C grep -q '[^ -~]' &&
    ok "--ascii: ASCII only" || fail "--ascii: non-ASCII bytes"

# --- NO_COLOR=1: no colour escapes; with colour there are some ----------------
# colours: print the SGR colour parameters in escaped text (30-48 and
# 90-107; 39 and 49 are tmux's resets to the default colours).
colours() {
    LC_ALL=C grep -oE "$(printf '\033')\\[[0-9;]*m" | tr -d 'm[' | tr ';' '\n' |
        LC_ALL=C tr -d "$(printf '\033')" |
        awk '($1 >= 30 && $1 <= 48 && $1 != 39) || ($1 >= 90 && $1 <= 107) { print }'
}
start nocolor 100 30 NO_COLOR=1 -- $SCEN
start colour 100 30 -- $SCEN
if wait_for nocolor "Roofline" && wait_for colour "Roofline"; then
    n_no=$(capture nocolor -e | colours | wc -l)
    n_yes=$(capture colour -e | colours | wc -l)
    [ "$n_yes" -gt 0 ] || fail "the colour run shows no colour (control)"
    [ "$n_no" -eq 0 ] && ok "NO_COLOR=1: no colour" || fail "NO_COLOR=1: $n_no colour codes"
else
    fail "NO_COLOR: no screen"
fi

# --- signals: C-c (SIGINT) and SIGTERM restore the terminal ---------------------
tmux -L "$SOCK" send-keys -t colour C-c
rc=$(wait_exit colour)
[ "$rc" = 130 ] && sane colour && ok "C-c exits 130 with the terminal sane" ||
    fail "C-c: exit $rc"
app_pid=$(app_pid nocolor)
if [ -n "$app_pid" ]; then
    kill -TERM "$app_pid"
    rc=$(wait_exit nocolor)
    [ "$rc" = 143 ] && sane nocolor && ok "SIGTERM exits 143 with the terminal sane" ||
        fail "SIGTERM: exit $rc"
else
    echo "note: could not find the app's pid; SIGTERM case not run"
fi
# SIGHUP (an SSH drop) likewise.
start hup 80 24 -- $SCEN
if wait_for hup "Memory per GPU"; then
    app_pid=$(app_pid hup)
    if [ -n "$app_pid" ]; then
        kill -HUP "$app_pid"
        rc=$(wait_exit hup)
        [ "$rc" = 129 ] && sane hup && ok "SIGHUP exits 129 with the terminal sane" ||
            fail "SIGHUP: exit $rc"
    fi
fi

# --- C-\ (SIGQUIT) and the fatal signals: restored, then the signal's own
# status (the default action: 128 + sig, a core dump where enabled) -------
# signal_case NAME SIG STATUS: start, check the explorer took the screen
# (alternate screen, mouse on: the control), deliver SIG, check it died
# of it with the terminal restored.
signal_case() {
    start "$1" 80 24 -- $SCEN
    if ! wait_for "$1" "Memory per GPU"; then
        fail "$2: no screen"
        return
    fi
    [ "$(term_state "$1")" = "1 0 1" ] || fail "$2: the explorer's screen is not on (control): $(term_state "$1")"
    if [ "$2" = QUIT ]; then
        tmux -L "$SOCK" send-keys -t "$1" 'C-\'
    else
        pid=$(app_pid "$1")
        [ -n "$pid" ] || { fail "$2: no pid"; return; }
        kill -"$2" "$pid"
    fi
    rc=$(wait_exit "$1")
    st=$(term_state "$1")
    if [ "$rc" = "$3" ] && sane "$1" && [ "$st" = "0 1 0" ]; then
        ok "SIG$2 exits $3 with the main screen, the cursor and no mouse tracking"
    else
        fail "SIG$2: exit $rc (want $3), alternate/cursor/mouse $st (want 0 1 0)"
    fi
}
signal_case quit QUIT 131
signal_case segv SEGV 139
signal_case bus BUS 135
signal_case fpe FPE 136
signal_case abrt ABRT 134
# Signals whose default action ends a process but that nobody means for
# us (a stray kill -USR1, a timer, a broken pipe): the same path.
signal_case usr1 USR1 138
signal_case usr2 USR2 140
signal_case pipe PIPE 141
signal_case alrm ALRM 142

# --- ZeRO-Infinity in the Memory pane (issue 12): the host RAM / NVMe line
# reads plan --json's memory.host and memory.nvme, the buffers segment
# DeepSpeed's gathered layer (memory.zero3_working).
OFF="--mode train --gpus 8 --dp 8 --zero 3 --memory-convention deepspeed --offload nvme"
gb() { awk '{ v = $1 / 1e9; if (v >= 10) printf "%.1f", v; else printf "%.2f", v }'; }
plan_json=$("$VRAMLAB" plan --json $OFF)
off_host=$(echo "$plan_json" | grep -m1 '"host":' | sed -E 's/.*: *([0-9.eE+-]+).*/\1/' | gb)
off_nvme=$(echo "$plan_json" | grep -m1 '"nvme":' | sed -E 's/.*: *([0-9.eE+-]+).*/\1/' | gb)
off_zero=$(echo "$plan_json" | grep -m1 '"zero3_working":' |
    sed -E 's/.*: *([0-9.eE+-]+).*/\1/' | gb)
start offload 120 40 -- --fresh $OFF
if wait_for offload "host RAM $off_host GB, NVMe $off_nvme GB per GPU" &&
    wait_for offload "buffers $off_zero"; then
    ok "offload line: host RAM $off_host GB, NVMe $off_nvme GB; gathered layer $off_zero GB," \
        "as plan --json says"
else
    fail "offload line: want 'host RAM $off_host GB, NVMe $off_nvme GB per GPU'" \
        "and 'buffers $off_zero'"
    capture offload
fi
tmux -L "$SOCK" send-keys -t offload q

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all explorer end-to-end checks passed"
exit 0
