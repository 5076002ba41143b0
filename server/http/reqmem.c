/*
 * reqmem.c -- the memory the requests in flight hold: their bodies as
 * they arrive (what the buffer allocated: it doubles as it grows) and
 * what handlers parse out of them (a spec's JSON tree and the data copied
 * out of it, a dataset's ratings), against one budget: --max-job-memory,
 * the same as one job's.  Without it 128 connections sending bodies at
 * the 64 MiB limit held 8 GiB, and their JSON trees about 40 times that.
 * A request that would go beyond it is answered 503 with Retry-After
 * (the others in flight finish and give theirs back).
 */
#include "http/http.h"

static int64_t held; /* atomic */

int srv_reqmem_take(srv_req *r, int64_t bytes)
{
    int64_t now = __atomic_load_n(&held, __ATOMIC_RELAXED);
    do {
        if (now + bytes > srv.cfg.max_job_memory && bytes > 0)
            return -1;
    } while (!__atomic_compare_exchange_n(&held, &now, now + bytes, 1, __ATOMIC_ACQ_REL,
                                          __ATOMIC_RELAXED));
    r->reserved += bytes;
    return 0;
}

void srv_reqmem_release(srv_req *r)
{
    __atomic_sub_fetch(&held, r->reserved, __ATOMIC_ACQ_REL);
    r->reserved = 0;
}

int64_t srv_reqmem_held(void) { return __atomic_load_n(&held, __ATOMIC_RELAXED); }

void srv_reqmem_refuse(srv_req *r, int64_t bytes)
{
    srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "5");
    srv_problem(r, MHD_HTTP_SERVICE_UNAVAILABLE, "requests-over-budget", "Busy",
                "the requests in flight hold %.0f MB; this one needs %.0f MB more, over the "
                "budget of %.0f MB (--max-job-memory); retry later",
                (double)srv_reqmem_held() / 1e6, (double)bytes / 1e6,
                (double)srv.cfg.max_job_memory / 1e6);
}
