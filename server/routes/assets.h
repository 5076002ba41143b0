/*
 * assets.h -- files compiled into ircgd (the generated assets.c, made by
 * server/embed.sh from server/ui/, api/openapi.json and the examples of
 * `ircg example`), so the daemon serves exactly the dashboard and API
 * document it was built with, wherever it is installed.
 */
#ifndef IRCG_SERVER_ASSETS_H
#define IRCG_SERVER_ASSETS_H

#include <stddef.h>

typedef struct srv_asset {
    const char *path;            /* the URL path: "/ui/index.html"        */
    const unsigned char *data;   /* len bytes, then a NUL                  */
    size_t len;
} srv_asset;

/* Ends with an entry whose path is NULL. */
extern const srv_asset srv_assets[];

#endif /* IRCG_SERVER_ASSETS_H */
