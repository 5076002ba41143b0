/*
 * stream.c -- response bodies that are made piece by piece (a trace of a
 * million rows read from SQLite in batches: constant memory whatever its
 * length), and gzip (zlib) for clients that send Accept-Encoding: gzip,
 * for streamed and buffered bodies alike.
 *
 * A stream is an MHD content-reader callback: when the bytes handed to MHD
 * run out, it asks the route's fill function for the next piece (which
 * appends at least one batch or says it was the last) and, for gzip,
 * deflates it.  MHD runs a thread per connection, so a fill may block on
 * the store; it borrows a store handle for each batch only (srv_pool_get),
 * so a slow client never holds one.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "http/http.h"

/* Bodies shorter than this are sent as they are: gzip would save little. */
#define GZIP_MIN 1024
/* A fill is asked again until this much raw text is waiting. */
#define PIECE 65536

bool srv_wants_gzip(srv_req *r)
{
    const char *ae = srv_req_header(r, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    const char *g = ae ? strstr(ae, "gzip") : NULL;
    if (!g)
        return false;
    /* "gzip;q=0" refuses it */
    g += 4;
    while (*g == ' ')
        g++;
    if (*g == ';') {
        const char *q = strstr(g, "q=");
        if (q && strtod(q + 2, NULL) <= 0)
            return false;
    }
    return true;
}

/* gzip wrapper: windowBits 15 + 16.  Level 1: a million trace rows (221
 * MB of CSV) took 12 s more than plain at level 6 -- slower than most
 * links they would save time on -- and about a third of that at level 1,
 * for a body a few percent larger. */
static int deflate_start(z_stream *z)
{
    memset(z, 0, sizeof *z);
    return deflateInit2(z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
}

/* Deflates n bytes of in onto out (flush: Z_NO_FLUSH or Z_FINISH). */
static int deflate_into(z_stream *z, const char *in, size_t n, int flush, api_buf *out)
{
    char chunk[16384];
    int rc = Z_OK;
    z->next_in = (Bytef *)(uintptr_t)in;
    z->avail_in = (uInt)n;
    do {
        z->next_out = (Bytef *)chunk;
        z->avail_out = sizeof chunk;
        rc = deflate(z, flush);
        if (rc == Z_STREAM_ERROR)
            return -1;
        api_buf_add(out, chunk, sizeof chunk - z->avail_out);
    } while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return out->nomem ? -1 : 0;
}

int srv_gzip(const char *in, size_t n, char **out, size_t *outlen)
{
    z_stream z;
    api_buf b = {0};
    if (n > UINT32_MAX || deflate_start(&z) != 0)
        return -1;
    int rc = deflate_into(&z, in, n, Z_FINISH, &b);
    deflateEnd(&z);
    *outlen = b.len;
    *out = api_buf_take(&b);
    return rc == 0 && *out ? 0 : -1;
}

/* Whether srv_reply should compress this body. */
bool srv_gzip_is_worth(srv_req *r, const char *ctype, size_t len)
{
    return ctype && len >= GZIP_MIN && srv_wants_gzip(r);
}

/* ------------------------------------------------------------ streams -- */

typedef struct srv_stream {
    srv_fill_fn fill;
    void *ctx;
    void (*ctx_free)(void *);
    api_buf raw;         /* what fill wrote, not yet deflated          */
    api_buf out;         /* bytes for MHD                              */
    size_t out_pos;
    int gzip, last, failed;
    z_stream z;
} srv_stream;

/* Refill `out`: fill until PIECE bytes or the end, then deflate. */
static void refill(srv_stream *s)
{
    s->out.len = 0;
    s->out_pos = 0;
    while (!s->last && !s->failed && s->raw.len < PIECE) {
        int rc = s->fill(s->ctx, &s->raw);
        if (rc < 0 || s->raw.nomem)
            s->failed = 1;
        else if (rc > 0)
            s->last = 1;
    }
    if (s->failed)
        return;
    if (s->gzip) {
        if (deflate_into(&s->z, s->raw.p, s->raw.len, s->last ? Z_FINISH : Z_NO_FLUSH,
                         &s->out) != 0)
            s->failed = 1;
        s->raw.len = 0;
    } else {
        api_buf t = s->out; /* swap: the raw text is the body */
        s->out = s->raw;
        s->raw = t;
        s->raw.len = 0;
    }
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    srv_stream *s = cls;
    (void)pos;
    /* deflate may produce nothing for a small piece: ask again */
    while (s->out_pos == s->out.len && !s->last && !s->failed)
        refill(s);
    if (s->failed)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (s->out_pos == s->out.len)
        return MHD_CONTENT_READER_END_OF_STREAM;
    size_t n = s->out.len - s->out_pos;
    n = n < max ? n : max;
    memcpy(buf, s->out.p + s->out_pos, n);
    s->out_pos += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    srv_stream *s = cls;
    if (!s)
        return;
    if (s->gzip)
        deflateEnd(&s->z);
    if (s->ctx_free)
        s->ctx_free(s->ctx);
    api_buf_free(&s->raw);
    api_buf_free(&s->out);
    free(s);
}

void srv_reply_stream(srv_req *r, unsigned status, const char *ctype, srv_fill_fn fill,
                      void *ctx, void (*ctx_free)(void *))
{
    srv_stream *s = calloc(1, sizeof *s);
    if (!s || (srv_wants_gzip(r) && deflate_start(&s->z) != 0)) {
        free(s);
        if (ctx_free)
            ctx_free(ctx);
        srv_problem_internal(r, "out of memory");
        return;
    }
    *s = (srv_stream){.fill = fill, .ctx = ctx, .ctx_free = ctx_free,
                      .gzip = srv_wants_gzip(r), .z = s->z};
    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32768, reader, s, stream_free);
    if (!resp) {
        stream_free(s);
        srv_problem_internal(r, "out of memory");
        return;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    if (s->gzip)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    srv_reply_response(r, status, resp);
}
