/*
 * store_schema.h -- the ordered schema migrations (internal).
 */
#ifndef IRCG_STORE_SCHEMA_H
#define IRCG_STORE_SCHEMA_H

#include "store.h"

extern const char *const store_migrations[];
extern const int store_nmigrations;

/* Migration i may also need code: store_migration_code[i] (NULL: none)
 * runs after its SQL, in the same transaction. */
typedef store_rc (*store_migration_fn)(store *st);
extern const store_migration_fn store_migration_code[];

#endif /* IRCG_STORE_SCHEMA_H */
