#ifndef DRIFT_GPIOD_SELECT_H
#define DRIFT_GPIOD_SELECT_H

/*
 * Picks the libgpiod API for this build (private to the CGPIOD target).
 * v1's <gpiod.h> defines GPIOD_LINE_BULK_MAX_LINES and GPIOD_API; v2's
 * defines neither. -DDRIFT_GPIOD_API=1|2 overrides the detection.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <gpiod.h>
#include <string.h>

#ifndef DRIFT_GPIOD_API
#if defined(GPIOD_LINE_BULK_MAX_LINES) || defined(GPIOD_API)
#define DRIFT_GPIOD_API 1
#else
#define DRIFT_GPIOD_API 2
#endif
#endif

#if DRIFT_GPIOD_API != 1 && DRIFT_GPIOD_API != 2
#error "DRIFT_GPIOD_API must be 1 or 2"
#endif

/* Copies a C string that may be NULL into a fixed buffer, truncating. */
static inline void dgpio_copy(char *dst, size_t size, const char *src)
{
    if (size == 0)
        return;
    strncpy(dst, src ? src : "", size - 1);
    dst[size - 1] = '\0';
}

#endif
