#!/bin/sh
# test_lesson_notes.sh: vramlab --lesson NAME --notes (issue 24 item 4), the
# presenter notes in a second terminal: it shows the notes of the step the
# presenter's explorer keeps in $XDG_STATE_HOME/vramlab/lessons/NAME.step
# (written by the explorer at every step: tests/test_lesson_ui.c) and
# follows it when it changes; in Spanish with --lang es; refused without
# --lesson or without a state directory. No terminal needed.
set -u
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-notes.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
fails=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export LC_ALL=C.UTF-8 XDG_STATE_HOME="$TMP/state"
unset LANGUAGE
# wait_for FILE TEXT: up to 5 s for TEXT in FILE.
wait_for() {
    i=0
    while [ $i -lt 50 ]; do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

mkdir -p "$XDG_STATE_HOME/vramlab/lessons"
"$VRAMLAB" --lesson seed-000 --notes </dev/null >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_for "$TMP/out" "1/27: Bytes per parameter" && wait_for "$TMP/out" "Ask: how many H100 would the weights alone need?" &&
    grep -qF "holds (85.9" "$TMP/out" &&
    ok "--notes before the presenter starts: step 1's notes, its figures written out" ||
    fail "step 1: $(cat "$TMP/out" "$TMP/err")"
printf '4/27\n' >"$XDG_STATE_HOME/vramlab/lessons/seed-000.step"
wait_for "$TMP/out" "4/27: INT4 is 4.5 bits" && wait_for "$TMP/out" "Next: 5. Check: 70B on two H100" &&
    ok "it follows the presenter to step 4" || fail "step 4: $(tail -5 "$TMP/out")"
printf '5/27\n' >"$XDG_STATE_HOME/vramlab/lessons/seed-000.step"
wait_for "$TMP/out" "Question:" && wait_for "$TMP/out" 'Expected answers: "yes, just"' &&
    ok "a question step: the question, the expected answers and the answer" || fail "step 5: $(tail -8 "$TMP/out")"
kill $pid 2>/dev/null
wait $pid 2>/dev/null
pid=

"$VRAMLAB" --lang es --lesson seed-000 --notes </dev/null >"$TMP/es" 2>&1 &
pid=$!
wait_for "$TMP/es" "5/27: Compruébalo" && wait_for "$TMP/es" "Notas:" && wait_for "$TMP/es" "Respuestas esperadas" &&
    ok "--lang es: the Spanish notes of the same step" || fail "es: $(cat "$TMP/es")"
kill $pid 2>/dev/null
wait $pid 2>/dev/null
pid=

# q and Enter quit.
printf 'q\n' | "$VRAMLAB" --lesson seed-000 --notes >/dev/null 2>&1
[ $? -eq 0 ] && ok "q and Enter quit" || fail "q"
"$VRAMLAB" --notes >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- "--notes goes with --lesson" "$TMP/err" && ok "--notes alone: exit 2" || fail "--notes alone: $(cat "$TMP/err")"
env -u XDG_STATE_HOME -u HOME "$VRAMLAB" --lesson seed-000 --notes </dev/null >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "cannot follow" "$TMP/err" && ok "no state directory: says so, exit 1" ||
    fail "no HOME: $(cat "$TMP/err")"
[ $fails -eq 0 ]
