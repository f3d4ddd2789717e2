/*
 * tests/shim/criterion/criterion.h: the few Criterion macros the kernel
 * tests use, for builds where Criterion is not installed for the target
 * (the aarch64 cross build run under qemu: tests/test_kern_cpu_neon.sh).
 * Each Test() registers a function; main runs each in its own process, as
 * Criterion does (a test's environment and caches stay its own), and
 * prints Criterion's summary line. Only for tests/test_kern_cpu.c; the
 * real suite links the real Criterion.
 */
#ifndef VRAMLAB_CRITERION_SHIM_H
#define VRAMLAB_CRITERION_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct shim_test {
    const char *suite, *name;
    void (*fn)(void);
};
extern struct shim_test shim_tests[];
extern int shim_count;
extern const char *shim_current;

#define SHIM_FAIL(...)                                                                            \
    do {                                                                                           \
        fprintf(stderr, "[FAIL] %s: %s:%d: ", shim_current, __FILE__, __LINE__);                  \
        fprintf(stderr, " " __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)
#define cr_assert(c, ...)                                                                          \
    do {                                                                                           \
        if (!(c))                                                                                  \
            SHIM_FAIL(__VA_ARGS__);                                                                \
    } while (0)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b), __VA_ARGS__)
#define cr_assert_leq(a, b, ...) cr_assert((a) <= (b), __VA_ARGS__)

#define Test(suite, name)                                                                          \
    static void suite##_##name(void);                                                              \
    __attribute__((constructor)) static void suite##_##name##_reg(void) {                          \
        shim_tests[shim_count++] = (struct shim_test){#suite, #name, suite##_##name};              \
    }                                                                                              \
    static void suite##_##name(void)

#define CRITERION_SHIM_MAIN                                                                        \
    struct shim_test shim_tests[64];                                                               \
    int shim_count;                                                                                \
    const char *shim_current;                                                                      \
    int main(void) {                                                                               \
        int failed = 0;                                                                            \
        for (int i = 0; i < shim_count; i++) {                                                     \
            shim_current = shim_tests[i].name;                                                     \
            fflush(stdout);                                                                        \
            pid_t pid = fork();                                                                    \
            if (pid == 0) {                                                                        \
                shim_tests[i].fn();                                                                \
                _exit(0);                                                                          \
            }                                                                                      \
            int st = 1;                                                                            \
            if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {       \
                fprintf(stderr, "[FAIL] %s::%s\n", shim_tests[i].suite, shim_tests[i].name);     \
                failed++;                                                                          \
            }                                                                                      \
        }                                                                                          \
        printf("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: 0\n",       \
               shim_count, shim_count - failed, failed);                                           \
        return failed != 0;                                                                        \
    }

#endif
