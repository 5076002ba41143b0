/*
 * test_spec_util.h -- parsing job specs written with single quotes in the
 * spec tests (test_spec*.c, test_schema.c).
 */
#ifndef TEST_SPEC_UTIL_H
#define TEST_SPEC_UTIL_H

#include "spec.h"

/* s with every ' turned into " (malloc'ed; NULL when out of memory). */
char *tspec_dq(const char *s);
/* api_spec_parse of tspec_dq(json) with files resolved against base_dir;
 * e is initialized here.  Returns the number of errors. */
int tspec_parse(const char *json, const char *base_dir, api_errors *e, api_spec **out);

#endif /* TEST_SPEC_UTIL_H */
