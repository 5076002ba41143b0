/*
 * warnings.c -- what a result's warnings say (ircg_warning), in words a
 * user can act on, with the numbers that triggered them.  The result JSON,
 * the CLI and the service all write these same sentences.
 */
#include <math.h>
#include <stdio.h>

#include "result.h"

/* The scale of the relative inner tolerances, g(x0) - g_upper, in words:
 * before any certified g below g(x0) it is 0 (the solver's tolerance is
 * then 0), and the rounding of g(x0) and g_upper can make the difference
 * negative, a number that would read as nonsense. */
static void scale_text(char *buf, size_t n, const ircg_info *in)
{
    double scale = in->g_x0 - in->g_upper;
    if (scale > 0)
        snprintf(buf, n, "g(x0) - g_upper = %.3g", scale);
    else
        snprintf(buf, n, "g(x0) - g_upper, which is 0 (no certified g is below g(x0) yet)");
}

int api_warning_message(char *buf, size_t n, const ircg_info *in, const ircg_stop *stop,
                        ircg_warning w)
{
    char scale[80];
    int z = in->answer == IRCG_Z; /* the bisection methods' answer */
    const char *y = z ? "z" : "x";
    double inner = z ? in->inner_gap_z : in->inner_gap_x;
    double outer = z ? in->outer_gap_z : in->outer_gap_x;
    scale_text(scale, sizeof scale, in);
    switch (w) {
    case IRCG_WARN_INNER_UNSOLVED:
        if (stop && (stop->inner_gap > 0 || stop->inner_gap_rel > 0))
            return snprintf(buf, n, "the inner problem is not solved to the tolerance asked: "
                            "g(%s) - min g <= %.3g (certified at iteration %lld), above "
                            "stop.inner_gap %.3g / stop.inner_gap_rel %.3g of %s; run longer",
                            y, inner, (long long)in->cert_iteration, stop->inner_gap,
                            stop->inner_gap_rel, scale);
        return snprintf(buf, n, "the inner problem is not solved: g(%s) - min g <= %.3g "
                        "(certified at iteration %lld) is above 1e-3 of %s; run longer, or "
                        "set stop.inner_gap_rel", y, inner, (long long)in->cert_iteration,
                        scale);
    case IRCG_WARN_OUTER_UNSOLVED:
        return snprintf(buf, n, "the outer tolerance was not reached: f(%s) - f_lower = %.3g "
                        "(f_lower = %.6g, certified at iteration %lld); run longer", y, outer,
                        in->f_lower, (long long)in->cert_iteration);
    case IRCG_WARN_UNCERTIFIED:
        return snprintf(buf, n, "no certificate: nothing bounds how far from optimal this "
                        "result is (certify is false, or this method has no certificate "
                        "on this problem)");
    case IRCG_WARN_LOOSE:
        return snprintf(buf, n, "a bound on the nuclear ball used the Frobenius norm (the "
                        "ratings' spectrum allowed no sharper bound of sigma_1): the "
                        "certificate holds but may be far from tight");
    case IRCG_WARN_BELOW_OPTIMUM:
        return snprintf(buf, n, "f(%s) = %.6g lies %.3g below f_lower = %.6g, a certified "
                        "lower bound of f*: g(%s), %.3g above g_upper, buys f below the "
                        "bilevel optimum (the stop certifies f(%s) <= f* + tolerance, not "
                        "the other side); a smaller stop.inner_gap_rel brings it nearer the "
                        "bilevel solution", y, z ? in->cert_f_z : in->cert_f_x,
                        -outer, in->f_lower, y,
                        (z ? in->cert_g_z : in->cert_g_x) - in->g_upper, y);
    }
    return snprintf(buf, n, "unknown warning %u", (unsigned)w);
}
