/*
 * study.h -- the studies of `study` (study_main.c): each fills a JSON
 * object with its measurements and a markdown table (study_doc), written
 * to DIR/NAME.json and DIR/NAME.md by study_write().
 */
#ifndef IRCG_STUDY_H
#define IRCG_STUDY_H

#include <cJSON.h>
#include <stddef.h>

/* A growable text. */
typedef struct study_doc {
    char *text;
    size_t len, cap;
    int failed;
} study_doc;

void study_printf(study_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void study_doc_free(study_doc *d);
/* DIR/NAME.json and DIR/NAME.md (DIR created); 0 on success. */
int study_write(const char *dir, const char *name, const cJSON *j, const study_doc *d);

typedef struct study_entry {
    const char *name;
    /* 0 on success; dir (created) may receive more files */
    int (*run)(cJSON *out, study_doc *doc, const char *dir);
} study_entry;

extern const study_entry study_entries[]; /* NULL-terminated */

int study_rates(cJSON *out, study_doc *doc, const char *dir);
int study_selection(cJSON *out, study_doc *doc, const char *dir);
int study_overparam(cJSON *out, study_doc *doc, const char *dir);
int study_scale(cJSON *out, study_doc *doc, const char *dir);
int study_varsigma(cJSON *out, study_doc *doc, const char *dir);
int study_directions(cJSON *out, study_doc *doc, const char *dir);
/* One IR-CG run's members (scale.h's sc_run) into o: varsigma, the
 * iterations and seconds to the targets (null: not reached), the
 * iterations run and the relative gaps at the end (studies scale and
 * varsigma). */
struct sc_run;
void study_run_members(cJSON *o, const struct sc_run *r);
/* mkdir dir (an existing one is fine); 0 on success */
int study_mkdir(const char *dir);

#endif /* IRCG_STUDY_H */
