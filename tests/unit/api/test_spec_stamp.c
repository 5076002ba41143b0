/*
 * test_spec_stamp.c -- a data file that changes or disappears while the
 * spec's loader reads it: the stamp taken before the read (device, inode,
 * size, modification time) no longer matches after it, and the parse
 * fails at the member with the reason instead of building a problem from
 * two versions of the file.  The timing of a real race is not
 * reproducible, so the file is changed between the stamp and the check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "spec_internal.h"

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    return ok ? 0 : -1;
}

TEST(spec_stamp, changed_or_gone_while_read)
{
    char path[600];
    api_errors errs;
    api_parse_options opt;
    sp_stamp before;
    snprintf(path, sizeof path, "%s/stamp.dat", th_tmpdir());
    api_errors_init(&errs);
    api_parse_options_default(&opt);
    sp_ctx c = {&errs, &opt, 0};

    REQUIRE(write_file(path, "1::1::5::0\n2::2::3::0\n") == 0);
    sp_stamp_take(path, &before);
    CHECK(before.ok);
    CHECK(sp_stamp_same(&c, "/problem/data/path", "stamp.dat", path, &before));
    CHECK_INT(errs.count, 0);

    /* rewritten in place (same inode): its size or time moves */
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    REQUIRE(write_file(path, "1::1::5::0\n2::2::3::0\n3::1::4::0\n") == 0);
    CHECK(!sp_stamp_same(&c, "/problem/data/path", "stamp.dat", path, &before));
    REQUIRE(errs.count == 1);
    CHECK_STR(errs.items[0].pointer, "/problem/data/path");
    CHECK(strstr(errs.items[0].reason, "changed while it was being read") != NULL);

    /* gone */
    sp_stamp_take(path, &before);
    REQUIRE(unlink(path) == 0);
    CHECK(!sp_stamp_same(&c, "/problem/data/path", "stamp.dat", path, &before));
    REQUIRE(errs.count == 2);
    CHECK(strstr(errs.items[1].reason, "disappeared while it was being read") != NULL);
    api_errors_clear(&errs);
}
