/*
 * test_selection.c -- the outer objective selects: on a matrix completion
 * instance whose inner solution set is large (tests/study/select.h: g* = 0,
 * f* in closed form), IR-CG with the column-variance outer objective and
 * conditional gradient on g alone (varsigma = 0) both drive g near 0 from
 * the same start, but only IR-CG ends near f*; conditional gradient ends
 * at a completion whose column variance is far above it.  The uniqueness
 * certificate, run on this instance, certifies nothing.
 */
/* make test-kernels: selection. */
#include <math.h>
#include <stdio.h>

#include "harness.h"
#include "ircg.h"
#include "study/select.h"

TEST(selection, outer_objective_picks_among_exact_fits)
{
    enum { T = 1000 };
    sel_inst s;
    sel_run_out ir, cg;
    REQUIRE(sel_make(&s, 30, 30, 250, 7));
    REQUIRE(sel_run(&s, 1.0, IRCG_STEP_OPEN_LOOP, T, &ir) == 0);
    REQUIRE(sel_run(&s, 0.0, IRCG_STEP_OPEN_LOOP, T, &cg) == 0);
    printf("    f* %.6g (delta %.4g = 1.1 ||X_fill||_*), g(0) %.4g; IR-CG g %.3g f %.6g; "
           "CG g %.3g f %.6g\n", s.f_opt, s.delta, s.g_zero, ir.g, ir.f, cg.g, cg.f);
    /* measured: g/g(0) 1.8e-4 (IR-CG) and 3e-5 (CG); f - f* = -0.28 against
     * +123 (f* = 104) */
    CHECK_MEASURED("IR-CG g / g(0)", ir.g / s.g_zero, 5e-4);
    CHECK_MEASURED("CG g / g(0)", cg.g / s.g_zero, 5e-4);
    CHECK_MEASURED("IR-CG |f - f*| / f*", fabs(ir.f - s.f_opt) / s.f_opt, 0.02);
    /* a lower bound: printed as what CG's excess leaves of it */
    CHECK_MEASURED("CG: 1/2 f* over (f - f*)", 0.5 * s.f_opt / (cg.f - s.f_opt), 1.0);
    /* no inner solution is singled out: nothing to certify */
    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&rs);
    rs.max_iter = 500;
    rs.certify_unique = 1;
    REQUIRE(ircg_reference_compute(s.pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    CHECK_INT(ri.unique, 0);
    ircg_reference_free(ref);
    sel_run_free(&ir);
    sel_run_free(&cg);
    sel_free(&s);
}
