# check_lib.sh: the one `check` of the shell tests that count their own
# failures in $fail (test_bench_*.sh, test_device_cpu.sh, test_measure_*.sh).
# check NAME CONDITION...: run CONDITION; "ok   - NAME", or "FAIL - NAME"
# and fail=1.
check() { # name condition...
    name=$1
    shift
    if "$@"; then
        echo "ok   - $name"
    else
        echo "FAIL - $name"
        fail=1
    fi
}
