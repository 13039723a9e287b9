/*
 * drift_gpiod.h over libgpiod 1.x (tested against 1.6 on Debian 12).
 *
 * v1 specifics handled here:
 * - Lines belong to a gpiod_chip. So that a request outlives the caller's chip
 *   handle (as in v2), each request opens its own gpiod_chip on the same path.
 * - v1 gives one event fd per line. A request merges them into one epoll fd,
 *   which polls readable whenever any line has events.
 * - Bias needs libgpiod >= 1.5 (GPIOD_LINE_REQUEST_FLAG_BIAS_*).
 */
#include "gpiod_select.h"

#if DRIFT_GPIOD_API == 1

#include "drift_gpiod.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

struct dgpio_chip {
    struct gpiod_chip *chip;
    char path[DGPIO_PATH_MAX];
};

struct dgpio_request {
    struct gpiod_chip *chip; /* the request's own handle on the chip */
    struct gpiod_line_bulk bulk;
    int epoll_fd;            /* -1 for output requests */
};

/* -errno of the last failure, never 0. */
static int neg_errno(void) { return errno ? -errno : -EIO; }

int dgpio_api_version(void) { return 1; }

const char *dgpio_library_version(void) { return gpiod_version_string(); }

static void fill_chip_info(struct gpiod_chip *chip, const char *path, dgpio_chip_info *out)
{
    char fallback[DGPIO_PATH_MAX];
    if (!path) {
        snprintf(fallback, sizeof fallback, "/dev/%s", gpiod_chip_name(chip));
        path = fallback;
    }
    dgpio_copy(out->path, sizeof out->path, path);
    dgpio_copy(out->name, sizeof out->name, gpiod_chip_name(chip));
    dgpio_copy(out->label, sizeof out->label, gpiod_chip_label(chip));
    out->num_lines = gpiod_chip_num_lines(chip);
}

int dgpio_list_chips(dgpio_chip_info *out, unsigned int capacity)
{
    struct gpiod_chip_iter *iter = gpiod_chip_iter_new();
    if (!iter)
        return errno == ENOENT ? 0 : neg_errno();
    int count = 0;
    struct gpiod_chip *chip;
    while ((chip = gpiod_chip_iter_next(iter)) != NULL) {
        if ((unsigned int)count < capacity)
            fill_chip_info(chip, NULL, &out[count]);
        count++;
    }
    gpiod_chip_iter_free(iter);
    return count;
}

/* Wraps an opened gpiod_chip (or reports why it is NULL). */
static int wrap_chip(struct gpiod_chip *raw, const char *path, dgpio_chip **out)
{
    if (!raw)
        return neg_errno();
    dgpio_chip *chip = calloc(1, sizeof *chip);
    if (!chip) {
        gpiod_chip_close(raw);
        return -ENOMEM;
    }
    chip->chip = raw;
    if (path)
        dgpio_copy(chip->path, sizeof chip->path, path);
    else
        snprintf(chip->path, sizeof chip->path, "/dev/%s", gpiod_chip_name(raw));
    *out = chip;
    return 0;
}

int dgpio_chip_open_path(const char *path, dgpio_chip **out)
{
    return wrap_chip(gpiod_chip_open(path), path, out);
}

int dgpio_chip_open_name(const char *name, dgpio_chip **out)
{
    if (name[0] == '\0' || strchr(name, '/'))
        return -EINVAL;
    return wrap_chip(gpiod_chip_open_by_name(name), NULL, out);
}

int dgpio_chip_open_label(const char *label, dgpio_chip **out)
{
    errno = 0;
    struct gpiod_chip *raw = gpiod_chip_open_by_label(label);
    if (!raw && errno == 0)
        errno = ENOENT;
    return wrap_chip(raw, NULL, out);
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
    fill_chip_info(chip->chip, chip->path, out);
    return 0;
}

int dgpio_chip_find_line(dgpio_chip *chip, const char *name)
{
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
    if (!line)
        return errno ? -errno : -ENOENT;
    return (int)gpiod_line_offset(line);
}

int dgpio_chip_line_info(dgpio_chip *chip, unsigned int offset, dgpio_line_info *out)
{
    if (offset >= gpiod_chip_num_lines(chip->chip))
        return -EINVAL;
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line || gpiod_line_update(line) < 0)
        return neg_errno();
    out->offset = offset;
    dgpio_copy(out->name, sizeof out->name, gpiod_line_name(line));
    dgpio_copy(out->consumer, sizeof out->consumer, gpiod_line_consumer(line));
    out->used = gpiod_line_is_used(line);
    out->output = gpiod_line_direction(line) == GPIOD_LINE_DIRECTION_OUTPUT;
    out->active_low = gpiod_line_active_state(line) == GPIOD_LINE_ACTIVE_STATE_LOW;
    return 0;
}

static int bias_flags(int bias)
{
    switch (bias) {
    case DGPIO_BIAS_AS_IS: return 0;
    case DGPIO_BIAS_DISABLE: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case DGPIO_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case DGPIO_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    default: return -1;
    }
}

static void free_request(dgpio_request *req)
{
    if (req->epoll_fd >= 0)
        close(req->epoll_fd);
    if (req->chip)
        gpiod_chip_close(req->chip); /* also releases the requested lines */
    free(req);
}

/* Allocates a request with its own chip handle and the lines at `offsets`. */
static int new_request(dgpio_chip *chip, const unsigned int *offsets, unsigned int num,
                       dgpio_request **out)
{
    if (num == 0 || num > DGPIO_MAX_LINES)
        return -EINVAL;
    dgpio_request *req = calloc(1, sizeof *req);
    if (!req)
        return -ENOMEM;
    req->epoll_fd = -1;
    req->chip = gpiod_chip_open(chip->path);
    if (!req->chip || gpiod_chip_get_lines(req->chip, (unsigned int *)offsets, num, &req->bulk) < 0) {
        int err = neg_errno();
        free_request(req);
        return err;
    }
    *out = req;
    return 0;
}

/* Adds every line's event fd to a new epoll fd. */
static int merge_event_fds(dgpio_request *req)
{
    req->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (req->epoll_fd < 0)
        return neg_errno();
    for (unsigned int i = 0; i < req->bulk.num_lines; i++) {
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
        int fd = gpiod_line_event_get_fd(req->bulk.lines[i]);
        if (fd < 0 || epoll_ctl(req->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0)
            return neg_errno();
    }
    return 0;
}

int dgpio_request_input(dgpio_chip *chip, const char *consumer,
                        const unsigned int *offsets, unsigned int num_offsets,
                        int bias, int active_low, dgpio_request **out)
{
    int flags = bias_flags(bias);
    if (flags < 0)
        return -EINVAL;
    if (active_low)
        flags |= GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW;
    dgpio_request *req;
    int rc = new_request(chip, offsets, num_offsets, &req);
    if (rc < 0)
        return rc;
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
        .flags = flags,
    };
    if (gpiod_line_request_bulk(&req->bulk, &config, NULL) < 0 || (rc = merge_event_fds(req)) < 0) {
        rc = rc < 0 ? rc : neg_errno();
        free_request(req);
        return rc;
    }
    *out = req;
    return 0;
}

int dgpio_request_output(dgpio_chip *chip, const char *consumer,
                         const unsigned int *offsets, unsigned int num_offsets,
                         int active_low, const int *values, dgpio_request **out)
{
    dgpio_request *req;
    int rc = new_request(chip, offsets, num_offsets, &req);
    if (rc < 0)
        return rc;
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_DIRECTION_OUTPUT,
        .flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0,
    };
    if (gpiod_line_request_bulk(&req->bulk, &config, values) < 0) {
        rc = neg_errno();
        free_request(req);
        return rc;
    }
    *out = req;
    return 0;
}

int dgpio_request_event_fd(dgpio_request *request)
{
    return request->epoll_fd >= 0 ? request->epoll_fd : -EINVAL;
}

/* Reads the pending events of one line (0 if none) into out[0..<capacity]. */
static int read_line_events(struct gpiod_line *line, dgpio_event *out, unsigned int capacity)
{
    struct pollfd pfd = { .fd = gpiod_line_event_get_fd(line), .events = POLLIN };
    int ready = poll(&pfd, 1, 0);
    if (ready < 0)
        return neg_errno();
    if (ready == 0 || !(pfd.revents & POLLIN))
        return (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) ? -ENODEV : 0;
    struct gpiod_line_event events[16];
    unsigned int want = capacity < 16 ? capacity : 16;
    int n = gpiod_line_event_read_fd_multiple(pfd.fd, events, want);
    if (n < 0)
        return neg_errno();
    for (int i = 0; i < n; i++) {
        out[i].offset = gpiod_line_offset(line);
        out[i].edge = events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE ? DGPIO_EDGE_RISING : DGPIO_EDGE_FALLING;
        out[i].timestamp_ns = (uint64_t)events[i].ts.tv_sec * 1000000000u + (uint64_t)events[i].ts.tv_nsec;
    }
    return n;
}

int dgpio_request_read_events(dgpio_request *request, dgpio_event *out, unsigned int capacity)
{
    if (request->epoll_fd < 0)
        return -EINVAL;
    unsigned int count = 0;
    for (unsigned int i = 0; i < request->bulk.num_lines && count < capacity; i++) {
        int n = read_line_events(request->bulk.lines[i], out + count, capacity - count);
        if (n < 0)
            return n;
        count += (unsigned int)n;
    }
    return (int)count;
}

int dgpio_request_get_values(dgpio_request *request, int *values, unsigned int num)
{
    if (num != request->bulk.num_lines)
        return -EINVAL;
    return gpiod_line_get_value_bulk(&request->bulk, values) < 0 ? neg_errno() : 0;
}

int dgpio_request_set_values(dgpio_request *request, const int *values, unsigned int num)
{
    if (num != request->bulk.num_lines)
        return -EINVAL;
    return gpiod_line_set_value_bulk(&request->bulk, values) < 0 ? neg_errno() : 0;
}

void dgpio_request_release(dgpio_request *request)
{
    if (!request)
        return;
    gpiod_line_release_bulk(&request->bulk);
    free_request(request);
}

#endif /* DRIFT_GPIOD_API == 1 */
