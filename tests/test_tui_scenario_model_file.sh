#!/bin/sh
# test_tui_scenario_model_file.sh: a model opened from a file in the
# explorer (O, a GGUF path) round-trips through a scenario file (issue 23
# item 4): s saves it and q saves last.yaml, and `vramlab plan --scenario`
# of either gives exactly the figures of `plan --model-file` and names the
# file; with the file gone, loading says so and falls back to the saved
# shape. Also (item 4 of the brief): the explorer honours
# --max-concurrency as plan does, and names the runtime chosen.
# Skips (77) when tmux or python3 is missing.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the scenario round trip of a model file"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 writes the GGUF file"; exit 77; }
tui_setup smf
mkdir -p "$TMP/work"
(cd "$TMP" && python3 "$top_srcdir/tests/gguf_write.py" "$TMP/tiny.gguf" q4km >/dev/null) ||
    { echo "FAIL: gguf writer"; exit 1; }

start() {
    name=$1
    shift
    rm -f "$TMP/$name.rc"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x 100 -y 30 -c "$TMP/work" \
        "env TERM=vt100 NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 '$VRAMLAB' $*; echo \$? > '$TMP/$name.rc'; sleep 60"
    wait_for "$name" "Memory per GPU" || fail "$name: no screen"
}
keys() {
    n=$1
    shift
    for k in "$@"; do
        tmux -L "$SOCK" send-keys -t "$n" "$k"
        sleep 0.15
    done
}

# O, the GGUF path, then s: a scenario file; q: last.yaml (no --fresh).
start a
keys a O
wait_for a "open a model file:" || fail "O: no prompt"
tmux -L "$SOCK" send-keys -t a -l "$TMP/tiny.gguf"
keys a Enter
wait_for a "opened $TMP/tiny.gguf" || { fail "O did not open the GGUF file"; capture a; }
keys a s
wait_for a "save scenario to: scenario.yaml" || fail "s: no prompt"
keys a Enter
wait_for a "saved scenario.yaml" || fail "s did not save"
rc=$(quit a)
[ "$rc" = 0 ] || fail "q: exit $rc"
last=$XDG_STATE_HOME/vramlab/last.yaml
for f in "$TMP/work/scenario.yaml" "$last"; do
    grep -q "^model-file: $TMP/tiny.gguf\$" "$f" && ok "$(basename "$f") names the model file" ||
        { fail "$(basename "$f") does not name the model file"; cat "$f"; }
done

# plan --scenario FILE: the same figures as plan --model-file, the file named.
"$VRAMLAB" plan --json --model-file "$TMP/tiny.gguf" >"$TMP/want.json" || fail "plan --model-file"
for f in "$TMP/work/scenario.yaml" "$last"; do
    if "$VRAMLAB" plan --json --scenario "$f" >"$TMP/got.json" &&
        python3 - "$TMP/want.json" "$TMP/got.json" "$TMP/tiny.gguf" <<'PY'; then
import json, sys
want, got = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("memory", "decode", "prefill", "fits", "capacity_bytes", "model"):
    assert want.get(key) == got.get(key), (key, want.get(key), got.get(key))
assert got["model"]["file"] == sys.argv[3], got["model"]
PY
        ok "plan --scenario $(basename "$f"): the figures of plan --model-file, the file named"
    else
        fail "plan --scenario $(basename "$f") differs from plan --model-file"
    fi
done
"$VRAMLAB" plan --scenario "$TMP/work/scenario.yaml" | grep -q "model file $TMP/tiny.gguf" &&
    ok "the text report names the model file" || fail "the text report does not name the file"

# The file gone: a clear note, and the saved shape (its 2 layers) is used.
mv "$TMP/tiny.gguf" "$TMP/moved.gguf"
if "$VRAMLAB" plan --json --scenario "$TMP/work/scenario.yaml" >"$TMP/gone.json" 2>"$TMP/gone.err" &&
    python3 - "$TMP/gone.json" "$TMP/tiny.gguf" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
notes = " ".join(d["warnings"])
assert "model-file: " + sys.argv[2] + ": No such file or directory; the saved architecture is used instead" in notes, notes
assert "model" not in d and d["scenario"]["model_name"].startswith("custom 2L"), d["scenario"]
PY
    ok "the model file gone: said among the warnings, the saved shape used"
else
    fail "the model file gone: no note or no fallback"
    cat "$TMP/gone.err"
fi
start b --fresh --scenario "$TMP/work/scenario.yaml"
wait_for b "the saved architecture" &&
    ok "the explorer says so on its status line" || { fail "explorer: no note"; capture b; }
quit b >/dev/null

# --max-concurrency: the explorer's batch is plan's; the runtime is named.
want=$("$VRAMLAB" plan --json --model llama-3.1-8b --runtime vllm --max-concurrency |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["scenario"]["batch"])')
start c --fresh --model llama-3.1-8b --runtime vllm --max-concurrency
if [ -n "$want" ] && [ "$want" -gt 1 ] && capture c | grep -q "batch *$want\b"; then
    ok "--max-concurrency: the explorer's batch is plan's ($want)"
else
    fail "--max-concurrency: plan's batch $want not in the explorer"
    capture c
fi
capture c | head -1 | grep -q "inference, vllm" && ok "the title names the runtime" ||
    { fail "the runtime vllm is not named on screen"; capture c; }
quit c >/dev/null

[ "$fails" -eq 0 ] || exit 1
