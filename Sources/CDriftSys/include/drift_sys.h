#ifndef DRIFT_SYS_H
#define DRIFT_SYS_H

/*
 * Thin wrappers for what Swift cannot import directly: variadic ioctl(2),
 * macros and kernel structs. Every function here is a one-line pass-through
 * returning the libc result unchanged (-1 and errno on failure); the Swift
 * syscall layer (DriftSystem) turns failures into typed errors.
 */

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
/// (Defined in drift_sys.c: accept4 needs _GNU_SOURCE, which must not leak into the module's headers.)
int drift_accept_nonblock(int fd);

/// posix_spawn_file_actions_addchdir_np(actions, path) (glibc ≥ 2.29; GNU-only, in drift_sys.c).
/// `actions` is a `posix_spawn_file_actions_t *` passed untyped so this header needs no <spawn.h>.
int drift_spawn_actions_addchdir(void *actions, const char *path);
/// posix_spawn_file_actions_addclosefrom_np(actions, from) (glibc ≥ 2.34): the child closes
/// every descriptor from `from` up, inherited by accident or not (libraries such as NIO accept
/// connections without close-on-exec).
int drift_spawn_actions_addclosefrom(void *actions, int from);

/// The calling thread's kernel id (gettid(2); GNU-only, in drift_sys.c).
int drift_gettid(void);

/// malloc_trim(0): glibc hands the free memory of every arena back to the kernel; 1 if some
/// was released. 0 (nothing released) where the C library has no malloc_trim (musl).
int drift_malloc_trim(void);

/// pipe2(fds, O_CLOEXEC).
/// (Defined in drift_sys.c, for the same reason.)
int drift_pipe_cloexec(int fds[2]);

/// ioctl(fd, request, arg) with a pointer argument.
static inline int drift_ioctl_ptr(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
/// ioctl(fd, request, arg) with an integer argument.
static inline int drift_ioctl_int(int fd, unsigned long request, unsigned long arg) { return ioctl(fd, request, arg); }

/* ---- Serial ports (termios) ---- */

/// ioctl(fd, TIOCOUTQ, &count): bytes still waiting in the output queue.
static inline int drift_tty_output_queue(int fd, int *count) { return ioctl(fd, TIOCOUTQ, count); }

/* ---- epoll (DriftSystem's EpollReactor: the readiness and writability monitors' one thread) ---- */
#ifdef __linux__
#include <stdint.h>
#include <sys/epoll.h>

/// The epoll event bits the reactor uses (glibc declares them as an enum Swift imports awkwardly).
static const uint32_t DRIFT_EPOLLIN = EPOLLIN;
static const uint32_t DRIFT_EPOLLOUT = EPOLLOUT;
static const uint32_t DRIFT_EPOLLPRI = EPOLLPRI;
static const uint32_t DRIFT_EPOLLERR = EPOLLERR;
static const uint32_t DRIFT_EPOLLHUP = EPOLLHUP;
static const uint32_t DRIFT_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t DRIFT_EPOLLONESHOT = EPOLLONESHOT;
static const int DRIFT_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
static const int DRIFT_EPOLL_CTL_DEL = EPOLL_CTL_DEL;
static const int DRIFT_EPOLL_CTL_MOD = EPOLL_CTL_MOD;

/// epoll_create1(EPOLL_CLOEXEC).
static inline int drift_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// epoll_ctl(epfd, op, fd, &{ events, .data.u64 = data }). `struct epoll_event` is packed on
/// x86-64, which Swift does not import, so it is built here.
static inline int drift_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event = { .events = events, .data = { .u64 = data } };
    return epoll_ctl(epfd, op, fd, &event);
}

/// epoll_wait(epfd, …, max, timeout) with the events' bits and data (u64) copied into two
/// arrays of at least `max` entries; the number of events, or -1 and errno.
int drift_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout);
#endif /* __linux__ */

/* ---- Pseudo-terminals (tests use them as the far end of a serial port) ---- */
#include <stdlib.h>
#include <stddef.h>

/// posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), then grantpt and unlockpt: a new
/// pty master, or -1 and errno.
/// (Defined in drift_sys.c: posix_openpt needs _XOPEN_SOURCE/_GNU_SOURCE.)
int drift_pty_open_master(void);

/// ptsname_r(fd, buffer, length): the slave path of a pty master. 0, or an errno value.
int drift_pty_slave_name(int fd, char *buffer, size_t length);

/* ---- I2C through i2c-dev (SMBus ioctls), mirroring i2c-tools' smbus.c ---- */
#ifdef __linux__
#include <stdint.h>
#include <string.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>

/// The largest SMBus / I2C block transfer (I2C_SMBUS_BLOCK_MAX, 32 bytes).
static inline int drift_i2c_block_max(void) { return I2C_SMBUS_BLOCK_MAX; }

/// ioctl(fd, I2C_SLAVE, address): select the 7-bit target address for later transfers.
static inline int drift_i2c_set_address(int fd, unsigned int address) { return ioctl(fd, I2C_SLAVE, (unsigned long)address); }

/// ioctl(fd, I2C_FUNCS, &funcs): the adapter's functionality mask (I2C_FUNC_*).
static inline int drift_i2c_functionality(int fd, unsigned long *funcs) { return ioctl(fd, I2C_FUNCS, funcs); }

/// I2C_FUNC_* bits the Swift side checks before a transfer.
static inline unsigned long drift_i2c_func_read_byte_data(void) { return I2C_FUNC_SMBUS_READ_BYTE_DATA; }
static inline unsigned long drift_i2c_func_write_byte_data(void) { return I2C_FUNC_SMBUS_WRITE_BYTE_DATA; }
static inline unsigned long drift_i2c_func_read_word_data(void) { return I2C_FUNC_SMBUS_READ_WORD_DATA; }
static inline unsigned long drift_i2c_func_write_word_data(void) { return I2C_FUNC_SMBUS_WRITE_WORD_DATA; }
static inline unsigned long drift_i2c_func_read_i2c_block(void) { return I2C_FUNC_SMBUS_READ_I2C_BLOCK; }
static inline unsigned long drift_i2c_func_write_i2c_block(void) { return I2C_FUNC_SMBUS_WRITE_I2C_BLOCK; }

/// ioctl(fd, I2C_SMBUS, ...): one SMBus transfer.
static inline int drift_i2c_smbus_access(int fd, char read_write, uint8_t command, int size, union i2c_smbus_data *data) {
    struct i2c_smbus_ioctl_data args;
    args.read_write = read_write;
    args.command = command;
    args.size = size;
    args.data = data;
    return ioctl(fd, I2C_SMBUS, &args);
}

/// SMBus "read byte data": the register's value (0...255), or -1 and errno.
static inline int drift_i2c_read_byte_data(int fd, uint8_t reg) {
    union i2c_smbus_data data;
    if (drift_i2c_smbus_access(fd, I2C_SMBUS_READ, reg, I2C_SMBUS_BYTE_DATA, &data) == -1) return -1;
    return data.byte;
}

/// SMBus "write byte data".
static inline int drift_i2c_write_byte_data(int fd, uint8_t reg, uint8_t value) {
    union i2c_smbus_data data;
    data.byte = value;
    return drift_i2c_smbus_access(fd, I2C_SMBUS_WRITE, reg, I2C_SMBUS_BYTE_DATA, &data);
}

/// SMBus "read word data" (little-endian on the wire): 0...65535, or -1 and errno.
static inline int drift_i2c_read_word_data(int fd, uint8_t reg) {
    union i2c_smbus_data data;
    if (drift_i2c_smbus_access(fd, I2C_SMBUS_READ, reg, I2C_SMBUS_WORD_DATA, &data) == -1) return -1;
    return data.word;
}

/// SMBus "write word data" (little-endian on the wire).
static inline int drift_i2c_write_word_data(int fd, uint8_t reg, uint16_t value) {
    union i2c_smbus_data data;
    data.word = value;
    return drift_i2c_smbus_access(fd, I2C_SMBUS_WRITE, reg, I2C_SMBUS_WORD_DATA, &data);
}

/// "I2C block read" of `length` (1...32) bytes starting at `reg` into `values`;
/// returns the byte count, or -1 and errno.
static inline int drift_i2c_read_i2c_block_data(int fd, uint8_t reg, uint8_t length, uint8_t *values) {
    union i2c_smbus_data data;
    if (length > I2C_SMBUS_BLOCK_MAX) length = I2C_SMBUS_BLOCK_MAX;
    data.block[0] = length;
    if (drift_i2c_smbus_access(fd, I2C_SMBUS_READ, reg, I2C_SMBUS_I2C_BLOCK_DATA, &data) == -1) return -1;
    int count = data.block[0];
    if (count > length) count = length;
    memcpy(values, &data.block[1], (size_t)count);
    return count;
}

/// "I2C block write" of `length` (1...32) bytes starting at `reg`.
static inline int drift_i2c_write_i2c_block_data(int fd, uint8_t reg, uint8_t length, const uint8_t *values) {
    union i2c_smbus_data data;
    if (length > I2C_SMBUS_BLOCK_MAX) length = I2C_SMBUS_BLOCK_MAX;
    data.block[0] = length;
    memcpy(&data.block[1], values, length);
    return drift_i2c_smbus_access(fd, I2C_SMBUS_WRITE, reg, I2C_SMBUS_I2C_BLOCK_DATA, &data);
}
#endif /* __linux__ */

#ifdef __linux__
#include <sys/timex.h>
/// The kernel's clock discipline state: adjtimex(2) with no changes. Returns the
/// clock state (TIME_OK … TIME_ERROR; TIME_ERROR = 5 means unsynchronised) or -1,
/// and stores the status bits (STA_UNSYNC = 0x0040) in *status.
static inline int drift_clock_state(int *status) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    if (status) *status = tx.status;
    return state;
}
#endif /* __linux__ */

#ifdef __linux__
#include <time.h>
#include <sys/ipc.h>
#include <sys/shm.h>
/// clock_settime(CLOCK_REALTIME, {sec, nsec}): sets the system clock (needs CAP_SYS_TIME).
static inline int drift_set_realtime(long long sec, long nsec) {
    struct timespec ts = { .tv_sec = (time_t)sec, .tv_nsec = nsec };
    return clock_settime(CLOCK_REALTIME, &ts);
}

/// gpsd's / NTP's `struct shmTime` (ntpshm.c), the segment chrony's `refclock SHM` reads.
struct drift_shm_time {
    int mode;
    volatile int count;
    time_t clockTimeStampSec;
    int clockTimeStampUSec;
    time_t receiveTimeStampSec;
    int receiveTimeStampUSec;
    int leap;
    int precision;
    int nsamples;
    volatile int valid;
    unsigned clockTimeStampNSec;
    unsigned receiveTimeStampNSec;
    int dummy[8];
};

/// shmget(key, sizeof(struct drift_shm_time), IPC_CREAT | perms): the segment id or -1.
static inline int drift_shm_time_get(int key, int perms) {
    return shmget((key_t)key, sizeof(struct drift_shm_time), IPC_CREAT | perms);
}
/// shmat(id, NULL, 0): the segment, or NULL (errno set).
static inline struct drift_shm_time *drift_shm_time_attach(int id) {
    void *p = shmat(id, NULL, 0);
    return p == (void *)-1 ? NULL : (struct drift_shm_time *)p;
}
/// shmdt(segment).
static inline int drift_shm_detach(void *segment) { return shmdt(segment); }
/// shmctl(id, IPC_RMID, NULL): removes the segment once the last process detaches.
static inline int drift_shm_remove(int id) { return shmctl(id, IPC_RMID, NULL); }

/// Writes one sample the way gpsd's ntp_write does: valid = 0, count++, barrier, the
/// stamps, barrier, count++, valid = 1 (mode 1: the reader checks count before and after).
static inline void drift_shm_time_write(struct drift_shm_time *shm, long long clockSec, long clockNSec,
                                        long long receiveSec, long receiveNSec, int leap, int precision) {
    shm->mode = 1;
    shm->valid = 0;
    shm->count++;
    __sync_synchronize();
    shm->clockTimeStampSec = (time_t)clockSec;
    shm->clockTimeStampUSec = (int)(clockNSec / 1000);
    shm->clockTimeStampNSec = (unsigned)clockNSec;
    shm->receiveTimeStampSec = (time_t)receiveSec;
    shm->receiveTimeStampUSec = (int)(receiveNSec / 1000);
    shm->receiveTimeStampNSec = (unsigned)receiveNSec;
    shm->leap = leap;
    shm->precision = precision;
    shm->nsamples = 3;
    __sync_synchronize();
    shm->count++;
    shm->valid = 1;
}
#endif /* __linux__ */

#endif
