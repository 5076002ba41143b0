/* problem.c -- the class-independent part of a problem handle. */
#include <stdlib.h>

#include "core/oracle.h"

void ircg_problem_free(ircg_problem *pb)
{
    if (!pb)
        return;
    if (pb->free_data)
        pb->free_data(pb->data);
    free(pb);
}

void ircg_problem_get_info(const ircg_problem *pb, ircg_problem_info *info)
{
    *info = pb->info;
}
