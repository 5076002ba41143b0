/*
 * spec_estimate.c -- what a job will hold at its peak, from its members
 * alone (api_spec_estimate): nothing is loaded, generated or allocated.
 *
 * A job goes through phases, each holding some arrays of the last and
 * some of its own: parse (the JSON tree, the inline data copied out of
 * it), data (reading or generating the ratings or the matrix), build (the
 * problem's own copy, the norms), reference (g_opt's workspace), solve
 * (the solver's workspace, the snapshots' blobs) and output (the
 * iterates and the result's text).  Each array is a term: bytes and the
 * member its size comes from (the driver); the estimate is the largest
 * phase, and its drivers the members of its largest terms.  The sizes are
 * the library's own allocations (the comments name them), counted in
 * bytes; what no member drives (the process's code and libraries, a few
 * MB) is left out: a job's budget is on top of it.
 *
 * Files are not read: their size, their head (the format, a Matrix
 * Market size line) and a few short windows spread over them (the
 * length of a line, the largest ids) give the number of entries and the
 * dimensions.  The worker checks again once the data is loaded
 * (api_estimate_of_problem, the exact counts).
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec_internal.h"

/* What cJSON allocates a value: the node (64 bytes) and malloc's header
 * (16); strings (keys and values) their bytes and a header more. */
#define JSON_NODE 80.0
#define MALLOC_HEAD 16.0
/* Bytes of the result's text per number of an iterate ("-1.2345678901234567e-05,"). */
#define TEXT_NUMBER 25.0
/* Windows of a file sampled for its line length and largest ids. */
#define SAMPLE_WINDOWS 16
#define SAMPLE_BYTES 4096

#define DP "/problem/data"
#define DP_N_RATINGS DP "/n_ratings"
#define DP_N_ROWS DP "/n_rows"
#define DP_N_COLS DP "/n_cols"
#define DP_RATINGS DP "/ratings"
#define DP_PATH DP "/path"
#define DP_ID DP "/id"
#define DP_M DP "/m"
#define DP_N DP "/n"
#define DP_A DP "/A"
#define DP_A_PATH DP "/A_path"

enum { PH_PARSE, PH_DATA, PH_BUILD, PH_REF, PH_SOLVE, PH_OUTPUT, PH_N };
static const char *const PHASES[PH_N] = {"parse", "data", "build", "reference", "solve",
                                         "output"};

#define MAX_TERMS 16
typedef struct phase {
    const char *ptr[MAX_TERMS];
    double bytes[MAX_TERMS];
    int n;
    double total;
} phase;

typedef struct est {
    phase ph[PH_N];
} est;

/* bytes driven by the member at ptr, held in phases [from, to]. */
static void add(est *e, int from, int to, const char *ptr, double bytes)
{
    if (!(bytes > 0))
        return;
    for (int q = from; q <= to; q++) {
        phase *p = &e->ph[q];
        int i = 0;
        while (i < p->n && strcmp(p->ptr[i], ptr) != 0)
            i++;
        if (i == p->n && p->n < MAX_TERMS)
            p->ptr[p->n++] = ptr;
        if (i < p->n)
            p->bytes[i] += bytes;
        p->total += bytes;
    }
}

/* ------------------------------------------------------------ JSON -- */

int64_t api_json_parse_bytes(const char *json, size_t len)
{
    double values = 0, strings = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = json[i];
        if (ch == '"') {
            size_t j = i + 1;
            while (j < len && json[j] != '"')
                j += json[j] == '\\' ? 2 : 1;
            strings += (double)(j - i) + MALLOC_HEAD;
            values += 0.5; /* a key or a value: half a node on average */
            i = j;
        } else if (ch == '{' || ch == '[' || ch == 't' || ch == 'f' || ch == 'n' ||
                   ch == '-' || (ch >= '0' && ch <= '9')) {
            values++;
            while (ch != '{' && ch != '[' && i + 1 < len && !strchr(",]} \t\r\n", json[i + 1]))
                i++; /* the rest of a number or literal */
        }
    }
    return (int64_t)(values * JSON_NODE + strings);
}

/* ------------------------------------------------------------ files -- */

typedef struct file_guess {
    double entries;      /* ratings (or rows of a dense matrix)          */
    double rows, cols;   /* the largest ids seen (0: none)                */
    double bytes;        /* the file's size                               */
} file_guess;

/* A window of the file, cut to whole lines: parsed as ratings (format
 * known) for its line count and largest ids. */
static void sample(int fd, double at, ircg_ratings_format fmt, file_guess *g, double *lines,
                   double *lbytes)
{
    char buf[SAMPLE_BYTES];
    ssize_t got = pread(fd, buf, SAMPLE_BYTES, (off_t)at), b = 0, e = got - 1;
    while (at > 0 && b < got && buf[b++] != '\n')
        ; /* a window begins after a newline (the first: at the file's start) */
    while (e >= b && buf[e] != '\n')
        e--; /* and ends with one */
    if (got <= 0 || e < b)
        return;
    ircg_ratings_probe pr;
    ircg_read_options ro = {fmt, 0, 0, 1};
    if (ircg_ratings_probe_buffer(buf + b, (size_t)(e + 1 - b), &ro, &pr, NULL) != IRCG_OK ||
        pr.entries < 1)
        return;
    *lines += (double)pr.entries;
    *lbytes += (double)(e + 1 - b);
    g->rows = fmax(g->rows, pr.n_rows);
    g->cols = fmax(g->cols, pr.n_cols);
}

/* A ratings file: a Matrix Market size line says all; else the entries
 * from the size over the sampled bytes a line, the dimensions the largest
 * ids seen.  0 when the file cannot be looked at (the checks say why). */
static int guess_ratings_file(const char *path, const ircg_read_options *ro, file_guess *g)
{
    ircg_ratings_probe pr;
    struct stat st;
    int fd = -1;
    double lines = 0, lbytes = 0;
    *g = (file_guess){0};
    if (!path || stat(path, &st) != 0 || ircg_ratings_probe_file(path, ro, &pr, NULL) != IRCG_OK)
        return 0;
    g->bytes = (double)st.st_size;
    g->rows = pr.n_rows;
    g->cols = pr.n_cols;
    if (pr.declared >= 0 || pr.complete) {
        g->entries = pr.declared >= 0 ? (double)pr.declared : (double)pr.entries;
        return 1;
    }
    if ((fd = open(path, O_RDONLY)) < 0)
        return 0;
    for (int w = 0; w < SAMPLE_WINDOWS; w++)
        sample(fd, g->bytes * w / SAMPLE_WINDOWS, pr.format, g, &lines, &lbytes);
    close(fd);
    g->entries = lines > 0 ? g->bytes * lines / lbytes : g->bytes / 6;
    g->rows = ro->n_rows > 0 ? ro->n_rows : g->rows;
    g->cols = ro->n_cols > 0 ? ro->n_cols : g->cols;
    return 1;
}

/* A dense CSV matrix: its row length from the probe, its rows from the
 * size over the head's bytes a row. */
static int guess_dense_file(const char *path, int m_given, file_guess *g)
{
    struct stat st;
    int n = 0, fd;
    char buf[SAMPLE_BYTES];
    *g = (file_guess){0};
    if (!path || stat(path, &st) != 0 || ircg_dense_probe_file(path, &n, NULL) != IRCG_OK ||
        (fd = open(path, O_RDONLY)) < 0)
        return 0;
    ssize_t got = pread(fd, buf, sizeof buf, 0);
    close(fd);
    double nl = 0;
    for (ssize_t i = 0; i < got; i++)
        nl += buf[i] == '\n';
    g->bytes = (double)st.st_size;
    g->cols = n;
    g->rows = m_given > 0 ? m_given : nl > 0 ? g->bytes * nl / (double)got : 1;
    g->entries = g->rows * g->cols;
    return 1;
}

/* ----------------------------------------------- matrix completion -- */

/* Whether the generator draws row by row (SPEC.md: at least 2^22 ratings
 * on at most an eighth of the cells, 64 <= n_cols <= 2^21, n_rows >= 64,
 * every row and column covered). */
static int synth_by_rows_spec(const ircg_synth_ratings_spec *y)
{
    double cells = (double)y->n_rows * y->n_cols;
    return y->n_ratings >= (INT64_C(1) << 22) && y->n_ratings <= cells / 8 &&
           y->n_ratings >= (y->n_rows > y->n_cols ? y->n_rows : y->n_cols) &&
           y->n_rows >= 64 && y->n_cols >= 64 && y->n_cols <= (1 << 21);
}

typedef struct mc_size {
    double N, rows, cols;          /* ratings; the whole matrix's dimensions */
    double held_rows, held_cols;   /* what the problem holds (compaction)    */
    const char *dN, *dr, *dc;      /* their drivers                          */
    int floats;                    /* ratings kept as floats                 */
} mc_size;

/* Distinct values among N uniform draws from dim: dim (1 - e^(-N/dim)). */
static double distinct(double dim, double N)
{
    return dim <= 0 ? 0 : dim * -expm1(-N / dim);
}

/* The rows and columns held: X0's diagonal and those rated (mc_data). */
static void held(mc_size *z, const api_spec *s, int uniform)
{
    double m0 = fmin(z->rows, z->cols);
    double rated_r = uniform ? distinct(z->rows, z->N) : fmin(z->rows, z->N);
    double rated_c = uniform ? distinct(z->cols, z->N) : fmin(z->cols, z->N);
    z->held_rows = fmin(z->rows, m0 + rated_r);
    z->held_cols = fmin(z->cols, m0 + rated_c);
    if (s->mc.outer == IRCG_OUTER_COLUMN_VARIANCE && z->held_rows < z->rows)
        z->held_rows += 1; /* the shared row */
    if (s->x0) /* built whole for a start matrix */
        z->held_rows = z->rows, z->held_cols = z->cols;
}

static int mc_size_of(const api_spec *s, mc_size *z)
{
    const sp_mc *mc = &s->mc;
    file_guess g;
    *z = (mc_size){.floats = 1}; /* ratings are floats when exact (mc_problem.c) */
    if (mc->source == SP_SRC_SYNTHETIC) {
        const ircg_synth_ratings_spec *y = &mc->synth;
        *z = (mc_size){(double)y->n_ratings, y->n_rows, y->n_cols, 0, 0, DP_N_RATINGS,
                       DP_N_ROWS, DP_N_COLS, 1};
        held(z, s, y->n_ratings < fmax(y->n_rows, y->n_cols));
        return 1;
    }
    if (mc->source == SP_SRC_INLINE && mc->inline_r) {
        const ircg_ratings *r = mc->inline_r;
        *z = (mc_size){(double)r->nnz, r->n_rows, r->n_cols, 0, 0, DP_RATINGS,
                       mc->n_rows ? DP_N_ROWS : DP_RATINGS,
                       mc->n_cols ? DP_N_COLS : DP_RATINGS, 1};
        held(z, s, 0);
        return 1;
    }
    if (mc->source == SP_SRC_FILE) {
        ircg_read_options ro = {mc->format, mc->n_rows, mc->n_cols, 0};
        if (!guess_ratings_file(mc->resolved, &ro, &g))
            return 0;
        *z = (mc_size){g.entries, fmax(g.rows, 1), fmax(g.cols, 1), 0, 0, DP_PATH, DP_PATH,
                       DP_PATH, 1};
        held(z, s, 0);
        return 1;
    }
    return 0; /* a dataset: api_estimate_dataset, from its size */
}

/* Bytes of the iterates (x and z: their factors, the SVD's scratch of
 * mc_core_svd) and the result's text (both, in a buffer that doubles as
 * it grows) for rank k. */
static void mc_output(est *e, const api_spec *s, const mc_size *z, double k)
{
    double rc = z->held_rows + z->held_cols;
    add(e, PH_OUTPUT, PH_OUTPUT, z->dr, 2 * 8 * rc * k + 3 * 8 * rc * k + 3 * k * rc * TEXT_NUMBER);
    if (s->dense == SP_DENSE_YES || (s->dense == SP_DENSE_AUTO_MODE &&
                                     z->rows * z->cols <= SP_DENSE_AUTO))
        add(e, PH_OUTPUT, PH_OUTPUT, "/output/dense_iterate",
            2 * z->rows * z->cols * (8 + TEXT_NUMBER));
}

/* The atoms an iterate holds: one an iteration, compressed from the
 * threshold on (mc_ops.c: |Omega| / (8 (n + p)), at least 8; then 1.5 k
 * + 8 of the rank kept): at most the iterations, and for long runs twice
 * the threshold (an iterate of numerical rank beyond that is not
 * foreseen); the factors' capacity is the power of 2 above, from 16. */
static double atoms(const api_spec *s, const mc_size *z)
{
    double base = fmax(8, floor(z->N / (8 * (z->rows + z->cols))));
    return fmin((double)s->settings.max_iter + 1, 2 * base + 16);
}

static double atom_cap(double k)
{
    double cap = 16;
    while (cap < k)
        cap *= 2;
    return cap;
}

/* The conditional-gradient workspace (mc_ops.c alloc_ws): X and Z on
 * Omega, the LMO's Lanczos (32 left vectors: gram.c), the factors, the
 * scratch vectors, the column buffers of the passes. */
static void mc_cg_ws(est *e, int from, int to, const api_spec *s, const mc_size *z,
                     double cap, int residual)
{
    double groups = fmin(16, fmax(1, z->N / 32768)) * (s->settings.threads > 1);
    add(e, from, to, z->dN, (16 + 8 * residual) * z->N);
    add(e, from, to, z->dr, 8 * z->held_rows * (32 + 6 + cap));
    add(e, from, to, z->dc, 8 * z->held_cols * (33 + 4 + cap + groups));
}

static int stop_given(const api_spec *s)
{
    const ircg_stop *t = &s->settings.stop;
    return t->inner_gap > 0 || t->inner_gap_rel > 0 || t->outer_gap > 0 || t->outer_gap_rel > 0;
}

static void mc_terms(est *e, const api_spec *s, const mc_size *z, double parse)
{
    const sp_mc *mc = &s->mc;
    double N = z->N, k = atoms(s, z), cap = atom_cap(k);
    double problem = N * (4 + (z->held_cols <= 65536 ? 2 : 0) + (z->floats ? 4 : 8)) +
                     8 * z->held_rows;
    int alg = s->settings.algorithm, refc = s->ref.compute;

    add(e, PH_PARSE, PH_PARSE, "", parse);
    if (mc->source == SP_SRC_INLINE) /* kept for the normalized echo */
        add(e, PH_PARSE, PH_OUTPUT, z->dN, 16 * N);
    else if (mc->source == SP_SRC_SYNTHETIC && synth_by_rows_spec(&mc->synth)) {
        /* R, the rows' layout, and the factors: U's rows, all of V */
        add(e, PH_DATA, PH_DATA, z->dN, 16 * N + 16 * z->rows);
        add(e, PH_DATA, PH_DATA, DP "/rank", 8.0 * mc->synth.rank * (z->rows + z->cols));
    } else if (mc->source == SP_SRC_SYNTHETIC) {
        /* R and the cell set (2N slots, a power of 2); the factors' rows
         * of the rows and columns rated (synth.c) */
        add(e, PH_DATA, PH_DATA, z->dN, 16 * N + 8 * exp2(ceil(log2(2 * N + 1))));
        add(e, PH_DATA, PH_DATA, DP "/rank",
            8.0 * mc->synth.rank * (fmin(z->rows, N) + fmin(z->cols, N)));
    } else { /* a reader's arrays and the duplicate check's sort */
        add(e, PH_DATA, PH_DATA, z->dN, 32 * N);
    }
    if (mc->source != SP_SRC_INLINE) /* R until the problem is built */
        add(e, PH_BUILD, PH_BUILD, z->dN, 16 * N);
    add(e, PH_BUILD, PH_BUILD, z->dN, 8 * N); /* the held ids, the row map */
    add(e, PH_BUILD, PH_OUTPUT, z->dN, problem);
    if (refc) { /* g_opt's own workspace, its residual kept */
        mc_cg_ws(e, PH_REF, PH_REF, s, z, cap, 1);
        add(e, PH_SOLVE, PH_OUTPUT, z->dN, 8 * N + 2 * N);
    }
    if (alg == IRCG_ALG_IRPG || alg == IRCG_ALG_BISG) { /* three points (mc_prox.h) */
        add(e, PH_SOLVE, PH_OUTPUT, z->dN, 3 * 8 * N);
        add(e, PH_SOLVE, PH_OUTPUT, z->dr, 3 * 8 * z->held_rows * (cap + 40));
        add(e, PH_SOLVE, PH_OUTPUT, z->dc, 3 * 8 * z->held_cols * (cap + 42));
        if (s->settings.projection == IRCG_PROJ_FULL) /* Y, U, Vt and dgesdd's work */
            add(e, PH_SOLVE, PH_SOLVE, "/algorithm/projection",
                5 * 8 * z->held_rows * z->held_cols);
    } else if (alg == IRCG_ALG_FCBIO) {
        /* dense held n x p matrices (mc_point.c): x, z, the last point,
         * the SVD's A, U and Vt, FC-BiO's x_{k-1}, y, two gradients, the
         * step's scratch and x_{k+1}, the certificate's C (bisect/,
         * mc_point_cert.c); four observations of N + p */
        add(e, PH_SOLVE, PH_OUTPUT, z->dr, 8 * 14 * z->held_rows * z->held_cols / 2);
        add(e, PH_SOLVE, PH_OUTPUT, z->dc, 8 * 14 * z->held_rows * z->held_cols / 2);
        add(e, PH_SOLVE, PH_OUTPUT, z->dN, 4 * 8 * (N + z->held_cols));
    } else {
        mc_cg_ws(e, PH_SOLVE, PH_OUTPUT, s, z, cap,
                 alg == IRCG_ALG_CGBIO || s->settings.lmo_engine == IRCG_LMO_ARPACK);
        if (alg == IRCG_ALG_CGBIO) /* the cut's reference and its Lanczos */
            add(e, PH_SOLVE, PH_OUTPUT, z->dN, 8 * N + 8 * 32 * (z->held_rows + z->held_cols));
    }
    if (s->certify_async && s->threads_given && alg == IRCG_ALG_IRCG &&
        s->settings.certify && !stop_given(s))
        /* the certificates' copies of x and z on Omega, in flight (only a
         * spec that names its threads has them: cmd_solve.c, use_machine) */
        add(e, PH_SOLVE, PH_SOLVE, z->dN, IRCG_CERT_ASYNC_COPIES * 16 * N);
    if (s->output.snapshot_every > 0) /* a state's blob, held while it is stored */
        add(e, PH_SOLVE, PH_SOLVE, "/output/snapshot_every",
            2 * (16 * N + 8 * (z->held_rows + z->held_cols) * (cap + 2)));
    mc_output(e, s, z, k);
}

/* --------------------------------------------- least squares, logistic -- */

typedef struct ls_size {
    double m, n, nnz, mv;   /* rows, columns, stored entries, validation rows */
    const char *dm, *dn;    /* drivers of m and n                            */
    int dense;
} ls_size;

static int ls_size_of(const api_spec *s, ls_size *z)
{
    const sp_ls *ls = &s->ls;
    const sp_mat *t = &ls->tr;
    file_guess g;
    *z = (ls_size){0};
    if (ls->source == SP_SRC_SYNTHETIC) {
        *z = (ls_size){t->m, t->n, (double)t->m * t->n, ls->m_val, DP_M, DP_N, 1};
        return 1;
    }
    if (ls->source == SP_SRC_INLINE) {
        double nnz = t->a_kind == SP_A_CSR && t->rowptr ? (double)t->rowptr[t->m]
                                                        : (double)t->m * t->n;
        *z = (ls_size){t->m, t->n, nnz, ls->va.m, DP_A, DP_A, t->a_kind != SP_A_CSR};
        return 1;
    }
    if (ls->source == SP_SRC_DATASET && t->A_id) { /* its upload says exactly */
        const api_dataset_meta *a = &t->ds;
        double mv = ls->has_val && ls->va.A_id ? (double)ls->va.ds.rows : 0;
        *z = (ls_size){(double)a->rows, (double)a->cols, (double)a->nnz, mv, DP_ID, DP_ID,
                       !a->sparse};
        return 1;
    }
    if (ls->source != SP_SRC_FILE || !t->A_resolved)
        return 0;
    ircg_read_options ro = {IRCG_FORMAT_MATRIX_MARKET, t->m_given, t->n_given, 0};
    ircg_ratings_probe pr;
    if (ircg_ratings_probe_file(t->A_resolved, &ro, &pr, NULL) == IRCG_OK &&
        pr.declared >= 0) { /* Matrix Market: its size line */
        *z = (ls_size){pr.n_rows, pr.n_cols, (double)pr.declared, 0, DP_A_PATH, DP_A_PATH,
                       0};
        return 1;
    }
    if (!guess_dense_file(t->A_resolved, t->m_given, &g))
        return 0;
    *z = (ls_size){g.rows, g.cols, g.entries, 0, DP_A_PATH, DP_A_PATH, 1};
    return 1;
}

/* A dataset parsed by a text reader (a NumPy one is read into its arrays
 * directly; a CSC or COO one is sorted into CSR through one more copy). */
static int reader_copy(const sp_ls *ls)
{
    const char *f = ls->tr.ds.format;
    return strcmp(f, "npy") != 0 && (strcmp(f, "npz") != 0 || !ls->tr.ds.sparse);
}

static void ls_terms(est *e, const api_spec *s, const ls_size *z, double parse)
{
    const sp_ls *ls = &s->ls;
    double A = z->dense ? 8 * z->nnz : 12 * z->nnz + 8 * z->m;
    double Av = z->mv * (z->dense ? 8 * z->n : 12 * z->n);
    double k = fmin(z->m, z->n), outerQ = ls->Q ? 8.0 * ls->Q_dim * ls->Q_dim : 0;
    int first = ls->source == SP_SRC_INLINE ? PH_PARSE : PH_DATA;
    int last = ls->source == SP_SRC_SYNTHETIC ? PH_BUILD : PH_OUTPUT;

    add(e, PH_PARSE, PH_PARSE, "", parse);
    /* A's arrays grow with m and n both: half of each term to each.  The
     * spec's own copy of A (and A_val): a generated one until the problem
     * is built (then made again from the seed when needed), the others
     * to the end */
    add(e, first, last, z->dm, (A + Av) / 2);
    add(e, first, last, z->dn, (A + Av) / 2);
    if (ls->source == SP_SRC_DATASET && reader_copy(ls)) { /* a reader's arrays */
        add(e, PH_DATA, PH_DATA, z->dm, z->dense ? A / 2 : 1.5 * A);
        add(e, PH_DATA, PH_DATA, z->dn, z->dense ? A / 2 : 1.5 * A);
    }
    if (ls->source == SP_SRC_FILE) { /* a reader's arrays */
        add(e, PH_DATA, PH_DATA, z->dm, z->dense ? A / 2 : 1.5 * A);
        add(e, PH_DATA, PH_DATA, z->dn, z->dense ? A / 2 : 1.5 * A);
    }
    add(e, PH_PARSE, PH_OUTPUT, "/problem/outer", outerQ);
    /* the problem's copy, and ||A||_2 by the Gram matrix when it is small
     * (ls_linalg.c) */
    add(e, PH_BUILD, PH_OUTPUT, z->dm, (A + Av) / 2);
    add(e, PH_BUILD, PH_OUTPUT, z->dn, (A + Av) / 2);
    if (!z->dense && z->n <= IRCG_LS_BY_COLUMNS_MAX_N) { /* and by columns */
        add(e, PH_BUILD, PH_OUTPUT, z->dm, 6 * z->nnz);
        add(e, PH_BUILD, PH_OUTPUT, z->dn, 6 * z->nnz + 8 * (z->n + 1));
    }
    add(e, PH_BUILD, PH_OUTPUT, "/problem/outer", outerQ);
    if (k <= 4000 && z->m * z->n * k <= 2e12)
        add(e, PH_BUILD, PH_BUILD, z->m <= z->n ? z->dm : z->dn,
            8 * k * k + (z->dense ? 0 : 8 * z->m * z->n));
    /* the workspace: vectors of n and m (a dozen each), IR-PG's and the
     * reference's alike */
    add(e, PH_REF, PH_OUTPUT, z->dn, 8 * 12 * z->n);
    add(e, PH_REF, PH_OUTPUT, z->dm, 8 * 8 * (z->m + z->mv));
    if (s->kind == IRCG_PROBLEM_LOGISTIC && z->n <= IRCG_TWOSTAGE_MAX_DIM) {
        /* the certificates' local curvature (lr_curv.c): the weighted Gram
         * matrix, the rows' norms and weights */
        add(e, PH_SOLVE, PH_OUTPUT, z->dn, 8 * z->n * z->n);
        add(e, PH_SOLVE, PH_OUTPUT, z->dm, 16 * z->m);
    }
    if (s->settings.algorithm == IRCG_ALG_FCBIO) /* its state and the strongly
                                                    convex bound's vectors */
        add(e, PH_SOLVE, PH_OUTPUT, z->dn, 8 * 12 * z->n);
    if (s->settings.algorithm == IRCG_ALG_TWOSTAGE) {
        /* twostage/: FISTA's vectors and observations; H, the Cholesky
         * factor L and the basis B, W = L^-T L^-1 B (n x n each at most:
         * r <= n), the Gram matrix of A's smaller side and its
         * eigenvectors' copy C, S (r x r), and a densified CSR A while the
         * Gram is made (ls_gram: while m n <= 4e6, or m < n <= 2000) */
        double side = fmin(z->m, z->n);
        add(e, PH_SOLVE, PH_OUTPUT, z->dn, 8 * (16 * z->n + 4 * z->n * z->n + side * side));
        add(e, PH_SOLVE, PH_OUTPUT, z->dm, 8 * (6 * (z->m + z->mv) + 2 * side * side));
        if (!z->dense)
            add(e, PH_SOLVE, PH_SOLVE, z->dm, 8 * fmin(z->m * z->n, 4e6));
    }
    add(e, PH_OUTPUT, PH_OUTPUT, z->dn, 2 * z->n * (8 + TEXT_NUMBER));
    if (s->output.snapshot_every > 0)
        add(e, PH_SOLVE, PH_SOLVE, "/output/snapshot_every", 8 * 8 * (z->n + z->m));
}

/* ------------------------------------------------------------ result -- */

static void finish(const est *e, api_estimate *out)
{
    int peak = 0;
    for (int q = 1; q < PH_N; q++)
        if (e->ph[q].total > e->ph[peak].total)
            peak = q;
    const phase *p = &e->ph[peak];
    out->memory = (int64_t)ceil(p->total);
    out->phase = PHASES[peak];
    int used[MAX_TERMS] = {0};
    for (out->ndrivers = 0; out->ndrivers < API_EST_DRIVERS; out->ndrivers++) {
        int best = -1;
        for (int i = 0; i < p->n; i++)
            if (!used[i] && p->ptr[i][0] && (best < 0 || p->bytes[i] > p->bytes[best]))
                best = i;
        if (best < 0 || p->bytes[best] < 0.05 * p->total)
            break;
        used[best] = 1;
        snprintf(out->drivers[out->ndrivers], sizeof out->drivers[0], "%s", p->ptr[best]);
        out->shares[out->ndrivers] = p->bytes[best] / p->total;
    }
}

/* A dataset: its stored bytes, read whole, then parsed (lines of six
 * bytes at the least: an upper bound of its ratings and dimensions). */
static int dataset_size(const api_spec *s, const api_parse_options *opt, mc_size *z)
{
    int64_t bytes = opt && opt->dataset_bytes && s->mc.dataset_id
                        ? opt->dataset_bytes(opt->dataset_user, s->mc.dataset_id)
                        : -1;
    if (bytes < 0)
        return 0;
    double N = fmax(1, (double)bytes / 6);
    *z = (mc_size){N, N, N, N, N, DP_ID, DP_ID, DP_ID, 1};
    return (int)bytes + 1 > 0;
}

/* The whole estimate from the sizes (exact once the data is known). */
static void mc_estimate(const api_spec *s, const mc_size *z, int64_t dataset, api_estimate *out)
{
    est e = {0};
    mc_terms(&e, s, z, (double)s->parse_bytes);
    if (dataset > 0)
        add(&e, PH_DATA, PH_DATA, DP_ID, (double)dataset);
    finish(&e, out);
    out->ratings = (int64_t)z->N;
    out->rows = (int64_t)z->held_rows;
    out->cols = (int64_t)z->held_cols;
    /* a pass: column index (2 or 4), rating (4 or 8), X and Z (8 each) an entry */
    out->pass_bytes = (int64_t)(z->N * ((z->held_cols <= 65536 ? 2 : 4) + (z->floats ? 4 : 8) + 16));
}

static void ls_estimate(const api_spec *s, const ls_size *z, api_estimate *out)
{
    est e = {0};
    ls_terms(&e, s, z, (double)s->parse_bytes);
    finish(&e, out);
    out->ratings = (int64_t)z->nnz;
    out->rows = (int64_t)z->m;
    out->cols = (int64_t)z->n;
    out->pass_bytes = (int64_t)(z->dense ? 8 * z->nnz : 12 * z->nnz);
}

int sp_estimate(const api_spec *s, const api_parse_options *opt, api_estimate *out)
{
    mc_size mz;
    ls_size lz;
    *out = (api_estimate){.exact = 1};
    if (!s->typed)
        return 0;
    if (s->kind == IRCG_PROBLEM_MATRIX_COMPLETION) {
        if (s->mc.source == SP_SRC_DATASET) {
            if (!dataset_size(s, opt, &mz))
                return 0;
            out->exact = 0;
            mc_estimate(s, &mz, (int64_t)(mz.N * 6), out);
            return 1;
        }
        if (!mc_size_of(s, &mz))
            return 0;
        out->exact = s->mc.source != SP_SRC_FILE;
        mc_estimate(s, &mz, 0, out);
        return 1;
    }
    if (!ls_size_of(s, &lz))
        return 0;
    out->exact = s->ls.source != SP_SRC_FILE;
    ls_estimate(s, &lz, out);
    return 1;
}

int sp_mc_held_known(const api_spec *s, double *rows, double *cols)
{
    mc_size z;
    if (!s->typed || s->kind != IRCG_PROBLEM_MATRIX_COMPLETION ||
        (s->mc.source != SP_SRC_SYNTHETIC && s->mc.source != SP_SRC_INLINE) ||
        !mc_size_of(s, &z))
        return 0;
    *rows = z.held_rows;
    *cols = z.held_cols;
    return 1;
}

int sp_estimate_built(const api_spec *s, api_estimate *out)
{
    ircg_problem_info pi;
    if (!s->problem)
        return 0;
    ircg_problem_get_info(s->problem, &pi);
    *out = (api_estimate){.exact = 1};
    if (pi.kind == IRCG_PROBLEM_MATRIX_COMPLETION) {
        mc_size z = {(double)pi.n_observed, pi.n_rows, pi.n_cols, pi.held_rows, pi.held_cols,
                     s->mc.source == SP_SRC_SYNTHETIC ? DP_N_RATINGS
                     : s->mc.source == SP_SRC_INLINE  ? DP_RATINGS
                     : s->mc.source == SP_SRC_FILE    ? DP_PATH : DP_ID,
                     NULL, NULL, 1};
        z.dr = z.dc = z.dN;
        mc_estimate(s, &z, 0, out);
        return 1;
    }
    ls_size z;
    if (!ls_size_of(s, &z) && s->ls.source != SP_SRC_FILE)
        return 0;
    z.m = pi.n_rows;
    z.n = pi.n_cols;
    if (s->ls.source == SP_SRC_FILE && !z.dm)
        z = (ls_size){pi.n_rows, pi.n_cols, (double)pi.n_rows * pi.n_cols, 0, DP_A_PATH,
                      DP_A_PATH, 1};
    ls_estimate(s, &z, out);
    return 1;
}

void api_spec_estimate(const api_spec *s, api_estimate *out) { *out = s->est; }

/* "12.3 MB" */
static const char *human(char *buf, size_t len, double bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (bytes >= 1000 && u < 5)
        bytes /= 1000, u++;
    snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

void sp_check_budget(sp_ctx *c, const api_estimate *e, const char *when)
{
    char need[32], have[32];
    int64_t max = c->opt->max_memory;
    if (max <= 0 || e->memory <= max)
        return;
    human(need, sizeof need, (double)e->memory);
    human(have, sizeof have, (double)max);
    if (e->ndrivers == 0)
        sp_err(c, "", "the job would hold about %s at its peak (%s%s), more than the "
               "budget of %s a job", need, e->phase, when, have);
    for (int i = 0; i < e->ndrivers; i++)
        sp_err(c, e->drivers[i], "drives %.0f%% of the %s the job would hold at its peak "
               "(%s%s), more than the budget of %s a job", 100 * e->shares[i], need,
               e->phase, when, have);
}

void sp_check_parse_budget(sp_ctx *c, int64_t parse_bytes)
{
    char need[32], have[32];
    int64_t max = c->opt->max_memory;
    if (max > 0 && parse_bytes > max)
        sp_err(c, "", "parsing this document would take about %s, more than the budget of "
               "%s a job", human(need, sizeof need, (double)parse_bytes),
               human(have, sizeof have, (double)max));
}

char *api_estimate_json(const api_estimate *e)
{
    cJSON *o = cJSON_CreateObject(), *d = cJSON_CreateArray();
    char *text = NULL;
    if (!o || !d) {
        cJSON_Delete(o);
        cJSON_Delete(d);
        return NULL;
    }
    cJSON_AddNumberToObject(o, "memory_bytes", (double)e->memory);
    cJSON_AddStringToObject(o, "peak_phase", e->phase ? e->phase : "");
    for (int i = 0; i < e->ndrivers; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "pointer", e->drivers[i]);
        cJSON_AddNumberToObject(x, "share", round(1000 * e->shares[i]) / 1000);
        cJSON_AddItemToArray(d, x);
    }
    cJSON_AddItemToObject(o, "drivers", d);
    cJSON_AddNumberToObject(o, "entries", (double)e->ratings);
    cJSON_AddNumberToObject(o, "rows", (double)e->rows);
    cJSON_AddNumberToObject(o, "cols", (double)e->cols);
    cJSON_AddNumberToObject(o, "pass_bytes", (double)e->pass_bytes);
    cJSON_AddBoolToObject(o, "exact_sizes", e->exact);
    text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

char *api_estimate_text(const api_estimate *e)
{
    char mem[32], pass[32], *out = malloc(512);
    size_t at = 0;
    if (!out)
        return NULL;
    at += (size_t)snprintf(out, 512, "estimate: %s at the peak (%s)",
                           human(mem, sizeof mem, (double)e->memory), e->phase ? e->phase : "");
    for (int i = 0; i < e->ndrivers && at < 400; i++)
        at += (size_t)snprintf(out + at, 512 - at, "%s %s %.0f%%", i ? "," : "; from",
                               e->drivers[i], 100 * e->shares[i]);
    snprintf(out + at, 512 - at, "; a pass over the data moves %s%s",
             human(pass, sizeof pass, (double)e->pass_bytes),
             e->exact ? "" : " (sizes guessed from the file)");
    return out;
}
