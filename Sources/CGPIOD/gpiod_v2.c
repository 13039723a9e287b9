/*
 * drift_gpiod.h over libgpiod 2.x (Debian 13 ships 2.2). Uses only API that
 * exists since 2.0. Compiled here only by scripts/check-gpiod-v2.sh; it
 * cannot run on this kernel (no GPIO), so keep it as plain as the v1 file.
 *
 * v2 specifics handled here:
 * - No chip iterator: enumeration and open-by-label scan /dev for gpiochip*.
 * - A request is independent of the chip handle and has one event fd.
 * - Events are read through a gpiod_edge_event_buffer kept per request.
 */
#include "gpiod_select.h"

#if DRIFT_GPIOD_API == 2

#include "drift_gpiod.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define EVENT_BUFFER_SIZE 64

struct dgpio_chip {
    struct gpiod_chip *chip;
};

struct dgpio_request {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events; /* NULL for output requests */
    unsigned int num_lines;
};

/* -errno of the last failure, never 0. */
static int neg_errno(void) { return errno ? -errno : -EIO; }

int dgpio_api_version(void) { return 2; }

const char *dgpio_library_version(void) { return gpiod_api_version(); }

static int fill_chip_info(struct gpiod_chip *chip, dgpio_chip_info *out)
{
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info)
        return neg_errno();
    dgpio_copy(out->path, sizeof out->path, gpiod_chip_get_path(chip));
    dgpio_copy(out->name, sizeof out->name, gpiod_chip_info_get_name(info));
    dgpio_copy(out->label, sizeof out->label, gpiod_chip_info_get_label(info));
    out->num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return 0;
}

static int is_gpiochip_name(const struct dirent *entry)
{
    return strncmp(entry->d_name, "gpiochip", 8) == 0;
}

/* Opens the chip at /dev/<name>, or returns NULL if it is not an openable GPIO chip. */
static struct gpiod_chip *open_dev_entry(const char *name)
{
    char path[DGPIO_PATH_MAX];
    if (snprintf(path, sizeof path, "/dev/%s", name) >= (int)sizeof path)
        return NULL;
    return gpiod_is_gpiochip_device(path) ? gpiod_chip_open(path) : NULL;
}

/*
 * Opens each /dev/gpiochip* in name order and calls visit(chip, ctx). visit
 * returns 0 to go on (the chip is closed), 1 to stop and keep the chip in
 * *found, or -errno to stop with that error. Returns 0/1/-errno accordingly.
 * Chips that cannot be opened (permissions, races with removal) are skipped.
 */
static int scan_chips(int (*visit)(struct gpiod_chip *, void *), void *ctx, struct gpiod_chip **found)
{
    struct dirent **entries;
    int n = scandir("/dev", &entries, is_gpiochip_name, alphasort);
    if (n < 0)
        return neg_errno();
    int rc = 0;
    for (int i = 0; i < n; i++) {
        struct gpiod_chip *chip = rc == 0 ? open_dev_entry(entries[i]->d_name) : NULL;
        if (chip) {
            rc = visit(chip, ctx);
            if (rc == 1 && found)
                *found = chip;
            else
                gpiod_chip_close(chip);
        }
        free(entries[i]);
    }
    free(entries);
    return rc;
}

struct list_ctx {
    dgpio_chip_info *out;
    unsigned int capacity;
    unsigned int count;
};

static int list_visit(struct gpiod_chip *chip, void *ctx)
{
    struct list_ctx *list = ctx;
    if (list->count < list->capacity) {
        int rc = fill_chip_info(chip, &list->out[list->count]);
        if (rc < 0)
            return rc;
    }
    list->count++;
    return 0;
}

int dgpio_list_chips(dgpio_chip_info *out, unsigned int capacity)
{
    struct list_ctx list = { out, capacity, 0 };
    int rc = scan_chips(list_visit, &list, NULL);
    return rc < 0 ? rc : (int)list.count;
}

/* Wraps an opened gpiod_chip (or reports why it is NULL). */
static int wrap_chip(struct gpiod_chip *raw, dgpio_chip **out)
{
    if (!raw)
        return neg_errno();
    dgpio_chip *chip = calloc(1, sizeof *chip);
    if (!chip) {
        gpiod_chip_close(raw);
        return -ENOMEM;
    }
    chip->chip = raw;
    *out = chip;
    return 0;
}

int dgpio_chip_open_path(const char *path, dgpio_chip **out)
{
    return wrap_chip(gpiod_chip_open(path), out);
}

int dgpio_chip_open_name(const char *name, dgpio_chip **out)
{
    if (name[0] == '\0' || strchr(name, '/'))
        return -EINVAL;
    char path[DGPIO_PATH_MAX];
    if (snprintf(path, sizeof path, "/dev/%s", name) >= (int)sizeof path)
        return -ENAMETOOLONG;
    return wrap_chip(gpiod_chip_open(path), out);
}

static int label_visit(struct gpiod_chip *chip, void *ctx)
{
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info)
        return neg_errno();
    const char *label = gpiod_chip_info_get_label(info);
    int match = label && strcmp(label, ctx) == 0;
    gpiod_chip_info_free(info);
    return match;
}

int dgpio_chip_open_label(const char *label, dgpio_chip **out)
{
    struct gpiod_chip *found = NULL;
    int rc = scan_chips(label_visit, (void *)label, &found);
    if (rc < 0)
        return rc;
    if (!found)
        return -ENOENT;
    return wrap_chip(found, out);
}

void dgpio_chip_close(dgpio_chip *chip)
{
    if (!chip)
        return;
    gpiod_chip_close(chip->chip);
    free(chip);
}

int dgpio_chip_get_info(dgpio_chip *chip, dgpio_chip_info *out)
{
    return fill_chip_info(chip->chip, out);
}

int dgpio_chip_find_line(dgpio_chip *chip, const char *name)
{
    errno = 0;
    int offset = gpiod_chip_get_line_offset_from_name(chip->chip, name);
    if (offset < 0)
        return errno ? -errno : -ENOENT;
    return offset;
}

int dgpio_chip_line_info(dgpio_chip *chip, unsigned int offset, dgpio_line_info *out)
{
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
    if (!info)
        return neg_errno();
    out->offset = offset;
    dgpio_copy(out->name, sizeof out->name, gpiod_line_info_get_name(info));
    dgpio_copy(out->consumer, sizeof out->consumer, gpiod_line_info_get_consumer(info));
    out->used = gpiod_line_info_is_used(info);
    out->output = gpiod_line_info_get_direction(info) == GPIOD_LINE_DIRECTION_OUTPUT;
    out->active_low = gpiod_line_info_is_active_low(info);
    gpiod_line_info_free(info);
    return 0;
}

static int map_bias(int bias, enum gpiod_line_bias *out)
{
    switch (bias) {
    case DGPIO_BIAS_AS_IS: *out = GPIOD_LINE_BIAS_AS_IS; return 0;
    case DGPIO_BIAS_DISABLE: *out = GPIOD_LINE_BIAS_DISABLED; return 0;
    case DGPIO_BIAS_PULL_UP: *out = GPIOD_LINE_BIAS_PULL_UP; return 0;
    case DGPIO_BIAS_PULL_DOWN: *out = GPIOD_LINE_BIAS_PULL_DOWN; return 0;
    default: return -EINVAL;
    }
}

/*
 * Requests `offsets` with `settings` (and initial output `values`, may be NULL)
 * and wraps the result. Frees nothing of the caller's.
 */
static int request_lines(dgpio_chip *chip, const char *consumer, const unsigned int *offsets,
                         unsigned int num, struct gpiod_line_settings *settings,
                         const int *values, dgpio_request **out)
{
    enum gpiod_line_value initial[DGPIO_MAX_LINES];
    struct gpiod_line_config *lines = gpiod_line_config_new();
    struct gpiod_request_config *config = gpiod_request_config_new();
    dgpio_request *req = calloc(1, sizeof *req);
    int rc = (!lines || !config || !req) ? -ENOMEM : 0;
    if (rc == 0 && gpiod_line_config_add_line_settings(lines, offsets, num, settings) < 0)
        rc = neg_errno();
    for (unsigned int i = 0; values && i < num; i++)
        initial[i] = values[i] ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    if (rc == 0 && values && gpiod_line_config_set_output_values(lines, initial, num) < 0)
        rc = neg_errno();
    if (rc == 0) {
        gpiod_request_config_set_consumer(config, consumer);
        req->request = gpiod_chip_request_lines(chip->chip, config, lines);
        rc = req->request ? 0 : neg_errno();
    }
    if (lines)
        gpiod_line_config_free(lines);
    if (config)
        gpiod_request_config_free(config);
    if (rc < 0) {
        free(req);
        return rc;
    }
    req->num_lines = num;
    *out = req;
    return 0;
}

int dgpio_request_input(dgpio_chip *chip, const char *consumer,
                        const unsigned int *offsets, unsigned int num_offsets,
                        int bias, int active_low, dgpio_request **out)
{
    enum gpiod_line_bias line_bias;
    if (num_offsets == 0 || num_offsets > DGPIO_MAX_LINES || map_bias(bias, &line_bias) < 0)
        return -EINVAL;
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings)
        return -ENOMEM;
    int rc = 0;
    if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) < 0
        || gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH) < 0
        || gpiod_line_settings_set_bias(settings, line_bias) < 0
        || gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC) < 0)
        rc = neg_errno();
    gpiod_line_settings_set_active_low(settings, active_low != 0);
    dgpio_request *req = NULL;
    if (rc == 0)
        rc = request_lines(chip, consumer, offsets, num_offsets, settings, NULL, &req);
    gpiod_line_settings_free(settings);
    if (rc == 0 && (req->events = gpiod_edge_event_buffer_new(EVENT_BUFFER_SIZE)) == NULL) {
        dgpio_request_release(req);
        rc = -ENOMEM;
    }
    if (rc == 0)
        *out = req;
    return rc;
}

int dgpio_request_output(dgpio_chip *chip, const char *consumer,
                         const unsigned int *offsets, unsigned int num_offsets,
                         int active_low, const int *values, dgpio_request **out)
{
    if (num_offsets == 0 || num_offsets > DGPIO_MAX_LINES)
        return -EINVAL;
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings)
        return -ENOMEM;
    int rc = gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) < 0 ? neg_errno() : 0;
    gpiod_line_settings_set_active_low(settings, active_low != 0);
    if (rc == 0)
        rc = request_lines(chip, consumer, offsets, num_offsets, settings, values, out);
    gpiod_line_settings_free(settings);
    return rc;
}

int dgpio_request_event_fd(dgpio_request *request)
{
    return request->events ? gpiod_line_request_get_fd(request->request) : -EINVAL;
}

int dgpio_request_read_events(dgpio_request *request, dgpio_event *out, unsigned int capacity)
{
    if (!request->events)
        return -EINVAL;
    int ready = gpiod_line_request_wait_edge_events(request->request, 0);
    if (ready <= 0 || capacity == 0)
        return ready < 0 ? neg_errno() : 0;
    size_t want = capacity < EVENT_BUFFER_SIZE ? capacity : EVENT_BUFFER_SIZE;
    int n = gpiod_line_request_read_edge_events(request->request, request->events, want);
    if (n < 0)
        return neg_errno();
    for (int i = 0; i < n; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(request->events, (unsigned long)i);
        out[i].offset = gpiod_edge_event_get_line_offset(event);
        out[i].edge = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE ? DGPIO_EDGE_RISING : DGPIO_EDGE_FALLING;
        out[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
    }
    return n;
}

int dgpio_request_get_values(dgpio_request *request, int *values, unsigned int num)
{
    enum gpiod_line_value read[DGPIO_MAX_LINES];
    if (num != request->num_lines)
        return -EINVAL;
    if (gpiod_line_request_get_values(request->request, read) < 0)
        return neg_errno();
    for (unsigned int i = 0; i < num; i++)
        values[i] = read[i] == GPIOD_LINE_VALUE_ACTIVE;
    return 0;
}

int dgpio_request_set_values(dgpio_request *request, const int *values, unsigned int num)
{
    enum gpiod_line_value write[DGPIO_MAX_LINES];
    if (num != request->num_lines)
        return -EINVAL;
    for (unsigned int i = 0; i < num; i++)
        write[i] = values[i] ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    return gpiod_line_request_set_values(request->request, write) < 0 ? neg_errno() : 0;
}

void dgpio_request_release(dgpio_request *request)
{
    if (!request)
        return;
    if (request->events)
        gpiod_edge_event_buffer_free(request->events);
    gpiod_line_request_release(request->request);
    free(request);
}

#endif /* DRIFT_GPIOD_API == 2 */
