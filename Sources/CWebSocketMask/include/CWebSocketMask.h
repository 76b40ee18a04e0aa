#ifndef TICKWIRE_CWEBSOCKETMASK_H
#define TICKWIRE_CWEBSOCKETMASK_H

#include <stddef.h>
#include <stdint.h>

/// XORs `key` (four bytes as a little-endian word, repeated) over `count` bytes from `from` to
/// `to` (which may be the same address) with the widest vectors this CPU has, and returns the
/// number of bytes it masked: `count`, or 0 when the CPU has no such vectors (anything but
/// x86-64 with AVX2), leaving all the work to the caller.
size_t tickwire_mask_wide(const void *from, void *to, size_t count, uint32_t key);

/// Whether `tickwire_mask_wide` has vectors to use on this CPU.
int tickwire_mask_wide_is_available(void);

#endif
