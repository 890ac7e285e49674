#ifndef OPENSWIFTDATA_CSQLITE_SHIM_H
#define OPENSWIFTDATA_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
