#ifndef TICKWIRE_CEPOLL_SHIM_H
#define TICKWIRE_CEPOLL_SHIM_H

// Glibc's Swift module does not export epoll or eventfd; this shim does. Nor does it export
// recvmmsg(2) and sendmmsg(2), which glibc declares only under _GNU_SOURCE: they are declared here
// under names of our own, bound to glibc's symbols with an asm label, over a struct laid out as
// glibc's `struct mmsghdr` (a `struct msghdr` and the byte count the kernel fills in).
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>

/// One message of a batch: glibc's `struct mmsghdr`.
struct tickwire_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/// recvmmsg(2): receives up to `count` datagrams in one call.
extern int tickwire_recvmmsg(int fd, struct tickwire_mmsghdr *vector, unsigned int count, int flags,
                             struct timespec *timeout) __asm__("recvmmsg");

/// sendmmsg(2): sends up to `count` datagrams in one call.
extern int tickwire_sendmmsg(int fd, struct tickwire_mmsghdr *vector, unsigned int count, int flags)
    __asm__("sendmmsg");
#endif

#endif
