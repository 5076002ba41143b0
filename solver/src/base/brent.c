/* brent.c -- see brent.h.  Written from the description in Brent,
 * "Algorithms for Minimization without Derivatives" (1973), Section 5.8. */
#include <math.h>

#include "base/brent.h"

ircg_error slv_brent_min(slv_scalar_fn f, void *ctx, double a, double b,
                          double xrtol, double xatol, int max_eval,
                          slv_brent_out *out)
{
    const double golden = 0.5 * (3.0 - sqrt(5.0));
    double x, w, v, fx, fw, fv, d = 0, e = 0;
    ircg_error err;

    out->evaluations = 0;
    out->converged = 0;
    if (!(a < b) || max_eval < 1)
        return IRCG_ERR_INVALID;
    x = w = v = a + golden * (b - a);
    if ((err = f(ctx, x, &fx)) != IRCG_OK)
        return err;
    out->evaluations = 1;
    fw = fv = fx;
    for (;;) {
        double xm = 0.5 * (a + b);
        double tol1 = xrtol * fabs(x) + xatol / 3.0, tol2 = 2.0 * tol1;
        int use_golden = 1;

        if (fabs(x - xm) <= tol2 - 0.5 * (b - a)) {
            out->converged = 1;
            break;
        }
        if (out->evaluations >= max_eval)
            break;
        if (fabs(e) > tol1) { /* a parabola through x, w, v */
            double r = (x - w) * (fx - fv), q = (x - v) * (fx - fw);
            double p = (x - v) * q - (x - w) * r;
            q = 2.0 * (q - r);
            if (q > 0)
                p = -p;
            q = fabs(q);
            r = e;
            e = d;
            /* accept only a step inside (a, b) and shorter than half the
             * step before last, which guarantees progress */
            if (fabs(p) < fabs(0.5 * q * r) && p > q * (a - x) && p < q * (b - x)) {
                d = p / q;
                use_golden = 0;
                double u = x + d;
                if (u - a < tol2 || b - u < tol2)
                    d = xm >= x ? tol1 : -tol1;
            }
        }
        if (use_golden) {
            e = x >= xm ? a - x : b - x;
            d = golden * e;
        }
        double u = fabs(d) >= tol1 ? x + d : x + (d >= 0 ? tol1 : -tol1), fu;
        if ((err = f(ctx, u, &fu)) != IRCG_OK)
            return err;
        out->evaluations++;
        if (fu <= fx) {
            if (u >= x)
                a = x;
            else
                b = x;
            v = w;
            fv = fw;
            w = x;
            fw = fx;
            x = u;
            fx = fu;
        } else {
            if (u < x)
                a = u;
            else
                b = u;
            if (fu <= fw || w == x) {
                v = w;
                fv = fw;
                w = u;
                fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u;
                fv = fu;
            }
        }
    }
    out->x = x;
    out->fx = fx;
    return IRCG_OK;
}
