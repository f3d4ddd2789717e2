#!/bin/sh
# test_readme.sh: the README's sample output and sample screen are what the
# program prints and draws today (issue 16: the sample screen showed a
# tok/s chart the explorer no longer drew). The `vramlab plan` block is
# compared with the command's output; the explorer block with a tmux
# capture at 100x30 (UTF-8, colours on as a user sees them, --fresh). UPDATE_README=1 rewrites
# both blocks from the program (then review the diff before committing).
# The screen part skips without tmux or a UTF-8 locale.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
README=$top_srcdir/README.md
VRAMLAB=$top_builddir/vramlab
[ -x "$VRAMLAB" ] || { echo "FAIL: $VRAMLAB not built"; exit 1; }
VRAMLAB=$(cd "$(dirname "$VRAMLAB")" && pwd)/vramlab
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-readme.XXXXXX")
SOCK=vramlab-readme-$$
# the tmux socket in the scratch directory: private to this run
[ ${#TMP} -gt 60 ] || export TMUX_TMPDIR="$TMP"
unset TMUX
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT INT TERM
export XDG_STATE_HOME="$TMP/state" XDG_CONFIG_HOME="$TMP/config" HOME="$TMP/home"
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# block PREFIX: the lines of the README's code block that starts with the
# line "$ ./vramlab PREFIX...", without that line; the command on stdout's
# first line.
block() {
    awk -v p="\$ ./vramlab $1" '
        !on && index($0, p) == 1 { on = 1; print; next }
        on && /^```$/ { exit }
        on { print }' "$README"
}

# replace PREFIX FILE: put FILE's lines in place of the block's body.
replace() {
    awk -v p="\$ ./vramlab $1" -v f="$2" '
        !on && index($0, p) == 1 { on = 1; print; while ((getline l < f) > 0) print l; next }
        on && /^```$/ { on = 0 }
        !on { print }' "$README" >"$TMP/readme" && cat "$TMP/readme" >"$README"
}

# check PREFIX FILE WHAT: the block's body equals FILE (or is rewritten).
check() {
    block "$1" | tail -n +2 >"$TMP/want"
    if [ -n "${UPDATE_README:-}" ]; then
        replace "$1" "$2"
        echo "updated the README's $3"
    elif cmp -s "$TMP/want" "$2"; then
        echo "ok: the README's $3 is what the program shows"
    else
        fail "the README's $3 differs from the program:"
        diff -u "$TMP/want" "$2" | sed 's/^/    /'
    fi
}

# --- the plan output ------------------------------------------------------------
cmd=$(block "plan " | head -1 | sed 's/^\$ .\/vramlab //')
[ -n "$cmd" ] || fail "no '\$ ./vramlab plan' block in the README"
# shellcheck disable=SC2086
LC_ALL=C "$VRAMLAB" $cmd >"$TMP/plan" 2>&1 || fail "vramlab $cmd failed"
check "plan " "$TMP/plan" "plan output"

# --- the explorer's screen ------------------------------------------------------
if ! command -v tmux >/dev/null 2>&1; then
    echo "note: tmux not found; the sample screen is not checked"
elif ! locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
    echo "note: no C.UTF-8 locale; the sample screen is not checked"
else
    cmd=$(block "--" | head -1 | sed 's/^\$ .\/vramlab //')
    [ -n "$cmd" ] || fail "no '\$ ./vramlab --...' block in the README"
    tmux -L "$SOCK" -f /dev/null new-session -d -s readme -x 100 -y 30 \
        "env -u NO_COLOR LC_ALL=C.UTF-8 LANG=C.UTF-8 TERM=xterm-256color '$VRAMLAB' --fresh $cmd; sleep 60"
    i=0
    while [ $i -lt 300 ] && ! tmux -L "$SOCK" capture-pane -p -t readme | grep -q "q quit"; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep 0.3
    # The README shows the no-break spaces between numbers and their units
    # (engine/format.h) as spaces, and keeps the trailing blanks out.
    nbsp=$(printf '\302\240')
    tmux -L "$SOCK" capture-pane -p -t readme | sed "s/$nbsp/ /g; s/ *\$//" >"$TMP/screen"
    block "--" | tail -n +2 | sed 's/ *$//' >"$TMP/want.screen"
    if [ -n "${UPDATE_README:-}" ]; then
        replace "--" "$TMP/screen"
        echo "updated the README's sample screen"
    elif cmp -s "$TMP/want.screen" "$TMP/screen"; then
        echo "ok: the README's sample screen is what the explorer draws"
    else
        fail "the README's sample screen differs from the explorer:"
        diff -u "$TMP/want.screen" "$TMP/screen" | sed 's/^/    /'
    fi
fi

[ "$fails" -eq 0 ] || exit 1
echo "all README checks passed"
