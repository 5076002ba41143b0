/*
 * test_cert.h -- a run's certificate against an independent reference.
 *
 * The certificate (ircg_info) claims bounds on the exact problem:
 * g_lower <= g* <= g_upper, g(z) - g* <= inner_gap_z, f_lower <= f*.  A test
 * that knows g* and f* from a closed form or brute force checks each claim
 * against them; ref_rel is the reference's own relative error (its
 * computation's rounding), the only allowance.  How tight the bounds are
 * depends on the run's progress and is printed, not checked.
 */
#ifndef IRCG_TEST_CERT_H
#define IRCG_TEST_CERT_H

#include <math.h>
#include <stdio.h>

#include "harness.h"
#include "ircg.h"

static inline void check_cert_brackets(const char *who, const ircg_info *in, double g_star,
                                       double f_star, double ref_rel)
{
    double eg = ref_rel * fmax(fabs(g_star), fabs(in->g_x0));
    double ef = ref_rel * fabs(f_star);
    printf("    %s certificate at t = %lld: g* - g_lower %.3g, g_upper - g* %.3g, "
           "inner gap of z %.3g >= g(z) - g* %.3g; f* - f_lower %.3g\n",
           who, (long long)in->cert_iteration, g_star - in->g_lower, in->g_upper - g_star,
           in->inner_gap_z, in->cert_g_z - g_star, f_star - in->f_lower);
    CHECK(in->cert_iteration >= 0);
    CHECK(in->g_lower <= g_star + eg);
    CHECK(g_star - eg <= in->g_upper);
    CHECK(in->cert_g_z - g_star <= in->inner_gap_z + eg);
    CHECK(in->f_lower <= f_star + ef);
}

#endif
