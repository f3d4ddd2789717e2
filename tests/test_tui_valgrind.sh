#!/bin/sh
# test_tui_valgrind.sh: valgrind over a scripted explorer session in tmux
# (make check-tui-valgrind). Walks every pane, steps fields, opens the
# pickers, help and explain, changes mode and units, resizes through the
# compact and too-small layouts, then quits with q. Passes when valgrind
# reports no errors and nothing definitely or indirectly lost; ncurses'
# own "still reachable" blocks are expected and ignored.
# Skips (77) without tmux or valgrind.
set -u

top_builddir=${top_builddir:-.}
VRAMLAB=$(cd "$top_builddir" && pwd)/vramlab
command -v tmux >/dev/null 2>&1 || { echo "SKIP: no tmux"; exit 77; }
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: no valgrind"; exit 77; }
export LC_ALL=C.UTF-8

SOCK=vramlab-vg-$$
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-vg.XXXXXX")
# the tmux socket in the scratch directory: private to this run
[ ${#TMP} -gt 60 ] || export TMUX_TMPDIR="$TMP"
unset TMUX
# The explorer restores and saves its last scenario: keep that private.
export XDG_STATE_HOME="$TMP/state"
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT INT TERM
LOG=$TMP/valgrind.log

tmux -L "$SOCK" -f /dev/null new-session -d -s vg -x 100 -y 30 \
    "valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --log-file='$LOG' '$VRAMLAB' --model llama-3.1-70b --gpu h100-sxm --gpus 2; echo \$? > '$TMP/rc'; sleep 60"

# wait_for TEXT: poll the screen (valgrind is slow: 60 s).
wait_for() {
    i=0
    while [ $i -lt 600 ]; do
        tmux -L "$SOCK" capture-pane -p -t vg | grep -qF -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
keys() {
    tmux -L "$SOCK" send-keys -t vg "$@"
    sleep 0.3
}

wait_for "Roofline" || { echo "FAIL: the explorer did not start under valgrind"; exit 1; }
for pane in 1 2 3 4 5 6 7 8; do
    keys Right Right Left Down PPage NPage Up e Escape Tab
done
keys Enter -l "int4"
keys Enter
keys Tab Tab Enter -l "a100"
keys Enter
keys '?' q t t u Right Left t t u m '/' Escape
# The lecture kit: comparison, presentation, the save prompt (cancelled).
keys c Right F F c s Escape o Escape
tmux -L "$SOCK" resize-window -t vg -x 50 -y 14
sleep 1
keys Tab Right Tab Left
tmux -L "$SOCK" resize-window -t vg -x 20 -y 8
sleep 1
tmux -L "$SOCK" resize-window -t vg -x 120 -y 40
sleep 1
keys q
i=0
while [ $i -lt 300 ] && [ ! -s "$TMP/rc" ]; do
    sleep 0.1
    i=$((i + 1))
done
rc=$(cat "$TMP/rc" 2>/dev/null || echo none)
grep -E "ERROR SUMMARY|definitely lost|indirectly lost|still reachable" "$LOG"
if [ "$rc" != 0 ]; then
    echo "FAIL: exit status $rc under valgrind"
    cat "$LOG"
    exit 1
fi
echo "ok: valgrind clean over a scripted session"

# A lesson: loading, stepping, r, presentation with the caption, a resize.
tmux -L "$SOCK" kill-session -t vg
rm -f "$TMP/rc"
tmux -L "$SOCK" -f /dev/null new-session -d -s vg -x 100 -y 30 \
    "valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --log-file='$LOG.2' '$VRAMLAB' --fresh --lesson seed-000; echo \$? > '$TMP/rc'; sleep 60"
wait_for " 1/" || { echo "FAIL: the lesson did not start under valgrind"; exit 1; }
keys n n NPage p t r Space BSpace F n c Right
tmux -L "$SOCK" resize-window -t vg -x 40 -y 12
sleep 1
keys F n Escape
tmux -L "$SOCK" resize-window -t vg -x 100 -y 30
sleep 1
keys q q
i=0
while [ $i -lt 300 ] && [ ! -s "$TMP/rc" ]; do
    sleep 0.1
    i=$((i + 1))
done
rc=$(cat "$TMP/rc" 2>/dev/null || echo none)
grep -E "ERROR SUMMARY|definitely lost|indirectly lost|still reachable" "$LOG.2"
if [ "$rc" != 0 ]; then
    echo "FAIL: exit status $rc under valgrind (lesson)"
    cat "$LOG.2"
    exit 1
fi
echo "ok: valgrind clean over a lesson session"
