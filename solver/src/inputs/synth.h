/*
 * synth.h -- what the two ways of drawing synthetic ratings share
 * (synth.c: any size, one thread; synth_rows.c: large instances, row by
 * row on a thread pool): the rating of a cell from the factors.
 */
#ifndef IRCG_INPUTS_SYNTH_H
#define IRCG_INPUTS_SYNTH_H

#include <math.h>
#include <stdint.h>

#include "ircg.h"

/* The scale of the ratings: x = centre + scale <U_i, V_j> + noise N(0,1),
 * rounded to the steps from lo and clamped (synth.c's header). */
typedef struct synth_scale {
    double lo, steps, centre, scale, noise;
    int rank;
} synth_scale;

static inline synth_scale synth_scale_of(const ircg_synth_ratings_spec *s)
{
    synth_scale c = {s->min_rating, floor(s->max_rating - s->min_rating),
                     0.5 * (s->min_rating + s->max_rating),
                     0.25 * (s->max_rating - s->min_rating) / sqrt((double)s->rank),
                     s->noise, s->rank};
    return c;
}

/* The rating of the cell with factor rows u and v; z is the noise draw
 * (ignored when the spec has no noise). */
static inline double synth_rating(const synth_scale *c, const double *u, const double *v,
                                  double z)
{
    double dot = 0;
    for (int q = 0; q < c->rank; q++)
        dot += u[q] * v[q];
    double x = c->centre + c->scale * dot;
    if (c->noise > 0)
        x += c->noise * z;
    double k = floor(x - c->lo + 0.5);
    k = k < 0 ? 0 : k > c->steps ? c->steps : k;
    return c->lo + k;
}

/* synth.c: a random permutation of 0..n-1 (Fisher-Yates), malloc'ed. */
struct slv_rng;
int32_t *synth_permutation(struct slv_rng *g, int n);

/* synth_rows.c: whether the row-by-row generator draws this spec (it
 * depends on the spec alone), and the generator: R holds n_ratings
 * entries to fill; U (n_rows x rank) and V (n_cols x rank) row-major. */
int synth_by_rows(const ircg_synth_ratings_spec *s);
/* The ratings of rows [lo, hi) into a new *out (U: those rows' factors) (only the blocks of rows
 * that hold them are drawn), and the ratings of every row (counts, n_rows;
 * 0, or -1 when out of memory). */
ircg_error synth_rows(const ircg_synth_ratings_spec *s, int lo, int hi, const double *U,
                      const double *V, ircg_ratings **out, ircg_diag *diag);
int synth_row_counts(const ircg_synth_ratings_spec *s, int64_t *counts);

#endif /* IRCG_INPUTS_SYNTH_H */
