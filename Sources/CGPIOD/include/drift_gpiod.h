#ifndef DRIFT_GPIOD_H
#define DRIFT_GPIOD_H

/*
 * One small, stable GPIO interface over libgpiod, implemented twice:
 *   gpiod_v1.c  libgpiod 1.x (Debian 12 bookworm: 1.6)
 *   gpiod_v2.c  libgpiod 2.x (Debian 13 trixie, Raspberry Pi OS trixie)
 * Exactly one of them has a body; the choice is made at compile time from
 * <gpiod.h> (v1 defines GPIOD_LINE_BULK_MAX_LINES and GPIOD_API, v2 defines
 * neither), or forced with -DDRIFT_GPIOD_API=1 or 2.
 *
 * Conventions
 * - Handles are opaque. A request does not depend on the chip handle it was
 *   made from: closing the chip leaves its requests working.
 * - Functions returning int return >= 0 on success and -errno on failure
 *   (never -1 with errno), so the caller does not race the thread's errno.
 * - Values are logical: with active_low set, 1 means the line is low.
 * - Edge timestamps are CLOCK_MONOTONIC nanoseconds (kernel default).
 * - Nothing blocks except the kernel calls themselves: read_events returns 0
 *   when nothing is pending; wait on the event fd (poll/epoll) first.
 * - Handles are not thread safe; the Swift side serialises calls per handle.
 */

#include <stdint.h>

/* Most lines one request may hold (v1's GPIOD_LINE_BULK_MAX_LINES). */
#define DGPIO_MAX_LINES 64
/* Sizes of the fixed string fields below, including the terminating NUL. */
#define DGPIO_PATH_MAX 128
#define DGPIO_NAME_MAX 32
#define DGPIO_LABEL_MAX 64

typedef struct dgpio_chip dgpio_chip;
typedef struct dgpio_request dgpio_request;

/* Bias applied to input lines. */
enum dgpio_bias {
    DGPIO_BIAS_AS_IS = 0,
    DGPIO_BIAS_DISABLE = 1,
    DGPIO_BIAS_PULL_UP = 2,
    DGPIO_BIAS_PULL_DOWN = 3,
};

/* Edge of an event, in logical terms (rising = became active). */
enum dgpio_edge {
    DGPIO_EDGE_RISING = 1,
    DGPIO_EDGE_FALLING = 2,
};

/* A chip as seen by enumeration or on an open handle. Strings are truncated to fit. */
typedef struct dgpio_chip_info {
    char path[DGPIO_PATH_MAX];   /* device path used to open it, e.g. "/dev/gpiochip0" */
    char name[DGPIO_NAME_MAX];   /* kernel name, e.g. "gpiochip0" */
    char label[DGPIO_LABEL_MAX]; /* driver label, e.g. "pinctrl-rp1" */
    unsigned int num_lines;
} dgpio_chip_info;

/* One line of a chip. Empty strings when the kernel has no name/consumer. */
typedef struct dgpio_line_info {
    unsigned int offset;
    char name[DGPIO_NAME_MAX];
    char consumer[DGPIO_NAME_MAX];
    int used;       /* 1 if requested by anyone (kernel driver or user space) */
    int output;     /* 1 if configured as output */
    int active_low; /* 1 if active-low */
} dgpio_line_info;

/* One edge event. */
typedef struct dgpio_event {
    unsigned int offset;   /* line offset on the chip */
    int edge;              /* enum dgpio_edge */
    uint64_t timestamp_ns; /* CLOCK_MONOTONIC */
} dgpio_event;

/* 1 or 2: the libgpiod API this shim was compiled against. */
int dgpio_api_version(void);
/* The libgpiod library's own version string, e.g. "1.6.3". */
const char *dgpio_library_version(void);

/*
 * Enumerates GPIO chips. Fills up to `capacity` entries of `out` (may be NULL
 * when capacity is 0) and returns how many chips exist (may exceed capacity).
 * No chips at all is 0, not an error.
 */
int dgpio_list_chips(dgpio_chip_info *out, unsigned int capacity);

/* Opens a chip by device path ("/dev/gpiochip0"). */
int dgpio_chip_open_path(const char *path, dgpio_chip **out);
/* Opens a chip by kernel name ("gpiochip0"), i.e. /dev/<name>; "/" in name is -EINVAL. */
int dgpio_chip_open_name(const char *name, dgpio_chip **out);
/* Opens the first chip (in enumeration order) whose label equals `label`; -ENOENT if none. */
int dgpio_chip_open_label(const char *label, dgpio_chip **out);
/* Closes a chip handle; NULL is ignored. */
void dgpio_chip_close(dgpio_chip *chip);

/* Path, name, label and line count of an open chip. */
int dgpio_chip_get_info(dgpio_chip *chip, dgpio_chip_info *out);
/* Offset of the first line called `name`, or -ENOENT. */
int dgpio_chip_find_line(dgpio_chip *chip, const char *name);
/* Name, consumer and state of the line at `offset` (-EINVAL if out of range). */
int dgpio_chip_line_info(dgpio_chip *chip, unsigned int offset, dgpio_line_info *out);

/*
 * Requests `num_offsets` (1...DGPIO_MAX_LINES) lines as inputs with both-edge
 * events. `bias` is an enum dgpio_bias. On success *out holds the request and
 * dgpio_request_event_fd() becomes readable when events are pending.
 */
int dgpio_request_input(dgpio_chip *chip, const char *consumer,
                        const unsigned int *offsets, unsigned int num_offsets,
                        int bias, int active_low, dgpio_request **out);

/* Requests lines as outputs driven to `values` (logical, one per offset; NULL = all 0). */
int dgpio_request_output(dgpio_chip *chip, const char *consumer,
                         const unsigned int *offsets, unsigned int num_offsets,
                         int active_low, const int *values, dgpio_request **out);

/* A file descriptor that polls readable while edge events are pending; -EINVAL for outputs. */
int dgpio_request_event_fd(dgpio_request *request);

/* Moves up to `capacity` pending events into `out`; returns the count, 0 if none pending. */
int dgpio_request_read_events(dgpio_request *request, dgpio_event *out, unsigned int capacity);

/* Reads the values of all requested lines, in request order, into `values[num]`. */
int dgpio_request_get_values(dgpio_request *request, int *values, unsigned int num);
/* Sets all requested lines (outputs) to `values[num]`, in request order. */
int dgpio_request_set_values(dgpio_request *request, const int *values, unsigned int num);

/* Releases the lines and frees the request; NULL is ignored. */
void dgpio_request_release(dgpio_request *request);

#endif
