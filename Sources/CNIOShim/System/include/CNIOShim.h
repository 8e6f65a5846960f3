// the HTTP server's system calls Swift's Glibc module lacks: non-blocking sockets, epoll, signals,
// memfd and malloc tuning. Links no library beyond libc.
#ifndef CNIOSHIM_H
#define CNIOSHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// MARK: sockets
/// Sets O_NONBLOCK. Returns 0 or -1 with errno.
int shim_set_nonblocking(int fd);
int shim_set_int_option(int fd, int level, int option, int value);
/// Ignores SIGPIPE process-wide so a peer reset is an EPIPE, not a crash.
void shim_ignore_sigpipe(void);
/// Blocks SIGTERM/SIGINT in the calling thread so Dispatch signal sources receive them.
void shim_block_termination_signals(void);

// MARK: epoll (the HTTP server's event loops; <sys/epoll.h> is not in Swift's Glibc module)

#define SHIM_EPOLLIN 0x001u
#define SHIM_EPOLLOUT 0x004u
#define SHIM_EPOLLERR 0x008u
#define SHIM_EPOLLHUP 0x010u
#define SHIM_EPOLLRDHUP 0x2000u
#define SHIM_EPOLLEXCLUSIVE (1u << 28)
#define SHIM_EPOLLET (1u << 31)
/// epoll_create1(EPOLL_CLOEXEC).
int shim_epoll_create(void);
/// op: 1 add, 2 delete, 3 modify (EPOLL_CTL_*); data comes back from shim_epoll_wait.
int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits for up to max events, writing their flags and data into the two arrays.
int shim_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int shim_accept_nonblocking(int fd);
/// memfd_create(name, MFD_CLOEXEC): an anonymous in-memory file the HTTP server fills with a
/// response body once, so it can be sent with sendfile (no user-space copy per response).
int shim_memfd_create(const char *name);

/// mallopt(M_MMAP_THRESHOLD, bytes): blocks at least this large get their own mapping, which goes
/// back to the system when freed (setting it also stops glibc from raising the mmap and trim
/// thresholds by itself). 1 on success.
int shim_malloc_set_mmap_threshold(int bytes);
/// malloc_trim(0): returns free heap pages of every arena to the system (glibc). 1 if any were.
int shim_malloc_trim(void);

#endif
