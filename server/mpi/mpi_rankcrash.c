/*
 * mpi_rankcrash.c -- see mpi_rankcrash.h.  The report's lines, as
 * clients/mpi/mpi_crash.c writes them:
 *   ircg-mpi crash: host H pid P tid T: signal 11 (SIGSEGV) code 1 addr 0x0, phase: PHASE
 *   ircg-mpi crash: pc 0x0 sp 0x...
 *   ircg-mpi crash: caller /path/mca_btl_tcp.so(+0x9996)[0x...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_rankcrash.h"

#define PREFIX "ircg-mpi crash: "

void mpi_rank_crash_line(mpi_rank_crash *c, const char *line, size_t len)
{
    char text[512];
    size_t n = len < sizeof text - 1 ? len : sizeof text - 1;
    memcpy(text, line, n);
    text[n] = '\0';
    if (strncmp(text, PREFIX, strlen(PREFIX)) != 0)
        return;
    const char *s = text + strlen(PREFIX);
    if (!strncmp(s, "host ", 5)) {
        if (c->seen) /* the first rank's report only */
            return;
        const char *sig = strstr(s, ": signal "), *phase = strstr(s, ", phase: ");
        c->seen = 1;
        snprintf(c->host, sizeof c->host, "%.*s", (int)strcspn(s + 5, " "), s + 5);
        c->sig = sig ? atoi(sig + 9) : 0;
        snprintf(c->phase, sizeof c->phase, "%s", phase ? phase + 9 : "?");
    } else if (c->seen == 1 && !strncmp(s, "pc ", 3)) {
        c->pc_null = !strncmp(s + 3, "0x0 ", 4);
    } else if (c->seen == 1 && !strncmp(s, "caller ", 7)) {
        const char *obj = strrchr(s + 7, '/');
        obj = obj ? obj + 1 : s + 7;
        snprintf(c->caller, sizeof c->caller, "%.*s", (int)strcspn(obj, "["), obj);
    } else if (c->seen == 1 && !strncmp(s, "end", 3)) {
        c->seen = 2; /* later reports (other ranks) leave it */
    }
}

int mpi_rank_crash_known(const mpi_rank_crash *c)
{
    return c->seen && c->sig == 11 && c->pc_null && !strcmp(c->phase, "inside MPI_Init") &&
           !strncmp(c->caller, "mca_btl_tcp.so", 14);
}

void mpi_rank_crash_describe(const mpi_rank_crash *c, char *buf, size_t len)
{
    if (!c->seen) {
        snprintf(buf, len, "%s", "");
        return;
    }
    int n = snprintf(buf, len, "the rank on %s died of signal %d %s%s%s", c->host, c->sig,
                     c->phase, c->pc_null ? ", calling a null pointer from " : "",
                     c->pc_null ? (c->caller[0] ? c->caller : "?") : "");
    if (n > 0 && (size_t)n < len && mpi_rank_crash_known(c))
        snprintf(buf + n, len - (size_t)n,
                 ": Open MPI's TCP transport called a receive callback that was not yet "
                 "registered -- a peer's first message came before this rank's MPI_Init "
                 "had set its receivers up (Open MPI 4.1 under Slurm's PMIx; not ours: "
                 "deploy/README.md, \"A rank that dies at its start\")");
}
