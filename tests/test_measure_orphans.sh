#!/bin/sh
# No orphans (issue 27 item 4): `vramlab measure` killed with SIGKILL (no
# handler can run) leaves no probe behind: the probe runs in its own
# process group and is told to go when vramlab goes (PR_SET_PDEATHSIG).
# With the fake probe of tests/fixtures/probe/fake-slow.sh (a script that
# never finishes and writes its pid), and with the real probe on the CPU
# when it is built. Upper-bound waits only, no timing assertion.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
PROBE=$top_builddir/vramlab-probe
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)
fail=0
t=$(mktemp -d) || exit 99
# a CPU run is saved for --device cpu: here, not in the user\'s state
XDG_STATE_HOME=$t/state
export XDG_STATE_HOME
trap 'rm -rf "$t"' EXIT
[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
command -v pgrep >/dev/null 2>&1 || { echo "SKIP: pgrep (procps) not found"; exit 77; }
[ "$(uname -s)" = Linux ] || { echo "SKIP: PR_SET_PDEATHSIG is Linux's"; exit 77; }

# wait_until CMD...: until the command succeeds (10 s at most).
wait_until() {
    i=0
    while ! "$@" && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    "$@"
}
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }
# children PID: the pids whose parent is PID (procps' pgrep).
children() {
    pgrep -P "$1" 2>/dev/null
}
# 1. The fake probe: vramlab measure killed by SIGKILL; the probe is gone.
rm -f "$t/pid"
FAKE_PROBE_PIDFILE=$t/pid VRAMLAB_PROBE=$FIX/fake-slow.sh \
    "$VRAMLAB" measure --device cpu >"$t/out" 2>"$t/err" &
vm=$!
if wait_until test -s "$t/pid"; then
    probe=$(cat "$t/pid")
    kill -KILL $vm
    wait $vm 2>/dev/null
    if wait_until dead "$probe"; then
        echo "ok   - SIGKILL of measure: the (fake) probe $probe is gone"
    else
        echo "FAIL - SIGKILL of measure: the (fake) probe $probe still runs"
        kill -KILL "$probe" 2>/dev/null
        fail=1
    fi
else
    echo "FAIL - the fake probe never started"
    kill -KILL $vm 2>/dev/null
    fail=1
fi

# 2. The real probe on the CPU (it uses every core while it runs).
if [ -x "$PROBE" ]; then
    "$VRAMLAB" measure --device cpu >"$t/out2" 2>"$t/err2" &
    vm=$!
    real=
    i=0
    while [ -z "$real" ] && [ $i -lt 100 ]; do
        real=$(children $vm | head -n 1)
        [ -n "$real" ] || sleep 0.1
        i=$((i + 1))
    done
    if [ -n "$real" ]; then
        kill -KILL $vm
        wait $vm 2>/dev/null
        if wait_until dead "$real"; then
            echo "ok   - SIGKILL of measure: the real probe $real is gone"
        else
            echo "FAIL - SIGKILL of measure: the real probe $real still runs"
            kill -KILL "$real" 2>/dev/null
            fail=1
        fi
    else
        echo "FAIL - the real probe never started"
        kill -KILL $vm 2>/dev/null
        fail=1
    fi
else
    echo "note: $PROBE not built; the real-probe case not run"
fi
exit $fail
