/*
 * mc_cut.c -- CG-BiO's oracle on matrix completion: the paper's SNB-LO and
 * NB-BLO (Appendix A.2).  (Placeholder until the cut oracle lands.)
 */
#include "mc.h"

ircg_error mc_lmo_cut(void *ws, double slack, ircg_cut_info *info)
{
    (void)ws;
    (void)slack;
    (void)info;
    return IRCG_ERR_INVALID;
}

ircg_error mc_cut_step(void *ws, double gamma)
{
    (void)ws;
    (void)gamma;
    return IRCG_ERR_INVALID;
}
