/*
 * trace_format.c -- one solver iteration (ircg_iter_info) as a CSV row or
 * a JSON line, and the shortest round-trip printing of doubles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "result.h"

/* The storage's traces table has the same columns in the same order. */
const char API_TRACE_CSV_HEADER[] =
    "t,elapsed,sigma,alpha,g_x,f_x,g_z,f_z,gap,g_gap_x,g_gap_z,lmo_seconds,"
    "lmo_matvecs,top_sv,rank,lmo_converged,backtracks,proj_full,lambda,"
    "certified,inner_gap_x,inner_gap_z,g_lower,f_lower\n";

/* The definition: the first of %.15g, %.16g, %.17g that reads back as v. */
static char *fmt_by_printf(char *buf, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* d[0, p) (p digits, the first nonzero: d0.d1d2... times 10^x) as
 * %.{p}g writes it: fixed notation when -4 <= x < p, else d.ddde+XX (two
 * exponent digits at least); trailing zeros of the fraction dropped, and
 * the point with them.  Returns the length (buf has 32 bytes). */
static size_t g_format(char *out, int neg, const char *d, int p, int x)
{
    size_t n = 0;
    int fixed = x >= -4 && x < p, k = p;
    while (k > 1 && d[k - 1] == '0' && (!fixed || x < 0 || k > x + 1))
        k--;
    if (neg)
        out[n++] = '-';
    if (!fixed) {
        out[n++] = d[0];
        if (k > 1) {
            out[n++] = '.';
            memcpy(out + n, d + 1, (size_t)k - 1);
            n += (size_t)k - 1;
        }
        n += (size_t)snprintf(out + n, 32 - n, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    } else if (x >= 0) {
        memcpy(out + n, d, (size_t)x + 1);
        n += (size_t)x + 1;
        if (k > x + 1) {
            out[n++] = '.';
            memcpy(out + n, d + x + 1, (size_t)(k - x - 1));
            n += (size_t)(k - x - 1);
        }
    } else {
        out[n++] = '0';
        out[n++] = '.';
        for (int z = 0; z < -x - 1; z++)
            out[n++] = '0';
        memcpy(out + n, d, (size_t)k);
        n += (size_t)k;
    }
    out[n] = '\0';
    return n;
}

/* The digits of %.19e rounded to p digits, when the rounding is certain
 * (the printed tail is not exactly a half): 0, or -1. */
static int round_digits(const char *d20, int p, char *d, int *x)
{
    int half = d20[p] == '5';
    for (int k = p + 1; k < 20 && half; k++)
        half = d20[k] == '0';
    if (half)
        return -1;
    memcpy(d, d20, (size_t)p);
    if (d20[p] >= '5') {
        int k = p - 1;
        while (k >= 0 && d[k] == '9')
            d[k--] = '0';
        if (k < 0) { /* 9.99.. -> 10.0.. */
            d[0] = '1';
            ++*x;
        } else {
            d[k]++;
        }
    }
    return 0;
}

/* What fmt_by_printf writes, from one %.19e: its 20 correctly rounded
 * digits are rounded to 15, 16 or 17 (exactly so, unless the tail is a
 * printed half, which goes to printf), and a candidate is read back by
 * the library's exact parser. */
char *api_fmt_double(char *buf, double v)
{
    char e[40], d[20];
    if (!isfinite(v)) {
        strcpy(buf, "null");
        return buf;
    }
    if (v == 0)
        return fmt_by_printf(buf, v);
    snprintf(e, sizeof e, "%.19e", v);
    int neg = e[0] == '-';
    const char *m = e + neg; /* d.ddddddddddddddddddde+XX */
    char d20[20];
    d20[0] = m[0];
    memcpy(d20 + 1, m + 2, 19);
    int x0 = atoi(m + 22);
    for (int p = 15; p <= 17; p++) {
        int x = x0;
        if (round_digits(d20, p, d, &x) != 0)
            return fmt_by_printf(buf, v);
        size_t n = g_format(buf, neg, d, p, x);
        double back = 0;
        if (p == 17 || (ircg_parse_decimal(buf, n, &back) == 0 && back == v))
            return buf;
    }
    return buf;
}

/* The columns of a row, in header order: integers and doubles. */
enum { NCOLS = 24, NCOLS_V1 = 19 }; /* the columns before the certificates */
static const char *const NAMES[NCOLS] = {
    "t", "elapsed", "sigma", "alpha", "g_x", "f_x", "g_z", "f_z", "gap", "g_gap_x",
    "g_gap_z", "lmo_seconds", "lmo_matvecs", "top_sv", "rank", "lmo_converged",
    "backtracks", "proj_full", "lambda", "certified", "inner_gap_x", "inner_gap_z",
    "g_lower", "f_lower"};

typedef struct cell {
    int integer;
    long long i;
    double d;
} cell;

static void cells_of(const ircg_iter_info *it, cell c[NCOLS])
{
    const double d[] = {it->elapsed, it->sigma, it->alpha, it->g_x, it->f_x, it->g_z,
                        it->f_z, it->gap, it->g_gap_x, it->g_gap_z, it->lmo_seconds};
    c[0] = (cell){1, (long long)it->t, 0};
    for (int k = 0; k < 11; k++)
        c[1 + k] = (cell){0, 0, d[k]};
    c[12] = (cell){1, (long long)it->lmo_matvecs, 0};
    c[13] = (cell){0, 0, it->top_sv};
    c[14] = (cell){1, it->rank, 0};
    c[15] = (cell){1, it->lmo_converged, 0};
    c[16] = (cell){1, it->backtracks, 0};
    c[17] = (cell){1, it->proj_full, 0};
    c[18] = (cell){0, 0, it->lambda};
    c[19] = (cell){1, it->certified, 0};
    c[20] = (cell){0, 0, it->inner_gap_x};
    c[21] = (cell){0, 0, it->inner_gap_z};
    c[22] = (cell){0, 0, it->g_lower};
    c[23] = (cell){0, 0, it->f_lower};
}

static size_t put(char *out, size_t n, const char *s, size_t len)
{
    memcpy(out + n, s, len);
    return n + len;
}

static size_t put_int(char *out, size_t n, long long v)
{
    char t[24];
    int k = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        t[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        out[n++] = '-';
    while (k)
        out[n++] = t[--k];
    return n;
}

/* A row as CSV (NaN and infinities empty) or one JSON line (null), built
 * by copies: printf only inside api_fmt_double.  snprintf's contract. */
static int trace_row(char *buf, size_t cap, const ircg_iter_info *it, int csv)
{
    char row[API_TRACE_ROW_MAX + 64], num[32];
    cell c[NCOLS];
    size_t n = 0;
    cells_of(it, c);
    if (!csv)
        n = put(row, n, "{", 1);
    for (int k = 0; k < NCOLS; k++) {
        if (k)
            n = put(row, n, ",", 1);
        if (!csv) {
            row[n++] = '"';
            n = put(row, n, NAMES[k], strlen(NAMES[k]));
            n = put(row, n, "\":", 2);
        }
        if (c[k].integer)
            n = put_int(row, n, c[k].i);
        else if (!csv || isfinite(c[k].d))
            n = put(row, n, num, strlen(api_fmt_double(num, c[k].d)));
    }
    n = put(row, n, csv ? "\n" : "}\n", csv ? 1 : 2);
    if (cap > 0) {
        size_t m = n < cap - 1 ? n : cap - 1;
        memcpy(buf, row, m);
        buf[m] = '\0';
    }
    return (int)n;
}

int api_trace_csv_row(char *buf, size_t n, const ircg_iter_info *it)
{
    return trace_row(buf, n, it, 1);
}

int api_trace_json_row(char *buf, size_t n, const ircg_iter_info *it)
{
    return trace_row(buf, n, it, 0);
}

/* A member of a JSON row: the number (null: NaN), or *ok cleared when it
 * is absent or of another type. */
static double member(const cJSON *o, const char *name, int *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (cJSON_IsNumber(v))
        return v->valuedouble;
    if (!cJSON_IsNull(v))
        *ok = 0;
    return NAN;
}

/* The row api_trace_json_row wrote: the numbers were printed so that they
 * read back to the same doubles, and cJSON reads them with strtod. */
int api_trace_json_parse(const char *line, size_t len, ircg_iter_info *it)
{
    cJSON *o = cJSON_ParseWithLength(line, len);
    int ok = cJSON_IsObject(o);
    double v[NCOLS] = {0};
    for (int k = 0; ok && k < NCOLS; k++) /* the certificates' columns may be
                                             absent: rows of earlier versions */
        v[k] = k >= NCOLS_V1 && o && !cJSON_GetObjectItemCaseSensitive(o, NAMES[k])
                   ? (k == NCOLS_V1 ? 0 : NAN)
                   : member(o, NAMES[k], &ok);
    cJSON_Delete(o);
    for (int k = 0; ok && k < NCOLS; k++) /* the integer columns: in range */
        if ((k == 0 || k == 12 || (k >= 14 && k <= 17) || k == 19) &&
            !(fabs(v[k]) <= (k == 0 || k == 12 ? 9007199254740992.0 : 2147483647.0)))
            ok = 0;
    if (!ok || v[0] < 0)
        return -1;
    *it = (ircg_iter_info){
        .t = (int64_t)v[0], .elapsed = v[1], .sigma = v[2], .alpha = v[3], .g_x = v[4],
        .f_x = v[5], .g_z = v[6], .f_z = v[7], .gap = v[8], .g_gap_x = v[9],
        .g_gap_z = v[10], .lmo_seconds = v[11], .lmo_matvecs = (int64_t)v[12],
        .top_sv = v[13], .rank = (int)v[14], .lmo_converged = (int)v[15],
        .backtracks = (int)v[16], .proj_full = (int)v[17], .lambda = v[18],
        .certified = (int)v[19], .inner_gap_x = v[20], .inner_gap_z = v[21],
        .g_lower = v[22], .f_lower = v[23]};
    return 0;
}
