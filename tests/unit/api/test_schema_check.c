/*
 * test_schema_check.c -- the JSON Schema subset validator of the tests
 * (see test_schema_check.h).
 */
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_schema_check.h"

static const char *const ASSERTIONS[] = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "prefixItems", "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "maxLength", "pattern", "oneOf", "anyOf", "allOf",
    "$ref", "minProperties", "not", NULL};
static const char *const ANNOTATIONS[] = {"$schema", "$id", "$defs", "title", "description",
                                          "default", "format", "contentMediaType", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

static int fail(jsv *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(jsv *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->error, sizeof v->error, fmt, ap);
    va_end(ap);
    return 0;
}

void jsv_add(jsv *v, const char *name, const cJSON *doc)
{
    if (v->ndocs < JSV_MAX_DOCS) {
        v->names[v->ndocs] = name;
        v->docs[v->ndocs++] = doc;
    }
}

/* RFC 6901 pointer (without the leading '#') within root. */
static const cJSON *pointer(const cJSON *root, const char *ptr)
{
    const cJSON *cur = root;
    char tok[128];
    if (!*ptr)
        return root;
    if (*ptr != '/')
        return NULL;
    while (cur && *ptr == '/') {
        size_t n = 0;
        ptr++;
        while (*ptr && *ptr != '/' && n < sizeof tok - 1) {
            if (ptr[0] == '~' && (ptr[1] == '0' || ptr[1] == '1')) {
                tok[n++] = ptr[1] == '0' ? '~' : '/';
                ptr += 2;
            } else {
                tok[n++] = *ptr++;
            }
        }
        tok[n] = '\0';
        cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(tok))
                                 : cJSON_GetObjectItemCaseSensitive(cur, tok);
    }
    return cur;
}

const cJSON *jsv_resolve(const jsv *v, const cJSON **doc, const char *ref)
{
    const char *hash = strchr(ref, '#');
    size_t flen = hash ? (size_t)(hash - ref) : strlen(ref);
    if (flen > 0) {
        int k = 0;
        while (k < v->ndocs && (strlen(v->names[k]) != flen || strncmp(v->names[k], ref, flen)))
            k++;
        if (k == v->ndocs)
            return NULL;
        *doc = v->docs[k];
    }
    return pointer(*doc, hash ? hash + 1 : "");
}

static const char *type_of(const cJSON *x)
{
    if (cJSON_IsNull(x))
        return "null";
    if (cJSON_IsBool(x))
        return "boolean";
    if (cJSON_IsNumber(x))
        return "number";
    if (cJSON_IsString(x))
        return "string";
    return cJSON_IsArray(x) ? "array" : "object";
}

static int type_ok(const cJSON *x, const char *t)
{
    if (!strcmp(t, "integer"))
        return cJSON_IsNumber(x) && isfinite(x->valuedouble) &&
               x->valuedouble == floor(x->valuedouble);
    return !strcmp(t, type_of(x));
}

/* JSON equality (numbers by value, objects member by member). */
static int equal(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    return cJSON_Compare(a, b, 1);
}

static int check(jsv *v, const cJSON *doc, const cJSON *s, const cJSON *x, int depth);

/* Exactly one (oneOf), at least one (anyOf) or all (allOf) of list. */
static int combine(jsv *v, const cJSON *doc, const cJSON *list, const cJSON *x, int depth,
                   const char *kw)
{
    int pass = 0, n = 0;
    char first[512] = "";
    for (const cJSON *s = list->child; s; s = s->next, n++) {
        if (check(v, doc, s, x, depth + 1))
            pass++;
        else if (!first[0])
            snprintf(first, sizeof first, "%s", v->error);
    }
    if (!strcmp(kw, "allOf") && pass != n)
        return fail(v, "allOf: %s", first);
    if (!strcmp(kw, "anyOf") && pass == 0)
        return fail(v, "anyOf: none of %d matches (first: %s)", n, first);
    if (!strcmp(kw, "oneOf") && pass != 1)
        return pass ? fail(v, "oneOf: %d of %d branches match", pass, n)
                    : fail(v, "oneOf: none of %d matches (first: %s)", n, first);
    return 1;
}

static int check_number(jsv *v, const cJSON *s, const cJSON *x)
{
    const cJSON *k;
    double d = x->valuedouble;
    if ((k = cJSON_GetObjectItem(s, "minimum")) && !(d >= k->valuedouble))
        return fail(v, "%.17g < minimum %.17g", d, k->valuedouble);
    if ((k = cJSON_GetObjectItem(s, "maximum")) && !(d <= k->valuedouble))
        return fail(v, "%.17g > maximum %.17g", d, k->valuedouble);
    if ((k = cJSON_GetObjectItem(s, "exclusiveMinimum")) && !(d > k->valuedouble))
        return fail(v, "%.17g <= exclusiveMinimum %.17g", d, k->valuedouble);
    if ((k = cJSON_GetObjectItem(s, "exclusiveMaximum")) && !(d < k->valuedouble))
        return fail(v, "%.17g >= exclusiveMaximum %.17g", d, k->valuedouble);
    return 1;
}

static int check_string(jsv *v, const cJSON *s, const cJSON *x)
{
    const cJSON *k;
    size_t n = strlen(x->valuestring); /* our documents are ASCII */
    if ((k = cJSON_GetObjectItem(s, "minLength")) && n < (size_t)k->valuedouble)
        return fail(v, "\"%s\" shorter than %g", x->valuestring, k->valuedouble);
    if ((k = cJSON_GetObjectItem(s, "maxLength")) && n > (size_t)k->valuedouble)
        return fail(v, "\"%s\" longer than %g", x->valuestring, k->valuedouble);
    if ((k = cJSON_GetObjectItem(s, "pattern"))) {
        regex_t re;
        if (regcomp(&re, k->valuestring, REG_EXTENDED | REG_NOSUB) != 0)
            return fail(v, "bad pattern %s", k->valuestring);
        int ok = regexec(&re, x->valuestring, 0, NULL, 0) == 0;
        regfree(&re);
        if (!ok)
            return fail(v, "\"%s\" does not match %s", x->valuestring, k->valuestring);
    }
    return 1;
}

static int check_array(jsv *v, const cJSON *doc, const cJSON *s, const cJSON *x, int depth)
{
    const cJSON *k, *pre = cJSON_GetObjectItem(s, "prefixItems");
    int n = cJSON_GetArraySize(x), npre = pre ? cJSON_GetArraySize(pre) : 0, i = 0;
    if ((k = cJSON_GetObjectItem(s, "minItems")) && n < (int)k->valuedouble)
        return fail(v, "%d items < minItems %g", n, k->valuedouble);
    if ((k = cJSON_GetObjectItem(s, "maxItems")) && n > (int)k->valuedouble)
        return fail(v, "%d items > maxItems %g", n, k->valuedouble);
    const cJSON *items = cJSON_GetObjectItem(s, "items");
    for (const cJSON *e = x->child; e; e = e->next, i++) {
        const cJSON *sub = i < npre ? cJSON_GetArrayItem(pre, i) : items;
        if (sub && !check(v, doc, sub, e, depth + 1)) {
            char inner[512];
            snprintf(inner, sizeof inner, "%s", v->error);
            return fail(v, "[%d]: %s", i, inner);
        }
    }
    return 1;
}

static int check_object(jsv *v, const cJSON *doc, const cJSON *s, const cJSON *x, int depth)
{
    const cJSON *props = cJSON_GetObjectItem(s, "properties");
    const cJSON *req = cJSON_GetObjectItem(s, "required");
    const cJSON *add = cJSON_GetObjectItem(s, "additionalProperties");
    const cJSON *minp = cJSON_GetObjectItem(s, "minProperties");
    if (minp && cJSON_GetArraySize(x) < (int)minp->valuedouble)
        return fail(v, "%d members < minProperties %g", cJSON_GetArraySize(x), minp->valuedouble);
    for (const cJSON *r = req ? req->child : NULL; r; r = r->next)
        if (!cJSON_GetObjectItemCaseSensitive(x, r->valuestring))
            return fail(v, "missing required \"%s\"", r->valuestring);
    for (const cJSON *m = x->child; m; m = m->next) {
        const cJSON *sub = props ? cJSON_GetObjectItemCaseSensitive(props, m->string) : NULL;
        if (!sub && cJSON_IsFalse(add))
            return fail(v, "member \"%s\" not allowed", m->string);
        if (!sub && cJSON_IsObject(add))
            sub = add;
        if (sub && !check(v, doc, sub, m, depth + 1)) {
            char inner[512];
            snprintf(inner, sizeof inner, "%s", v->error);
            return fail(v, "/%s: %s", m->string, inner);
        }
    }
    return 1;
}

static int check(jsv *v, const cJSON *doc, const cJSON *s, const cJSON *x, int depth)
{
    const cJSON *k;
    if (depth > 64)
        return fail(v, "schema nesting too deep");
    if (cJSON_IsTrue(s))
        return 1;
    if (!cJSON_IsObject(s))
        return fail(v, "not a schema");
    if ((k = cJSON_GetObjectItem(s, "$ref"))) {
        const cJSON *d = doc, *t = jsv_resolve(v, &d, k->valuestring);
        if (!t)
            return fail(v, "unresolved $ref %s", k->valuestring);
        if (!check(v, d, t, x, depth + 1))
            return 0;
    }
    if ((k = cJSON_GetObjectItem(s, "type"))) {
        int ok = 0;
        if (cJSON_IsString(k))
            ok = type_ok(x, k->valuestring);
        for (const cJSON *t = cJSON_IsArray(k) ? k->child : NULL; t; t = t->next)
            ok |= type_ok(x, t->valuestring);
        if (!ok)
            return fail(v, "%s is not of the type the schema wants", type_of(x));
    }
    if ((k = cJSON_GetObjectItem(s, "const")) && !equal(k, x))
        return fail(v, "not the constant");
    if ((k = cJSON_GetObjectItem(s, "enum"))) {
        int ok = 0;
        for (const cJSON *e = k->child; e && !ok; e = e->next)
            ok = equal(e, x);
        if (!ok)
            return fail(v, "%s%s%s not in the enum", cJSON_IsString(x) ? "\"" : "",
                        cJSON_IsString(x) ? x->valuestring : type_of(x),
                        cJSON_IsString(x) ? "\"" : "");
    }
    if (cJSON_IsNumber(x) && !check_number(v, s, x))
        return 0;
    if (cJSON_IsString(x) && !check_string(v, s, x))
        return 0;
    if (cJSON_IsArray(x) && !check_array(v, doc, s, x, depth))
        return 0;
    if (cJSON_IsObject(x) && !check_object(v, doc, s, x, depth))
        return 0;
    static const char *const COMB[] = {"oneOf", "anyOf", "allOf"};
    for (int i = 0; i < 3; i++)
        if ((k = cJSON_GetObjectItem(s, COMB[i])) && !combine(v, doc, k, x, depth, COMB[i]))
            return 0;
    if ((k = cJSON_GetObjectItem(s, "not"))) { /* the instance must fail it */
        jsv inner = *v;
        if (check(&inner, doc, k, x, depth + 1))
            return fail(v, "matches a schema it must not (not)");
    }
    return 1;
}

int jsv_check(jsv *v, const cJSON *doc, const cJSON *schema, const cJSON *inst)
{
    v->error[0] = '\0';
    return check(v, doc, schema, inst, 0);
}

int jsv_keywords_known(jsv *v, const cJSON *s, const char *where)
{
    char sub[400];
    if (cJSON_IsBool(s))
        return 1;
    if (!cJSON_IsObject(s))
        return fail(v, "%s: not a schema", where);
    for (const cJSON *m = s->child; m; m = m->next) {
        if (!in_list(m->string, ASSERTIONS) && !in_list(m->string, ANNOTATIONS))
            return fail(v, "%s: unsupported keyword \"%s\"", where, m->string);
        int map = !strcmp(m->string, "properties") || !strcmp(m->string, "$defs");
        int list = !strcmp(m->string, "oneOf") || !strcmp(m->string, "anyOf") ||
                   !strcmp(m->string, "allOf") || !strcmp(m->string, "prefixItems");
        int one = !strcmp(m->string, "items") || !strcmp(m->string, "not") ||
                  (!strcmp(m->string, "additionalProperties") && cJSON_IsObject(m));
        for (const cJSON *c = (map || list) ? m->child : NULL; c; c = c->next) {
            snprintf(sub, sizeof sub, "%.200s/%s/%s", where, m->string,
                     map ? c->string : "[]");
            if (!jsv_keywords_known(v, c, sub))
                return 0;
        }
        snprintf(sub, sizeof sub, "%.200s/%s", where, m->string);
        if (one && !jsv_keywords_known(v, m, sub))
            return 0;
    }
    return 1;
}
