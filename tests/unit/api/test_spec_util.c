/*
 * test_spec_util.c -- see test_spec_util.h.
 */
#include <stdlib.h>
#include <string.h>

#include "test_spec_util.h"

char *tspec_dq(const char *s)
{
    char *t = strdup(s);
    for (char *p = t; p && *p; p++)
        if (*p == '\'')
            *p = '"';
    return t;
}

int tspec_parse(const char *json, const char *base_dir, api_errors *e, api_spec **out)
{
    api_parse_options opt;
    api_parse_options_default(&opt);
    opt.base_dir = base_dir;
    char *t = tspec_dq(json);
    api_errors_init(e);
    int n = t ? api_spec_parse(t, strlen(t), &opt, out, e) : -1;
    free(t);
    return n;
}
