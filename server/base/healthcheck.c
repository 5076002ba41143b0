/*
 * healthcheck.c -- `ircgd --healthcheck`: GET /healthz over a plain socket,
 * or over TLS when --tls-cert is set (the runtime image has no curl).
 * Exit status 0 = healthy.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

int srv_healthcheck(const srv_config *c)
{
    char host[256], resp[256];
    int port = 0, healthy = 0;
    if (srv_parse_listen(c->listen, host, sizeof host, &port) != 0 || port == 0)
        return 1;
    int fd = srv_connect(host, port, 3.0);
    if (fd >= 0) {
        const char req[] = "GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n";
        ssize_t n = -1;
        if (c->tls_cert[0]) /* the daemon speaks HTTPS: so must we */
            n = srv_tls_exchange(fd, req, sizeof req - 1, resp, sizeof resp - 1);
        else if (write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1))
            n = read(fd, resp, sizeof resp - 1);
        if (n > 0) {
            resp[n] = '\0';
            healthy = !strncmp(resp, "HTTP/1.", 7) && !strncmp(resp + 8, " 200", 4);
        }
        close(fd);
    }
    printf("%s\n", healthy ? "healthy" : "unhealthy");
    return healthy ? 0 : 1;
}
