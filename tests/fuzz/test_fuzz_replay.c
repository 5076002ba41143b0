/*
 * test_fuzz_replay.c -- every stored input of every fuzz target, fed to
 * the target's own function (no libFuzzer): the seeds
 * (tests/fuzz/corpus/NAME) and every input that ever crashed a target
 * (tests/fuzz/regress/NAME).  Run by make test, and under the sanitizers
 * by make asan, so a fixed crash stays fixed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness.h"
#include "fuzz.h"

/* Feeds every regular file of dir to fn; returns how many. */
static int replay_dir(const char *dir, fuzz_fn fn)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[1024];
        struct stat sb;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        char *buf = malloc((size_t)sb.st_size + 1);
        FILE *f = fopen(path, "rb");
        size_t got = f && buf ? fread(buf, 1, (size_t)sb.st_size, f) : 0;
        if (f)
            fclose(f);
        int failed_before = th_failed();
        if (buf && got == (size_t)sb.st_size)
            fn((const uint8_t *)buf, got);
        else
            th_fail(__FILE__, __LINE__, "cannot read %s", path);
        if (th_failed() && !failed_before)
            printf("    on input %s\n", path);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

TEST(fuzz, replay_seeds_and_regressions)
{
    int total = 0;
    REQUIRE(fuzz_count() >= 8);
    for (int i = 0; i < fuzz_count(); i++) {
        char dir[256];
        snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", fuzz_name(i));
        int seeds = replay_dir(dir, fuzz_function(i));
        snprintf(dir, sizeof dir, "tests/fuzz/regress/%s", fuzz_name(i));
        int regress = replay_dir(dir, fuzz_function(i));
        CHECK(seeds > 0);
        printf("    %-10s %3d seeds, %3d regressions\n", fuzz_name(i), seeds, regress);
        total += seeds + regress;
    }
    CHECK(total > 0);
}
