/* comm.c -- see comm.h */
#include <string.h>

#include "base/comm.h"

void slv_comm_gather_rows(const ircg_comm *c, const double *local, int n, int row0,
                          int total, int ncols, double *whole)
{
    memset(whole, 0, (size_t)total * (size_t)ncols * sizeof *whole);
    for (int j = 0; j < ncols; j++)
        memcpy(whole + (size_t)j * total + row0, local + (size_t)j * n,
               (size_t)n * sizeof *whole);
    slv_comm_sum(c, whole, (int64_t)total * ncols);
}
