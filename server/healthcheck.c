/*
 * healthcheck.c -- `ircgd --healthcheck`: GET /healthz over a plain socket
 * (the runtime image has no curl).  Exit status 0 = healthy.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server.h"

static int connect_to(const char *host, int port)
{
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    struct timeval tv = {3, 0};
    int fd = -1;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (!strcmp(host, "0.0.0.0"))
        host = "127.0.0.1";
    if (!strcmp(host, "::"))
        host = "::1";
    if (inet_pton(AF_INET, host, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons((uint16_t)port);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a4, sizeof a4) != 0) {
            close(fd);
            fd = -1;
        }
    } else if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons((uint16_t)port);
        fd = socket(AF_INET6, SOCK_STREAM, 0);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a6, sizeof a6) != 0) {
            close(fd);
            fd = -1;
        }
    }
    return fd;
}

int srv_healthcheck(const srv_config *c)
{
    char host[256], resp[256];
    int port = 0, healthy = 0;
    if (srv_parse_listen(c->listen, host, sizeof host, &port) != 0 || port == 0)
        return 1;
    int fd = connect_to(host, port);
    if (fd >= 0) {
        const char req[] = "GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n";
        ssize_t n = write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1)
                        ? read(fd, resp, sizeof resp - 1) : -1;
        if (n > 0) {
            resp[n] = '\0';
            healthy = !strncmp(resp, "HTTP/1.", 7) && !strncmp(resp + 8, " 200", 4);
        }
        close(fd);
    }
    printf("%s\n", healthy ? "healthy" : "unhealthy");
    return healthy ? 0 : 1;
}
