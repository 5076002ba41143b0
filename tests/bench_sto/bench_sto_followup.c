/* bench_sto_followup.c -- bench_sto's part 3 (bench_sto.c says what it
 * measures): the follow-up paper's experiment. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircg.h"
#include "bench_sto.h"

/* ------------------------------------------------- the follow-up paper -- */

typedef struct fu_rec {
    int n;
    int64_t t[64];
    double el[64], gx[64], fz[64], flo[64];
} fu_rec;

static int fu_keep(void *user, const ircg_iter_info *it)
{
    fu_rec *r = user;
    if (it->certified == 1 && r->n < 64) {
        r->t[r->n] = it->t;
        r->el[r->n] = it->elapsed;
        r->gx[r->n] = it->inner_gap_z;
        r->fz[r->n] = it->f_z;
        r->flo[r->n] = it->f_lower;
        r->n++;
    }
    return 0;
}

/* A log-log plot of the series (x_k, y_k), k < ns, as an SVG file: the
 * convergence plot of the follow-up's experiment (no plotting tool is
 * needed).  Points with x or y <= 0 are left out. */
static void svg_plot(const char *path, const char *title, const char *xl, const char *yl,
                     int ns, const char *const *names, const double *const *x,
                     const double *const *y, const int *n)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < n[k]; i++)
            if (x[k][i] > 0 && y[k][i] > 0) {
                x0 = fmin(x0, floor(log10(x[k][i])));
                x1 = fmax(x1, ceil(log10(x[k][i])));
                y0 = fmin(y0, floor(log10(y[k][i])));
                y1 = fmax(y1, ceil(log10(y[k][i])));
            }
    FILE *f = fopen(path, "w");
    if (!f || !isfinite(x0) || x1 <= x0 || y1 <= y0) {
        if (f)
            fclose(f);
        return;
    }
    const double W = 640, H = 420, L = 70, R = 20, T = 40, B = 50;
    static const char *const col[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
#define PX(v) (L + (log10(v) - x0) / (x1 - x0) * (W - L - R))
#define PY(v) (H - B - (log10(v) - y0) / (y1 - y0) * (H - T - B))
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
               "font-family='sans-serif' font-size='12'>\n<rect width='100%%' height='100%%' "
               "fill='white'/>\n<text x='%.0f' y='22' font-size='14'>%s</text>\n", W, H, L,
            title);
    for (double e = x0; e <= x1; e++)
        fprintf(f, "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='#ddd'/><text x='%.1f' "
                   "y='%.0f' text-anchor='middle'>1e%.0f</text>\n", PX(pow(10, e)), T,
                PX(pow(10, e)), H - B, PX(pow(10, e)), H - B + 16, e);
    for (double e = y0; e <= y1; e++)
        fprintf(f, "<line x1='%.0f' y1='%.1f' x2='%.0f' y2='%.1f' stroke='#ddd'/><text x='%.0f' "
                   "y='%.1f' text-anchor='end'>1e%.0f</text>\n", L, PY(pow(10, e)), W - R,
                PY(pow(10, e)), L - 6, PY(pow(10, e)) + 4, e);
    fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='middle'>%s</text>\n<text x='14' y='%.0f' "
               "transform='rotate(-90 14 %.0f)' text-anchor='middle'>%s</text>\n",
            (L + W - R) / 2, H - 10, xl, (T + H - B) / 2, (T + H - B) / 2, yl);
    for (int k = 0; k < ns; k++) {
        fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", col[k % 4]);
        for (int i = 0; i < n[k]; i++)
            if (x[k][i] > 0 && y[k][i] > 0)
                fprintf(f, "%.1f,%.1f ", PX(x[k][i]), PY(y[k][i]));
        fprintf(f, "'/>\n<text x='%.0f' y='%.0f' fill='%s'>%s</text>\n", W - R - 160,
                T + 16 + 16 * k, col[k % 4], names[k]);
    }
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
    fclose(f);
}

/* The instance of `ircg example overparam-stochastic`: 534 training and
 * 534 validation rows of 730 features, the l1 ball of radius
 * 1.5 ||A^+ b||_1 = 780 (rounded up, as the example computes it). */
void bench_followup(const opts *o)
{
    double *A = NULL, *b = NULL;
    ircg_diag d = {0};
    int m = 534, n = 730;
    if (ircg_synth_least_squares(2 * m, n, 0.1, 1, &A, &b, &d) != IRCG_OK)
        return;
    ircg_ls_data tr = {.m = m, .n = n, .A_dense = A, .b = b};
    ircg_ls_data va = {.m = m, .n = n, .A_dense = A + (size_t)m * n, .b = b + m};
    ircg_outer ov = {.kind = IRCG_OUTER_VALIDATION, .val = &va};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, o->fu_radius, 0, 0};
    ircg_problem *pb = NULL;
    if (ircg_problem_least_squares(&tr, &ov, &dom, &pb, &d) != IRCG_OK) {
        fprintf(stderr, "bench_sto: follow-up: %s\n", d.message);
        goto done;
    }
    printf("\n## The follow-up's over-parameterized regression, on an instance of its shape\n\n"
           "534 training and 534 validation rows of 730 features (1068 x 730 in the paper), "
           "the l1 ball of radius %g, the validation loss outside; %.0f s a method "
           "(certificates at powers of 2, in the time)\n\n"
           "| method | iterations | it/s | in 240 s | the paper's in 240 s | inner gap z | "
           "f(z) - f_lower |\n|---|---|---|---|---|---|---|\n",
           o->fu_radius, o->fu_budget);
    static const struct { const char *label; ircg_algorithm alg; double p, paper; } M[] = {
        {"IR-SCG (b = 1)", IRCG_ALG_IRSCG, 0.25, 1182617},
        {"IR-FSCG (b = q = 23)", IRCG_ALG_IRFSCG, 0.5, 369952}};
    fu_rec rec[2];
    for (int k = 0; k < 2; k++) {
        ircg_settings s;
        ircg_solver *sv = NULL;
        ircg_info in;
        ircg_settings_default(&s);
        s.algorithm = M[k].alg;
        s.p = M[k].p;
        s.max_iter = INT64_C(1) << 50;
        s.time_limit = o->fu_budget;
        rec[k].n = 0;
        s.callback = fu_keep;
        s.callback_data = &rec[k];
        if (ircg_solver_new(pb, &s, &sv, &d) != IRCG_OK || ircg_solve(sv, &in) != IRCG_OK) {
            fprintf(stderr, "bench_sto: follow-up: %s\n", d.message);
            ircg_solver_free(sv);
            continue;
        }
        double rate = (double)in.iterations / in.solve_seconds;
        printf("| %s | %lld | %.0f | %.0f | %.0f | %.3g | %.3g |\n", M[k].label,
               (long long)in.iterations, rate, 240 * rate, M[k].paper, in.inner_gap_z,
               in.outer_gap_z);
        ircg_solver_free(sv);
    }
    printf("\nconvergence (certified, at t = 2^k): t, seconds, inner gap of z, f(z), f_lower\n\n"
           "| t | IR-SCG s | IR-SCG gap | IR-SCG f(z) | IR-FSCG s | IR-FSCG gap | IR-FSCG f(z) |"
           "\n|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < rec[0].n || i < rec[1].n; i++) {
        printf("| %lld |", (long long)(i < rec[0].n ? rec[0].t[i] : rec[1].t[i]));
        for (int k = 0; k < 2; k++) {
            if (i < rec[k].n)
                printf(" %.3g | %.3g | %.6g |", rec[k].el[i], rec[k].gx[i], rec[k].fz[i]);
            else
                printf(" | | |");
        }
        printf("\n");
    }
    char path[600];
    static const char *const names[] = {"IR-SCG (b = 1, p = 1/4)", "IR-FSCG (b = q = 23, p = 1/2)"};
    const double *xs[2] = {rec[0].el, rec[1].el}, *gs[2] = {rec[0].gx, rec[1].gx};
    double og[2][64];
    const double *os[2] = {og[0], og[1]};
    int ns[2] = {rec[0].n, rec[1].n};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < rec[k].n; i++)
            og[k][i] = rec[k].fz[i] - rec[k].flo[i];
    snprintf(path, sizeof path, "%s/followup_inner.svg", o->tmp);
    svg_plot(path, "over-parameterized regression: certified bound of g(z) - g*", "seconds",
             "inner gap of z", 2, names, xs, gs, ns);
    snprintf(path, sizeof path, "%s/followup_outer.svg", o->tmp);
    svg_plot(path, "over-parameterized regression: f(z) - f_lower", "seconds",
             "outer gap bound of z", 2, names, xs, os, ns);
    printf("\nthe plots: %s/followup_inner.svg, %s/followup_outer.svg\n", o->tmp, o->tmp);
done:
    ircg_problem_free(pb);
    free(A);
    free(b);
}
