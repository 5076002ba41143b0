/* codes.c -- names of error and status codes, and the sigma schedule. */
#include <math.h>

#include "ircg.h"

const char *ircg_error_string(ircg_error e)
{
    switch (e) {
    case IRCG_OK: return "ok";
    case IRCG_ERR_INVALID: return "invalid argument";
    case IRCG_ERR_NOMEM: return "out of memory";
    case IRCG_ERR_NUMERICAL: return "numerical breakdown";
    case IRCG_ERR_IO: return "input/output error";
    case IRCG_ERR_PARSE: return "malformed data";
    case IRCG_ERR_STOPPED: return "stopped";
    }
    return "unknown error";
}

const char *ircg_status_string(ircg_status s)
{
    switch (s) {
    case IRCG_STATUS_UNSOLVED: return "unsolved";
    case IRCG_STATUS_CONVERGED: return "converged";
    case IRCG_STATUS_MAX_ITER: return "max_iter";
    case IRCG_STATUS_TIME_LIMIT: return "time_limit";
    case IRCG_STATUS_CANCELLED: return "cancelled";
    case IRCG_STATUS_INTERRUPTED: return "interrupted";
    case IRCG_STATUS_STALLED: return "stalled";
    }
    return "unknown";
}

const char *ircg_warning_name(ircg_warning w)
{
    switch (w) {
    case IRCG_WARN_INNER_UNSOLVED: return "inner_unsolved";
    case IRCG_WARN_OUTER_UNSOLVED: return "outer_unsolved";
    case IRCG_WARN_UNCERTIFIED: return "uncertified";
    case IRCG_WARN_LOOSE: return "loose";
    case IRCG_WARN_BELOW_OPTIMUM: return "below_optimum";
    }
    return "unknown";
}

double ircg_sigma(double varsigma, double p, int64_t t)
{
    return varsigma * pow((double)(t + 1), -p);
}
