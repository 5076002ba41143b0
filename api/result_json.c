/*
 * result_json.c -- the result of a solve as JSON.  Written with a small
 * string builder rather than a cJSON tree: a matrix completion iterate can
 * hold millions of numbers, and the tree would cost ~64 bytes each.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "result.h"
#include "spec.h"

/* "name": value, with the leading comma handled by the caller's first. */
static void sb_num(api_buf *b, const char *name, double v)
{
    char num[32];
    api_buf_printf(b, ",\"%s\":%s", name, api_fmt_double(num, v));
}

/* A JSON string with the escapes JSON requires. */
static void sb_str(api_buf *b, const char *s)
{
    api_buf_add(b, "\"", 1);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            api_buf_printf(b, "\\%c", ch);
        else if (ch < 0x20)
            api_buf_printf(b, "\\u%04x", ch);
        else
            api_buf_add(b, s, 1);
    }
    api_buf_add(b, "\"", 1);
}

/* [v0, v1, ...] with a stride (column-major access of row arrays). */
static void sb_array(api_buf *b, const double *v, int64_t n, int64_t stride)
{
    char num[32];
    api_buf_add(b, "[", 1);
    for (int64_t i = 0; i < n && !b->nomem; i++) {
        if (i)
            api_buf_add(b, ",", 1);
        api_fmt_double(num, v[i * stride]);
        api_buf_add(b, num, strlen(num));
    }
    api_buf_add(b, "]", 1);
}

/* k column vectors of length n stored column-major. */
static void sb_columns(api_buf *b, const double *m, int64_t n, int k)
{
    api_buf_add(b, "[", 1);
    for (int j = 0; j < k; j++) {
        if (j)
            api_buf_add(b, ",", 1);
        sb_array(b, m + (size_t)j * (size_t)n, n, 1);
    }
    api_buf_add(b, "]", 1);
}

/* ,"name":[ids] (the rows or columns a compacted iterate holds). */
static void sb_ids(api_buf *b, const char *name, const int32_t *ids, int n)
{
    api_buf_printf(b, ",\"%s\":[", name);
    for (int i = 0; i < n && !b->nomem; i++)
        api_buf_printf(b, i ? ",%d" : "%d", ids[i]);
    api_buf_add(b, "]", 1);
}

/* The diagonal of X0: one value when constant (the paper's X0). */
static void sb_x0_diag(api_buf *b, const double *d, int64_t n)
{
    int constant = 1;
    for (int64_t i = 1; i < n && constant; i++)
        constant = d[i] == d[0];
    api_buf_printf(b, ",\"x0_diag\":{\"length\":%lld", (long long)n);
    if (constant && n > 0)
        sb_num(b, "value", d[0]);
    else {
        api_buf_add(b, ",\"values\":", 10);
        sb_array(b, d, n, 1);
    }
    api_buf_add(b, "}", 1);
}

static void sb_iterate(api_buf *b, const char *name, const ircg_iterate *it)
{
    if (!it)
        return;
    api_buf_printf(b, ",\"%s\":{", name);
    if (it->kind != IRCG_PROBLEM_MATRIX_COMPLETION) { /* a vector */
        api_buf_printf(b, "\"kind\":\"vector\",\"n\":%lld,\"values\":", (long long)it->dim);
        sb_array(b, it->dense, it->dense ? it->dim : 0, 1);
        api_buf_add(b, "}", 1);
        return;
    }
    int nr = it->n_rows, nc = it->n_cols;
    api_buf_printf(b, "\"kind\":\"factored\",\"n_rows\":%d,\"n_cols\":%d", nr, nc);
    sb_num(b, "a0", it->a0);
    if (it->x0_diag)
        sb_x0_diag(b, it->x0_diag, nr < nc ? nr : nc);
    api_buf_printf(b, ",\"rank\":%d,\"w\":", it->rank);
    sb_array(b, it->w, it->w ? it->rank : 0, 1);
    /* a compacted problem's factors hold the rows and columns listed */
    int pr = it->row_ids ? it->rows_held : nr, qr = it->col_ids ? it->cols_held : nc;
    if (it->row_ids)
        sb_ids(b, "rows", it->row_ids, pr);
    if (it->col_ids)
        sb_ids(b, "cols", it->col_ids, qr);
    api_buf_add(b, ",\"P\":", 5);
    sb_columns(b, it->P, pr, it->P ? it->rank : 0);
    if (it->P_other) {
        api_buf_add(b, ",\"P_other\":", 11);
        sb_array(b, it->P_other, it->rank, 1);
    }
    api_buf_add(b, ",\"Q\":", 5);
    sb_columns(b, it->Q, qr, it->Q ? it->rank : 0);
    if (it->dense) { /* column-major n x p -> rows */
        api_buf_add(b, ",\"dense\":[", 10);
        for (int i = 0; i < nr; i++) {
            if (i)
                api_buf_add(b, ",", 1);
            sb_array(b, it->dense + i, nc, nr);
        }
        api_buf_add(b, "]", 1);
    }
    api_buf_add(b, "}", 1);
}

static void sb_reference(api_buf *b, const ircg_reference_info *r)
{
    if (!r)
        return;
    api_buf_add(b, ",\"reference\":{\"status\":", 23);
    sb_str(b, ircg_status_string(r->status));
    sb_num(b, "g_opt", r->g_opt);
    sb_num(b, "gap", r->gap);
    sb_num(b, "gap_floor", r->gap_floor);
    api_buf_printf(b, ",\"lmo_converged\":%s", r->lmo_converged ? "true" : "false");
    sb_num(b, "lower_bound", r->lower_bound);
    api_buf_printf(b, ",\"iterations\":%lld", (long long)r->iterations);
    sb_num(b, "seconds", r->seconds);
    sb_num(b, "top_sv", r->top_sv);
    sb_num(b, "second_sv", r->second_sv);
    api_buf_add(b, "}", 1);
}

/* The certified bounds (ircg_info): how far from optimal the result is. */
static void sb_certificate(api_buf *b, const ircg_info *in)
{
    if (in->cert_iteration < 0) {
        api_buf_add(b, ",\"certificate\":null", 19);
        return;
    }
    api_buf_printf(b, ",\"certificate\":{\"iteration\":%lld,\"answer\":\"%s\"",
                   (long long)in->cert_iteration, in->answer == IRCG_Z ? "z" : "x");
    sb_num(b, "inner_gap_x", in->inner_gap_x);
    sb_num(b, "inner_gap_z", in->inner_gap_z);
    sb_num(b, "outer_gap_x", in->outer_gap_x);
    sb_num(b, "outer_gap_z", in->outer_gap_z);
    sb_num(b, "g_lower", in->g_lower);
    sb_num(b, "g_upper", in->g_upper);
    sb_num(b, "f_lower", in->f_lower);
    sb_num(b, "g_x", in->cert_g_x);
    sb_num(b, "g_z", in->cert_g_z);
    sb_num(b, "f_x", in->cert_f_x);
    sb_num(b, "f_z", in->cert_f_z);
    sb_num(b, "g_x0", in->g_x0);
    api_buf_printf(b, ",\"sharp\":%s,\"count\":%lld", in->cert_sharp ? "true" : "false",
                   (long long)in->certificates);
    sb_num(b, "seconds", in->cert_seconds);
    sb_num(b, "thread_seconds", in->cert_thread_seconds);
    api_buf_add(b, "}", 1);
}

/* [{"code", "message"}], in the order of their bits. */
static void sb_warnings(api_buf *b, const api_result *r)
{
    char msg[400];
    int first = 1;
    api_buf_add(b, ",\"warnings\":[", 13);
    for (unsigned bit = 1; bit <= IRCG_WARN_LAST; bit <<= 1) {
        if (!(r->info->warnings & bit))
            continue;
        api_warning_message(msg, sizeof msg, r->info, r->settings ? &r->settings->stop : NULL,
                            (ircg_warning)bit);
        api_buf_add(b, first ? "{\"code\":" : ",{\"code\":", first ? 8 : 9);
        sb_str(b, ircg_warning_name((ircg_warning)bit));
        api_buf_add(b, ",\"message\":", 11);
        sb_str(b, msg);
        api_buf_add(b, "}", 1);
        first = 0;
    }
    api_buf_add(b, "]", 1);
}

/* Why the solve failed, when the caller has no message: never empty. */
static void default_message(char *buf, size_t n, ircg_error e, int64_t iterations)
{
    const char *why =
        e == IRCG_ERR_NUMERICAL ? "a numerical kernel broke down (a value became NaN or "
                                  "infinite, or a LAPACK or ARPACK call failed)"
        : e == IRCG_ERR_NOMEM   ? "out of memory"
        : e == IRCG_ERR_INVALID ? "invalid settings or data"
        : e == IRCG_ERR_IO      ? "a file could not be read"
                                : ircg_error_string(e);
    snprintf(buf, n, "%s after %lld iterations", why, (long long)iterations);
}

static void sb_error(api_buf *b, const api_result *r)
{
    char msg[200];
    if (r->error == IRCG_OK) {
        api_buf_add(b, ",\"error\":null", 13);
        return;
    }
    if (!r->error_message || !r->error_message[0])
        default_message(msg, sizeof msg, r->error, r->info->iterations);
    api_buf_add(b, ",\"error\":{\"code\":", 17);
    sb_str(b, ircg_error_string(r->error));
    api_buf_add(b, ",\"message\":", 11);
    sb_str(b, r->error_message && r->error_message[0] ? r->error_message : msg);
    api_buf_add(b, "}", 1);
}

/* What only some algorithms report. */
static void sb_algorithm_extras(api_buf *b, const api_result *r)
{
    const ircg_info *in = r->info;
    ircg_algorithm a = r->settings ? r->settings->algorithm : IRCG_ALG_IRCG;
    if (!r->settings)
        return;
    if (a == IRCG_ALG_IRPG || a == IRCG_ALG_BISG) {
        api_buf_add(b, ",\"projections\":{\"mode\":", 23);
        sb_str(b, api_projection_name(r->settings->projection));
        api_buf_printf(b, ",\"partial\":%lld,\"full\":%lld}", (long long)in->proj_partial,
                  (long long)in->proj_full);
    }
    if (a == IRCG_ALG_CGBIO) {
        api_buf_printf(b, ",\"warmup_iterations\":%lld", (long long)in->warmup_iterations);
        sb_num(b, "warmup_seconds", in->warmup_seconds);
    }
    if (a == IRCG_ALG_IRSCG || a == IRCG_ALG_IRFSCG) {
        api_buf_printf(b, ",\"stochastic\":{\"batch\":%lld", (long long)in->batch);
        if (a == IRCG_ALG_IRFSCG)
            api_buf_printf(b, ",\"q\":%lld", (long long)in->q);
        api_buf_printf(b, ",\"seed\":%llu}", (unsigned long long)r->settings->seed);
    }
}

static void sb_execution(api_buf *b, const api_execution *e)
{
    if (!e)
        return;
    api_buf_printf(b, ",\"execution\":{\"ranks\":%d,\"hosts\":[", e->ranks);
    for (int i = 0; i < e->ranks; i++) {
        if (i)
            api_buf_add(b, ",", 1);
        sb_str(b, e->hosts[i] ? e->hosts[i] : "");
    }
    api_buf_add(b, "]", 1);
    if (e->slurm_job) {
        api_buf_add(b, ",\"slurm_job\":", 13);
        sb_str(b, e->slurm_job);
    }
    api_buf_add(b, "}", 1);
}

char *api_result_json(const api_result *r)
{
    api_buf b = {0};
    const ircg_info *in = r->info;
    api_buf_add(&b, "{\"status\":", 10);
    sb_str(&b, ircg_status_string(in->status));
    sb_error(&b, r);
    if (r->settings) {
        api_buf_add(&b, ",\"algorithm\":", 13);
        sb_str(&b, api_algorithm_name(r->settings->algorithm));
    } else {
        api_buf_add(&b, ",\"algorithm\":null", 17);
    }
    api_buf_printf(&b, ",\"iterations\":%lld", (long long)in->iterations);
    sb_num(&b, "setup_seconds", in->setup_seconds);
    sb_num(&b, "solve_seconds", in->solve_seconds);
    sb_num(&b, "lmo_seconds", in->lmo_seconds);
    api_buf_printf(&b, ",\"lmo_matvecs\":%lld", (long long)in->lmo_matvecs);
    api_buf_printf(&b, ",\"samples\":%lld", (long long)in->samples);
    api_buf_printf(&b, ",\"lmo_unconverged\":%lld", (long long)in->lmo_unconverged);
    api_buf_printf(&b, ",\"omega_passes\":%lld", (long long)in->omega_passes);
    sb_num(&b, "omega_bytes", in->omega_bytes);
    api_buf_printf(&b, ",\"threads\":%d", in->threads);
    sb_num(&b, "g_x", in->g_x);
    sb_num(&b, "f_x", in->f_x);
    sb_num(&b, "g_z", in->g_z);
    sb_num(&b, "f_z", in->f_z);
    sb_num(&b, "gap", in->gap);
    sb_num(&b, "sigma", in->sigma);
    api_buf_printf(&b, ",\"rank\":%d", in->rank);
    sb_num(&b, "g_opt", r->g_opt);
    sb_num(&b, "g_gap_x", in->g_gap_x);
    sb_num(&b, "g_gap_z", in->g_gap_z);
    sb_num(&b, "varsigma", in->varsigma);
    sb_certificate(&b, in);
    sb_warnings(&b, r);
    sb_algorithm_extras(&b, r);
    if (r->auto_why && r->settings) {
        api_buf_add(&b, ",\"choice\":{\"name\":", 18);
        sb_str(&b, api_algorithm_name(r->settings->algorithm));
        api_buf_add(&b, ",\"why\":", 7);
        sb_str(&b, r->auto_why);
        api_buf_add(&b, "}", 1);
    }
    sb_execution(&b, r->execution);
    sb_reference(&b, r->reference);
    sb_iterate(&b, "x", r->x);
    sb_iterate(&b, "z", r->z);
    api_buf_add(&b, "}\n", 2);
    return api_buf_take(&b);
}
