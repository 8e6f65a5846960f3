#include "CNIOShim.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

// MARK: sockets
int shim_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int shim_set_int_option(int fd, int level, int option, int value) {
    return setsockopt(fd, level, option, &value, sizeof(value));
}

void shim_ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

void shim_block_termination_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

// MARK: epoll

#include <sys/epoll.h>

// Declared by <sys/socket.h> only under _GNU_SOURCE, which this file does not define.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

int shim_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

int shim_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms) {
    struct epoll_event buffer[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, buffer, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i] = buffer[i].events;
        data[i] = buffer[i].data.u64;
    }
    return count;
}

int shim_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// Declared by <sys/mman.h> only under _GNU_SOURCE.
extern int memfd_create(const char *name, unsigned int flags);

int shim_memfd_create(const char *name) {
    return memfd_create(name, 0x0001U /* MFD_CLOEXEC */);
}

int shim_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int shim_malloc_trim(void) {
    return malloc_trim(0);
}
