/*
 * ls_cut.c -- CG-BiO's oracle on least squares: the LMO of a vector domain
 * cut by a half-space.  (Placeholder until the cut oracle lands.)
 */
#include "ls_internal.h"

ircg_error ls_lmo_cut(void *ws, double slack, ircg_cut_info *info)
{
    (void)ws;
    (void)slack;
    (void)info;
    return IRCG_ERR_INVALID;
}

ircg_error ls_cut_step(void *ws, double gamma)
{
    return ls_step(ws, gamma, 0.0, 0.0, 1.0);
}
