/*
 * trace_format.c -- one solver iteration (ircg_iter_info) as a CSV row or
 * a JSON line, and the shortest round-trip printing of doubles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

const char API_TRACE_CSV_HEADER[] =
    "t,elapsed,sigma,alpha,g_x,f_x,g_z,f_z,gap,g_gap_x,g_gap_z,lmo_seconds,"
    "lmo_matvecs,top_sv,rank\n";

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

/* The doubles of a row, in header order (t, lmo_matvecs and rank are
 * integers and printed apart). */
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

int api_trace_csv_row(char *buf, size_t n, const ircg_iter_info *it)
{
    char tmp[512], num[32];
    double v[11];
    size_t len = 0;
    row_values(it, v);
    len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%lld", (long long)it->t);
    for (int i = 0; i < 11; i++) /* NaN -> empty field */
        len += (size_t)snprintf(tmp + len, sizeof tmp - len, ",%s",
                                isfinite(v[i]) ? api_fmt_double(num, v[i]) : "");
    len += (size_t)snprintf(tmp + len, sizeof tmp - len, ",%lld,%s,%d\n",
                            (long long)it->lmo_matvecs,
                            isfinite(it->top_sv) ? api_fmt_double(num, it->top_sv) : "",
                            it->rank);
    return snprintf(buf, n, "%s", tmp);
}

int api_trace_json_row(char *buf, size_t n, const ircg_iter_info *it)
{
    char tmp[640], num[32];
    double v[11];
    size_t len = 0;
    row_values(it, v);
    len += (size_t)snprintf(tmp + len, sizeof tmp - len, "{\"t\":%lld", (long long)it->t);
    for (int i = 0; i < 11; i++)
        len += (size_t)snprintf(tmp + len, sizeof tmp - len, ",\"%s\":%s", JSON_NAMES[i],
                                api_fmt_double(num, v[i]));
    len += (size_t)snprintf(tmp + len, sizeof tmp - len,
                            ",\"lmo_matvecs\":%lld,\"top_sv\":%s,\"rank\":%d}\n",
                            (long long)it->lmo_matvecs, api_fmt_double(num, it->top_sv),
                            it->rank);
    return snprintf(buf, n, "%s", tmp);
}
