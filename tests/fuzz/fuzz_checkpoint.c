/*
 * fuzz_checkpoint.c -- the snapshot decoder: ircg_solver_restore on the
 * 'state' blobs that snapshots and crash checkpoints hold, for each
 * solver the service runs (the first byte picks one, the rest is the
 * blob; the stochastic methods' states hold their estimators and draws).  What any blob is owed: a clean refusal with a message; or a
 * restored solver whose state saves again to a blob that restores to the
 * same state (save, restore, save gives the same bytes), and that reads
 * its iterates and runs three more iterations without a crash -- a clean
 * error is allowed there: the matrix completion state is not checked for
 * finite values on restore (the IR-PG one is), and a NaN in it surfaces as
 * "numerical breakdown" when the SVD of the iterate fails
 * (tests/fuzz/regress/checkpoint/mc_cgbio_iterate_fails.bin).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "spec.h"

#define LS_DATA "\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\",\"m\":6,\"n\":8," \
                "\"noise\":0,\"seed\":1},\"domain\":{\"type\":\"l2_ball\",\"radius\":2}," \
                "\"outer\":{\"type\":\"half_norm_sq\"}"
#define MC_DATA "\"type\":\"matrix_completion\",\"data\":{\"source\":\"synthetic\",\"n_rows\":12," \
                "\"n_cols\":10,\"rank\":2,\"n_ratings\":40,\"min_rating\":1,\"max_rating\":5," \
                "\"noise\":0.5,\"seed\":1},\"delta\":5"
#define SPEC(data, alg) "{\"problem\":{" data "},\"algorithm\":{\"name\":\"" alg "\"}}"

/* New solvers go at the end: the first byte of every stored input keeps
 * picking the solver it was made for. */
static const char *const specs[] = {
    SPEC(LS_DATA, "ircg"), SPEC(LS_DATA, "cgbio"), SPEC(MC_DATA, "ircg"),
    SPEC(MC_DATA, "irpg"), SPEC(MC_DATA, "cgbio"), SPEC(MC_DATA, "bisg"),
    SPEC(LS_DATA, "ir-scg"), SPEC(LS_DATA, "ir-fscg"),
};
#define NSPECS (sizeof specs / sizeof specs[0])

static api_spec *parsed[NSPECS];

static const api_spec *spec_of(size_t i)
{
    if (!parsed[i] &&
        api_spec_parse(specs[i], strlen(specs[i]), NULL, &parsed[i], NULL) != 0)
        abort(); /* the harness is wrong, not the input */
    return parsed[i];
}

static int stop_after_three(void *user, const ircg_iter_info *it)
{
    (void)it;
    return ++*(int *)user >= 3;
}

static ircg_solver *solver(size_t i, int *calls)
{
    ircg_settings set;
    ircg_solver *sv = NULL;
    api_spec_settings(spec_of(i), &set);
    set.max_iter = 1000000000;
    set.time_limit = 0;
    set.cgbio_warmup_max_iter = 10; /* a restored CG-BiO may warm up again */
    set.callback = stop_after_three;
    set.callback_data = calls;
    if (ircg_solver_new(api_spec_problem(spec_of(i)), &set, &sv, NULL) != IRCG_OK)
        abort();
    return sv;
}

/* The restored state saves, restores and saves again to the same bytes. */
static void check_round_trip(size_t i, const ircg_solver *sv)
{
    void *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    int calls = 0;
    ircg_solver *again = solver(i, &calls);
    FUZZ_CHECK(ircg_solver_save(sv, &b1, &n1) == IRCG_OK);
    FUZZ_CHECK(b1 && ircg_solver_restore(again, b1, n1, NULL) == IRCG_OK);
    FUZZ_CHECK(ircg_solver_save(again, &b2, &n2) == IRCG_OK);
    FUZZ_CHECK(n1 == n2 && b1 && b2 && memcmp(b1, b2, n1) == 0);
    free(b1);
    free(b2);
    ircg_solver_free(again);
}

FUZZ_TARGET(checkpoint)
{
    ircg_diag d;
    ircg_info info;
    ircg_iterate *x = NULL, *z = NULL;
    int calls = 0;
    if (size < 1)
        return 0;
    size_t i = data[0] % NSPECS;
    ircg_solver *sv = solver(i, &calls);
    memset(&d, 0, sizeof d);
    if (ircg_solver_restore(sv, data + 1, size - 1, &d) != IRCG_OK) {
        FUZZ_CHECK(d.message[0] != '\0');
    } else {
        check_round_trip(i, sv);
        FUZZ_CHECK((ircg_solver_iterate(sv, IRCG_X, 0, &x) == IRCG_OK) == (x != NULL));
        FUZZ_CHECK((ircg_solver_iterate(sv, IRCG_Z, 0, &z) == IRCG_OK) == (z != NULL));
        memset(&info, 0, sizeof info);
        ircg_solve(sv, &info); /* any outcome; it must not crash */
    }
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    ircg_solver_free(sv);
    return 0;
}
