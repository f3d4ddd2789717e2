#!/bin/sh
# `vramlab measure` stopped by a signal (issue 11, item 5): SIGINT, SIGTERM
# and SIGHUP stop the probe and end the command with 128 + N, for a probe
# that honours SIGTERM and for one that ignores it (then SIGKILL after a
# short grace). The probe is tests/fixtures/probe/fake-slow.sh, which never
# finishes and writes its process id to a file: after the signal that
# process must be gone. SIGINT is sent to a background job, which a shell
# starts with SIGINT ignored: `vramlab measure` must catch it anyway.
# No timing assertions (the waits below are upper bounds for a slow box).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)
fail=0
t=$(mktemp -d) || exit 99
# a CPU run is saved for --device cpu: here, not in the user\'s state
XDG_STATE_HOME=$t/state
export XDG_STATE_HOME
trap 'rm -rf "$t"' EXIT

[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }

# wait_file FILE: until FILE has something in it (60 s at most: a bound
# for a loaded machine, not a pace).
wait_file() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -s "$1" ]
}

# gone PID: whether the process has exited (30 s at most: a bound, the
# stop itself takes half a second past the grace).
gone() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    ! kill -0 "$1" 2>/dev/null
}

for sig in INT:130 TERM:143 HUP:129; do
    name=${sig%%:*} want=${sig#*:}
    for ignore in 0 1; do
        what="SIG$name, a probe that $([ $ignore = 1 ] && echo ignores || echo honours) SIGTERM"
        rm -f "$t/pid" "$t/err"
        FAKE_PROBE_PIDFILE=$t/pid FAKE_PROBE_IGNORE_TERM=$ignore VRAMLAB_PROBE=$FIX/fake-slow.sh \
            "$VRAMLAB" measure --device cpu >"$t/out" 2>"$t/err" &
        vm=$!
        if ! wait_file "$t/pid"; then
            echo "FAIL - $what: the probe never started"
            fail=1
            kill -KILL $vm 2>/dev/null
            continue
        fi
        probe=$(cat "$t/pid")
        # the device line has been read once the probe waits; give it a moment
        sleep 0.3
        kill -"$name" $vm
        if gone $vm; then
            wait $vm
            rc=$?
        else
            kill -KILL $vm
            rc=none
        fi
        if [ "$rc" = "$want" ]; then
            echo "ok   - $what: exit status $want"
        else
            echo "FAIL - $what: exit status $rc, want $want"
            fail=1
        fi
        if gone "$probe"; then
            echo "ok   - $what: no probe process left"
        else
            echo "FAIL - $what: the probe ($probe) still runs"
            kill -KILL "$probe" 2>/dev/null
            fail=1
        fi
        grep -q "stopped by SIG$name" "$t/err" && echo "ok   - $what: said on stderr" ||
            { echo "FAIL - $what: stderr: $(cat "$t/err")"; fail=1; }
        [ ! -s "$t/out" ] || { echo "FAIL - $what: a partial report on stdout"; fail=1; }
    done
done
exit $fail
