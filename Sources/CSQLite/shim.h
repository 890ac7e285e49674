#ifndef OPENSWIFTDATA_CSQLITE_SHIM_H
#define OPENSWIFTDATA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Turns off SQLite's acceptance of double-quoted string literals, so a quoted identifier that
/// names no column is an error instead of silently becoming a string ("DQS" misfeature).
/// sqlite3_db_config is variadic, which Swift cannot call directly.
static inline int openswiftdata_disable_double_quoted_strings(sqlite3 *db) {
    int status = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (status != SQLITE_OK) return status;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}
/// Turns off `trusted_schema`: SQL functions reached from a database file's own schema (views,
/// triggers, CHECK constraints, defaults) must be innocuous, so a crafted file cannot run them.
static inline int openswiftdata_distrust_schema(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}
#endif
