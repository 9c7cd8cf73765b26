// The shims are inline, in include/CReaderSQLite.h; SwiftPM needs one source file per C target.
#include "CReaderSQLite.h"
