/*
 * mpi_crash.c -- see mpi_crash.h.  The handler uses write(2) and its own
 * number formatting; backtrace() and dladdr() are not on POSIX's list of
 * async-signal-safe functions, but backtrace() is called once at install
 * (it loads libgcc_s then, the one thing it could allocate for) and both
 * only read the loader's tables: a crash report is worth that risk, and
 * the process dies anyway.
 */
#define _GNU_SOURCE /* REG_RIP, REG_RSP, dladdr */
#include <ctype.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "mpi_crash.h"

#define FRAMES 32
#define STACK_WORDS 64 /* words above sp searched for return addresses   */
#define STACK_HITS 12

static char g_host[64] = "?";
static const char *volatile g_phase = "before MPI_Init";
/* its own stack: a crash by stack overflow still reports */
static char g_altstack[64 * 1024];

void mpi_crash_phase(const char *phase) { g_phase = phase; }

/* What put() adds goes out in one write() at flush(): the report's first
 * line reaches the launcher whole even when the rank dies right after. */
static char g_out[1024];
static size_t g_outlen;

static void flush(void)
{
    (void)!write(STDERR_FILENO, g_out, g_outlen);
    g_outlen = 0;
}

static void put(const char *s)
{
    size_t n = strlen(s);
    if (g_outlen + n > sizeof g_out)
        flush();
    if (n > sizeof g_out)
        n = sizeof g_out;
    memcpy(g_out + g_outlen, s, n);
    g_outlen += n;
}

static void put_num(uintptr_t v, int hex)
{
    char buf[24];
    int i = sizeof buf;
    unsigned base = hex ? 16 : 10;
    buf[--i] = '\0';
    do {
        buf[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && i > 2);
    if (hex) {
        buf[--i] = 'x';
        buf[--i] = '0';
    }
    put(buf + i);
}

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "?";
    }
}

/* The faulting thread's pc and sp from the signal's context, and the
 * word at sp: after a `call` through a null pointer on x86-64 it is the
 * return address into the caller; on AArch64 the caller is in x30. */
static void context_regs(const void *ctx, uintptr_t *pc, uintptr_t *sp, uintptr_t *ret)
{
    const ucontext_t *uc = ctx;
    *pc = *sp = *ret = 0;
#if defined(__x86_64__)
    *pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    *sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    if (*sp)
        *ret = *(const uintptr_t *)*sp;
#elif defined(__aarch64__)
    *pc = (uintptr_t)uc->uc_mcontext.pc;
    *sp = (uintptr_t)uc->uc_mcontext.sp;
    *ret = (uintptr_t)uc->uc_mcontext.regs[30];
#else
    (void)uc;
#endif
}

/* The general registers at the fault: after a call through a null
 * pointer they are the caller's, its arguments among them (x86-64: rdi,
 * rsi, rdx, rcx; AArch64: x0-x3). */
static void put_regs(const void *ctx)
{
    const ucontext_t *uc = ctx;
#if defined(__x86_64__)
    static const struct { const char *name; int reg; } regs[] = {
        {"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX},
        {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"r12", REG_R12},
        {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15}};
    put("ircg-mpi crash: regs");
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
        put(" ");
        put(regs[i].name);
        put("=");
        put_num((uintptr_t)uc->uc_mcontext.gregs[regs[i].reg], 1);
    }
    put("\n");
#elif defined(__aarch64__)
    put("ircg-mpi crash: regs");
    for (int i = 0; i < 4; i++) {
        put(" x");
        put_num((uintptr_t)i, 0);
        put("=");
        put_num((uintptr_t)uc->uc_mcontext.regs[i], 1);
    }
    put("\n");
#else
    (void)uc;
#endif
}

/* backtrace_symbols_fd's line (object(symbol+offset) [address]) of one
 * address, after the line's label. */
static void put_addr(const char *label, uintptr_t a)
{
    void *p = (void *)a;
    put("ircg-mpi crash: ");
    put(label);
    put(" ");
    flush();
    backtrace_symbols_fd(&p, 1, STDERR_FILENO);
}

/* "OBJECT+0xOFFSET" of an address (the object's file name only), or "?". */
static void put_object_offset(uintptr_t a)
{
    Dl_info di;
    if (!dladdr((void *)a, &di) || !di.dli_fname) {
        put("?");
        return;
    }
    const char *slash = strrchr(di.dli_fname, '/');
    put(slash ? slash + 1 : di.dli_fname);
    put("+");
    put_num(a - (uintptr_t)di.dli_fbase, 1);
}

/* The executable mappings of /proc/self/maps (read here, in the handler:
 * the libraries MPI_Init loaded since install are there too), as
 * [start, end) pairs into r; how many. */
static int code_ranges(uintptr_t (*r)[2], int cap)
{
    static char maps[128 * 1024];
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), n = 0;
    ssize_t len = 0, k;
    if (fd < 0)
        return 0;
    while (len < (ssize_t)sizeof maps - 1 &&
           (k = read(fd, maps + len, sizeof maps - 1 - (size_t)len)) > 0)
        len += k;
    close(fd);
    maps[len] = '\0';
    /* each line: START-END PERMS ... */
    for (char *p = maps; *p && n < cap;) {
        uintptr_t a = 0, b = 0;
        for (; isxdigit((unsigned char)*p); p++)
            a = a * 16 + (uintptr_t)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 32) - 'a' + 10);
        if (*p == '-')
            p++;
        for (; isxdigit((unsigned char)*p); p++)
            b = b * 16 + (uintptr_t)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 32) - 'a' + 10);
        if (*p == ' ' && p[3] == 'x') {
            r[n][0] = a;
            r[n++][1] = b;
        }
        while (*p && *p != '\n')
            p++;
        if (*p)
            p++;
    }
    return n;
}

/* Words just above sp that point into executable code: candidates for
 * the return addresses an unwinder could not reach (a pc of 0 stops it),
 * not proven frames. */
static void stack_scan(uintptr_t sp)
{
    static uintptr_t code[512][2];
    int ncode = code_ranges(code, 512), hits = 0;
    for (int i = 0; sp && i < STACK_WORDS && hits < STACK_HITS; i++) {
        uintptr_t w = ((const uintptr_t *)sp)[i];
        for (int j = 0; j < ncode; j++)
            if (w >= code[j][0] && w < code[j][1]) {
                put_addr("stack", w);
                hits++;
                break;
            }
    }
}

static void on_crash(int sig, siginfo_t *si, void *ctx)
{
    void *frames[FRAMES];
    uintptr_t pc, sp, ret;
    Dl_info di;
    context_regs(ctx, &pc, &sp, &ret);
    put("ircg-mpi crash: host ");
    put(g_host);
    put(" pid ");
    put_num((uintptr_t)getpid(), 0);
    put(" tid ");
    put_num((uintptr_t)syscall(SYS_gettid), 0);
    put(": signal ");
    put_num((uintptr_t)sig, 0);
    put(" (");
    put(sig_name(sig));
    put(") code ");
    put_num((uintptr_t)(si->si_code < 0 ? -si->si_code : si->si_code), 0);
    put(si->si_code < 0 ? " (negative: sent)" : "");
    put(" addr ");
    put_num((uintptr_t)si->si_addr, 1);
    put(" pc ");
    put_num(pc, 1);
    /* a pc in no object (0: a null function pointer) cannot be unwound
     * from: who made the call is the return address it left */
    int lost = !dladdr((void *)pc, &di);
    if (lost) {
        put(" caller ");
        put_object_offset(ret);
    }
    put(", phase: ");
    put(g_phase);
    put("\n");
    flush(); /* the first line, whole: what ircgd reads (mpi_rankcrash.c) */
    put("ircg-mpi crash: pc ");
    put_num(pc, 1);
    put(" sp ");
    put_num(sp, 1);
    put("\n");
    if (lost)
        put_addr("caller", ret);
    put_regs(ctx);
    put("ircg-mpi crash: frames:\n");
    flush();
    int n = backtrace(frames, FRAMES);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    stack_scan(sp);
    put("ircg-mpi crash: end\n");
    flush();
    /* SA_RESETHAND made the action the default again: a fault returns to
     * its instruction and faults again, dumping core with the state of
     * the crash; a signal that was sent is sent once more (it is blocked
     * in here, delivered when this returns) */
    if (si->si_code <= 0 || sig == SIGABRT)
        raise(sig);
}

void mpi_crash_install(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    void *warm[1];
    stack_t ss = {.ss_sp = g_altstack, .ss_size = sizeof g_altstack};
    struct sigaction sa;
    if (gethostname(g_host, sizeof g_host - 1) != 0)
        strcpy(g_host, "?");
    (void)backtrace(warm, 1); /* loads the unwinder now, not in the handler */
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}
