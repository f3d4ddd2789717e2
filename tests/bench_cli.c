/*
 * bench_cli.c: wall time from starting `vramlab plan` to its result
 * (target: under 20 ms, issue 4). Runs ./vramlab (from the build
 * directory) many times for a few scenarios and prints the median, the
 * 95th percentile and the maximum. A benchmark, never a test.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

extern char **environ;

#define RUNS 200

/* Seconds on the monotonic clock. */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Order doubles ascending. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Run argv once with stdout to /dev/null; returns wall seconds or -1. */
static double run_once(char **argv) {
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status;
    double t0 = now_s();

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return now_s() - t0;
}

/* Time one scenario RUNS times and print its statistics. */
static int bench(const char *label, char **argv) {
    double t[RUNS];

    for (int i = 0; i < RUNS; i++) {
        t[i] = run_once(argv);
        if (t[i] < 0) {
            fprintf(stderr, "bench_cli: %s failed\n", label);
            return 1;
        }
    }
    qsort(t, RUNS, sizeof(t[0]), cmp_double);
    printf("%-34s median %6.2f ms  p95 %6.2f ms  max %6.2f ms  (%d runs)\n", label,
           t[RUNS / 2] * 1e3, t[RUNS * 95 / 100] * 1e3, t[RUNS - 1] * 1e3, RUNS);
    return 0;
}

/* Benchmark a few representative plan invocations. */
int main(void) {
    char *plan_text[] = {"./vramlab", "plan", NULL};
    char *plan_json[] = {"./vramlab", "plan", "--json", NULL};
    char *plan_train[] = {
        "./vramlab", "plan", "--model", "llama-3.1-405b", "--mode", "train",  "--tp",
        "8",         "--pp", "16",      "--dp",           "128",    "--json", NULL};
    char *search[] = {"./vramlab", "search", "--model", "llama-3.1-405b", "--gpus", "16384", NULL};
    int rc = 0;

    if (access("./vramlab", X_OK) != 0) {
        fprintf(stderr, "bench_cli: run from the build directory after make\n");
        return 1;
    }
    rc |= bench("vramlab plan", plan_text);
    rc |= bench("vramlab plan --json", plan_json);
    rc |= bench("vramlab plan 405B train --json", plan_train);
    rc |= bench("vramlab search 405B --gpus 16384", search);
    return rc;
}
