/*
 * trace_format.c -- one solver iteration (ircg_iter_info) as a CSV row or
 * a JSON line, and the shortest round-trip printing of doubles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

/* The storage's traces table has the same columns in the same order. */
const char API_TRACE_CSV_HEADER[] =
    "t,elapsed,sigma,alpha,g_x,f_x,g_z,f_z,gap,g_gap_x,g_gap_z,lmo_seconds,"
    "lmo_matvecs,top_sv,rank,lmo_converged,backtracks,proj_full,lambda\n";

char *api_fmt_double(char *buf, double v)
{
    if (!isfinite(v)) {
        strcpy(buf, "null");
        return buf;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* The doubles between t and lmo_matvecs, in header order. */
static void row_values(const ircg_iter_info *it, double v[11])
{
    v[0] = it->elapsed;
    v[1] = it->sigma;
    v[2] = it->alpha;
    v[3] = it->g_x;
    v[4] = it->f_x;
    v[5] = it->g_z;
    v[6] = it->f_z;
    v[7] = it->gap;
    v[8] = it->g_gap_x;
    v[9] = it->g_gap_z;
    v[10] = it->lmo_seconds;
}

static const char *const JSON_NAMES[11] = {
    "elapsed", "sigma", "alpha", "g_x", "f_x", "g_z", "f_z", "gap", "g_gap_x",
    "g_gap_z", "lmo_seconds"};

/* A CSV field: NaN and infinities are empty. */
static const char *csv_num(char *buf, double v)
{
    if (!isfinite(v)) {
        buf[0] = '\0';
        return buf;
    }
    return api_fmt_double(buf, v);
}

int api_trace_csv_row(char *buf, size_t n, const ircg_iter_info *it)
{
    char tmp[API_TRACE_ROW_MAX + 64], num[32], lam[32];
    double v[11];
    size_t len = 0;
    row_values(it, v);
    len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%lld", (long long)it->t);
    for (int i = 0; i < 11; i++)
        len += (size_t)snprintf(tmp + len, sizeof tmp - len, ",%s", csv_num(num, v[i]));
    snprintf(tmp + len, sizeof tmp - len, ",%lld,%s,%d,%d,%d,%d,%s\n",
                            (long long)it->lmo_matvecs, csv_num(num, it->top_sv),
                            it->rank, it->lmo_converged, it->backtracks, it->proj_full,
                            csv_num(lam, it->lambda));
    return snprintf(buf, n, "%s", tmp);
}

int api_trace_json_row(char *buf, size_t n, const ircg_iter_info *it)
{
    char tmp[API_TRACE_ROW_MAX + 64], num[32], lam[32];
    double v[11];
    size_t len = 0;
    row_values(it, v);
    len += (size_t)snprintf(tmp + len, sizeof tmp - len, "{\"t\":%lld", (long long)it->t);
    for (int i = 0; i < 11; i++)
        len += (size_t)snprintf(tmp + len, sizeof tmp - len, ",\"%s\":%s", JSON_NAMES[i],
                                api_fmt_double(num, v[i]));
    snprintf(tmp + len, sizeof tmp - len,
                            ",\"lmo_matvecs\":%lld,\"top_sv\":%s,\"rank\":%d,"
                            "\"lmo_converged\":%d,\"backtracks\":%d,\"proj_full\":%d,"
                            "\"lambda\":%s}\n",
                            (long long)it->lmo_matvecs, api_fmt_double(num, it->top_sv),
                            it->rank, it->lmo_converged, it->backtracks, it->proj_full,
                            api_fmt_double(lam, it->lambda));
    return snprintf(buf, n, "%s", tmp);
}
