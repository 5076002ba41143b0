/*
 * spec_internal.h -- the parsed specification and the helpers that read
 * typed JSON members while recording (pointer, reason) errors.  Private to
 * api/.
 */
#ifndef IRCG_API_SPEC_INTERNAL_H
#define IRCG_API_SPEC_INTERNAL_H

#include <cJSON.h>

#include "spec.h"

#define SP_PTR 256 /* room for a JSON pointer */

typedef enum sp_source {
    SP_SRC_FILE = 0,
    SP_SRC_INLINE,
    SP_SRC_SYNTHETIC,
    SP_SRC_DATASET
} sp_source;

/* Matrix completion data and model. */
typedef struct sp_mc {
    sp_source source;
    char *path, *resolved;        /* file                                  */
    ircg_ratings_format format;   /* file                                  */
    int n_rows, n_cols;           /* file/inline: 0 = from the data         */
    ircg_ratings *inline_r;       /* inline: kept for the normalized echo   */
    ircg_synth_ratings_spec synth;/* synthetic                              */
    char *dataset_id;             /* dataset                                */
    double delta;
    ircg_outer_kind outer;
} sp_mc;

/* Least squares data and model. */
typedef enum sp_ls_a { SP_A_DENSE = 0, SP_A_CSR } sp_ls_a;

typedef struct sp_ls {
    sp_source source;
    int m, n;
    sp_ls_a a_kind;               /* inline                                 */
    double *A;                    /* dense row-major m x n (inline/synth)    */
    int64_t *rowptr;              /* CSR (inline csr or file)                */
    int32_t *colind;
    double *val;
    double *b;                    /* length m                               */
    char *A_path, *A_resolved;    /* file                                   */
    char *b_path, *b_resolved;    /* file: NULL when b is inline            */
    double noise;                 /* synthetic                              */
    uint64_t seed;
    ircg_domain domain;
    ircg_outer_kind outer;
    double *c, *Q, *q;            /* outer data (q may be NULL)             */
    int64_t c_len, q_len;
    int Q_dim;                    /* rows of Q                              */
    int64_t b_len;                /* file: length of b as read              */
} sp_ls;

struct api_spec {
    ircg_problem_kind kind;
    sp_mc mc;
    sp_ls ls;
    ircg_settings settings;       /* callback/cancel/reference unset        */
    double *x0;                   /* start {"x0": [...]}                     */
    int64_t x0_len;
    api_reference_spec ref;
    api_output_spec output;
    ircg_problem *problem;
};

/* Parsing context shared by the section parsers. */
typedef struct sp_ctx {
    api_errors *errs;
    const api_parse_options *opt;
    int nerr;                     /* errors recorded by this parse          */
} sp_ctx;

/* Record an error at pointer. */
void sp_err(sp_ctx *c, const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* dst = base + "/" + escaped(name) (RFC 6901 escaping of ~ and /). */
void sp_ptr(char *dst, const char *base, const char *name);
void sp_ptr_idx(char *dst, const char *base, long long idx);

/* Every member of obj must be in names (NULL-terminated); each unknown or
 * duplicate member is an error.  Returns 0 when obj is not an object
 * (and records that). */
int sp_members(sp_ctx *c, const cJSON *obj, const char *ptr,
               const char *const *names);
const cJSON *sp_get(const cJSON *obj, const char *name);

/* Typed readers: when the member is absent, *out keeps its value (the
 * default) and 0 is returned; 1 when read; -1 after an error. */
int sp_number(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              double *out);
/* Number with a range: lo/hi may be +-INFINITY; *_open excludes the end. */
int sp_number_in(sp_ctx *c, const cJSON *obj, const char *ptr,
                 const char *name, double lo, int lo_open, double hi,
                 int hi_open, double *out);
int sp_int64_in(sp_ctx *c, const cJSON *obj, const char *ptr,
                const char *name, int64_t lo, int64_t hi, int64_t *out);
int sp_int_in(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              int lo, int hi, int *out);
int sp_bool(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
            int *out);
/* *out borrowed from the JSON tree. */
int sp_string(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              const char **out);
/* names is NULL-terminated; *out = the index. */
int sp_enum(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
            const char *const *names, int *out);
/* A JSON array of finite numbers at item (pointer ptr); *out malloc'ed. */
int sp_num_array(sp_ctx *c, const cJSON *item, const char *ptr, double **out,
                 int64_t *n);
/* Integer check of a JSON value (a number with no fraction in range). */
int sp_is_int(const cJSON *v, double lo, double hi);

/* Section parsers (spec_problem_mc.c, spec_problem_ls.c, spec_parse.c). */
void sp_parse_mc(sp_ctx *c, const cJSON *pb, api_spec *s);
void sp_parse_ls(sp_ctx *c, const cJSON *pb, api_spec *s);
void sp_build_mc(sp_ctx *c, api_spec *s);
void sp_build_ls(sp_ctx *c, api_spec *s);

/* Files (spec_files.c). */
/* Resolve path against opt->base_dir, enforcing confinement; returns a
 * malloc'ed path or NULL after recording an error at ptr. */
char *sp_resolve_path(sp_ctx *c, const char *ptr, const char *path);
/* Matrix Market coordinate A -> CSR. */
int sp_read_mtx_csr(sp_ctx *c, const char *ptr, const char *path, sp_ls *ls);
/* b from Matrix Market (array or coordinate) or plain numbers. */
int sp_read_vector(sp_ctx *c, const char *ptr, const char *path, double **b,
                   int64_t *n);

/* Map an ircg_diag of a constructor onto the spec: field "/x" under base. */
void sp_diag(sp_ctx *c, const char *base, const ircg_diag *d);

/* Normalization (spec_normalize.c) */
cJSON *sp_norm_problem(const api_spec *s, int summarize);

#endif /* IRCG_API_SPEC_INTERNAL_H */
