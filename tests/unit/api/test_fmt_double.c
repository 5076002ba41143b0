/*
 * test_fmt_double.c -- api_fmt_double, the shortest of %.15g, %.16g and
 * %.17g that reads back as the number (traces, results): the same string
 * as that definition computed here with printf and strtod, for 1,000,000
 * random doubles of every magnitude (random bits, and values of the sizes
 * traces hold) and for the edges (powers of ten, integers, halves,
 * subnormals, the largest double).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "result.h"

static const char *by_definition(char *buf, double v)
{
    if (!isfinite(v))
        return strcpy(buf, "null");
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int check(double v, long *bad)
{
    char a[32], b[32];
    api_fmt_double(a, v);
    by_definition(b, v);
    if (strcmp(a, b) != 0 && (*bad)++ < 5)
        printf("    %a: %s, want %s\n", v, a, b);
    return 0;
}

TEST(fmt_double, the_shortest_of_15_16_17_digits)
{
    static const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 2.5, 1e15, 1e16, 1e17,
                                   1e-4, 1e-5, 9.999999999999999e22, 123456789012345678.0,
                                   4.9e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                                   0.05, 1.0 / 3, 2.0 / 3, 100, 1e21, 1e22, 1e23, NAN,
                                   INFINITY, 0.30000000000000004, 9007199254740993.0};
    uint64_t s = 7;
    long bad = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check(edges[i], &bad);
    for (long i = 0; i < 1000000; i++) {
        uint64_t u = rnd(&s);
        double v;
        if (i % 2) {
            memcpy(&v, &u, sizeof v);
        } else { /* trace-like: 1e-12 .. 1e6, a few digits or all of them */
            v = ldexp((double)(u >> 11), -53) * pow(10, (double)(int)(rnd(&s) % 19) - 12);
            if (i % 6 == 0)
                v = round(v * 1e4) / 1e4;
        }
        check(v, &bad);
    }
    CHECK_INT(bad, 0);
}
