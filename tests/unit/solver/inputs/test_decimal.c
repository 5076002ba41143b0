/*
 * test_decimal.c -- slv_parse_decimal returns exactly strtod's double
 * (bit for bit, signs of zero included) for decimal text: 2,000,000
 * random numbers of every shape (1 to 25 digits, a point anywhere or none,
 * exponents from -340 to 340, signs, leading and trailing zeros), and the
 * edges of the fast path (2^53, 10^22, subnormals, overflow).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "inputs/readers.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A random decimal in buf; returns its length. */
static size_t random_decimal(uint64_t *s, char *buf)
{
    size_t n = 0;
    int digits = 1 + (int)(rnd(s) % 25), point = (int)(rnd(s) % (digits + 2)) - 1;
    if (rnd(s) % 3 == 0)
        buf[n++] = rnd(s) % 2 ? '-' : '+';
    for (int i = 0; i < digits; i++) {
        if (i == point)
            buf[n++] = '.';
        uint64_t r = rnd(s) % 10;
        buf[n++] = (char)('0' + (i == 0 && rnd(s) % 4 ? (r ? r : 1) : r));
    }
    if (point == digits)
        buf[n++] = '.';
    if (rnd(s) % 2) {
        int e = (int)(rnd(s) % 681) - 340;
        if (rnd(s) % 3)
            e = (int)(rnd(s) % 45) - 22; /* around the fast path's range */
        n += (size_t)sprintf(buf + n, "%s%d", rnd(s) % 2 ? "e" : "E", e);
    }
    buf[n] = '\0';
    return n;
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

TEST(decimal, equals_strtod_on_two_million_numbers)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    char buf[64];
    long fast = 0, bad = 0;
    for (long i = 0; i < 2000000; i++) {
        size_t n = random_decimal(&s, buf);
        double want = strtod(buf, NULL), got = 0;
        int rc = slv_parse_decimal(buf, n, &got);
        if (!isfinite(want)) {
            bad += rc != -2;
            continue;
        }
        if (rc != 0 || !same(got, want)) {
            if (bad++ < 5)
                printf("    %s: strtod %.17g, got %.17g (rc %d)\n", buf, want, got, rc);
        }
        fast += n < 20;
    }
    CHECK_INT(bad, 0);
    CHECK(fast > 100000);
}

TEST(decimal, edges_of_the_fast_path)
{
    static const char *const cases[] = {
        "9007199254740992", "9007199254740993", "9007199254740991e22",
        "1e22", "1e23", "1e-22", "1e-23", "123456789012345678", "1234567890123456789",
        "12345678901234567890", "0.1", "-0.0", "-0", "0e400", "-0.000e-3", "4.9e-324",
        "2.4703282292062327e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
        "0000000000000000000000000001.5", "3.14159265358979323846264338327950288",
        "5.", ".5", "-.5e1", "+7",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = 0, want = strtod(cases[i], NULL);
        CHECK_INT(slv_parse_decimal(cases[i], strlen(cases[i]), &got), 0);
        if (!same(got, want))
            CHECK_STR(cases[i], "parsed differently from strtod");
    }
    static const char *const not_decimal[] = {"", ".", "-", "1e", "1e+", "0x10", "inf",
                                              "nan", " 1", "1 ", "1.2.3", "1e5.5", "e5"};
    for (size_t i = 0; i < sizeof not_decimal / sizeof not_decimal[0]; i++) {
        double v = 0;
        CHECK_INT(slv_parse_decimal(not_decimal[i], strlen(not_decimal[i]), &v), -1);
    }
    double v = 0;
    CHECK_INT(slv_parse_decimal("1e309", 5, &v), -2);
    CHECK_INT(slv_parse_decimal("-1e99999999999", 14, &v), -2);
}
