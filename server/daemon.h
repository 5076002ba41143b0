/*
 * daemon.h -- ircgd's start-up and orderly stop (daemon.c), above every
 * room: it hands the http room its routes and the workers their runner.
 */
#ifndef IRCG_SERVER_DAEMON_H
#define IRCG_SERVER_DAEMON_H

int srv_main(int argc, char **argv);

/* Exit status of a daemon refused because another one holds the store. */
#define SRV_EXIT_DB_IN_USE 3
/* Exit status of a daemon refused because its store is damaged, not an
 * ircg store, or cannot be written. */
#define SRV_EXIT_STORE_UNUSABLE 4

#endif /* IRCG_SERVER_DAEMON_H */
