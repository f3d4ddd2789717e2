#!/bin/sh
# test_tui_lecture.sh: the lecture kit end to end through a real terminal
# (tmux): a lesson stepped through every step (number, title and caption
# change; n at the last step stays; PgDn/PgUp, Space/Backspace step; r
# returns after exploring), presentation mode at 80x24 (block digits, F
# toggles back), s then o round-trips a scenario file (and asks before
# overwriting), the last scenario restored at start and not with --fresh (a
# broken state file is reported and left alone), comparison (c) shows both
# bars, and the Spanish screen (LANG=es_ES.UTF-8, LANGUAGE=es) and `plan`
# text in Spanish; LANG=C stays English and ASCII.
# Skips (77) when tmux is missing.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/tui_lib.sh"
# a lesson asks before leaving: quit answers y
TUI_QUIT_ANSWER=y
LESSON_EN=$(cd "$top_srcdir" && pwd)/share/lessons/seed-000.en.yaml
tui_need_tmux "the lecture kit's end-to-end tests"
tui_setup lecture
# Each case sets the app's own locale; tmux itself runs in C.UTF-8.
export LC_ALL=C.UTF-8
mkdir -p "$TMP/work"

# start NAME W H ENV... -- ARGS: run vramlab in a new session from
# $TMP/work, LC_ALL unset and LANG=C.UTF-8 unless ENV says otherwise.
start() {
    name=$1 w=$2 h=$3
    shift 3
    envs=""
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        envs="$envs $1"
        shift
    done
    [ "$#" -gt 0 ] && shift
    rm -f "$TMP/$name.rc"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x "$w" -y "$h" -c "$TMP/work" \
        "env -u LC_ALL -u LANGUAGE TERM=screen-256color LANG=C.UTF-8 $envs '$VRAMLAB' $*; echo \$? > '$TMP/$name.rc'; sleep 60"
}
# The caption bar: the screen below the status row (lesson at 100x30).
caption_of() {
    capture "$1" | tail -n 4 | tr -s ' '
}

SCEN="--model llama-3.1-70b --gpu h100-sxm --gpus 2 --format int4-g32"

# --- a lesson, step by step -------------------------------------------------
# Step titles, in order, as the file has them.
sed -n 's/^  - title: *//p' "$LESSON_EN" | sed 's/^"\(.*\)"$/\1/' >"$TMP/titles"
n=$(wc -l <"$TMP/titles" | tr -d ' ')
start lesson 100 30 -- --fresh --lesson seed-000
if wait_for lesson " 1/$n " && wait_for lesson "$(sed -n 1p "$TMP/titles")"; then
    ok "lesson: step 1/$n with its title"
else
    fail "lesson: no step 1/$n"
    capture lesson
fi
wait_for lesson "explain: " && ok "lesson: the step's explain key opens the overlay" ||
    fail "lesson: step 1 has explain: memory.weights but no overlay"
# page_out: n until the step's caption shows its last page.
page_out() {
    _t=0
    while [ $_t -lt 5 ] && capture lesson | grep -qF "n: more of the caption"; do
        keys lesson n
        sleep 0.3
        _t=$((_t + 1))
    done
}
prev=$(caption_of lesson)
bad=0
step=2
while [ "$step" -le "$n" ]; do
    keys lesson n
    title=$(sed -n "${step}p" "$TMP/titles")
    if ! wait_for lesson " $step/$n " || ! wait_for lesson "$title"; then
        fail "lesson: n did not reach step $step/$n ($title)"
        bad=1
        break
    fi
    cur=$(caption_of lesson)
    [ "$cur" != "$prev" ] || { fail "lesson: caption unchanged at step $step"; bad=1; }
    # A long caption (or question) pages first: n shows the rest, on the step.
    page_out
    # A question step (issue 17): n first reveals the answer, on the step.
    if capture lesson | grep -qF "n reveals the answer"; then
        keys lesson n
        wait_gone lesson "n reveals the answer" && capture lesson | grep -qF " $step/$n " ||
            { fail "lesson: n did not reveal step $step"; bad=1; }
        cur=$(caption_of lesson)
        page_out
    fi
    prev=$cur
    step=$((step + 1))
done
[ $bad -eq 0 ] && ok "lesson: n walks all $n steps, each with its own number, title and caption"
keys lesson n
wait_for lesson "last step ($n/$n)" && capture lesson | grep -qF " $n/$n " &&
    ok "lesson: n at the last step stays there" || fail "lesson: n past the last step"
keys lesson p
wait_for lesson " $((n - 1))/$n " && ok "lesson: p goes back" || fail "lesson: p"
keys lesson Home
k=1
while [ $k -lt "$n" ]; do
    keys lesson p
    k=$((k + 1))
done
wait_for lesson " 1/$n " || fail "lesson: p back to step 1"
keys lesson Escape
wait_gone lesson "explain: " || fail "lesson: Esc did not close the explain overlay"
keys lesson NPage
wait_for lesson " 2/$n " && ok "lesson: PgDn (a clicker) steps on" || fail "lesson: PgDn"
keys lesson PPage
wait_for lesson " 1/$n " && ok "lesson: PgUp steps back" || fail "lesson: PgUp"
keys lesson Space
wait_for lesson " 2/$n " && ok "lesson: Space steps on" || fail "lesson: Space"
keys lesson BSpace
wait_for lesson " 1/$n " && ok "lesson: Backspace steps back" || fail "lesson: Backspace"
# Explore (t: training), then r returns to exactly the step.
keys lesson Escape t
if wait_for lesson "changed: r returns" && wait_for lesson "training"; then
    keys lesson r
    if wait_gone lesson "changed: r returns" && wait_for lesson "FP16" &&
        capture lesson | head -1 | grep -q "inference"; then
        ok "lesson: r returns to the step after exploring"
    else
        fail "lesson: r did not return"
        capture lesson
    fi
else
    fail "lesson: t did not leave the step"
fi
rc=$(quit lesson)
[ "$rc" = 0 ] && ok "lesson: q exits 0" || fail "lesson: exit $rc"

# A lesson at 40x12: one truncated caption line with the step number.
start small 40 12 -- --fresh --lesson "$LESSON_EN"
wait_for small " 1/$n " && ok "lesson at 40x12: the step number on the title row" ||
    { fail "lesson at 40x12"; capture small; }
quit small >/dev/null

# A broken lesson is refused before the screen starts, with file:line:col.
printf 'title: x\nlanguage: en\nsteps:\n  - captoin: y\n' >"$TMP/work/bad.yaml"
"$VRAMLAB" --lesson "$TMP/work/bad.yaml" </dev/null >"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:4:" "$TMP/bad.err" && ok "a broken lesson: exit 2, file:line:col" ||
    fail "broken lesson: exit $rc, $(cat "$TMP/bad.err")"

# --- presentation mode at 80x24 ---------------------------------------------
start present 80 24 -- --present $SCEN
if wait_for present "Tokens per second"; then
    rows=$(capture present | grep -c '██')
    [ "$rows" -ge 10 ] && ok "presentation at 80x24: block digits ($rows rows)" ||
        fail "presentation: only $rows rows of blocks"
    capture present | grep -q "Roofline" && fail "presentation still shows the panes"
    keys present F
    wait_for present "Roofline" && ok "F toggles back to the panes" || fail "F did not toggle back"
    keys present F
    wait_for present "Tokens per second" && ok "F toggles presentation on" || fail "F on"
else
    fail "presentation: no headline"
    capture present
fi
quit present >/dev/null
start present_ascii 80 24 LANG=C -- --present $SCEN
if wait_for present_ascii "Tokens per second"; then
    capture present_ascii | grep -q '######' && ! capture present_ascii | LC_ALL=C grep -q '[^ -~]' &&
        ok "presentation with LANG=C: '#' digits, ASCII only" ||
        fail "presentation with LANG=C: not ASCII '#' digits"
else
    fail "presentation LANG=C: no headline"
fi
quit present_ascii >/dev/null

# --- s saves, o opens: a round trip -----------------------------------------
rm -f "$TMP/work/scenario.yaml"
start files 100 30 -- $SCEN
wait_for files "Roofline" || fail "files: no screen"
keys files s
wait_for files "save scenario to: scenario.yaml" || fail "s: no prompt with the default name"
keys files Enter
wait_for files "saved scenario.yaml" && [ -f "$TMP/work/scenario.yaml" ] &&
    ok "s saves scenario.yaml" || fail "s did not save"
keys files s Enter
wait_for files "exists; overwrite? y/n" && ok "s asks before overwriting" || fail "no overwrite question"
keys files n
wait_for files "not saved" || fail "n to overwrite: still saved?"
keys files t
wait_for files "training" || fail "t: no training"
keys files o Enter
if wait_for files "loaded scenario.yaml" && capture files | head -1 | grep -q "INT4 g32" &&
    capture files | head -1 | grep -q "inference"; then
    ok "o loads it back (INT4 g32, inference)"
else
    fail "o did not load the scenario back"
    capture files
fi
keys files o BSpace BSpace BSpace BSpace x y z Enter
wait_for files "cannot read" && capture files | head -1 | grep -q "inference" &&
    ok "o with a missing file: an error, the scenario unchanged" || fail "o with a missing file"
quit files >/dev/null
# The flags' run says which layout --gpus 2 took (in the user's language), a
# note the file's run has not: compared without it, and without spaces.
nonote() { grep -v "TP 1 x PP 1 x DP 2: " | tr -d ' \n'; }
a=$("$VRAMLAB" plan --json --scenario "$TMP/work/scenario.yaml" | nonote)
b=$("$VRAMLAB" plan --json $SCEN | nonote)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "the saved file gives plan --json exactly the flags' numbers" ||
    fail "saved scenario differs from the flags"

# --- the last scenario: restored, not with --fresh; a broken file ----------
start last1 100 30 -- $SCEN
wait_for last1 "Roofline" || fail "last1: no screen"
rc=$(quit last1)
[ "$rc" = 0 ] && [ -f "$XDG_STATE_HOME/vramlab/last.yaml" ] && ok "q saves the last scenario" ||
    fail "no $XDG_STATE_HOME/vramlab/last.yaml after q (exit $rc)"
start last2 100 30 --
if wait_for last2 "Roofline" && capture last2 | head -1 | grep -q "Llama 3.1 70B.*INT4 g32"; then
    ok "restored at start without flags"
else
    fail "the last scenario was not restored"
    capture last2 | head -1
fi
quit last2 >/dev/null
start last2u 100 30 -- --units gib
if wait_for last2u "Roofline" && capture last2u | head -1 | grep -q "INT4 g32.*GiB"; then
    ok "--units gib with the restored scenario: GiB (the session's choice wins)"
else
    fail "--units gib lost to the restored scenario"
    capture last2u | head -1
fi
quit last2u >/dev/null
start last3 100 30 -- --fresh
if wait_for last3 "Roofline" && capture last3 | head -1 | grep -q "Llama 3.1 8B.*FP16"; then
    ok "--fresh starts from the defaults"
else
    fail "--fresh restored something"
    capture last3 | head -1
fi
cp "$XDG_STATE_HOME/vramlab/last.yaml" "$TMP/before-fresh.yaml"
quit last3 >/dev/null
# --fresh leaves the saved scenario alone: the file is the one from before.
if cmp -s "$XDG_STATE_HOME/vramlab/last.yaml" "$TMP/before-fresh.yaml" &&
    grep -q "^model: llama-3.1-70b" "$XDG_STATE_HOME/vramlab/last.yaml"; then
    ok "q after --fresh leaves the saved last scenario alone"
else
    fail "--fresh overwrote the last scenario: $(head -3 "$XDG_STATE_HOME/vramlab/last.yaml" | tr '\n' ' ')"
fi
printf 'model: llama-3.1-70b\ntp: 3\n' >"$XDG_STATE_HOME/vramlab/last.yaml"
cp "$XDG_STATE_HOME/vramlab/last.yaml" "$TMP/broken.yaml"
start last4 100 30 --
if wait_for last4 "last scenario not restored" && capture last4 | head -1 | grep -q "Llama 3.1 8B"; then
    ok "a broken state file: a message and the defaults"
else
    fail "broken state file"
    capture last4
fi
quit last4 >/dev/null
cmp -s "$TMP/broken.yaml" "$XDG_STATE_HOME/vramlab/last.yaml" &&
    ok "the broken state file is not overwritten on quit" || fail "the broken state file was overwritten"

# --- comparison --------------------------------------------------------------
start cmp 100 30 -- --model llama-3.1-70b --gpu h100-sxm --gpus 2 --format fp16
wait_for cmp "Roofline" || fail "cmp: no screen"
keys cmp c
wait_for cmp "pinned:" || fail "c: nothing pinned"
keys cmp Tab Enter
wait_for cmp "pick a weight format" || fail "cmp: no format picker"
keys cmp -l int4-g32
keys cmp Enter
if wait_title cmp "pinned: FP16.*current: INT4 g32" && settle cmp && grep -q "^│pinned " "$TMP/settled" &&
    grep -q "^│current " "$TMP/settled"; then
    ok "comparison: both bars labelled, title pinned FP16 vs current INT4"
else
    fail "comparison screen"
    capture cmp
fi
keys cmp c
wait_gone cmp "current:" && ok "c again unpins" || fail "c did not unpin"
quit cmp >/dev/null

# --- Spanish ------------------------------------------------------------------
start es 100 30 LANG=es_ES.UTF-8 -- $SCEN
if wait_for es "Velocidad" && wait_for es "Memoria por GPU" && wait_for es "85,9 GB" &&
    wait_for es "inferencia"; then
    ok "LANG=es_ES.UTF-8: the screen is in Spanish, with decimal commas"
else
    fail "LANG=es_ES.UTF-8: no Spanish screen"
    capture es
fi
quit es >/dev/null
start es2 100 30 LANGUAGE=es -- $SCEN
wait_for es2 "Velocidad" && ok "LANGUAGE=es: Spanish" || { fail "LANGUAGE=es"; capture es2; }
quit es2 >/dev/null
# at 80 columns the Speed pane's short labels ("generación", "prellenado")
# keep a space before their figures (its value column fits them)
start esn 80 24 LANG=es_ES.UTF-8 -- $SCEN
if wait_for esn "Velocidad" && capture esn | grep -q "generación [^ ]" &&
    capture esn | grep -q "prellenado [^ ]"; then
    ok "LANG=es_ES.UTF-8 at 80x24: the Speed pane's labels stand apart from their figures"
else
    fail "LANG=es_ES.UTF-8 at 80x24: a Speed label runs into its figure"
    capture esn
fi
quit esn >/dev/null
start esl 100 30 LANG=es_ES.UTF-8 -- --fresh --lesson seed-000
wait_for esl "Bytes por parámetro" && ok "a lesson name finds the Spanish lesson" ||
    { fail "--lesson seed-000 under es_ES"; capture esl; }
quit esl >/dev/null
out=$(env -u LC_ALL LANG=es_ES.UTF-8 "$VRAMLAB" plan $SCEN | sed "s/$TUI_NBSP/ /g")
echo "$out" | grep -q "^CABE: .*,.* GB de 85,9 GB por GPU" && echo "$out" | grep -q "Memoria por GPU" &&
    ok "plan text in Spanish" || fail "plan in Spanish: $(echo "$out" | head -5)"
json=$(env -u LC_ALL LANG=es_ES.UTF-8 "$VRAMLAB" plan --json --mfu 0.4 $SCEN | nonote)
b4=$("$VRAMLAB" plan --json --mfu 0.4 $SCEN | nonote)
[ "$json" = "$b4" ] && ok "plan --json is the same under es_ES (and 0.4 parses)" ||
    fail "plan --json differs under es_ES"
start c 100 30 LANG=C -- $SCEN
if wait_for c "Memory per GPU" && ! capture c | LC_ALL=C grep -q '[^ -~]'; then
    ok "LANG=C: English and ASCII only"
else
    fail "LANG=C: not English ASCII"
fi
quit c >/dev/null

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all lecture kit end-to-end checks passed"
exit 0
