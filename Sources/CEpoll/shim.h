#ifndef TICKWIRE_CEPOLL_SHIM_H
#define TICKWIRE_CEPOLL_SHIM_H

// Glibc's Swift module does not export epoll or eventfd; this shim does.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#endif
