/*
 * store_schema.h -- the ordered schema migrations (internal).
 */
#ifndef IRCG_STORE_SCHEMA_H
#define IRCG_STORE_SCHEMA_H

extern const char *const store_migrations[];
extern const int store_nmigrations;

#endif /* IRCG_STORE_SCHEMA_H */
