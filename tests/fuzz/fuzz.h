/*
 * fuzz.h -- fuzz targets, built two ways from the same source.
 *
 * A target is one function over the input bytes, written
 *     FUZZ_TARGET(name) { ... use data, size ...; return 0; }
 * Built by `make fuzz` with -DFUZZ_LIBFUZZER, it is libFuzzer's entry point
 * (one binary per target, clang -fsanitize=fuzzer,address,undefined).
 * Built into the test runner, it registers itself under its name, and
 * tests/fuzz/test_fuzz_replay.c feeds it every stored input of the target
 * (tests/fuzz/corpus/NAME: the seeds; tests/fuzz/regress/NAME: every input
 * that ever crashed it) -- no libFuzzer, the same code.
 *
 * A target checks what must hold for any input with FUZZ_CHECK: a crash
 * under libFuzzer, a test failure in the replay.
 */
#ifndef IRCG_FUZZ_H
#define IRCG_FUZZ_H

#include <stddef.h>
#include <stdint.h>

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#define FUZZ_TARGET(name)                                                     \
    static int fuzz_##name(const uint8_t *data, size_t size);                 \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)              \
    {                                                                         \
        return fuzz_##name(data, size);                                       \
    }                                                                         \
    static int fuzz_##name(const uint8_t *data, size_t size)
#else
void fuzz_register(const char *name, fuzz_fn fn);
#define FUZZ_TARGET(name)                                                     \
    static int fuzz_##name(const uint8_t *data, size_t size);                 \
    __attribute__((constructor)) static void fuzz_##name##_reg(void)          \
    {                                                                         \
        fuzz_register(#name, fuzz_##name);                                    \
    }                                                                         \
    static int fuzz_##name(const uint8_t *data, size_t size)
#endif

/* The registered targets (replay builds only): name and function. */
int fuzz_count(void);
const char *fuzz_name(int i);
fuzz_fn fuzz_function(int i);

void fuzz_fail(const char *file, int line, const char *what);
#define FUZZ_CHECK(c)                                                         \
    do {                                                                      \
        if (!(c))                                                             \
            fuzz_fail(__FILE__, __LINE__, #c);                                \
    } while (0)

/* A private directory for a target's files, made once per process. */
const char *fuzz_tmpdir(void);
/* Writes a file into fuzz_tmpdir(); 0 on success. */
int fuzz_write_file(const char *name, const char *text);

#endif /* IRCG_FUZZ_H */
