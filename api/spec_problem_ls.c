/*
 * spec_problem_ls.c -- the "least_squares" and "logistic_regression"
 * problem sections: the domain, the outer objective, and the build of the
 * ircg_problem (the data section is spec_ls_data.c and spec_ls_load.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const LS_MEMBERS[] = {"type", "data", "domain", "outer", NULL};
static const char *const DOMAINS[] = {"l2_ball", "l1_ball", "simplex", "box", NULL};
static const char *const BALL_MEMBERS[] = {"type", "radius", NULL};
static const char *const BOX_MEMBERS[] = {"type", "lower", "upper", NULL};
static const char *const OUTERS[] = {"half_norm_sq", "dist_sq", "quadratic", "validation",
                                     NULL};
static const char *const OUTER_MEMBERS[] = {"type", "c", "Q", "q", NULL};
enum { O_HALF = 0, O_DIST, O_QUAD, O_VALID };

#define DP "/problem/data"

static void parse_domain(sp_ctx *c, const cJSON *dm, sp_ls *ls)
{
    int k = 0;
    if (!dm)
        return;
    if (cJSON_IsObject(dm) && sp_enum(c, dm, "/problem/domain", "type", DOMAINS, &k) < 0)
        return;
    ls->domain.kind = (ircg_domain_kind)(IRCG_DOMAIN_L2_BALL + k);
    if (!sp_members(c, dm, "/problem/domain", k == 3 ? BOX_MEMBERS : BALL_MEMBERS))
        return;
    if (k != 3) {
        sp_number_in(c, dm, "/problem/domain", "radius", 0, 1, SP_MAX_SCALE, 0,
                     &ls->domain.radius);
        return;
    }
    int bad = sp_number_in(c, dm, "/problem/domain", "lower", -SP_MAX_SCALE, 0,
                           SP_MAX_SCALE, 0, &ls->domain.lower) < 0;
    bad |= sp_number_in(c, dm, "/problem/domain", "upper", -SP_MAX_SCALE, 0,
                        SP_MAX_SCALE, 0, &ls->domain.upper) < 0;
    if (!bad && !(ls->domain.lower < ls->domain.upper))
        sp_err(c, "/problem/domain/upper", "out of range: upper (%.17g) must be "
               "> lower (%.17g)", ls->domain.upper, ls->domain.lower);
}

/* Outer objectives that need no member besides "type". */
static int data_free(int k) { return k == O_HALF || k == O_VALID; }

/* "outer" as a bare name: only the data-free ones. */
static void parse_outer_name(sp_ctx *c, const char *name, sp_ls *ls)
{
    int k = 0;
    while (OUTERS[k] && strcmp(OUTERS[k], name) != 0)
        k++;
    if (!OUTERS[k])
        sp_err(c, "/problem/outer", "unknown value \"%s\": expected one of "
               "\"half_norm_sq\", \"dist_sq\", \"quadratic\", \"validation\"", name);
    else if (!data_free(k))
        sp_err(c, "/problem/outer", "\"%s\" needs data: use {\"type\": \"%s\", ...}",
               name, name);
    else
        ls->outer = (ircg_outer_kind)(IRCG_OUTER_HALF_NORM_SQ + k);
}

/* Members that belong to another outer type (c with quadratic, ...). */
static void outer_foreign_members(sp_ctx *c, const cJSON *o, int k)
{
    static const char *const OWN[4][3] = {{"type", NULL}, {"type", "c", NULL},
                                          {"type", "Q", "q"}, {"type", NULL}};
    for (const cJSON *m = o->child; m; m = m->next) {
        int own = 0, known = 0;
        for (int j = 0; j < 3 && OWN[k][j]; j++)
            own |= strcmp(OWN[k][j], m->string) == 0;
        for (int j = 0; OUTER_MEMBERS[j]; j++)
            known |= strcmp(OUTER_MEMBERS[j], m->string) == 0;
        if (known && !own) { /* unknown ones were reported by sp_members */
            char p[SP_PTR];
            sp_ptr(p, "/problem/outer", m->string);
            sp_err(c, p, "not a member of outer type \"%s\"", OUTERS[k]);
        }
    }
}

/* "outer": "half_norm_sq" or {"type", "c" | "Q", "q"}. */
static void parse_outer(sp_ctx *c, const cJSON *o, sp_ls *ls)
{
    const char *base = "/problem/outer";
    int k = 0, r = 0, cols = 0;
    if (!o)
        return;
    if (cJSON_IsString(o)) {
        parse_outer_name(c, o->valuestring, ls);
        return;
    }
    if (!sp_members(c, o, base, OUTER_MEMBERS))
        return;
    int got = sp_enum(c, o, base, "type", OUTERS, &k);
    if (got == 0)
        sp_err(c, "/problem/outer/type", "missing required member \"type\"");
    if (got <= 0)
        return;
    ls->outer = (ircg_outer_kind)(IRCG_OUTER_HALF_NORM_SQ + k);
    outer_foreign_members(c, o, k);
    const cJSON *cv = sp_get(o, "c"), *Q = sp_get(o, "Q"), *q = sp_get(o, "q");
    if (k == 1 && !cv)
        sp_err(c, "/problem/outer/c", "missing required member \"c\"");
    if (k == 1 && cv)
        sp_num_array(c, cv, "/problem/outer/c", &ls->c, &ls->c_len);
    if (k == 2 && !Q)
        sp_err(c, "/problem/outer/Q", "missing required member \"Q\"");
    if (k == 2 && Q && sp_parse_dense(c, Q, "/problem/outer/Q", &ls->Q, &r, &cols)) {
        ls->Q_dim = r;
        if (r != cols)
            sp_err(c, "/problem/outer/Q", "must be square, got %d x %d", r, cols);
    }
    if (k == 2 && q)
        sp_num_array(c, q, "/problem/outer/q", &ls->q, &ls->q_len);
}

/* What the outer objective needs of the data, and what logistic
 * regression takes. */
static void check_outer_model(sp_ctx *c, const sp_ls *ls)
{
    if (ls->outer == IRCG_OUTER_VALIDATION && !ls->has_val)
        sp_err(c, "/problem/outer", "\"validation\" needs validation rows in "
               "/problem/data: \"A_val\" and \"b_val\" (inline), \"A_val_path\" and "
               "\"b_val\" or \"b_val_path\" (file), or \"m_val\" (synthetic)");
    if (ls->outer != IRCG_OUTER_VALIDATION && ls->has_val)
        sp_err(c, ls->source == SP_SRC_SYNTHETIC ? DP "/m_val"
                  : ls->source == SP_SRC_FILE ? DP "/A_val_path" : DP "/A_val",
               "validation rows are only read with \"outer\": \"validation\"");
}

void sp_parse_ls(sp_ctx *c, const cJSON *pb, api_spec *s, int logistic)
{
    sp_ls *ls = &s->ls;
    ls->logistic = logistic;
    ls->domain = (ircg_domain){IRCG_DOMAIN_L2_BALL, 1, -1, 1};
    ls->outer = IRCG_OUTER_HALF_NORM_SQ;
    ls->seed = 1;
    if (!sp_members(c, pb, "/problem", LS_MEMBERS))
        return;
    int e0 = c->nerr;
    parse_domain(c, sp_get(pb, "domain"), ls);
    ls->domain_ok = c->nerr == e0;
    e0 = c->nerr;
    parse_outer(c, sp_get(pb, "outer"), ls);
    ls->outer_ok = c->nerr == e0;
    e0 = c->nerr;
    sp_parse_ls_data(c, sp_get(pb, "data"), ls);
    ls->data_ok = c->nerr == e0;
    if (ls->outer_ok && ls->data_ok) {
        check_outer_model(c, ls);
        ls->outer_ok = c->nerr == e0;
    }
}

/* Lengths of c, Q, q against n (known once the data is). */
static void check_outer_dims(sp_ctx *c, const sp_ls *ls)
{
    int n = ls->tr.n;
    if (ls->c && ls->c_len != n)
        sp_err(c, "/problem/outer/c", "length %lld does not match n = %d",
               (long long)ls->c_len, n);
    if (ls->Q && ls->Q_dim != n)
        sp_err(c, "/problem/outer/Q", "is %d x %d but n = %d", ls->Q_dim, ls->Q_dim, n);
    if (ls->q && ls->q_len != n)
        sp_err(c, "/problem/outer/q", "length %lld does not match n = %d",
               (long long)ls->q_len, n);
}

/* Record a constructor's diag at the spec member its field names:
 * "/domain/..." and "/outer/..." live under /problem ("kind" is spelled
 * "type" in specs), except the validation rows "/outer/val/..." and the
 * data members, which live under /problem/data. */
static void problem_diag(sp_ctx *c, const sp_ls *ls, const ircg_diag *d)
{
    ircg_diag m = *d;
    const char *base = DP;
    int file = ls->source == SP_SRC_FILE;
    if (!strncmp(d->field, "/outer/val", 10)) {
        int b = !strcmp(d->field, "/outer/val/b");
        snprintf(m.field, sizeof m.field, "%s",
                 b ? (file && ls->va.b_path ? "/b_val_path" : "/b_val")
                   : (file ? "/A_val_path" : "/A_val"));
    } else if (!strncmp(d->field, "/domain", 7) || !strncmp(d->field, "/outer", 6)) {
        base = "/problem";
        char *k = strstr(m.field, "/kind");
        if (k && k[5] == '\0')
            snprintf(k, sizeof m.field - (size_t)(k - m.field), "/type");
    } else if (!strcmp(d->field, "/b") && file && ls->tr.b_path) {
        snprintf(m.field, sizeof m.field, "/b_path");
    }
    sp_diag(c, base, &m);
}

static ircg_ls_data ls_view(const sp_mat *mt)
{
    ircg_ls_data d = {mt->m, mt->n, mt->A, NULL, NULL, NULL, mt->b};
    if (!mt->A) {
        d.A_rowptr = mt->rowptr;
        d.A_colind = mt->colind;
        d.A_val = mt->val;
    }
    return d;
}

/* The data first (files, generator), then -- when domain and outer are
 * clean too -- the problem, whose constructor checks what remains (Q PSD,
 * labels, ...).  Returns n once the data is known. */
int64_t sp_build_ls(sp_ctx *c, api_spec *s)
{
    sp_ls *ls = &s->ls;
    ircg_diag d = {0};
    int e0 = c->nerr;
    if (!sp_ls_load(c, ls))
        return 0;
    if (ls->outer_ok)
        check_outer_dims(c, ls);
    if (c->nerr == e0 && ls->domain_ok && ls->outer_ok) {
        ircg_ls_data tr = ls_view(&ls->tr), va = ls_view(&ls->va);
        ircg_outer outer = {ls->outer, ls->c, ls->Q, ls->q, ls->has_val ? &va : NULL};
        ircg_error e = ls->logistic
                           ? ircg_problem_logistic(&tr, &outer, &ls->domain, &s->problem, &d)
                           : ircg_problem_least_squares(&tr, &outer, &ls->domain, &s->problem,
                                                        &d);
        if (e != IRCG_OK)
            problem_diag(c, ls, &d);
    }
    if (ls->source == SP_SRC_SYNTHETIC) { /* regenerated from the seed */
        free(ls->tr.A);
        free(ls->tr.b);
        free(ls->va.A);
        free(ls->va.b);
        ls->tr.A = ls->tr.b = ls->va.A = ls->va.b = NULL;
    }
    api_estimate exact; /* the sizes now known, before a solver is tried */
    if (s->problem && sp_estimate_built(s, &exact)) {
        e0 = c->nerr;
        sp_check_budget(c, &exact, ", sizes of the data loaded");
        if (c->nerr > e0) {
            ircg_problem_free(s->problem);
            s->problem = NULL;
        }
    }
    return ls->tr.n;
}
