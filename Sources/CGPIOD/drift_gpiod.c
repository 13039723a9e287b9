#include "drift_gpiod.h"
int dgpio_api_version(void) { return 1; }
