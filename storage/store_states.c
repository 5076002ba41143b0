/*
 * store_states.c -- the names of job states and which of them are final.
 */
#include "store_int.h"

#include <string.h>

static const char *const STATE_NAMES[STORE_NSTATES] = {
    "queued", "running", "succeeded", "failed", "cancelled"};

const char *store_state_name(store_state s)
{
    return (unsigned)s < STORE_NSTATES ? STATE_NAMES[s] : "unknown";
}

store_rc store_state_parse(const char *name, store_state *out)
{
    for (int i = 0; name && i < STORE_NSTATES; i++) {
        if (strcmp(name, STATE_NAMES[i]) == 0) {
            *out = (store_state)i;
            return STORE_OK;
        }
    }
    return STORE_INVALID;
}

int store_state_terminal(store_state s)
{
    return s == STORE_SUCCEEDED || s == STORE_FAILED || s == STORE_CANCELLED;
}

