/*
 * sockets.c -- the listen socket (bound by ircgd itself, before anything
 * touches the store, then handed to libmicrohttpd) and the client socket
 * of --healthcheck.  Names are resolved with getaddrinfo, so
 * "localhost:8080" works as well as "127.0.0.1:8080" or "[::1]:8080".
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/base.h"

#define LISTEN_BACKLOG 128

static int resolve(const char *host, int port, int passive, struct addrinfo **out,
                   char *err, size_t errlen)
{
    char service[16];
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    snprintf(service, sizeof service, "%d", port);
    int rc = getaddrinfo(host, service, &hints, out);
    if (rc != 0)
        snprintf(err, errlen, "cannot resolve \"%s\": %s", host, gai_strerror(rc));
    return rc == 0 ? 0 : -1;
}

/* "1.2.3.4" or "[::1]" and the port of a bound address. */
static void sockaddr_text(const struct sockaddr *sa, socklen_t len, char *buf,
                          size_t buflen, int *port)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo(sa, len, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(buf, buflen, "?");
        *port = 0;
        return;
    }
    snprintf(buf, buflen, sa->sa_family == AF_INET6 ? "[%s]" : "%s", host);
    *port = atoi(serv);
}

/* One candidate address: a listening socket, or -1 with errno kept. */
static int try_listen(const struct addrinfo *ai)
{
    int one = 1;
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -1;
    /* A restart must not wait for TIME_WAIT connections of the last run. */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int srv_listen_open(const char *listen_addr, char *bound, size_t boundlen,
                    int *port, char *err, size_t errlen)
{
    char host[256];
    struct addrinfo *list = NULL;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    int fd = -1, p = 0, saved = 0;
    if (srv_parse_listen(listen_addr, host, sizeof host, &p) != 0) {
        snprintf(err, errlen, "invalid listen address \"%s\"", listen_addr);
        return -1;
    }
    if (resolve(host, p, 1, &list, err, errlen) != 0)
        return -1;
    /* The first address that binds, in getaddrinfo's order of preference
     * (a name can resolve to several, e.g. localhost to ::1 and 127.0.0.1). */
    for (const struct addrinfo *ai = list; ai && fd < 0; ai = ai->ai_next)
        if ((fd = try_listen(ai)) < 0)
            saved = errno;
    freeaddrinfo(list);
    if (fd < 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", listen_addr, strerror(saved));
        return -1;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        sockaddr_text((struct sockaddr *)&ss, sl, bound, boundlen, port);
    } else {
        snprintf(bound, boundlen, "%s", host);
        *port = p;
    }
    return fd;
}

int srv_connect(const char *host, int port, double timeout_s)
{
    struct addrinfo *list = NULL;
    struct timeval tv = {(time_t)timeout_s, 0};
    char err[256];
    int fd = -1;
    /* a wildcard listen address is reached through the loopback */
    if (!strcmp(host, "0.0.0.0"))
        host = "127.0.0.1";
    else if (!strcmp(host, "::"))
        host = "::1";
    if (resolve(host, port, 0, &list, err, sizeof err) != 0)
        return -1;
    for (const struct addrinfo *ai = list; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
            connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    return fd;
}
