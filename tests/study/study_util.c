/* study_util.c -- see study.h */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "study/study.h"

const study_entry study_entries[] = {
    {"rates", study_rates},
    {"selection", study_selection},
    {"overparam", study_overparam},
    {"scale", study_scale},
    {"varsigma", study_varsigma},
    {"directions", study_directions},
    {NULL, NULL},
};

void study_printf(study_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || d->failed)
        return;
    if (d->len + (size_t)n + 1 > d->cap) {
        size_t cap = (d->cap ? 2 * d->cap : 4096) + (size_t)n;
        char *t = realloc(d->text, cap);
        if (!t) {
            d->failed = 1;
            return;
        }
        d->text = t;
        d->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(d->text + d->len, d->cap - d->len, fmt, ap);
    va_end(ap);
    d->len += (size_t)n;
}

void study_doc_free(study_doc *d)
{
    free(d->text);
    *d = (study_doc){0};
}

static int write_file(const char *dir, const char *name, const char *ext, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "study: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int study_mkdir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "study: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int study_write(const char *dir, const char *name, const cJSON *j, const study_doc *d)
{
    if (study_mkdir(dir) != 0)
        return -1;
    char *text = cJSON_Print(j);
    int rc = text && !d->failed ? 0 : -1;
    if (rc == 0)
        rc = write_file(dir, name, "json", text);
    if (rc == 0)
        rc = write_file(dir, name, "md", d->text ? d->text : "");
    free(text);
    return rc;
}
