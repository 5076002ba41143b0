/*
 * checkpoint.c -- the solver's state as a blob (ircg_solver_save), its
 * header read alone (ircg_checkpoint_peek), and the three ways a restored
 * state starts a run (ircg_solver_restore_as).
 *
 * Layout, every value 8 bytes little-endian: magic "IRCGCKP1", version,
 * problem kind, dim, n_observed, [v3: the data digest], the loop's state
 * (t, S_t, elapsed, LMO seconds and products, last gap and sigma), [v2+:
 * the algorithm, the oracle counters and CG-BiO's warm start (done flag,
 * its iterations and seconds, r(x'_0) when done)], [v4: varsigma and the
 * bounds], [v5: the samples], [v6: f(x_0), NaN before the first
 * certificate], then the oracle's own state and [v5] the algorithm's
 * (slv_alg.save; nothing for the deterministic methods).  Versions 1
 * (IR-CG only) to 5 are still read.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/oracle.h"
#include "core/solver_internal.h"

#define CKPT_MAGIC 0x31504b4347524931ULL /* "IRCGCKP1" little-endian */
#define CKPT_VERSION 6 /* 2 adds the algorithm and CG-BiO's warm start,
                          3 the data digest, 4 varsigma and the bounds,
                          5 the samples and the algorithm's own state
                          (the stochastic methods') after the oracle's,
                          6 f(x_0) after the samples */

/* Version 4: the varsigma in use and the bounds (solver_internal.h). */
static void put_bounds(slv_buf *b, const ircg_solver *sv)
{
    const slv_bounds *c = &sv->bnd;
    double v[] = {sv->varsigma, c->g0, c->g_lower, c->g_upper, c->f_lower, c->gap_x,
                  c->gap_z, c->g_x, c->g_z, c->f_x, c->f_z, c->seconds};
    slv_buf_put_i64(b, c->t);
    slv_buf_put_i64(b, c->sharp);
    slv_buf_put_i64(b, c->count);
    slv_buf_put_f64s(b, v, sizeof v / sizeof v[0]);
}

static ircg_error read_bounds(slv_rbuf *r, ircg_solver *tmp, ircg_diag *diag)
{
    slv_bounds *c = &tmp->bnd;
    double v[12];
    c->t = slv_rbuf_i64(r);
    int64_t sharp = slv_rbuf_i64(r);
    c->count = slv_rbuf_i64(r);
    slv_rbuf_f64s(r, v, 12);
    tmp->varsigma = v[0];
    c->g0 = v[1], c->g_lower = v[2], c->g_upper = v[3], c->f_lower = v[4];
    c->gap_x = v[5], c->gap_z = v[6], c->g_x = v[7], c->g_z = v[8];
    c->f_x = v[9], c->f_z = v[10], c->seconds = v[11];
    c->sharp = sharp == 1;
    if (r->failed || c->t < -1 || c->t > tmp->t || (sharp != 0 && sharp != 1) ||
        c->count < 0 || !(tmp->varsigma >= 0) || isinf(tmp->varsigma) ||
        isnan(c->g_lower) || isnan(c->g_upper) || isnan(c->f_lower) || !(c->seconds >= 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "checkpoint header is corrupt (its bounds)");
    return IRCG_OK;
}

/* The solver's members, with the identity (n_observed, digest) of the
 * instance the blob is for. */
static void put_header(slv_buf *b, const ircg_solver *sv, int64_t n_observed,
                       uint64_t digest)
{
    const ircg_problem_info *pi = &sv->pb->info;
    slv_buf_put_u64(b, CKPT_MAGIC);
    slv_buf_put_u64(b, CKPT_VERSION);
    slv_buf_put_u64(b, (uint64_t)pi->kind);
    slv_buf_put_i64(b, pi->dim);
    slv_buf_put_i64(b, n_observed);
    slv_buf_put_u64(b, digest);
    slv_buf_put_i64(b, sv->t);
    slv_buf_put_f64(b, sv->S);
    slv_buf_put_f64(b, sv->elapsed);
    slv_buf_put_f64(b, sv->lmo_seconds);
    slv_buf_put_i64(b, sv->lmo_matvecs);
    slv_buf_put_f64(b, sv->last_gap);
    slv_buf_put_f64(b, sv->last_sigma);
    slv_buf_put_u64(b, (uint64_t)sv->algorithm);
    slv_buf_put_i64(b, sv->lmo_unconverged);
    slv_buf_put_i64(b, sv->proj_partial);
    slv_buf_put_i64(b, sv->proj_full);
    slv_buf_put_u64(b, (uint64_t)sv->warm_done);
    slv_buf_put_i64(b, sv->warmup_iterations);
    slv_buf_put_f64(b, sv->warmup_seconds);
    if (sv->warm_done && sv->cut_ref)
        slv_buf_put_f64s(b, sv->cut_ref, (size_t)n_observed);
    put_bounds(b, sv);
    slv_buf_put_i64(b, sv->samples);
    slv_buf_put_f64(b, sv->bnd.f0);
}

/* The algorithm's own state after the oracle's (version 5). */
static ircg_error put_alg(const ircg_solver *sv, slv_buf *b)
{
    const slv_alg *alg = slv_alg_of(sv->algorithm);
    return alg->save ? alg->save(sv, b) : IRCG_OK;
}

ircg_error ircg_solver_save(const ircg_solver *sv, void **blob, size_t *len)
{
    slv_buf b = {0};
    const ircg_problem_info *pi = &sv->pb->info;
    ircg_error err;

    *blob = NULL;
    *len = 0;
    put_header(&b, sv, pi->n_observed, pi->data_digest);
    err = sv->ops->save(sv->ws, &b);
    if (err == IRCG_OK)
        err = put_alg(sv, &b);
    if (err == IRCG_OK && b.failed)
        err = IRCG_ERR_NOMEM;
    if (err != IRCG_OK) {
        slv_buf_free(&b);
        return err;
    }
    *blob = b.data;
    *len = b.len;
    return IRCG_OK;
}

/* One process: the blob of ircg_solver_save in one piece. */
static ircg_error save_one(const ircg_solver *sv, ircg_write_fn put, void *ctx)
{
    void *blob = NULL;
    size_t len = 0;
    ircg_error err = ircg_solver_save(sv, &blob, &len);
    if (err == IRCG_OK && put(ctx, blob, len) != 0)
        err = IRCG_ERR_IO;
    free(blob);
    return err;
}

ircg_error ircg_solver_save_whole(const ircg_solver *sv, ircg_write_fn put, void *ctx)
{
    slv_sink s = {.put = put, .ctx = ctx};
    slv_buf head = {0};
    int64_t n_observed = 0;
    uint64_t digest = 0;
    int rank = 0;
    ircg_error err;

    if (!sv->ops->save_whole)
        return save_one(sv, put, ctx);
    if ((err = sv->ops->whole_identity(sv->ws, &rank, &n_observed, &digest)) != IRCG_OK)
        return err;
    /* a distributed solve runs IR-CG: no CG-BiO residual is ever saved */
    assert(!(sv->warm_done && sv->cut_ref) || n_observed == sv->pb->info.n_observed);
    s.on = rank == 0;
    put_header(&head, sv, n_observed, digest);
    slv_sink_buf(&s, &head);
    err = sv->ops->save_whole(sv->ws, &s);
    slv_buf_free(&head);
    slv_sink_free(&s);
    return err != IRCG_OK ? err : s.err;
}

static ircg_error corrupt(ircg_diag *diag)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                     "checkpoint header is corrupt");
}

/* The header up to the algorithm, into out and tmp (the loop's state). */
static ircg_error read_header(slv_rbuf *r, ircg_checkpoint_info *out,
                              ircg_solver *tmp, ircg_diag *diag)
{
    *out = (ircg_checkpoint_info){0};
    if (slv_rbuf_u64(r) != CKPT_MAGIC)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "not an ircg checkpoint");
    uint64_t version = slv_rbuf_u64(r);
    if (version < 1 || version > CKPT_VERSION)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "unsupported checkpoint version");
    out->version = (int)version;
    uint64_t kind = slv_rbuf_u64(r);
    out->dim = slv_rbuf_i64(r);
    out->n_observed = slv_rbuf_i64(r);
    if (version >= 3)
        out->data_digest = slv_rbuf_u64(r);
    tmp->t = slv_rbuf_i64(r);
    tmp->S = slv_rbuf_f64(r);
    tmp->elapsed = slv_rbuf_f64(r);
    tmp->lmo_seconds = slv_rbuf_f64(r);
    tmp->lmo_matvecs = slv_rbuf_i64(r);
    tmp->last_gap = slv_rbuf_f64(r);
    tmp->last_sigma = slv_rbuf_f64(r);
    uint64_t alg = version >= 2 ? slv_rbuf_u64(r) : (uint64_t)IRCG_ALG_IRCG;
    if (r->failed || kind > (uint64_t)IRCG_PROBLEM_LOGISTIC || alg > (uint64_t)IRCG_ALG_TWOSTAGE ||
        out->dim < 0 || out->n_observed < 0 || tmp->t < 0 || !(tmp->S >= 0) ||
        !(tmp->elapsed >= 0))
        return corrupt(diag);
    out->kind = (ircg_problem_kind)kind;
    out->algorithm = (ircg_algorithm)alg;
    out->iterations = tmp->t;
    return IRCG_OK;
}

ircg_error ircg_checkpoint_peek(const void *head, size_t len,
                                ircg_checkpoint_info *out, ircg_diag *diag)
{
    slv_rbuf r = {head, len, 0, 0};
    ircg_solver tmp = {0};
    return read_header(&r, out, &tmp, diag);
}

/* The members of version 2 on after the header; into tmp. */
static ircg_error read_v2(const ircg_solver *sv, slv_rbuf *r, ircg_solver *tmp,
                          ircg_diag *diag)
{
    const ircg_problem_info *pi = &sv->pb->info;

    tmp->lmo_unconverged = slv_rbuf_i64(r);
    tmp->proj_partial = slv_rbuf_i64(r);
    tmp->proj_full = slv_rbuf_i64(r);
    uint64_t warm_done = slv_rbuf_u64(r);
    tmp->warm_done = warm_done == 1;
    tmp->warmup_iterations = slv_rbuf_i64(r);
    tmp->warmup_seconds = slv_rbuf_f64(r);
    /* counts are never negative: a negative warm-up count kept CG-BiO's
     * warm start going for 2^42 steps (found by fuzzing:
     * tests/fuzz/regress/checkpoint/cgbio_negative_warmup.bin) */
    if (r->failed || warm_done > 1 || tmp->lmo_unconverged < 0 || tmp->proj_partial < 0 ||
        tmp->proj_full < 0 || tmp->warmup_iterations < 0 || !(tmp->warmup_seconds >= 0))
        return corrupt(diag);
    if (tmp->warm_done && sv->algorithm == IRCG_ALG_CGBIO) {
        tmp->cut_ref = malloc((size_t)pi->n_observed * sizeof(double));
        if (!tmp->cut_ref)
            return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        slv_rbuf_f64s(r, tmp->cut_ref, (size_t)pi->n_observed);
    }
    return r->failed ? corrupt(diag) : IRCG_OK;
}

/* The header against a problem and an algorithm. */
static ircg_error check_against(const ircg_problem_info *pi, ircg_algorithm alg,
                                const ircg_checkpoint_info *h, ircg_diag *diag)
{
    if (h->kind != pi->kind || h->dim != pi->dim || h->n_observed != pi->n_observed)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "checkpoint is for another problem (dim %lld, %lld "
                         "observations; expected %lld, %lld)", (long long)h->dim,
                         (long long)h->n_observed, (long long)pi->dim,
                         (long long)pi->n_observed);
    if (h->data_digest && pi->data_digest && h->data_digest != pi->data_digest)
        return slv_fail(diag, IRCG_ERR_INVALID, "/data",
                         "checkpoint is for other data of the same shape "
                         "(data digest %016llx, this problem's %016llx)",
                         (unsigned long long)h->data_digest,
                         (unsigned long long)pi->data_digest);
    if (h->algorithm != alg && h->version == 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "a version 1 checkpoint holds an IR-CG state");
    if (h->algorithm != alg)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "checkpoint was made by another algorithm (%d, this "
                         "solver runs %d)", (int)h->algorithm, (int)alg);
    return IRCG_OK;
}

/* The header against this solver's problem and algorithm. */
static ircg_error check_header(const ircg_solver *sv, const ircg_checkpoint_info *h,
                               ircg_diag *diag)
{
    return check_against(&sv->pb->info, sv->algorithm, h, diag);
}

/* A new run from the restored state (ircg_restore_mode). */
static ircg_error start_new_run(ircg_solver *sv, ircg_restore_mode mode,
                                double fresh_varsigma)
{
    if (mode == IRCG_RESTORE_AFRESH) {
        ircg_error err = sv->ops->restart(sv->ws);
        if (err != IRCG_OK)
            return err;
        sv->t = 0;
        sv->S = 0;
        sv->last_gap = NAN;
        sv->last_sigma = NAN;
        sv->warm_done = 0;
        /* the analyzer loses restore_as's *sv = tmp, which replaced the
         * pointer it freed before: this is tmp's */
        /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
        free(sv->cut_ref);
        sv->cut_ref = NULL;
        /* a new run: its own varsigma, start and first certificate; the
         * bounds of the problem (g_lower, g_upper, f_lower) stay true */
        sv->varsigma = fresh_varsigma;
        sv->bnd.t = -1;
        sv->bnd.g0 = NAN;
        sv->bnd.f0 = NAN;
    }
    sv->bnd.count = 0;
    sv->bnd.seconds = 0;
    sv->elapsed = 0;
    sv->lmo_seconds = 0;
    sv->lmo_matvecs = 0;
    sv->samples = 0;
    sv->lmo_unconverged = 0;
    sv->proj_partial = sv->proj_full = 0;
    sv->warmup_iterations = 0;
    sv->warmup_seconds = 0;
    return IRCG_OK;
}

ircg_error ircg_solver_restore_as(ircg_solver *sv, const void *blob, size_t len,
                                  ircg_restore_mode mode, ircg_diag *diag)
{
    slv_rbuf r = {blob, len, 0, 0};
    ircg_solver tmp = {0};
    ircg_checkpoint_info h;
    ircg_error err;

    if ((unsigned)mode > IRCG_RESTORE_AFRESH)
        return slv_fail(diag, IRCG_ERR_INVALID, "/mode", "unknown restore mode");
    if (mode == IRCG_RESTORE_AFRESH && !sv->ops->restart)
        return slv_fail(diag, IRCG_ERR_INVALID, "/mode",
                         "this problem cannot restart from a saved state");
    if ((err = read_header(&r, &h, &tmp, diag)) != IRCG_OK ||
        (err = check_header(sv, &h, diag)) != IRCG_OK)
        return err;
    if (h.version >= 2 && (err = read_v2(sv, &r, &tmp, diag)) != IRCG_OK)
        goto fail;
    if (h.version >= 4 && (err = read_bounds(&r, &tmp, diag)) != IRCG_OK)
        goto fail;
    if (h.version >= 5 && ((tmp.samples = slv_rbuf_i64(&r)) < 0 || r.failed)) {
        err = corrupt(diag);
        goto fail;
    }
    tmp.bnd.f0 = h.version >= 6 ? slv_rbuf_f64(&r) : NAN;
    if (r.failed || isinf(tmp.bnd.f0)) { /* a value of f, or NaN: none yet */
        err = corrupt(diag);
        goto fail;
    }
    if (h.version < 4) { /* no bounds, and the settings' varsigma */
        slv_bounds_init(&tmp.bnd);
        tmp.varsigma = sv->varsigma;
    }
    /* from here on the workspace may be partly overwritten: a failure
     * leaves the solver to be freed, as before */
    if ((err = sv->ops->restore(sv->ws, &r, diag)) != IRCG_OK)
        goto fail;
    const slv_alg *alg = slv_alg_of(sv->algorithm);
    if (alg->restore && h.version < 5) {
        err = slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                       "a version %d checkpoint holds no stochastic state", h.version);
        goto fail;
    }
    if (alg->restore && (err = alg->restore(sv, &r, mode, diag)) != IRCG_OK)
        goto fail;
    if (r.failed || r.pos != r.len) {
        err = slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "checkpoint is truncated or has trailing bytes");
        goto fail;
    }
    free(sv->cut_ref);
    sv->cut_ref = NULL; /* tmp's replaces it below */
    double fresh_varsigma = sv->varsigma;
    tmp.pb = sv->pb;
    tmp.ops = sv->ops;
    tmp.algorithm = sv->algorithm;
    tmp.set = sv->set;
    tmp.ws = sv->ws;
    tmp.alg_state = sv->alg_state;
    tmp.setup_seconds = sv->setup_seconds;
    *sv = tmp;
    sv->final = sv->bnd;
    if (mode != IRCG_RESTORE_RESUME &&
        (err = start_new_run(sv, mode, fresh_varsigma)) != IRCG_OK)
        return slv_fail(diag, err, "", "out of memory");
    slv_solver_refresh_values(sv);
    return IRCG_OK;
fail:
    free(tmp.cut_ref);
    return err;
}

ircg_error ircg_solver_restore(ircg_solver *sv, const void *blob, size_t len,
                               ircg_diag *diag)
{
    return ircg_solver_restore_as(sv, blob, len, IRCG_RESTORE_RESUME, diag);
}

/* ------------------------------------------ a whole state on the ranks -- */

/* Bytes of the header (up to the oracle's state) of a blob of version v
 * run by an algorithm that saves no CG-BiO residual: read_header's,
 * read_v2's, read_bounds', the samples' (version 5) and f(x_0)'s (6). */
#define HEADER_MAX (16 + 24 + 8 + 56 + 56 + 120 + 8 + 8)
static size_t header_len(uint64_t v)
{
    return 16 + 24 + (v >= 3 ? 8 : 0) + 56 + (v >= 2 ? 56 : 0) + (v >= 4 ? 120 : 0) +
           (v >= 5 ? 8 : 0) + (v >= 6 ? 8 : 0);
}

/* The header read by every rank and checked against the whole instance
 * (whole_identity: its |Omega| and digest); into *head, as this rank's
 * part's header (its n_observed and digest), which restore_as checks
 * again. */
static ircg_error whole_header(ircg_solver *sv, slv_csrc *src, slv_buf *head,
                               ircg_diag *diag)
{
    unsigned char b[HEADER_MAX];
    ircg_checkpoint_info h;
    ircg_solver tmp = {0};
    int64_t n_observed = 0;
    uint64_t digest = 0;
    int rank = 0;
    slv_csrc_bytes(src, b, 16);
    uint64_t v = b[8] | (uint64_t)b[9] << 8; /* small: its low bytes say it */
    if (src->failed || v < 1 || v > CKPT_VERSION)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        src->failed ? "the state cannot be read" :
                                      "not an ircg checkpoint, or of an unsupported version");
    size_t len = header_len(v);
    slv_csrc_bytes(src, b + 16, len - 16);
    slv_rbuf r = {b, len, 0, 0};
    ircg_error err = read_header(&r, &h, &tmp, diag);
    if (err == IRCG_OK && src->failed)
        err = slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint", "the state is truncated");
    if (err == IRCG_OK)
        err = sv->ops->whole_identity(sv->ws, &rank, &n_observed, &digest);
    if (err != IRCG_OK)
        return err;
    ircg_problem_info whole = sv->pb->info; /* the blob is the whole's */
    whole.n_observed = n_observed;
    whole.data_digest = digest;
    /* one process drops the rows and columns without ratings, and such a
     * state has its own digest; the ranks hold every row and column */
    if (h.kind == whole.kind && h.dim == whole.dim && h.n_observed == n_observed &&
        h.data_digest && digest && h.data_digest != digest)
        return slv_fail(diag, IRCG_ERR_INVALID, "/data",
                        "the state is of other data of the same shape, or of one process "
                        "that held only the rows and columns with ratings (the ranks hold "
                        "them all): continue it on one process");
    if ((err = check_against(&whole, sv->algorithm, &h, diag)) != IRCG_OK)
        return err;
    /* CG-BiO's state may hold a residual on Omega, which header_len does
     * not count; no distributed solve runs it */
    if (sv->algorithm == IRCG_ALG_CGBIO)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "a CG-BiO state cannot be restored on ranks");
    /* this rank's identity in place of the whole's */
    for (int i = 0; i < 8; i++) {
        b[32 + i] = (unsigned char)((uint64_t)sv->pb->info.n_observed >> (8 * i));
        if (v >= 3)
            b[40 + i] = (unsigned char)(sv->pb->info.data_digest >> (8 * i));
    }
    slv_buf_put_raw(head, b, len);
    return IRCG_OK;
}

/* One process: the blob read whole, then restore_as. */
static ircg_error restore_read(ircg_solver *sv, ircg_read_fn get, void *ctx, uint64_t len,
                               ircg_restore_mode mode, ircg_diag *diag)
{
    void *blob = len <= SIZE_MAX ? malloc(len ? (size_t)len : 1) : NULL;
    ircg_error err;
    if (!blob)
        err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    else if (get(ctx, blob, (size_t)len) != 0)
        err = slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint", "the state cannot be read");
    else
        err = ircg_solver_restore_as(sv, blob, (size_t)len, mode, diag);
    free(blob);
    return err;
}

ircg_error ircg_solver_restore_whole(ircg_solver *sv, ircg_read_fn get, void *ctx,
                                     uint64_t len, ircg_restore_mode mode,
                                     ircg_diag *diag)
{
    const ircg_comm *c = sv->pb->comm;
    slv_csrc src;
    slv_buf part = {0};
    ircg_error err;
    if (!c || !sv->ops->split_whole)
        return restore_read(sv, get, ctx, len, mode, diag);
    if ((err = slv_csrc_open(&src, c, get, ctx, len)) != IRCG_OK)
        return slv_fail(diag, err, "", "out of memory");
    err = whole_header(sv, &src, &part, diag);
    if (err == IRCG_OK)
        err = sv->ops->split_whole(sv->ws, &src, &part, diag);
    if (err == IRCG_OK && src.pos != src.len)
        err = slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                       "the state has %llu bytes after its end",
                       (unsigned long long)(src.len - src.pos));
    slv_csrc_close(&src);
    /* every rank has the same verdict so far; a rank out of memory for its
     * part would leave the others in restore_as's sums: put to a vote */
    int nomem = err == IRCG_OK && part.failed;
    if (slv_comm_sum1(c, nomem) > 0 && err == IRCG_OK)
        err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory (on some rank)");
    if (err == IRCG_OK)
        err = ircg_solver_restore_as(sv, part.data, part.len, mode, diag);
    slv_buf_free(&part);
    return err;
}
