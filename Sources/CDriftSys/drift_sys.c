// All of CDriftSys is `static inline` in include/drift_sys.h; this file gives
// SwiftPM a compilation unit for the target.
#include "drift_sys.h"
