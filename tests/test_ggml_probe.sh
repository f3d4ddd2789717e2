#!/bin/sh
# vramlab-ggml's own errors, which need no ggml: a bad --mat, --batches or
# --threads is a usage error (exit 2) naming the option and what it takes;
# a directory without ggml's libraries is a load error (exit 1) naming the
# file; every error is one JSON line with its code. (Timing a real ggml:
# tests/test_bench_runtime.sh, with scripts/llama-server's build.)
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
G=$top_builddir/vramlab-ggml
fail=0
[ -x "$G" ] || { echo "SKIP: $G not built"; exit 77; }
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
: >"$t/m.gguf"
. "${top_srcdir:-.}/tests/check_lib.sh"

run() { "$G" "$@" >"$t/out" 2>"$t/err"; rc=$?; }
run --lib "$t" --file "$t/m.gguf" --mat 3:64:x:0
check "--mat not numbers: exit 2" [ "$rc" -eq 2 ]
check "--mat not numbers: an error line naming --mat and its form" \
    grep -q '^{"event":"error","code":"usage","message":"--mat: expected TYPE:ROWS:COLS:OFFSET\[:1\] entries, whole numbers, found' "$t/out"
run --lib "$t" --file "$t/m.gguf" --mat 3:64:64:0:2
check "--mat a fifth field but 1: exit 2" [ "$rc" -eq 2 ]
run --lib "$t" --file "$t/m.gguf" --mat 3:64:64:0 --batches 0
check "--batches 0: exit 2, the range" sh -c "[ $rc -eq 2 ] && grep -q 'batches: expected up to 4 whole numbers from 1 to 65536' '$t/out'"
run --lib "$t" --file "$t/m.gguf" --mat 3:64:64:0 --threads many
check "--threads many: exit 2" [ "$rc" -eq 2 ]
run --lib "$t" --file "$t/m.gguf" --mat 99:64:64:0
check "a type past ggml's: exit 2" sh -c "[ $rc -eq 2 ] && grep -q 'a type is a ggml type number below 64' '$t/out'"
run --file "$t/m.gguf" --mat 3:64:64:0
check "no --lib: exit 2, what is needed" sh -c "[ $rc -eq 2 ] && grep -q -- '--lib DIR, --file GGUF and --mat are needed' '$t/out'"
run --lib "$t" --file "$t/none.gguf" --mat 3:64:64:0
check "no such file: exit 1, its name and why" sh -c "[ $rc -eq 1 ] && grep -q '\"code\":\"file\",\"message\":\"$t/none.gguf: No such file' '$t/out'"
run --lib "$t/none" --file "$t/m.gguf" --mat 3:64:64:0
check "no ggml there: exit 1" [ "$rc" -eq 1 ]
check "no ggml there: a load error naming the library" \
    grep -q "\"code\":\"load\",\"message\":\"cannot load $t/none/libggml-base.so" "$t/out"
: >"$t/libggml-base.so"
: >"$t/libggml-cpu.so"
run --lib "$t" --file "$t/m.gguf" --mat 3:64:64:0
check "not a library: exit 1, the loader's reason" sh -c "[ $rc -eq 1 ] && grep -q 'cannot load $t/libggml-base.so: ' '$t/out'"
run --help
check "--help: exit 0, the usage" sh -c "[ $rc -eq 0 ] && grep -q '^usage: vramlab-ggml --lib DIR' '$t/out'"
check "nothing on stderr" [ ! -s "$t/err" ]
exit $fail
