/* problem.c -- see problem.h */
#include <stdio.h>
#include <stdlib.h>

#include "problem.h"

cJSON *api_problem_new(unsigned status, const char *slug, const char *title,
                       const char *detail, const char *instance)
{
    char type[128];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    snprintf(type, sizeof type, "urn:ircg:problem:%s", slug);
    if (!cJSON_AddStringToObject(o, "type", type) ||
        !cJSON_AddStringToObject(o, "title", title) ||
        !cJSON_AddNumberToObject(o, "status", status) ||
        (detail && !cJSON_AddStringToObject(o, "detail", detail)) ||
        (instance && !cJSON_AddStringToObject(o, "instance", instance))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int api_problem_add_member(cJSON *doc, const char *pointer, const char *reason)
{
    cJSON *list = doc ? cJSON_GetObjectItemCaseSensitive(doc, "errors") : NULL;
    if (doc && !list)
        list = cJSON_AddArrayToObject(doc, "errors");
    cJSON *e = list ? cJSON_CreateObject() : NULL;
    if (!e)
        return 0;
    cJSON_AddItemToArray(list, e);
    return cJSON_AddStringToObject(e, "pointer", pointer) != NULL &&
           cJSON_AddStringToObject(e, "reason", reason) != NULL;
}

char *api_problem_text(cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    return text;
}
