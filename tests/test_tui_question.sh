#!/bin/sh
# test_tui_question.sh: the lessons' screens that are not one walk per file
# (issue 17; taken out of test_tui_lessons.sh so that they run in every
# build, the sanitizers' included, while the long walk runs in the plain
# build only: docs/tests.md): --lesson alone lists every shipped lesson with
# its languages and titles, in order, --lang picks the messages; one
# question step in detail: its hidden figures are '?' before n and the
# engine's after, at 100x30 and 80x24, LANG=C, NO_COLOR=1 and presenting
# (the question large, the headline's figures '?'); --present --lesson
# starts on the headline. Skips (77) without tmux.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the lessons' question screens"
tui_setup question
export LC_ALL=C.UTF-8
# One idle session for the whole script: the server outlives the cases'
# sessions (a server exiting as the next case starts fails that case).
tmux -L "$SOCK" -f /dev/null new-session -d -s keep "sleep 3600"
LESSONS=$(cd "$top_srcdir" && pwd)/share/lessons

# --- the index (issue 17, item 4) -------------------------------------------
# --lesson alone lists every shipped lesson with each language and title.
out=$(env -u LANGUAGE LANG=C.UTF-8 "$VRAMLAB" --lesson)
miss=0
for file in "$LESSONS"/*.yaml; do
    t=$(sed -n 's/^title: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$file")
    echo "$out" | grep -qF "$t" || { fail "--lesson: '$t' ($file) not listed"; miss=1; }
done
echo "$out" | grep -q "^  seed-000 .* en .*GPUs, memory and quantization" && [ $miss -eq 0 ] &&
    ok "--lesson alone lists the lessons, their languages and titles" || fail "--lesson index: $out"
# In the order of the file names (not the file system's): lessons by name,
# each lesson's languages en before es.
listed=$(echo "$out" | sed -n 's/^  \([^ ]*\) *\(e[ns]\) .*/\1.\2/p; s/^  *\(e[ns]\) .*/.\1/p' |
    awk -F. '$1 != "" { n = $1 } { print n "." $2 }')
[ -n "$listed" ] && [ "$listed" = "$(echo "$listed" | LC_ALL=C sort)" ] &&
    ok "--lesson lists lessons and languages by name" || fail "--lesson order: $listed"
"$VRAMLAB" --help | grep -q "^  seed-000 " && ok "--help names the lessons" || fail "--help: no lessons"
# --lang overrides the locale for the messages and the lesson a name picks.
env -u LANGUAGE LANG=C.UTF-8 "$VRAMLAB" --lang es --lesson | grep -q "^Lecciones .*ahora es" &&
    ok "--lang es: the index in Spanish under an English locale" || fail "--lang es"
env -u LANGUAGE LANG=es_ES.UTF-8 "$VRAMLAB" --lang en --lesson | grep -q "^Lessons .*now en" &&
    ok "--lang en under es_ES" || fail "--lang en"
"$VRAMLAB" --lang fr --lesson >/dev/null 2>"$TMP/lang.err"
[ $? -eq 2 ] && grep -q "expected es or en, found 'fr'" "$TMP/lang.err" && ok "--lang fr: exit 2" ||
    fail "--lang fr: $(cat "$TMP/lang.err")"

ASCII=0 TL="┌"

# --- a question step in detail (issue 17, item 2) ---------------------------
# 70B in FP16 over two H100: the question hides Memory and Speed (the
# default); before n none of their figures is on the screen (no digit at all
# in the two panes, an empty bar, no verdict), after n the engine's, as
# `vramlab plan` prints them.
mkdir -p "$TMP/q"
cat >"$TMP/q/q.yaml" <<'YAML'
title: Question
language: en
steps:
  - title: Two H100
    scenario: {params: 70B, format: fp16, gpu: h100-sxm, gpus: 2, tp: 2, context: 1024}
    pane: memory
    question: Does a 70B model in FP16 fit two H100?
    caption: Yes, as the Memory pane now shows with its figures.
YAML
plan=$(LANG=C.UTF-8 "$VRAMLAB" plan --params 70B --format fp16 --gpu h100-sxm --gpus 2 --tp 2 --context 1024 |
    sed "s/$TUI_NBSP/ /g")
total=$(echo "$plan" | awk '/^Memory per GPU/ { m = 1 } m && $1 == "total" { print $4 " " $5; exit }')
rate=$(echo "$plan" | awk '$1 == "memory-bound" && $2 == "ceiling" { print $3; exit }')
cap=$(echo "$plan" | awk '$1 == "capacity" { print $2 " " $3; exit }')
[ -n "$total" ] && [ -n "$rate" ] && [ -n "$cap" ] || fail "plan gave no figures: $plan"

# box NAME TITLE FILE: the content rows of the box titled TITLE in a
# captured screen FILE (the box's own columns only).
box() {
    awk -v t="$1" '
        index($0, t) && !on { on = 1; next }
        on && /^(└|\+)/ { exit }
        on { print }' "$2" | sed -E 's/^(│|\|)//; s/(│|\|).*//'
}

# question_case NAME W H ENV ARGS: the question before and after n.
question_case() {
    qs=$1 w=$2 h=$3 envs=$4 args=$5
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$qs" -x "$w" -y "$h" \
        "env -u LC_ALL -u LANGUAGE TERM=screen-256color LANG=C.UTF-8 $envs '$VRAMLAB' $args --fresh --lesson '$TMP/q/q.yaml'; sleep 60"
    what="question at ${w}x$h${envs:+ $envs}${args:+ $args}"
    if ! wait_for "$qs" "Question: Does a 70B" || ! wait_for "$qs" "n reveals"; then
        fail "$what: the question is not shown"
        capture "$qs"
        return
    fi
    settle "$qs"
    cp "$TMP/settled" "$TMP/before"
    case $args in
    *--present*)
        # The question large; the memory figure, capacity and verdict '?'.
        if grep -qF "$total" "$TMP/before" || grep -qF "$cap" "$TMP/before" ||
            ! grep -q "^  Question$" "$TMP/before" || ! grep -qF "of ? GB" "$TMP/before" ||
            ! grep -qF "fits? ?" "$TMP/before" || grep -q "fits on" "$TMP/before"; then
            fail "$what: a figure or the verdict shows before n"
            cat "$TMP/before"
        else
            ok "$what: the question large, the headline's figures '?'"
        fi
        ;;
    *)
        box "Memory per GPU" "$TMP/before" >"$TMP/mem"
        box "Speed" "$TMP/before" >"$TMP/speed"
        if [ ! -s "$TMP/mem" ] || [ ! -s "$TMP/speed" ] || grep -q '[0-9]' "$TMP/mem" "$TMP/speed" ||
            head -1 "$TMP/mem" | grep -qE '█|#' || ! grep -qF "fits? ?" "$TMP/mem" ||
            ! grep -qF "? GB" "$TMP/mem" || ! grep -qF "? tok/s" "$TMP/speed" ||
            grep -qF "$total" "$TMP/before"; then
            fail "$what: a hidden figure shows before n"
            cat "$TMP/before"
        else
            ok "$what: Memory and Speed show '?' for every figure before n, an empty bar, no verdict"
        fi
        ;;
    esac
    tmux -L "$SOCK" send-keys -t "$qs" n
    if wait_gone "$qs" "n reveals" && wait_for "$qs" "Yes, as the Memory pane"; then
        settle "$qs"
        cp "$TMP/settled" "$TMP/after"
        case $args in
        *--present*) want="of $cap" speed="" ;;
        *) want="total $total" speed="$rate tok/s" ;;
        esac
        if grep -qF "$want" "$TMP/after" && grep -q "fits on" "$TMP/after" &&
            grep -qF "$speed" "$TMP/after"; then
            ok "$what: n reveals the engine's figures ($want${speed:+, $speed}) and the answer"
        else
            fail "$what: after n, not the engine's figures ($want${speed:+, $speed})"
            cat "$TMP/after"
        fi
    else
        fail "$what: n did not reveal"
        capture "$qs"
    fi
    tmux -L "$SOCK" send-keys -t "$qs" r
    wait_for "$qs" "n reveals" && ! capture "$qs" | grep -qF "$total" &&
        ok "$what: r returns to the question" || fail "$what: r did not return to the question"
    tmux -L "$SOCK" kill-session -t "$qs" 2>/dev/null
}

question_case q1 100 30 "" ""
question_case q2 80 24 "" ""
question_case q3 100 30 "LANG=C" ""
question_case q4 80 24 "NO_COLOR=1" ""
question_case q5 100 30 "" "--present"
question_case q6 80 24 "" "--present"

# --present --lesson: the first step's headline, its explanation closed
# (e opens it), as F on the step shows it.
tmux -L "$SOCK" -f /dev/null new-session -d -s pres -x 100 -y 30 \
    "env -u LC_ALL -u LANGUAGE TERM=screen-256color LANG=C.UTF-8 '$VRAMLAB' --present --fresh --lesson seed-000; sleep 60"
if wait_for pres " 1/" && settle pres && [ "$(grep -c '██' "$TMP/settled")" -ge 5 ] &&
    ! grep -qF "explain: " "$TMP/settled"; then
    ok "--present --lesson: the headline, no explanation over it"
else
    fail "--present --lesson: the step's explanation covers the headline"
    capture pres
fi
tmux -L "$SOCK" send-keys -t pres e
wait_for pres "explain: " && ok "--present --lesson: e opens the explanation" ||
    fail "--present --lesson: e"
tmux -L "$SOCK" kill-session -t pres 2>/dev/null

# --- presenting at the edges (F on a lesson's steps, in every build) ------------
# A verdict wider than the screen takes two lines; a window too short for
# the big tok/s says it on one line (70B FP16 on one RTX A6000 at 60x16).
tmux -L "$SOCK" -f /dev/null new-session -d -s edge -x 60 -y 16 \
    "env -u LC_ALL -u LANGUAGE TERM=screen-256color LANG=C.UTF-8 '$VRAMLAB' --fresh --present --model llama-3.1-70b --gpu rtx-a6000 --format fp16; sleep 60"
if wait_for edge "tok/s" && settle edge &&
    awk '/^  needs [0-9.]+x the memory/ { n = NR } n && NR == n + 1 && /^    [^ ]/ { ok = 1 } END { exit !ok }' "$TMP/settled" &&
    grep -qE "^  [0-9.]+ tok/s  memory-bound" "$TMP/settled"; then
    ok "--present at 60x16: the verdict on two lines, tok/s on one"
else
    fail "--present at 60x16: the verdict or the tok/s line"
    cat "$TMP/settled"
fi
tmux -L "$SOCK" kill-session -t edge 2>/dev/null
# Training: the days in big digits (a thousands comma among them) and the
# cost beside them, as plan says.
TR="--model llama-3.1-70b --gpu h100-sxm --mode train --gpus 8 --tp 8"
cost=$("$VRAMLAB" plan $TR | sed "s/$TUI_NBSP/ /g" | awk '$1 == "cost" { print $2; exit }')
tmux -L "$SOCK" -f /dev/null new-session -d -s train -x 100 -y 30 \
    "env -u LC_ALL -u LANGUAGE TERM=screen-256color LANG=C.UTF-8 '$VRAMLAB' --fresh --present $TR; sleep 60"
if [ -n "$cost" ] && wait_for train "Training time" && wait_for train "$cost" && settle train &&
    [ "$(grep -c '██' "$TMP/settled")" -ge 5 ]; then
    ok "--present in training: the days large, the cost ($cost) as plan's"
else
    fail "--present in training: cost '$cost'"
    cat "$TMP/settled"
fi
tmux -L "$SOCK" kill-session -t train 2>/dev/null

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "the lesson index, a question step and --present --lesson: all checks passed"
exit 0
