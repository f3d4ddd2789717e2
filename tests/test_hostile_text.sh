#!/bin/sh
# Untrusted text (issue 27 item 5): a GGUF whose general.name holds an OSC
# window title, BEL, backspaces, a screen clear, a C1 CSI and a byte that is
# not UTF-8, and a config.json whose _name_or_path holds the same (as JSON
# escapes): `plan` (text and --json), `search` and `import` print none of
# those bytes, and a catalog file with "\e" in a quoted name likewise, and
# a scenario file's refused line. A
# control is shown as '?' and the rest of the name is kept.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
VRAMLAB=$top_builddir/vramlab
W=$top_srcdir/tests/gguf_write.py
fail=0
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
XDG_CONFIG_HOME=$t/xdg HOME=$t/home XDG_STATE_HOME=$t/state
export XDG_CONFIG_HOME HOME XDG_STATE_HOME
[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is needed to write the files"; exit 77; }

# clean NAME FILE: FILE has no C0 control but newline (tab allowed in
# text), no DEL, no C1 control, and is valid UTF-8.
clean() {
    if python3 - "$2" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in b if (c < 0x20 and c not in (0x0a, 0x09)) or c == 0x7f]
t = b.decode("utf-8")  # raises on invalid UTF-8
c1 = [ch for ch in t if 0x80 <= ord(ch) <= 0x9f]
sys.exit(1 if bad or c1 else 0)
PY
    then echo "ok   - $1: no control byte"; else echo "FAIL - $1: control bytes reach the output"; od -c "$2" | head -5; fail=1; fi
}
# noescape NAME FILE: a JSON output does not carry them escaped either.
noescape() {
    if grep -qi -e '\\u001b' -e '\\u0007' -e '\\u009b' -e '\\b' "$2"; then
        echo "FAIL - $1: escaped control characters in the JSON"; fail=1
    else
        echo "ok   - $1: no escaped control character"
    fi
}
# kept NAME FILE TEXT: the printable part of the name is still there.
kept() {
    if grep -q -- "$3" "$2"; then echo "ok   - $1: the name is kept ($3)"; else echo "FAIL - $1: '$3' missing"; fail=1; fi
}

python3 "$W" "$t/h.gguf" hostile >/dev/null
"$VRAMLAB" plan --model-file "$t/h.gguf" >"$t/plan.txt" 2>&1
clean "plan --model-file (text)" "$t/plan.txt"
kept "plan --model-file (text)" "$t/plan.txt" "pwned?Tiny"
"$VRAMLAB" plan --model-file "$t/h.gguf" --json >"$t/plan.json" 2>&1
clean "plan --model-file --json" "$t/plan.json"
noescape "plan --model-file --json" "$t/plan.json"
"$VRAMLAB" search --model-file "$t/h.gguf" --gpus 2 >"$t/search.txt" 2>&1
clean "search --model-file" "$t/search.txt"

mkdir -p "$t/hub"
cat >"$t/hub/config.json" <<'JSON'
{"_name_or_path": "\u001b]0;pwned\u0007Evil\b\b\u001b[2J\u009b31m end",
 "architectures": ["LlamaForCausalLM"], "model_type": "llama",
 "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4,
 "num_hidden_layers": 2, "num_key_value_heads": 2, "vocab_size": 512,
 "max_position_embeddings": 4096, "tie_word_embeddings": false}
JSON
"$VRAMLAB" plan --model-config "$t/hub/config.json" >"$t/cfg.txt" 2>&1
clean "plan --model-config (text)" "$t/cfg.txt"
kept "plan --model-config (text)" "$t/cfg.txt" "Evil"
"$VRAMLAB" plan --model-config "$t/hub/config.json" --json >"$t/cfg.json" 2>&1
clean "plan --model-config --json" "$t/cfg.json"
noescape "plan --model-config --json" "$t/cfg.json"
"$VRAMLAB" import "$t/hub/config.json" >"$t/import.yaml" 2>&1
clean "import" "$t/import.yaml"

# A user catalog file: "\e" in a double-quoted YAML string is an ESC.
mkdir -p "$t/xdg/vramlab"
cat >"$t/cat.yaml" <<'YAML'
gpus:
  - id: evil-gpu
    name: "Evil\e[2J\a GPU"
    vendor: nvidia
    memory: 24 GiB
    bandwidth: 1 TB/s
    flops:
      fp16: 100 TFLOPS
    source: "a test\e]0;pwned\a"
YAML
"$VRAMLAB" plan --catalog "$t/cat.yaml" --gpu evil-gpu >"$t/catalog.txt" 2>&1
clean "a catalog name" "$t/catalog.txt"
kept "a catalog name" "$t/catalog.txt" "Evil"
"$VRAMLAB" plan --catalog "$t/cat.yaml" --gpu evil-gpu --json >"$t/catalog.json" 2>&1
clean "a catalog name (--json)" "$t/catalog.json"
noescape "a catalog name (--json)" "$t/catalog.json"

# A scenario file: a refused value's line is quoted in the message, its
# control bytes as '?' (the quoted line, and a value the message repeats);
# a catalog file's broken line likewise.
printf 'model: llama-3.1-70b\ntp: \033]0;pwned\007x\n' >"$t/esc.yaml"
"$VRAMLAB" plan --scenario "$t/esc.yaml" >"$t/scen.txt" 2>&1
clean "a scenario file's quoted line" "$t/scen.txt"
kept "a scenario file's quoted line" "$t/scen.txt" "tp: ?]0;pwned?x"
printf 'model: llama-3.1-70b\ngpu: "h\\e]0;x\\a100"\n' >"$t/esc2.yaml"
"$VRAMLAB" plan --scenario "$t/esc2.yaml" >"$t/scen2.txt" 2>&1
clean "a scenario file's unknown id" "$t/scen2.txt"
exit $fail
