# tui_lib.sh: what the explorer's end-to-end scripts (tmux) share. Sourced
# after top_srcdir and top_builddir are set. tui_setup NAME prepares a
# private tmux socket and a scratch directory $TMP (removed on exit, with the
# tmux server), keeps the explorer's restored scenario inside it
# (XDG_STATE_HOME), and exports a UTF-8 locale for tmux itself (each case
# sets the app's own). Then: fail/ok count and print results; capture,
# wait_for and wait_gone read the screen.

# tui_setup NAME: locate ./vramlab (absolute), make $SOCK and $TMP; the
# tmux server's socket lives in $TMP (TMUX_TMPDIR), so two suites running
# at once (two checkouts, two builds) never share one.
tui_setup() {
    VRAMLAB=$top_builddir/vramlab
    [ -x "$VRAMLAB" ] || { echo "FAIL: $VRAMLAB not built"; exit 1; }
    VRAMLAB=$(cd "$(dirname "$VRAMLAB")" && pwd)/vramlab
    SOCK=vramlab-$1-$$
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-$1.XXXXXX")
    # (a socket path has room for about 100 bytes)
    [ ${#TMP} -gt 60 ] || export TMUX_TMPDIR="$TMP"
    unset TMUX
    export XDG_STATE_HOME="$TMP/state"
    fails=0
    trap tui_cleanup EXIT INT TERM
    export LC_ALL=${LC_ALL:-C.UTF-8}
    case "$LC_ALL" in *UTF-8* | *utf8*) ;; *) export LC_ALL=C.UTF-8 ;; esac
    # One idle session for the whole script: the server never goes away
    # between cases (killing the last session ends it, and a new-session
    # that meets the closing server fails: "server exited unexpectedly").
    if command -v tmux >/dev/null 2>&1; then
        tmux -L "$SOCK" -f /dev/null new-session -d -s tui-keepalive -x 20 -y 5 \
            "sleep 86400" >/dev/null 2>&1
    fi
}

# tui_need_tmux WHAT: skip (77) visibly when tmux is missing.
tui_need_tmux() {
    if ! command -v tmux >/dev/null 2>&1; then
        echo "SKIP: tmux not found; $1 need it"
        exit 77
    fi
}

# Kill the private tmux server and remove the scratch directory.
tui_cleanup() {
    tmux -L "$SOCK" kill-server >/dev/null 2>&1
    rm -rf "$TMP"
}

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
ok() {
    echo "ok: $*"
}

# capture NAME [-e]: the screen as text (with escapes given -e); the
# no-break spaces between numbers and their units (engine/format.h) read
# as spaces, so the checks can write "85.9 GB".
TUI_NBSP=$(printf '\302\240')
capture() {
    tmux -L "$SOCK" capture-pane -p ${2:-} -t "$1" | sed "s/$TUI_NBSP/ /g"
}

# wait_for NAME TEXT [TENTHS]: poll the screen until TEXT shows (30 s: a
# bound for a loaded machine, not a pace; it returns as soon as TEXT shows).
# Give TENTHS only where the wait is expected to fail or is retried.
wait_for() {
    i=0
    while [ $i -lt "${3:-300}" ]; do
        capture "$1" | grep -qF -- "$2" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# settle NAME: wait until the screen stops changing (two captures 0.1 s
# apart agree; 30 s at most), so that a frame is read whole, without
# guessing how long drawing takes on a loaded machine. The screen it saw
# last is left in $TMP/settled.
settle() {
    capture "$1" >"$TMP/settled" 2>/dev/null
    _si=0
    while [ $_si -lt 300 ]; do
        sleep 0.1
        capture "$1" >"$TMP/.settle" 2>/dev/null
        if cmp -s "$TMP/settled" "$TMP/.settle"; then
            rm -f "$TMP/.settle"
            return 0
        fi
        mv "$TMP/.settle" "$TMP/settled"
        _si=$((_si + 1))
    done
    return 1
}

# wait_change NAME FILE: poll until the screen differs from FILE (a capture
# taken before sending keys; 30 s), then settle: the keys' frame, whole.
wait_change() {
    _wi=0
    while [ $_wi -lt 300 ] && capture "$1" | cmp -s - "$2"; do
        sleep 0.1
        _wi=$((_wi + 1))
    done
    settle "$1"
}

# wait_title NAME ERE: poll until the screen's first row matches ERE (30 s).
wait_title() {
    _wi=0
    while [ $_wi -lt 300 ]; do
        capture "$1" | head -1 | grep -qE -- "$2" && return 0
        sleep 0.1
        _wi=$((_wi + 1))
    done
    return 1
}

# wait_gone NAME TEXT: poll until TEXT is no longer on the screen (30 s).
wait_gone() {
    i=0
    while [ $i -lt 300 ]; do
        capture "$1" | grep -qF -- "$2" || return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# keys NAME KEY...: send keys to the explorer in session NAME.
keys() {
    _session=$1
    shift
    tmux -L "$SOCK" send-keys -t "$_session" "$@"
}

# quit NAME: q (again after a second: an overlay was open), then wait for
# the exit status the session's command wrote to $TMP/NAME.rc (30 s at
# most, a bound); print it. TUI_QUIT_ANSWER (a lesson's "leave?": y) is
# sent after two seconds when set.
quit() {
    keys "$1" q
    _qi=0
    while [ $_qi -lt 300 ] && [ ! -s "$TMP/$1.rc" ]; do
        sleep 0.1
        _qi=$((_qi + 1))
        [ $_qi -eq 10 ] && keys "$1" q
        [ $_qi -eq 20 ] && [ -n "${TUI_QUIT_ANSWER:-}" ] && keys "$1" "$TUI_QUIT_ANSWER"
    done
    cat "$TMP/$1.rc" 2>/dev/null || echo none
}
