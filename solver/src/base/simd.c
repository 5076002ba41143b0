/* simd.c -- which of the kernels' instruction sets runs (simd.h). */
#include "base/simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const isa_names[SLV_ISA_COUNT] = {"base", "avx2", "avx512"};

/* -1 until detected */
static atomic_int best_isa = -1;
/* -1: not forced */
static atomic_int forced_isa = -1;

/* What the CPU runs: __builtin_cpu_supports also checks that the OS saves
 * the registers (XGETBV). */
static slv_isa detect(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return SLV_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return SLV_ISA_AVX2;
#endif
    return SLV_ISA_BASE;
}

/* The CPU's best, capped by IRCG_ISA when it names a lower set. */
static slv_isa capped(slv_isa isa)
{
    const char *env = getenv("IRCG_ISA");
    for (int i = 0; env && i < (int)isa; i++)
        if (strcmp(env, isa_names[i]) == 0)
            return (slv_isa)i;
    return isa;
}

slv_isa slv_isa_best(void)
{
    int b = atomic_load_explicit(&best_isa, memory_order_relaxed);
    if (b < 0) { /* racing threads store the same value */
        b = (int)capped(detect());
        atomic_store_explicit(&best_isa, b, memory_order_relaxed);
    }
    return (slv_isa)b;
}

slv_isa slv_isa_current(void)
{
    int f = atomic_load_explicit(&forced_isa, memory_order_relaxed);
    return f >= 0 ? (slv_isa)f : slv_isa_best();
}

int slv_isa_force(int isa)
{
    if (isa >= SLV_ISA_COUNT || isa > (int)detect())
        return -1;
    atomic_store_explicit(&forced_isa, isa < 0 ? -1 : isa, memory_order_relaxed);
    return 0;
}

const char *slv_isa_name(slv_isa isa)
{
    return (unsigned)isa < SLV_ISA_COUNT ? isa_names[isa] : "?";
}
