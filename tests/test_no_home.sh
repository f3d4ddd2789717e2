#!/bin/sh
# test_no_home.sh: HOME=/nonexistent (service accounts, containers) and the
# XDG variables unset (issue 27 item 7): plan, search, catalog, import,
# measure with a fake probe and the explorer (tmux, then q) all work, the
# explorer says once that nothing is kept, and no file or directory appears
# anywhere we look: the missing home, the scratch tree, the working
# directory, the password database's home. Then the same with HOME unset.
# The explorer's part skips without tmux; the rest always runs.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$(cd "$top_builddir" && pwd)/vramlab
FIX=$(cd "$top_srcdir" && pwd)/tests/fixtures
[ -x "$VRAMLAB" ] || { echo "FAIL: $VRAMLAB not built"; exit 1; }
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
ok() { echo "ok: $*"; }

t=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-nohome.XXXXXX") || exit 99
SOCK=vramlab-nohome-$$
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$t"' EXIT INT TERM
mkdir "$t/work"
cp "$FIX/catalog/hf/Llama-3.1-8B/config.json" "$t/work/config.json"
pwhome=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6)
# The password database's home: what is there (names, sizes, times) must
# not change; a HOME-less run must not fall back to it.
pw_state() {
    [ -n "$pwhome" ] || return 0
    for d in .local/state/vramlab .config/vramlab .cache/vramlab; do
        if [ -e "$pwhome/$d" ]; then
            ls -la --time-style=full-iso "$pwhome/$d" 2>/dev/null
        else
            echo "absent $d"
        fi
    done
}
pw_state >"$t/.pw"

# run CASE ENV-ARGS... -- COMMAND...: a command from $t/work with the XDG
# variables unset and the given environment; its status must be 0.
run() {
    what=$1
    shift
    envs=""
    while [ "$1" != "--" ]; do
        envs="$envs $1"
        shift
    done
    shift
    # shellcheck disable=SC2086
    (cd "$t/work" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME \
        -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR $envs "$@") >"$t/out" 2>"$t/err" </dev/null
    rc=$?
    [ $rc -eq 0 ] || fail "$what: $* exited $rc: $(head -3 "$t/err")"
}

# explorer CASE ENV-ARGS: the explorer in tmux at 100x30, then q; its
# screen after quitting (stderr included) in $t/screen.
explorer() {
    sess=$1
    shift
    rm -f "$t/rc"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$sess" -x 100 -y 30 -c "$t/work" \
        "env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR -u LC_ALL $* TERM=screen-256color LANG=C.UTF-8 '$VRAMLAB' --model llama-3.1-70b; echo \$? > '$t/rc'; sleep 60"
    i=0
    until tmux -L "$SOCK" capture-pane -p -t "$sess" | grep -qF Roofline; do
        i=$((i + 1))
        [ $i -gt 100 ] && break
        sleep 0.1
    done
    tmux -L "$SOCK" send-keys -t "$sess" q
    i=0
    while [ ! -s "$t/rc" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    tmux -L "$SOCK" capture-pane -p -t "$sess" >"$t/screen"
    tmux -L "$SOCK" kill-session -t "$sess" >/dev/null 2>&1
    [ "$(cat "$t/rc" 2>/dev/null)" = 0 ] || fail "$sess: the explorer exited $(cat "$t/rc" 2>/dev/null)"
    n=$(grep -c "nothing is kept between sessions" "$t/screen")
    [ "$n" = 1 ] && ok "$sess: the explorer works and says once that nothing is kept" ||
        { fail "$sess: the explorer's warning shows $n times"; cat "$t/screen"; }
}

# all CASE ENV-ARGS: every command, then the explorer.
all() {
    case_=$1
    shift
    run "$case_ plan" "$@" -- "$VRAMLAB" plan --model llama-3.1-8b
    grep -q "FITS" "$t/out" || fail "$case_ plan: no verdict"
    run "$case_ plan --json" "$@" -- "$VRAMLAB" plan --json --model llama-3.1-70b --gpus 2
    run "$case_ search" "$@" -- "$VRAMLAB" search --model llama-3.1-70b --gpus 8
    run "$case_ catalog" "$@" -- "$VRAMLAB" catalog gpus
    run "$case_ import" "$@" -- "$VRAMLAB" import config.json
    run "$case_ measure" "$@" VRAMLAB_PROBE="$FIX/probe/fake-ok.sh" -- "$VRAMLAB" measure
    run "$case_ measure --json" "$@" VRAMLAB_PROBE="$FIX/probe/fake-ok.sh" -- "$VRAMLAB" measure --json
    ok "$case_: plan, search, catalog, import, measure run"
    if command -v tmux >/dev/null 2>&1; then
        explorer "$case_ explorer" "$@"
    else
        echo "SKIP: tmux not found; the explorer's part of '$case_' not run"
    fi
}

# nothing_new CASE: no file appeared in the scratch tree or the passwd home.
nothing_new() {
    (cd "$t" && find . -path ./out -o -path ./err -o -path ./screen -o -path ./rc -o -path ./.before -o -path ./.after -o -path ./.pw -o -print | sort) >"$t/.after"
    if cmp -s "$t/.before" "$t/.after"; then
        ok "$1: nothing created under the scratch tree"
    else
        fail "$1: created: $(comm -13 "$t/.before" "$t/.after" | tr '\n' ' ')"
    fi
    pw_state | cmp -s - "$t/.pw" || fail "$1: $pwhome changed: $(pw_state | diff "$t/.pw" - | tr '\n' ' ')"
}

(cd "$t" && find . -path ./out -o -path ./err -o -path ./screen -o -path ./rc -o -path ./.before -o -path ./.after -o -path ./.pw -o -print | sort) >"$t/.before"
all "HOME=/nonexistent" HOME="$t/nonexistent"
[ -e "$t/nonexistent" ] && fail "the missing home $t/nonexistent was created"
nothing_new "HOME=/nonexistent"
all "HOME unset" -u HOME
nothing_new "HOME unset"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all no-home checks passed"
exit 0
