/*
 * contract.h -- every response the HTTP tests receive, checked against
 * api/openapi.json by a tool we did not write: Stoplight Prism, run as a
 * validating proxy (`prism proxy`, tests/node; issue 38).
 *
 * hu_req (http_util.c) records each exchange -- the request's method and
 * path, the daemon's status, headers and body, bytes as received -- unless
 * one of the same shape was recorded before in the run (the same but for
 * the digits of JSON numbers: contract.c, shape_of; a poll loop's answers).  After
 * the test (th_after_each), each is sent through Prism, whose upstream is
 * a replay server in this process that answers with the recorded
 * response: Prism validates exactly what the daemon sent (status against
 * the operation's documented statuses, headers, body against the schema
 * of its media type), while the test itself saw the daemon's own bytes,
 * unchanged by a proxy.  Every response violation (Prism's sl-violations,
 * location "response", errors and warnings alike) fails the test, naming
 * the route, the status and the member.  Requests outside the document
 * (an unknown path, a CORS preflight) are counted, not checked; their
 * requests are not validated at all (--validate-request false: the
 * hostile tests' requests violate the document on purpose).
 *
 * One Prism per run, started at the first check and kept across tests
 * (th_keep_process).  Without Prism installed (make deps-node; TEST_TOOLS=0
 * leaves it out), nothing is checked and contract.prism_is_there skips,
 * saying so (a skip CI refuses).  IRCG_CONTRACT=0 turns the checks off.
 */
#ifndef IRCG_TEST_CONTRACT_H
#define IRCG_TEST_CONTRACT_H

#include <stddef.h>

/* One exchange: the request line's method and path (query included), the
 * response's status, its header lines as received ("Name: value\r\n"...,
 * status line excluded) and body. */
void ct_record(const char *method, const char *path, long status, const char *headers,
               const char *body, size_t len);

/* Checks what was recorded since the last check: the number of response
 * violations, each failing the running test (fail) or printed, and each
 * a line "METHOD ROUTE STATUS LOCATION: MESSAGE" into said (cap bytes;
 * said may be NULL). */
int ct_check(int fail, char *said, size_t cap);

/* Whether Prism is installed and checks are on. */
int ct_enabled(void);

/* The run's totals so far: exchanges checked, outside the document,
 * violations (those of a shape already seen are not counted). */
void ct_totals(long *checked, long *outside, long *violations);

#endif /* IRCG_TEST_CONTRACT_H */
