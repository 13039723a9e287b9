#ifndef DRIFT_SYS_H
#define DRIFT_SYS_H

/*
 * Thin wrappers for what Swift cannot import directly: variadic ioctl(2),
 * macros and kernel structs. Every function here is a one-line pass-through
 * returning the libc result unchanged (-1 and errno on failure); the Swift
 * syscall layer (DriftSystem) turns failures into typed errors.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/socket.h>

/// errno of the calling thread (Swift cannot read the `errno` macro portably).
static inline int drift_errno(void) { return errno; }

/// fcntl(fd, F_GETFL) / fcntl(fd, F_SETFL, flags).
static inline int drift_fcntl_getfl(int fd) { return fcntl(fd, F_GETFL); }
static inline int drift_fcntl_setfl(int fd, int flags) { return fcntl(fd, F_SETFL, flags); }
/// fcntl(fd, F_SETFD, FD_CLOEXEC).
static inline int drift_fcntl_setcloexec(int fd) { return fcntl(fd, F_SETFD, FD_CLOEXEC); }

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK).
static inline int drift_accept_nonblock(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

/// pipe2(fds, O_CLOEXEC).
static inline int drift_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/// ioctl(fd, request, arg) with a pointer argument.
static inline int drift_ioctl_ptr(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
/// ioctl(fd, request, arg) with an integer argument.
static inline int drift_ioctl_int(int fd, unsigned long request, unsigned long arg) { return ioctl(fd, request, arg); }

#endif
