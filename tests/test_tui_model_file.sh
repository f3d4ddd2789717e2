#!/bin/sh
# test_tui_model_file.sh: the explorer opens model files (issue 14) in a
# real terminal (tmux, 100x30, TERM=vt100, NO_COLOR=1):
#   - --model-file at start: the Format pane shows the file's type mix and
#     its bits per weight, the title says the weights are the file's;
#   - O in the Model pane opens the prompt (o stays the scenario file's); Tab completes a path as a
#     shell does (one match completes, a directory gets '/', several are
#     listed in the Model pane); Enter opens a folder;
#   - "file..." is the model picker's first entry and opens the prompt;
#   - a missing path, a broken safetensors file and an empty folder show
#     their error in the status line, the explorer keeps running and the
#     scenario stays as it was.
# Skips (77) when tmux or python3 is missing.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the explorer's model-file checks"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 writes the files"; exit 77; }
tui_setup mf
W=$top_srcdir/tests/safetensors_write.py
python3 "$W" gptq "$TMP/gptq" >/dev/null || fail "writer"
python3 "$W" folder "$TMP/folder" >/dev/null || fail "writer"
mkdir -p "$TMP/empty" "$TMP/gx"
python3 "$W" bad "$TMP/folder/broken.safetensors" hdrlen

start() {
    name=$1
    shift
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x 100 -y 30 \
        "cd '$TMP' && env TERM=vt100 NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 '$VRAMLAB' --fresh $*; sleep 600"
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
# type NAME TEXT: the text as literal keys.
type_text() {
    tmux -L "$SOCK" send-keys -t "$1" -l "$2"
    sleep 0.2
}
has() {
    if wait_for "$1" "$2"; then
        ok "$3"
    else
        fail "$3: '$2' not on screen"
        capture "$1"
    fi
}

start a --model-file "$TMP/gptq"
has a "GPTQ_INT4_G64 55%" "--model-file: the Format pane shows the type mix"
has a "6.54 bits per weight" "--model-file: and the bits per weight"
has a "file's types" "the title says the weights are the file's"

start b
keys b o
has b "open scenario file:" "o stays the lecture kit's scenario file"
keys b Escape
keys b O
has b "open a model file:" "O in the Model pane opens the prompt"
type_text b "$TMP/gp"
keys b Tab
has b "$TMP/gptq/" "Tab completes a directory with its slash"
keys b C-u
type_text b "$TMP/g"
keys b Tab Tab
has b "gptq  gx" "several matches are listed in the Model pane"
keys b C-u
type_text b "$TMP/gptq"
keys b Enter
has b "opened $TMP/gptq: GPTQ_INT4_G64 55%" "Enter opens the folder; the status line says what it holds"
has b "2 L · 256 h · 4/2 heads" "the Model pane shows the file's shape"

start c
keys c Enter
has c "file... (a GGUF" "the model picker starts with file..."
keys c Up Enter
has c "model file (Tab completes):" "file... opens the prompt"
type_text c "$TMP/nowhere"
keys c Enter
has c "$TMP/nowhere: No such file or directory" "a missing path: the error in the status line"
keys c O C-u
type_text c "$TMP/folder/broken.safetensors"
keys c Enter
has c "broken.safetensors: byte 0: header length" "a broken file: the file, the byte and what"
keys c O C-u
type_text c "$TMP/empty"
keys c Enter
has c "no model in this directory" "an empty folder says so"
has c "Llama 3.1 8B" "the scenario stays as it was"
keys c O C-u
type_text c "/dev/zer"
keys c Tab Enter
has c "/dev/zero: a character device" "/dev/zero is refused unopened"
keys c q
# The explorer gone, the session's shell runs its sleep.
i=0
while [ $i -lt 300 ] && [ "$(tmux -L "$SOCK" display -p -t c '#{pane_current_command}')" != sleep ]; do
    sleep 0.1
    i=$((i + 1))
done
if [ $i -lt 300 ]; then ok "q quits after the errors"; else fail "q did not quit"; fi

[ "$fails" -eq 0 ] || exit 1
