/*
 * mpi_crash.h -- a rank's own report of its crash (issue 38).
 *
 * A rank that dies at its start inside MPI_Init leaves, at best, Open
 * MPI's report, whose frames begin in the signal handler and stop at the
 * faulting program counter: with a call through a null pointer (pc 0) no
 * unwinder can go on from there, and nothing says whose pointer it was.
 * mpi_crash_install(), called before MPI_Init, catches SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE and SIGABRT and writes on stderr (which the launcher
 * passes to ircgd) one block:
 *
 *   ircg-mpi crash: host H pid P tid T: signal 11 (SIGSEGV) code 1 addr 0x0
 *                   pc 0x0 caller OBJECT+0xOFFSET, phase: PHASE
 *     (one line, one write: what ircgd reads, server/mpi/mpi_rankcrash.h;
 *     the caller when the pc is in no object)
 *   ircg-mpi crash: pc 0x0 sp 0x7ffc...
 *   ircg-mpi crash: caller <the return address on top of the stack, with
 *                   its object and symbol: who called through the pointer>
 *   ircg-mpi crash: frame <backtrace_symbols_fd's frames of the thread>
 *   ircg-mpi crash: stack <words near sp that point into loaded objects>
 *
 * then lets the signal take its default action (the core file, the exit
 * status the launcher reports are those of the crash).  Open MPI leaves a
 * handler that is already installed when MPI_Init runs (its opal_signal
 * parameter: "will not replace signals if handlers are already
 * installed"), so this one stays.  The phase is mpi_crash_phase()'s last
 * word: a string with static storage.
 */
#ifndef IRCG_MPI_CRASH_H
#define IRCG_MPI_CRASH_H

void mpi_crash_install(void);
void mpi_crash_phase(const char *phase);

#endif /* IRCG_MPI_CRASH_H */
