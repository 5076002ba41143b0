/*
 * accesslog.c -- X-Request-Id and the access log.
 *
 * Every response carries X-Request-Id: the client's own when it sent an
 * acceptable one (1..128 characters of [A-Za-z0-9._:+=@/-]), so a caller
 * can follow its request through proxies and our log, else one made here.
 * The access log is one JSON object per request on stderr, so log
 * collectors need no parser of ours.  It holds no header but the
 * User-Agent, and the path without its query: never a token.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "http/http.h"

static bool is_acceptable_id(const char *v)
{
    size_t n = v ? strlen(v) : 0;
    return n > 0 && n <= SRV_REQUEST_ID_MAX &&
           strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._:+=@/-") == n;
}

/* 16 random bytes as hex; a counter stands in if the kernel has none
 * to give (unique within the process still). */
static void fresh_id(char *out, size_t cap)
{
    static uint64_t counter;
    uint8_t b[16];
    if (getrandom(b, sizeof b, GRND_NONBLOCK) != (ssize_t)sizeof b) {
        uint64_t c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
        uint64_t t = (uint64_t)(srv_now() * 1e6);
        memcpy(b, &c, 8);
        memcpy(b + 8, &t, 8);
    }
    for (size_t i = 0; i < sizeof b && 2 * i + 2 < cap; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

void srv_request_id(srv_req *r)
{
    const char *v = srv_req_header(r, "X-Request-Id");
    if (is_acceptable_id(v))
        snprintf(r->request_id, sizeof r->request_id, "%s", v);
    else
        fresh_id(r->request_id, sizeof r->request_id);
}

static void client_address(srv_req *r, char *out, size_t cap)
{
    const union MHD_ConnectionInfo *ci =
        r->conn ? MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS) : NULL;
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    out[0] = '\0';
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)cap);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                  (socklen_t)cap);
}

void srv_access_log(srv_req *r, double ms, int aborted)
{
    char ts[40], addr[64];
    const char *ua = srv_req_header(r, MHD_HTTP_HEADER_USER_AGENT);
    cJSON *o = cJSON_CreateObject();
    client_address(r, addr, sizeof addr);
    cJSON_AddStringToObject(o, "time", srv_time_rfc3339(ts, srv_now()));
    cJSON_AddStringToObject(o, "log", "access");
    cJSON_AddStringToObject(o, "request_id", r->request_id);
    cJSON_AddStringToObject(o, "remote", addr);
    cJSON_AddStringToObject(o, "method", r->method);
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddStringToObject(o, "route", r->route ? r->route->name : "");
    cJSON_AddNumberToObject(o, "status", r->status);
    cJSON_AddNumberToObject(o, "ms", (double)(int64_t)(ms * 1000.0) / 1000.0);
    if (ua)
        cJSON_AddStringToObject(o, "user_agent", ua);
    if (aborted)
        cJSON_AddBoolToObject(o, "aborted", 1);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (line)
        srv_log_raw(line);
    free(line);
}
