/*
 * mpi_rankcrash.c -- see mpi_rankcrash.h.  The report's first line, as
 * clients/mpi/mpi_crash.c writes it (in one write: the lines after it may
 * be lost when the launcher ends the step at once):
 *   ircg-mpi crash: host H pid P tid T: signal 11 (SIGSEGV) code 1 addr 0x0
 *     pc 0x0 caller mca_btl_tcp.so+0x9996, phase: PHASE
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
    /* the first rank's report only: later ones are its peers' deaths */
    if (c->seen || strncmp(text, PREFIX "host ", strlen(PREFIX) + 5) != 0)
        return;
    const char *s = text + strlen(PREFIX) + 5;
    const char *sig = strstr(s, ": signal "), *phase = strstr(s, ", phase: ");
    const char *pc = strstr(s, " pc "), *caller = strstr(s, " caller ");
    c->seen = 1;
    snprintf(c->host, sizeof c->host, "%.*s", (int)strcspn(s, " "), s);
    c->sig = sig ? atoi(sig + 9) : 0;
    snprintf(c->phase, sizeof c->phase, "%s", phase ? phase + 9 : "?");
    c->pc_null = pc && !strncmp(pc + 4, "0x0", 3) && (pc[7] == ' ' || pc[7] == ',');
    if (caller)
        snprintf(c->caller, sizeof c->caller, "%.*s", (int)strcspn(caller + 8, ","),
                 caller + 8);
}

int mpi_rank_crash_known(const mpi_rank_crash *c)
{
    return c->seen && c->sig == 11 && c->pc_null && !strcmp(c->phase, "inside MPI_Init") &&
           !strncmp(c->caller, "mca_btl_tcp.so+", 15);
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
