/*
 * simd.h -- the instruction sets a pass over long arrays is compiled for,
 * and the choice among them at run time.
 *
 * A kernel is written once, as an always-inline function NAME_impl on GCC
 * vectors (base/ksum.h), and SLV_ISA_DISPATCH compiles it three times:
 * for x86-64 as such (SSE2), for AVX2 with FMA and for AVX-512 (F, VL, DQ,
 * BW: the x86-64-v4 level), and defines NAME, which calls the best one the
 * CPU and the OS run.  The three are the same IEEE operations lane by lane
 * (ISO C mode keeps gcc from contracting them into FMAs, and base/ksum.h,
 * included here, tells clang so), so they give the same bits;
 * mc_sweep.isas_do_not_change_a_bit proves it by forcing each in turn
 * (slv_isa_force), which gcc's target_clones did not allow (its clones
 * cannot be called by name; clang 14 could not link them across files at
 * all).
 *
 * A kernel that asks for an FMA by name (__builtin_fma) is dispatched by
 * SLV_ISA_DISPATCH_ISA, which hands NAME_impl the set it is compiled for
 * as a constant first argument: SLV_ISA_HAS_FMA(isa) then says whether the
 * FMA is an instruction there.  In the x86-64 kernel it is not (there it
 * would be a call to libm's fma(), in software on a CPU without FMA: ~100
 * times the cost), so such a kernel writes its own way for that case,
 * and says where the bits of the two ways differ.
 *
 * IRCG_ISA=base|avx2|avx512 in the environment caps the choice (to compare
 * the kernels on one binary; a value the CPU cannot run, or an unknown
 * one, leaves the best).  Valgrind masks AVX-512 from CPUID, so under it
 * the AVX2 kernels run.
 */
#ifndef IRCG_BASE_SIMD_H
#define IRCG_BASE_SIMD_H

#include "base/ksum.h" /* its vectors, and no contraction into FMAs */

typedef enum slv_isa {
    SLV_ISA_BASE,   /* x86-64: SSE2 */
    SLV_ISA_AVX2,   /* AVX2 and FMA */
    SLV_ISA_AVX512, /* AVX-512 F, VL, DQ, BW */
    SLV_ISA_COUNT
} slv_isa;

/* The best instruction set this CPU (and OS) runs, capped by IRCG_ISA. */
slv_isa slv_isa_best(void);

/* The one the kernels use now: slv_isa_best() unless forced. */
slv_isa slv_isa_current(void);

/* Forces the kernels onto isa (for tests, process-wide); -1 undoes it.
 * Returns -1, forcing nothing, when the CPU cannot run isa; 0 otherwise. */
int slv_isa_force(int isa);

/* "base", "avx2", "avx512" */
const char *slv_isa_name(slv_isa isa);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SLV_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define SLV_TARGET_AVX512                                                   \
    __attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq,avx512bw")))
#else
#define SLV_TARGET_AVX2
#define SLV_TARGET_AVX512
#endif

/* Whether the kernel compiled for isa has the FMA as an instruction: the
 * AVX2 and AVX-512 ones have; the base one where the compiler says its
 * target has (__FP_FAST_FMA: gcc on aarch64 and most others, not on
 * x86-64; clang on aarch64 only, elsewhere the base kernel then takes the
 * way without, slower and within an ulp a term). */
#if defined(__FP_FAST_FMA)
#define SLV_ISA_HAS_FMA(isa) 1
#else
#define SLV_ISA_HAS_FMA(isa) ((isa) != SLV_ISA_BASE)
#endif

/* static void NAME PARAMS: NAME_impl ARGS compiled for each instruction
 * set, the best one called.  NAME_impl must be always-inline (a call
 * would run the base code) and return nothing.  The choice is made per
 * call (a load and a switch): call NAME per chunk of a pass, not per
 * entry. */
#define SLV_ISA_DISPATCH(name, params, args)                                \
    SLV_ISA_DISPATCH_(name, params, args, args, args, args)

/* The same, NAME_impl called with the instruction set first:
 * NAME_impl(SLV_ISA_AVX512, ARGS...) and so on. */
#define SLV_ISA_DISPATCH_ISA(name, params, args)                            \
    SLV_ISA_DISPATCH_(name, params, args, (SLV_ISA_AVX512, SLV_UNPAREN args), \
                      (SLV_ISA_AVX2, SLV_UNPAREN args), (SLV_ISA_BASE, SLV_UNPAREN args))
#define SLV_UNPAREN(...) __VA_ARGS__

#define SLV_ISA_DISPATCH_(name, params, args, a512, a2, a0)                 \
    SLV_TARGET_AVX512 static void name##_avx512 params                      \
    {                                                                       \
        name##_impl a512;                                                   \
    }                                                                       \
    SLV_TARGET_AVX2 static void name##_avx2 params                          \
    {                                                                       \
        name##_impl a2;                                                     \
    }                                                                       \
    static void name##_base params                                          \
    {                                                                       \
        name##_impl a0;                                                     \
    }                                                                       \
    static void name params                                                 \
    {                                                                       \
        switch (slv_isa_current()) {                                        \
        case SLV_ISA_AVX512:                                                \
            name##_avx512 args;                                             \
            break;                                                          \
        case SLV_ISA_AVX2:                                                  \
            name##_avx2 args;                                               \
            break;                                                          \
        default:                                                            \
            name##_base args;                                               \
        }                                                                   \
    }

#endif /* IRCG_BASE_SIMD_H */
