#ifndef C_READER_SQLITE_H
#define C_READER_SQLITE_H

#include <sqlite3.h>

/// Tells SQLite not to checkpoint the write-ahead log when this connection, the last one, closes.
/// sqlite3_db_config is variadic, so Swift cannot call it directly.
static inline int reader_sqlite3_keep_wal_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#endif
