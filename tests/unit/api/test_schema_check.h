/*
 * test_schema_check.h -- a small JSON Schema (draft 2020-12) validator for
 * the subset of keywords api/job-spec.schema.json and api/openapi.json
 * use, so the tests can check real specs and results against them.
 *
 * Assertions: type, enum, const, properties, required,
 * additionalProperties (false or a schema), items, prefixItems, minItems,
 * maxItems, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
 * minLength, maxLength, pattern (POSIX extended regex), oneOf, anyOf,
 * allOf, $ref.  Annotations (ignored): $schema, $id, $defs, title,
 * description, default, format, contentMediaType.  Any other keyword is
 * an error of the schema, so a check can never pass by ignoring one.
 *
 * $ref: "#/<pointer>" within the current document, "<file>#<pointer>" or
 * "<file>" in the document registered under that file name.
 */
#ifndef TEST_SCHEMA_CHECK_H
#define TEST_SCHEMA_CHECK_H

#include <stddef.h>

#include <cJSON.h>

#define JSV_MAX_DOCS 4

typedef struct jsv {
    const char *names[JSV_MAX_DOCS]; /* file names for $ref ("job-spec.schema.json") */
    const cJSON *docs[JSV_MAX_DOCS];
    int ndocs;
    char error[512];                 /* the first failure: where and why       */
} jsv;

/* Register a document under a file name (borrowed). */
void jsv_add(jsv *v, const char *name, const cJSON *doc);
/* Does inst satisfy schema (a node of document doc)?  1 yes, 0 no (with
 * v->error set). */
int jsv_check(jsv *v, const cJSON *doc, const cJSON *schema, const cJSON *inst);
/* Resolve a $ref from document *doc; *doc is updated to the document the
 * target lives in.  NULL when it does not resolve. */
const cJSON *jsv_resolve(const jsv *v, const cJSON **doc, const char *ref);
/* Every schema keyword under schema (recursively) is in the supported
 * subset; 0 with v->error naming the first that is not. */
int jsv_keywords_known(jsv *v, const cJSON *schema, const char *where);

#endif /* TEST_SCHEMA_CHECK_H */
