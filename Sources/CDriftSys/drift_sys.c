// Most of CDriftSys is `static inline` in include/drift_sys.h. The few calls
// that need _GNU_SOURCE live here, so the feature macro stays out of the
// module's public header (defining it there changes glibc's struct layouts
// and clashes with other Clang modules such as Dispatch).
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <spawn.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "drift_sys.h"

int drift_gettid(void) { return (int)gettid(); }

int drift_malloc_trim(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

int drift_spawn_actions_addchdir(void *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np((posix_spawn_file_actions_t *)actions, path);
}

int drift_spawn_actions_addclosefrom(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}

int drift_accept_nonblock(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

int drift_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#ifdef __linux__
int drift_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout) {
    struct epoll_event buffer[64];
    if (max > 64) max = 64;
    int count = epoll_wait(epfd, buffer, max, timeout);
    for (int i = 0; i < count; i++) {
        events[i] = buffer[i].events;
        data[i] = buffer[i].data.u64;
    }
    return count;
}
#endif

int drift_pty_open_master(void) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd == -1) return -1;
    if (grantpt(fd) == -1 || unlockpt(fd) == -1) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int drift_pty_slave_name(int fd, char *buffer, size_t length) { return ptsname_r(fd, buffer, length); }
