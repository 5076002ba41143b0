/*
 * fuzz_decimal.c -- the readers' exact decimal parser (ircg_parse_decimal,
 * Clinger's fast path before strtod) against glibc's strtod, the
 * independent reference: any input of the form
 * [+-]digits[.digits][(e|E)[+-]digits] shorter than 64 bytes parses to
 * strtod's double bit for bit (or -2 exactly when strtod overflows);
 * anything else is refused with -1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ircg.h"

/* The grammar, checked independently of the parser's own scanner. */
static int well_formed(const char *p, size_t n)
{
    size_t k = 0, digits = 0;
    if (k < n && (p[k] == '+' || p[k] == '-'))
        k++;
    for (; k < n && p[k] >= '0' && p[k] <= '9'; k++)
        digits++;
    if (k < n && p[k] == '.')
        for (k++; k < n && p[k] >= '0' && p[k] <= '9'; k++)
            digits++;
    if (digits == 0)
        return 0;
    if (k < n && (p[k] == 'e' || p[k] == 'E')) {
        size_t e = 0;
        k++;
        if (k < n && (p[k] == '+' || p[k] == '-'))
            k++;
        for (; k < n && p[k] >= '0' && p[k] <= '9'; k++)
            e++;
        if (e == 0)
            return 0;
    }
    return k == n;
}

FUZZ_TARGET(decimal)
{
    const char *p = (const char *)data;
    char buf[80];
    double got = 0;
    int rc = ircg_parse_decimal(p, size, &got);
    if (size >= 64 || !well_formed(p, size)) {
        FUZZ_CHECK(rc == -1);
        return 0;
    }
    memcpy(buf, p, size);
    buf[size] = '\0';
    double want = strtod(buf, NULL);
    if (!isfinite(want)) {
        FUZZ_CHECK(rc == -2);
    } else {
        FUZZ_CHECK(rc == 0);
        FUZZ_CHECK(rc != 0 || memcmp(&got, &want, sizeof got) == 0);
    }
    return 0;
}
