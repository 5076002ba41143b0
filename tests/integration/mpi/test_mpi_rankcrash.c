/*
 * test_mpi_rankcrash.c -- the daemon's reading of a rank's crash report
 * (server/mpi/mpi_rankcrash.h): the report the soak loop recorded for the
 * crash inside MPI_Init (issue 38, lines as ircg-mpi wrote them) is the
 * known cause, and a report that differs in any of the four facts --
 * signal, program counter, phase, the caller's object -- is not, so that
 * only that death is launched again.  The first line alone decides: the
 * lines after it may not reach the daemon (srun ends the step at once).
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mpi/mpi_rankcrash.h"

/* A report as ircg-mpi's handler writes it (the soak's, under srun),
 * with one fact replaced by the caller (NULL: as recorded), and what srun
 * adds. */
static void feed(mpi_rank_crash *c, const char *sig, const char *phase, const char *pc,
                 const char *caller)
{
    char line[512];
    snprintf(line, sizeof line, "ircg-mpi crash: host ircg-node3 pid 23858 tid 23858: signal %s "
             "code 1 addr 0x0 pc %s%s%s, phase: %s", sig ? sig : "11 (SIGSEGV)",
             pc ? pc : "0x0", pc ? "" : " caller ", pc ? "" : caller ? caller
                                                        : "mca_btl_tcp.so+0x9996",
             phase ? phase : "inside MPI_Init");
    const char *lines[] = {
        line,
        "ircg-mpi crash: pc 0x0 sp 0x7ffead7d49d8",
        "ircg-mpi crash: caller /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/"
        "mca_btl_tcp.so(+0x9996)[0x7f1629e10996]",
        "ircg-mpi crash: regs rax=0x7f162b540390 rbx=0x1 rcx=0x0 rsi=0x41",
        "ircg-mpi crash: end",
        "srun: error: ircg-node3: task 2: Segmentation fault (core dumped)",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        mpi_rank_crash_line(c, lines[i], strlen(lines[i]));
}

TEST(mpi_rankcrash, the_recorded_crash_is_the_known_cause)
{
    mpi_rank_crash c = {0};
    char why[1024];
    feed(&c, NULL, NULL, NULL, NULL);
    CHECK(mpi_rank_crash_known(&c));
    mpi_rank_crash_describe(&c, why, sizeof why);
    printf("    %s\n", why);
    CHECK(strstr(why, "the rank on ircg-node3 died of signal 11 inside MPI_Init") != NULL);
    CHECK(strstr(why, "mca_btl_tcp.so+0x9996") && strstr(why, "Open MPI's TCP transport"));
    /* a second rank's report does not replace the first's */
    feed(&c, NULL, "after MPI_Init", NULL, NULL);
    CHECK(mpi_rank_crash_known(&c));
}

TEST(mpi_rankcrash, any_other_fact_is_not_the_known_cause)
{
    char why[1024];
    struct {
        const char *sig, *phase, *pc, *caller;
    } other[] = {
        {"7 (SIGBUS)", NULL, NULL, NULL},
        {NULL, "after MPI_Init", NULL, NULL},
        {NULL, "past the execution line (the hosts gathered)", NULL, NULL},
        {NULL, NULL, "0x7f1629e10996", NULL},
        {NULL, NULL, NULL, "ircg-mpi+0x128e"},
        {NULL, NULL, NULL, "libpmix.so.2+0x98b1"},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        mpi_rank_crash c = {0};
        feed(&c, other[i].sig, other[i].phase, other[i].pc, other[i].caller);
        CHECK(c.seen);
        if (mpi_rank_crash_known(&c))
            th_fail(__FILE__, __LINE__, "case %zu taken for the known cause", i);
        mpi_rank_crash_describe(&c, why, sizeof why);
        CHECK(strstr(why, "the rank on ircg-node3 died of signal") != NULL);
        CHECK(strstr(why, "Open MPI's TCP transport") == NULL);
    }
    /* no report at all: nothing to say, nothing known */
    mpi_rank_crash none = {0};
    const char *mpirun = "mpirun noticed that process rank 1 with PID 0 on node vm exited on "
                         "signal 11 (Segmentation fault).";
    mpi_rank_crash_line(&none, mpirun, strlen(mpirun));
    CHECK(!none.seen && !mpi_rank_crash_known(&none));
    mpi_rank_crash_describe(&none, why, sizeof why);
    CHECK_STR(why, "");
}
