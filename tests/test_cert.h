/*
 * test_cert.h -- a run's certificate against an independent reference.
 *
 * The certificate (ircg_info) claims bounds on the exact problem:
 * g_lower <= g* <= g_upper, g(x) - g* <= inner_gap_x, g(z) - g* <=
 * inner_gap_z, f_lower <= f*.  A test that knows g* and f* from a closed
 * form or brute force checks each claim against them, with g(x) and g(z)
 * summed here in long double from the solver's final iterates and the
 * problem's data (cert_iterates_g, before the solver is freed) -- never
 * the library's own g of them (cert_g_x, cert_g_z), from which it builds
 * the inner gaps, so that a gap understated by the library fails.  ref_rel
 * is the reference's own relative error (its computation's rounding), the
 * only allowance: the long double sums here (64-bit significands or
 * more) round some 10^6 times below any ref_rel used.  How tight the
 * bounds are depends on the run's progress and is printed, not checked.
 */
#ifndef IRCG_TEST_CERT_H
#define IRCG_TEST_CERT_H

#include <math.h>
#include <stdio.h>

#include "harness.h"
#include "ircg.h"

/* The data g is made of: A (m x n, row-major) and b (least squares: the
 * targets, g = 1/2 ||A x - b||^2) or the labels -1/+1 (logistic: g =
 * sum_k log(1 + exp(-y_k a_k'x)), a sum as ircg_problem_logistic defines
 * it, not a mean). */
typedef struct cert_data {
    const double *A, *b;
    int m, n;
    int logistic;
} cert_data;

static inline long double cert_loss_l(long double s)
{
    return s > 0 ? log1pl(expl(-s)) : -s + log1pl(expl(s));
}

/* g(x) in long double, independently of the library. */
static inline double cert_g(const cert_data *d, const double *x)
{
    long double g = 0;
    for (int i = 0; i < d->m; i++) {
        long double s = 0;
        for (int j = 0; j < d->n; j++)
            s += (long double)d->A[(size_t)i * d->n + j] * x[j];
        if (d->logistic) {
            g += cert_loss_l((long double)d->b[i] * s);
        } else {
            long double r = s - d->b[i];
            g += 0.5L * r * r;
        }
    }
    return (double)g;
}

/* g of the solver's final x and z (NaN when an iterate is not there, which
 * fails the checks below). */
static inline void cert_iterates_g(const ircg_solver *sv, const cert_data *d, double *g_x,
                                   double *g_z)
{
    static const ircg_which W[2] = {IRCG_X, IRCG_Z};
    double *out[2] = {g_x, g_z};
    for (int k = 0; k < 2; k++) {
        ircg_iterate *it = NULL;
        *out[k] = NAN; /* also when the solver could not be made (sv NULL) */
        if (!sv || ircg_solver_iterate(sv, W[k], 1, &it) != IRCG_OK)
            continue;
        if (it->dense && it->dim == d->n)
            *out[k] = cert_g(d, it->dense);
        ircg_iterate_free(it);
    }
}

/* The certificate against g* and f*, g_x and g_z from cert_iterates_g. */
static inline void check_cert_brackets(const char *who, const ircg_info *in, double g_x,
                                       double g_z, double g_star, double f_star,
                                       double ref_rel)
{
    double eg = ref_rel * fmax(fabs(g_star), fabs(in->g_x0));
    double ef = ref_rel * fabs(f_star);
    printf("    %s certificate at t = %lld: g* - g_lower %.3g, g_upper - g* %.3g, "
           "inner gap of x %.3g >= g(x) - g* %.3g, of z %.3g >= g(z) - g* %.3g "
           "(g here - library's: x %.2g, z %.2g); f* - f_lower %.3g\n",
           who, (long long)in->cert_iteration, g_star - in->g_lower, in->g_upper - g_star,
           in->inner_gap_x, g_x - g_star, in->inner_gap_z, g_z - g_star, g_x - in->cert_g_x,
           g_z - in->cert_g_z, f_star - in->f_lower);
    /* the result's certificate is of the final iterate, whose g is here */
    CHECK(in->cert_iteration >= 0 && in->cert_iteration == in->iterations);
    CHECK(in->g_lower <= g_star + eg);
    CHECK(g_star - eg <= in->g_upper);
    CHECK(g_x - g_star <= in->inner_gap_x + eg);
    CHECK(g_z - g_star <= in->inner_gap_z + eg);
    CHECK(in->f_lower <= f_star + ef);
}

#endif
