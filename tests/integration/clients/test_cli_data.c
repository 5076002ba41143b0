/*
 * test_cli_data.c -- `ircg` with data on its side of a daemon: `upload
 * --kind`, `submit --data --labels --val-data --val-labels` (the files
 * uploaded, the spec naming their datasets), `submit SPEC --upload` (the
 * files a spec names), `result --x --z` (the iterates as .npz, the bytes
 * the service serves); the daemon's x the same doubles as `ircg solve`'s
 * on a spec naming the same files; and the usage errors.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"
#include "common/test_cli_util.h"

/* An .npy of rows x cols (cols 0: a vector) of a fixed pattern. */
static int write_npy(const char *path, int rows, int cols, int seed)
{
    FILE *f = tcli_npy_create(path, rows, cols);
    if (!f)
        return -1;
    unsigned s = (unsigned)seed * 2654435761u;
    for (int i = 0; i < rows * (cols ? cols : 1); i++) {
        s = s * 1103515245u + 12345u;
        double v = ((double)(s >> 8) / 16777216.0 - 0.5) * 4.0;
        fwrite(&v, sizeof v, 1, f);
    }
    return fclose(f);
}

static void first_line(const char *path, char *out, size_t cap)
{
    char *t = tcli_read_text(path);
    out[0] = '\0';
    if (t) {
        t[strcspn(t, "\n")] = '\0';
        snprintf(out, cap, "%s", t);
    }
    free(t);
}

/* The text of a result's "x" member (through the start of "z"). */
static char *x_text(const char *result)
{
    const char *a = result ? strstr(result, "\"x\":{") : NULL;
    const char *b = a ? strstr(a, "\"z\":{") : NULL;
    return b ? strndup(a, (size_t)(b - a)) : NULL;
}

TEST(cli_data, submit_data_and_result_npz)
{
    NEED_CLI();
    hu_daemon d = {0};
    char id[80], path[300], err[4096];
    REQUIRE(hu_start(&d, "cli_data", 1) == 0);
    setenv("IRCG_SERVER", d.base, 1);
    REQUIRE(write_npy(tcli_tmp("A.npy"), 60, 12, 1) == 0);
    REQUIRE(write_npy(tcli_tmp("b.npy"), 60, 0, 2) == 0);
    REQUIRE(write_npy(tcli_tmp("Av.npy"), 20, 12, 3) == 0);
    REQUIRE(write_npy(tcli_tmp("bv.npy"), 20, 0, 4) == 0);

    /* upload: the id on stdout; the same bytes as another kind: 409 */
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "upload", tcli_tmp("A.npy"), NULL},
                           tcli_tmp("up.txt"), err, sizeof err), 0);
    first_line(tcli_tmp("up.txt"), id, sizeof id);
    CHECK_INT(strlen(id), 64);
    CHECK(strstr(err, "matrix 60 x 12") != NULL);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "upload", tcli_tmp("A.npy"), "--kind",
                                      "vector", NULL}, NULL, err, sizeof err), 3);
    CHECK(strstr(err, "409") != NULL);

    /* submit --data ...: datasets in the spec, the validation loss outside */
    CHECK_INT(tcli_run((char *[]){(char *)bin, "submit", "--data", tcli_tmp("A.npy"),
                                  "--labels", tcli_tmp("b.npy"), "--val-data",
                                  tcli_tmp("Av.npy"), "--val-labels", tcli_tmp("bv.npy"),
                                  "--wait", "--quiet", NULL},
                       tcli_tmp("job.txt")), 0);
    char *line = tcli_read_text(tcli_tmp("job.txt"));
    REQUIRE(line && strlen(line) > 22);
    snprintf(id, sizeof id, "%.22s", line);
    free(line);
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/spec", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"dataset\"") && strstr(r.body, "\"A_val_id\"") &&
          strstr(r.body, "\"validation\""));
    hu_resp_free(&r);

    /* result --x --z: the bytes the service serves */
    CHECK_INT(tcli_run((char *[]){(char *)bin, "result", id, "--x", tcli_tmp("x.npz"), "--z",
                                  tcli_tmp("z.npz"), NULL}, NULL), 0);
    const char *which[2] = {"x", "z"}, *files[2] = {"x.npz", "z.npz"};
    for (int k = 0; k < 2; k++) {
        size_t n = 0;
        snprintf(path, sizeof path, "/v1/jobs/%s/result?%s=npz", id, which[k]);
        CHECK_INT(hu_get(&d, path, &r), 200);
        FILE *f = fopen(tcli_tmp(files[k]), "rb");
        char *got = malloc(r.len + 1);
        if (f && got)
            n = fread(got, 1, r.len + 1, f);
        if (f)
            fclose(f);
        CHECK(n == r.len && got && memcmp(got, r.body, r.len) == 0);
        free(got);
        hu_resp_free(&r);
    }

    /* ircg solve on a spec naming the same files: the same x, bit for bit
     * (the same JSON text); and submit --upload of that spec */
    char spec[600];
    snprintf(spec, sizeof spec,
             "{\"problem\": {\"type\": \"least_squares\", \"outer\": \"validation\", \"data\": "
             "{\"source\": \"file\", \"A_path\": \"A.npy\", \"b_path\": \"b.npy\", "
             "\"A_val_path\": \"Av.npy\", \"b_val_path\": \"bv.npy\"}}}");
    REQUIRE(tcli_write(tcli_tmp("files.json"), spec) == 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", tcli_tmp("files.json"), "--quiet",
                                  "--result", tcli_tmp("local.json"), NULL}, NULL), 0);
    char *local = tcli_read_text(tcli_tmp("local.json"));
    snprintf(path, sizeof path, "/v1/jobs/%s/result", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    char *xa = x_text(local), *xb = x_text(r.body);
    CHECK(xa && xb && !strcmp(xa, xb));
    free(xa);
    free(xb);
    free(local);
    hu_resp_free(&r);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "submit", tcli_tmp("files.json"), "--upload",
                                  "--wait", "--quiet", NULL}, tcli_tmp("job2.txt")), 0);

    /* usage */
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "submit", tcli_tmp("files.json"), "--labels",
                                      tcli_tmp("b.npy"), NULL}, NULL, err, sizeof err), 2);
    CHECK(strstr(err, "come with --data") != NULL);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "submit", tcli_tmp("files.json"), "--data",
                                      tcli_tmp("A.npy"), "--upload", NULL}, NULL, err,
                           sizeof err), 2);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "result", id, "--x", "/nonexistent/x.npz",
                                      NULL}, NULL, err, sizeof err), 3);
    CHECK(strstr(err, "cannot write") != NULL);
    unsetenv("IRCG_SERVER");
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
