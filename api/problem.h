/*
 * problem.h -- RFC 9457 problem details (application/problem+json), built
 * in this one place for every error the service reports: HTTP errors, spec
 * validation, and the error record of a failed job.
 *
 * type is "urn:ircg:problem:<slug>"; detail and instance may be NULL.
 */
#ifndef IRCG_API_PROBLEM_H
#define IRCG_API_PROBLEM_H

#include <cJSON.h>

cJSON *api_problem_new(unsigned status, const char *slug, const char *title,
                       const char *detail, const char *instance);
/* Appends {pointer, reason} to the document's "errors" list (created on
 * first use); 0 when out of memory. */
int api_problem_add_member(cJSON *doc, const char *pointer, const char *reason);
/* The document as text (malloc'ed, owned by the caller) and doc freed;
 * NULL when out of memory. */
char *api_problem_text(cJSON *doc);

#endif /* IRCG_API_PROBLEM_H */
