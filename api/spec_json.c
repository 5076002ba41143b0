/*
 * spec_json.c -- typed readers of JSON members that record a (pointer,
 * reason) error instead of failing, so one pass reports every problem.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

void sp_err(sp_ctx *c, const char *ptr, const char *fmt, ...)
{
    char reason[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    /* a huge inline array could otherwise yield millions of errors */
    if (++c->nerr <= API_MAX_ERRORS)
        api_errors_add(c->errs, ptr, "%s", reason);
}

void sp_ptr(char *dst, const char *base, const char *name)
{
    size_t n = strlen(base);
    char tmp[SP_PTR];
    memcpy(tmp, base, n < SP_PTR ? n : SP_PTR - 1);
    n = n < SP_PTR ? n : SP_PTR - 1;
    if (n < SP_PTR - 1)
        tmp[n++] = '/';
    /* RFC 6901: "~" -> "~0", "/" -> "~1" */
    for (const char *p = name; *p && n < SP_PTR - 2; p++) {
        if (*p == '~' || *p == '/') {
            tmp[n++] = '~';
            tmp[n++] = *p == '~' ? '0' : '1';
        } else {
            tmp[n++] = *p;
        }
    }
    tmp[n] = '\0';
    memcpy(dst, tmp, n + 1);
}

void sp_ptr_idx(char *dst, const char *base, long long idx)
{
    char name[32];
    snprintf(name, sizeof name, "%lld", idx);
    sp_ptr(dst, base, name);
}

const cJSON *sp_get(const cJSON *obj, const char *name)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return cJSON_IsObject(v) ? "an object" : "invalid";
}

/* Is name in the NULL-terminated list? */
static int known(const char *name, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(*names, name) == 0)
            return 1;
    return 0;
}

int sp_members(sp_ctx *c, const cJSON *obj, const char *ptr,
               const char *const *names)
{
    if (!cJSON_IsObject(obj)) {
        sp_err(c, ptr, "wrong type: expected an object, got %s", type_name(obj));
        return 0;
    }
    char p[SP_PTR];
    int count = 0;
    for (const cJSON *m = obj->child; m; m = m->next, count++) {
        if (count == 64) { /* no spec object has this many: stop (quadratic) */
            sp_err(c, ptr, "too many members");
            break;
        }
        sp_ptr(p, ptr, m->string ? m->string : "");
        if (!m->string || !known(m->string, names)) {
            sp_err(c, p, "unknown member \"%s\"", m->string ? m->string : "");
            continue;
        }
        for (const cJSON *k = obj->child; k != m; k = k->next)
            if (k->string && strcmp(k->string, m->string) == 0) {
                sp_err(c, p, "duplicate member \"%s\"", m->string);
                break;
            }
    }
    return 1;
}

int sp_number(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              double *out)
{
    const cJSON *v = sp_get(obj, name);
    char p[SP_PTR];
    if (!v)
        return 0;
    sp_ptr(p, ptr, name);
    if (!cJSON_IsNumber(v)) {
        sp_err(c, p, "wrong type: expected a number, got %s", type_name(v));
        return -1;
    }
    if (!isfinite(v->valuedouble)) {
        sp_err(c, p, "not a finite number (overflows a double)");
        return -1;
    }
    *out = v->valuedouble;
    return 1;
}

/* The shortest text that reads back as v: "1e+12", not "1000000000000". */
const char *sp_num_text(char buf[32], double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* "in (0, 1)", "> 0", ">= 1" ... for the message. */
static void range_text(char *buf, size_t n, double lo, int lo_open, double hi,
                       int hi_open)
{
    char a[32], b[32];
    if (isinf(lo) && isinf(hi))
        snprintf(buf, n, "finite");
    else if (isinf(hi))
        snprintf(buf, n, "%s %s", lo_open ? ">" : ">=", sp_num_text(a, lo));
    else if (isinf(lo))
        snprintf(buf, n, "%s %s", hi_open ? "<" : "<=", sp_num_text(b, hi));
    else
        snprintf(buf, n, "in %c%s, %s%c", lo_open ? '(' : '[', sp_num_text(a, lo),
                 sp_num_text(b, hi), hi_open ? ')' : ']');
}

int sp_number_in(sp_ctx *c, const cJSON *obj, const char *ptr,
                 const char *name, double lo, int lo_open, double hi,
                 int hi_open, double *out)
{
    double v = 0;
    int r = sp_number(c, obj, ptr, name, &v);
    if (r <= 0)
        return r;
    int bad = lo_open ? !(v > lo) : !(v >= lo);
    bad |= hi_open ? !(v < hi) : !(v <= hi);
    if (bad) {
        char p[SP_PTR], rt[96];
        sp_ptr(p, ptr, name);
        range_text(rt, sizeof rt, lo, lo_open, hi, hi_open);
        char got[32];
        sp_err(c, p, "out of range: must be %s, got %s", rt, sp_num_text(got, v));
        return -1;
    }
    *out = v;
    return 1;
}

int sp_is_int(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
           v->valuedouble == floor(v->valuedouble) && v->valuedouble >= lo &&
           v->valuedouble <= hi;
}

int sp_int64_in(sp_ctx *c, const cJSON *obj, const char *ptr,
                const char *name, int64_t lo, int64_t hi, int64_t *out)
{
    double v = 0;
    int r = sp_number(c, obj, ptr, name, &v);
    if (r <= 0)
        return r;
    char p[SP_PTR];
    sp_ptr(p, ptr, name);
    if (v != floor(v)) {
        sp_err(c, p, "wrong type: expected an integer, got %.17g", v);
        return -1;
    }
    if (v < (double)lo || v > (double)hi) { /* also beyond 2^53: 1e300 */
        sp_err(c, p, "out of range: must be in [%lld, %lld], got %.17g",
               (long long)lo, (long long)hi, v);
        return -1;
    }
    *out = (int64_t)v;
    return 1;
}

int sp_int_in(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              int lo, int hi, int *out)
{
    int64_t v = *out;
    int r = sp_int64_in(c, obj, ptr, name, lo, hi, &v);
    if (r > 0)
        *out = (int)v;
    return r;
}

int sp_bool(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
            int *out)
{
    const cJSON *v = sp_get(obj, name);
    if (!v)
        return 0;
    if (!cJSON_IsBool(v)) {
        char p[SP_PTR];
        sp_ptr(p, ptr, name);
        sp_err(c, p, "wrong type: expected a boolean, got %s", type_name(v));
        return -1;
    }
    *out = cJSON_IsTrue(v);
    return 1;
}

int sp_string(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              const char **out)
{
    const cJSON *v = sp_get(obj, name);
    if (!v)
        return 0;
    char p[SP_PTR];
    sp_ptr(p, ptr, name);
    if (!cJSON_IsString(v) || !v->valuestring) {
        sp_err(c, p, "wrong type: expected a string, got %s", type_name(v));
        return -1;
    }
    if (!v->valuestring[0]) {
        sp_err(c, p, "must not be empty");
        return -1;
    }
    *out = v->valuestring;
    return 1;
}

int sp_enum(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
            const char *const *names, int *out)
{
    const char *s = NULL;
    int r = sp_string(c, obj, ptr, name, &s);
    if (r <= 0)
        return r;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) {
            *out = i;
            return 1;
        }
    char p[SP_PTR], list[256] = "";
    size_t used = 0;
    for (int i = 0; names[i] && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"",
                                 i ? ", " : "", names[i]);
    sp_ptr(p, ptr, name);
    sp_err(c, p, "unknown value \"%s\": expected one of %s", s, list);
    return -1;
}

int sp_data_source(sp_ctx *c, const cJSON *d, const char *ptr, const char *const *sources,
                   int *out)
{
    char p[SP_PTR];
    if (!d) {
        sp_err(c, ptr, "missing required member \"data\"");
        return 0;
    }
    if (!cJSON_IsObject(d)) {
        sp_members(c, d, ptr, sources); /* records "not an object" */
        return 0;
    }
    if (!sp_get(d, "source")) {
        sp_ptr(p, ptr, "source");
        sp_err(c, p, "missing required member \"source\"");
        return 0;
    }
    return sp_enum(c, d, ptr, "source", sources, out) > 0;
}

int sp_num_array(sp_ctx *c, const cJSON *item, const char *ptr, double **out,
                 int64_t *n)
{
    int ok = 1;
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(item)) {
        sp_err(c, ptr, "wrong type: expected an array of numbers, got %s",
               type_name(item));
        return -1;
    }
    int64_t len = cJSON_GetArraySize(item);
    double *v = malloc((size_t)(len ? len : 1) * sizeof *v);
    if (!v) {
        sp_err(c, ptr, "out of memory reading %lld numbers", (long long)len);
        return -1;
    }
    int64_t i = 0;
    char p[SP_PTR];
    for (const cJSON *e = item->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            sp_ptr_idx(p, ptr, i);
            sp_err(c, p, cJSON_IsNumber(e) ? "not a finite number"
                                          : "wrong type: expected a number, got %s",
                   type_name(e));
            ok = 0;
            continue;
        }
        if (fabs(e->valuedouble) > SP_MAX_VALUE) {
            sp_ptr_idx(p, ptr, i);
            sp_err(c, p, "out of range: |value| must be <= %g, got %.17g", SP_MAX_VALUE,
                   e->valuedouble);
            ok = 0;
            continue;
        }
        v[i] = e->valuedouble;
    }
    if (!ok) {
        free(v);
        return -1;
    }
    *out = v;
    *n = len;
    return 1;
}

/* The library's readers already start their messages with "line N: ";
 * add it only when missing. */
static int says_line(const ircg_diag *d)
{
    return d->line <= 0 || strncmp(d->message, "line ", 5) == 0;
}

void sp_diag(sp_ctx *c, const char *base, const ircg_diag *d)
{
    char p[SP_PTR];
    snprintf(p, sizeof p, "%s%s", base, d->field);
    if (!says_line(d))
        sp_err(c, p, "line %ld: %s", d->line, d->message);
    else
        sp_err(c, p, "%s", d->message[0] ? d->message : ircg_error_string(d->code));
}

void sp_file_diag(sp_ctx *c, const char *ptr, const char *path, const ircg_diag *d)
{
    const char *why = d->message[0] ? d->message : ircg_error_string(d->code);
    if (!says_line(d))
        sp_err(c, ptr, "%s: line %ld: %s", path, d->line, why);
    else
        sp_err(c, ptr, "%s: %s", path, why);
}

int sp_value_ok(sp_ctx *c, const char *ptr, double v, const char *what_fmt, ...)
{
    if (isfinite(v) && fabs(v) <= SP_MAX_VALUE)
        return 1;
    char what[160];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    char got[32];
    sp_err(c, ptr, "out of range: %s is %s, |value| must be <= %g", what,
           sp_num_text(got, v), SP_MAX_VALUE);
    return 0;
}
