// RFC 6455 masking with 256-bit vectors, for the x86-64 CPUs that have them (AVX2).
//
// Swift cannot compile one function for a wider instruction set than the rest of the program
// and choose it at run time, so this file does: the AVX2 loop is built with a `target`
// attribute and only called after `__builtin_cpu_supports` says the CPU has AVX2. On other
// CPUs the Swift caller (`WebSocketMaskingKey.xor`) does all the work with its portable
// 16-byte loop.

#include "CWebSocketMask.h"

#if defined(__x86_64__)
#include <immintrin.h>

// The key word for the byte `bytes` places after the one `key` starts at (little-endian lanes).
static inline uint32_t rotated_key(uint32_t key, size_t bytes) {
    unsigned shift = (unsigned)(bytes & 3) * 8;
    return shift == 0 ? key : (key >> shift) | (key << (32 - shift));
}

// One byte masked with the key byte for its position `offset` (counted from the key's start).
static inline uint8_t masked_byte(uint8_t byte, uint32_t key, size_t offset) {
    return byte ^ (uint8_t)(key >> (8 * (offset & 3)));
}

__attribute__((target("avx2")))
static size_t mask_avx2(const uint8_t *from, uint8_t *to, size_t count, uint32_t key) {
    size_t offset = 0;
    // Bytes one at a time until `to` is 32-byte aligned: the vector stores are then aligned and
    // never straddle two cache lines (perf: the stores were the loop's cost, into a message's
    // freshly allocated storage). The loads stay unaligned; they are cheap.
    size_t head = (32 - ((uintptr_t)to & 31)) & 31;
    if (head > count) head = count;
    for (; offset < head; offset++) to[offset] = masked_byte(from[offset], key, offset);
    const __m256i pattern = _mm256_set1_epi32((int)rotated_key(key, head));
    // Four vectors per turn: independent loads and stores keep the load and store ports busy.
    for (; count - offset >= 128; offset += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(from + offset));
        __m256i b = _mm256_loadu_si256((const __m256i *)(from + offset + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(from + offset + 64));
        __m256i d = _mm256_loadu_si256((const __m256i *)(from + offset + 96));
        _mm256_store_si256((__m256i *)(to + offset), _mm256_xor_si256(a, pattern));
        _mm256_store_si256((__m256i *)(to + offset + 32), _mm256_xor_si256(b, pattern));
        _mm256_store_si256((__m256i *)(to + offset + 64), _mm256_xor_si256(c, pattern));
        _mm256_store_si256((__m256i *)(to + offset + 96), _mm256_xor_si256(d, pattern));
    }
    for (; count - offset >= 32; offset += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(from + offset));
        _mm256_store_si256((__m256i *)(to + offset), _mm256_xor_si256(a, pattern));
    }
    for (; offset < count; offset++) to[offset] = masked_byte(from[offset], key, offset);
    return offset;
}
#endif

int tickwire_mask_wide_is_available(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

size_t tickwire_mask_wide(const void *from, void *to, size_t count, uint32_t key) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) return mask_avx2((const uint8_t *)from, (uint8_t *)to, count, key);
#endif
    (void)from;
    (void)to;
    (void)count;
    (void)key;
    return 0;
}
