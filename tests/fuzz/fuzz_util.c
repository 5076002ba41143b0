/*
 * fuzz_util.c -- see fuzz.h.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_LIBFUZZER
#include "../harness.h"

#define MAX_TARGETS 32
static struct {
    const char *name;
    fuzz_fn fn;
} targets[MAX_TARGETS];
static int ntargets;

void fuzz_register(const char *name, fuzz_fn fn)
{
    if (ntargets < MAX_TARGETS) {
        targets[ntargets].name = name;
        targets[ntargets++].fn = fn;
    }
}

int fuzz_count(void) { return ntargets; }
const char *fuzz_name(int i) { return targets[i].name; }
fuzz_fn fuzz_function(int i) { return targets[i].fn; }

void fuzz_fail(const char *file, int line, const char *what)
{
    th_fail(file, line, "FUZZ_CHECK(%s)", what);
}

const char *fuzz_tmpdir(void)
{
    return th_tmpdir();
}
#else
#include <stdlib.h>

void fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", file, line, what);
    abort();
}

static char tmp[64];

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
}

const char *fuzz_tmpdir(void)
{
    if (!tmp[0]) {
        snprintf(tmp, sizeof tmp, "/tmp/ircg-fuzz-XXXXXX");
        if (!mkdtemp(tmp))
            abort();
        atexit(rm_tmp);
    }
    return tmp;
}
#endif

int fuzz_write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    return ok ? 0 : -1;
}
