/*
 * lr_loss.c -- the logistic loss l(s) = log(1 + e^-s) of a signed margin,
 * evaluated so that neither large |s| nor nearby arguments lose accuracy:
 *   l(s)  = log1p(e^-s)                 for s >= 0,
 *         = -s + log1p(e^s)             for s < 0;
 *   l'(s) = -e^-s / (1 + e^-s)          for s >= 0,
 *         = -1 / (1 + e^s)              for s < 0;
 *   l(a) - l(b) = log1p(sigma(-b) expm1(b - a)) when |a - b| <= 1, with
 *   sigma(-b) = 1/(1 + e^b): (1 + e^-a) / (1 + e^-b) = 1 + sigma(-b)
 *   (e^(b-a) - 1), exact algebra, no difference of two rounded losses;
 *   for |a - b| > 1 the losses differ enough for the plain difference.
 */
#include <math.h>

#include "base/util.h"
#include "problems/logreg/lr.h"

double lr_loss(double s)
{
    return s >= 0 ? log1p(exp(-s)) : -s + log1p(exp(s));
}

double lr_dloss(double s)
{
    if (s >= 0) {
        double e = exp(-s);
        return -e / (1 + e);
    }
    return -1 / (1 + exp(s));
}

double lr_loss_diff(double a, double b)
{
    if (!(fabs(a - b) <= 1))
        return lr_loss(a) - lr_loss(b);
    double sb = b >= 0 ? exp(-b) / (1 + exp(-b)) : 1 / (1 + exp(b)); /* sigma(-b) */
    return log1p(sb * expm1(b - a));
}

double lr_sum(const double *y, const double *z, const double *zr, int64_t m)
{
    slv_ksum k = {0, 0};
    for (int64_t i = 0; i < m; i++)
        slv_ksum_add(&k, zr ? lr_loss_diff(y[i] * z[i], y[i] * zr[i]) : lr_loss(y[i] * z[i]));
    return slv_ksum_value(&k);
}

double lr_weights(const double *y, const double *z, const double *zv, int64_t m,
                  double *w)
{
    slv_ksum k = {0, 0};
    for (int64_t i = 0; i < m; i++) {
        w[i] = y[i] * lr_dloss(y[i] * z[i]);
        slv_ksum_add(&k, fabs(w[i]) * (fabs(z[i]) + (zv ? fabs(zv[i]) : 0.0)));
    }
    return slv_ksum_value(&k);
}

double lr_sum_slope(const double *y, const double *z0, const double *z1, int64_t m,
                    double a)
{
    slv_ksum k = {0, 0};
    for (int64_t i = 0; i < m; i++) {
        double dz = z1[i] - z0[i];
        slv_ksum_add(&k, y[i] * lr_dloss(y[i] * (z0[i] + a * dz)) * dz);
    }
    return slv_ksum_value(&k);
}
