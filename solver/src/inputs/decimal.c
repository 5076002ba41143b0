/*
 * decimal.c -- slv_parse_decimal (readers.h): decimal numbers, exactly
 * what strtod gives, without strtod for the numbers of data files.
 *
 * Clinger's fast path: when the significant digits form an integer m <=
 * 2^53 and the decimal exponent E satisfies |E| <= 22, both m and 10^|E|
 * are doubles, and one IEEE multiplication or division -- correctly
 * rounded -- gives the double nearest to m 10^E, which is what a correctly
 * rounding strtod (glibc's) returns.  Anything else (more than 19
 * significant digits, larger exponents, m > 2^53) goes to strtod on a
 * bounded copy.  Ratings ("4", "3.5") and most measured values take the
 * fast path.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inputs/readers.h"

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The significant digits of p[k, n) into *m (at most 19), the decimal
 * exponent they imply into *e10; *many when there were more.  Returns the
 * position after the digits and the point; *mant counts the digits. */
static size_t mantissa(const char *p, size_t k, size_t n, uint64_t *m, int *e10,
                       int *many, size_t *mant)
{
    int nd = 0, frac = 0;
    for (; k < n; k++) {
        if (p[k] == '.' && !frac) {
            frac = 1;
            continue;
        }
        unsigned d = (unsigned)(unsigned char)p[k] - '0';
        if (d > 9)
            break;
        ++*mant;
        if (nd == 0 && d == 0) { /* a leading zero */
            *e10 -= frac;
            continue;
        }
        if (nd == 19) {
            *many = 1;
            continue;
        }
        *m = *m * 10 + d;
        nd++;
        *e10 -= frac;
    }
    return k;
}

/* [(e|E) [+-] digits] at p[k, n): the exponent (clamped far beyond any
 * double's) into *exp; the position after it, or 0 when malformed. */
static size_t exponent(const char *p, size_t k, size_t n, int *exp)
{
    int neg = 0, digits = 0;
    if (k == n || (p[k] != 'e' && p[k] != 'E'))
        return k;
    k++;
    if (k < n && (p[k] == '+' || p[k] == '-'))
        neg = p[k++] == '-';
    for (; k < n && p[k] >= '0' && p[k] <= '9'; k++, digits++)
        if (*exp < 100000)
            *exp = *exp * 10 + (p[k] - '0');
    if (neg)
        *exp = -*exp;
    return digits ? k : 0;
}

int slv_parse_decimal(const char *p, size_t n, double *out)
{
    char buf[64];
    uint64_t m = 0;
    int e10 = 0, exp = 0, many = 0, neg = 0;
    size_t k = 0, mant = 0;
    if (n == 1 && p[0] >= '0' && p[0] <= '9') { /* MovieLens: one digit */
        *out = p[0] - '0';
        return 0;
    }
    if (n == 0 || n >= sizeof buf)
        return -1;
    if (p[0] == '+' || p[0] == '-')
        neg = p[k++] == '-';
    k = mantissa(p, k, n, &m, &e10, &many, &mant);
    if (mant == 0 || (k = exponent(p, k, n, &exp)) == 0 || k != n)
        return -1; /* not [+-]digits[.digits][(e|E)[+-]digits] */
    e10 += exp;
    if (!many && m == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    if (!many && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        double x = (double)m;
        x = e10 < 0 ? x / POW10[-e10] : x * POW10[e10];
        *out = neg ? -x : x;
        return 0;
    }
    memcpy(buf, p, n); /* strtod needs a NUL; the input has none */
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    return isfinite(*out) ? 0 : -2;
}

int ircg_parse_decimal(const char *p, size_t n, double *out)
{
    return slv_parse_decimal(p, n, out);
}
