#ifndef TICKWIRE_CTLS_SHIM_H
#define TICKWIRE_CTLS_SHIM_H

// OpenSSL 3 for TLS (wss://). Many of its calls are C macros over SSL_ctrl/BIO_ctrl, which
// Swift cannot call; the static inline wrappers below name them. No cryptography lives here.

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <asm/hwcap.h>
#endif

/// SSL_CTX_set_mode is a macro.
static inline long tickwire_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

/// SSL_MODE_RELEASE_BUFFERS | ENABLE_PARTIAL_WRITE | ACCEPT_MOVING_WRITE_BUFFER: idle connections
/// hold no record buffers; a write may take part of its bytes; a retried write may come from
/// another address (the channel's outbound buffer moves as it grows).
static inline long tickwire_channel_modes(void) {
    return SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
}

/// SSL_CTX_set_read_ahead is a macro.
static inline void tickwire_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) {
    SSL_CTX_set_read_ahead(ctx, yes);
}

/// The TLS 1.3 cipher suites in order of preference: AES-128-GCM first where the CPU has AES
/// instructions (AES-NI, ARMv8 AES), as fast as any and with fewer rounds than AES-256;
/// ChaCha20-Poly1305 first where it has none, since software AES is slow there.
static inline const char *tickwire_tls13_ciphersuites(void) {
    int hasAES = 0;
#if defined(__x86_64__) || defined(__i386__)
    hasAES = __builtin_cpu_supports("aes");
#elif defined(__aarch64__) && defined(__linux__)
    hasAES = (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
#endif
    return hasAES ? "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
                  : "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384";
}

/// SSL_CTX_set_min_proto_version is a macro.
static inline int tickwire_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// SSL_OP_* flags that a server and a client both set: no renegotiation, no compression.
static inline uint64_t tickwire_common_options(void) {
    return SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION;
}

/// SSL_OP_* flags of a server: its own cipher order decides (tickwire_tls13_ciphersuites), except
/// that a client listing ChaCha20-Poly1305 first (one without AES instructions) gets it.
static inline uint64_t tickwire_server_options(void) {
    return SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_PRIORITIZE_CHACHA;
}

/// SSL_set_tlsext_host_name is a macro (SNI).
static inline int tickwire_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// The ALPN wire list this library speaks: `http/1.1`, the WebSocket upgrade's protocol.
static const unsigned char tickwire_alpn_http11[] = { 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };

static int tickwire_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, tickwire_alpn_http11, sizeof(tickwire_alpn_http11), in, inlen)
        == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;  // a client offering other protocols only: go on without ALPN
}

/// A server context selects `http/1.1` when the client offers it.
static inline void tickwire_SSL_CTX_select_http11(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, tickwire_alpn_select, NULL);
}

/// A client context offers `http/1.1`. Returns 0 on success (as SSL_CTX_set_alpn_protos does).
static inline int tickwire_SSL_CTX_offer_http11(SSL_CTX *ctx) {
    return SSL_CTX_set_alpn_protos(ctx, tickwire_alpn_http11, sizeof(tickwire_alpn_http11));
}

// A socket BIO of our own: BIO_s_socket writes with write(2), which raises SIGPIPE on a reset
// connection; this one sends with MSG_NOSIGNAL like the rest of TickwireIO. Its data is a
// tickwire_bio_state. It never closes the descriptor (the channel's Socket owns it).
//
// Two ways to write. By default each record goes to the kernel as OpenSSL writes it (with MSG_MORE
// while `more` is set), and a full socket makes OpenSSL retry the record later, as BIO_s_socket
// does. During a burst (tickwire_bio_begin_burst), records are gathered in the caller's scratch
// buffer instead, and tickwire_bio_end_burst sends them all with one send(2): the records of one
// large write cost one system call rather than one each. What the kernel does not take is copied
// into the BIO's own queue and goes, in order, ahead of anything written later. The queue is
// freed once sent, so an idle connection holds none; the scratch buffer is the caller's, reused.

/// The state behind a tickwire socket BIO.
typedef struct tickwire_bio_state {
    /// The socket.
    int fd;
    /// The last `recv` found the socket drained: it brought fewer bytes than asked, or none for now.
    int isDrained;
    /// Ciphertext received and not yet read by OpenSSL: bytes [inboundStart, inboundEnd) of
    /// `inbound` (NULL while empty), filled by one `recv` of up to `inboundCapacity` bytes.
    unsigned char *inbound;
    size_t inboundStart;
    size_t inboundEnd;
    size_t inboundCapacity;
    /// Records written outside a burst go with MSG_MORE (more records follow at once).
    int more;
    /// A burst is open: records are gathered, not sent.
    int holding;
    /// The burst's scratch buffer (the caller's), or NULL when the burst gathers in the queue.
    unsigned char *burst;
    size_t burstEnd;
    size_t burstCapacity;
    /// Ciphertext written and not yet taken by the kernel: bytes [queueStart, queueEnd) of `queue`.
    unsigned char *queue;
    size_t queueStart;
    size_t queueEnd;
    size_t queueCapacity;
} tickwire_bio_state;

/// Makes room for `count` more bytes in the queue. Returns 0 when memory runs out.
static inline int tickwire_bio_queue_reserve(tickwire_bio_state *state, size_t count) {
    if (state->queueStart == state->queueEnd) {
        state->queueStart = 0;
        state->queueEnd = 0;
    }
    if (state->queueCapacity - state->queueEnd >= count) return 1;
    size_t needed = state->queueEnd + count;
    size_t capacity = state->queueCapacity * 2 > needed ? state->queueCapacity * 2 : needed;
    unsigned char *grown = realloc(state->queue, capacity);
    if (grown == NULL) return 0;
    state->queue = grown;
    state->queueCapacity = capacity;
    return 1;
}

/// Appends `count` bytes to the queue. Returns 0 when memory runs out (errno ENOMEM).
static inline int tickwire_bio_queue_append(tickwire_bio_state *state, const void *bytes, size_t count) {
    if (!tickwire_bio_queue_reserve(state, count)) {
        errno = ENOMEM;
        return 0;
    }
    memcpy(state->queue + state->queueEnd, bytes, count);
    state->queueEnd += count;
    return 1;
}

/// Sends the queue: 1 once it is empty (its memory freed), 0 when the socket takes no more now,
/// -1 when the connection failed (errno says why).
static inline int tickwire_bio_state_send_queue(tickwire_bio_state *state) {
    while (state->queueStart < state->queueEnd) {
        ssize_t sent = send(state->fd, state->queue + state->queueStart, state->queueEnd - state->queueStart, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        state->queueStart += (size_t)sent;
    }
    free(state->queue);
    state->queue = NULL;
    state->queueStart = 0;
    state->queueEnd = 0;
    state->queueCapacity = 0;
    return 1;
}

static int tickwire_bio_write(BIO *bio, const char *in, int length) {
    tickwire_bio_state *state = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (length <= 0) return 0;
    if (state->holding) {
        if (state->burst != NULL && state->burstCapacity - state->burstEnd >= (size_t)length) {
            memcpy(state->burst + state->burstEnd, in, (size_t)length);
            state->burstEnd += (size_t)length;
            return length;
        }
        if (state->burst != NULL) {
            // The scratch buffer is full (records larger than reserved for): the burst goes on in the queue.
            int moved = tickwire_bio_queue_append(state, state->burst, state->burstEnd);
            state->burst = NULL;
            state->burstEnd = 0;
            if (!moved) return -1;
        }
        return tickwire_bio_queue_append(state, in, (size_t)length) ? length : -1;
    }
    // Queued records go first; until they are sent, this one waits (OpenSSL retries it).
    int drained = tickwire_bio_state_send_queue(state);
    if (drained <= 0) {
        if (drained == 0) BIO_set_retry_write(bio);
        return -1;
    }
    ssize_t sent = send(state->fd, in, (size_t)length, MSG_NOSIGNAL | (state->more ? MSG_MORE : 0));
    if (sent < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_write(bio);
        return -1;
    }
    return (int)sent;
}

/// The BIO's state (for reading `queueEnd - queueStart` and `isDrained` without a call).
static inline tickwire_bio_state *tickwire_bio_get_state(BIO *bio) {
    return BIO_get_data(bio);
}

/// Says whether the records written next are followed by more (sent with MSG_MORE) or end a write.
static inline void tickwire_bio_set_more(BIO *bio, int more) {
    tickwire_bio_state *state = BIO_get_data(bio);
    state->more = more;
}

/// Opens a burst: the records written until tickwire_bio_end_burst are gathered in `scratch`
/// (`capacity` bytes, the caller's; it must stay valid until the burst ends), or in the queue when
/// the queue already holds records (they go first) or the scratch buffer fills.
static inline void tickwire_bio_begin_burst(BIO *bio, void *scratch, size_t capacity) {
    tickwire_bio_state *state = BIO_get_data(bio);
    state->holding = 1;
    int queueIsEmpty = state->queueStart == state->queueEnd;
    state->burst = queueIsEmpty ? scratch : NULL;
    state->burstCapacity = queueIsEmpty ? capacity : 0;
    state->burstEnd = 0;
}

/// Ends a burst: sends its records with one send(2) and copies what the kernel does not take
/// into the queue (the scratch buffer is free again on return, whatever the result). Returns 1
/// when everything is sent, 0 when records wait in the queue, -1 when the connection failed or
/// memory ran out (errno says which).
static inline int tickwire_bio_end_burst(BIO *bio) {
    tickwire_bio_state *state = BIO_get_data(bio);
    state->holding = 0;
    unsigned char *burst = state->burst;
    size_t end = state->burstEnd;
    state->burst = NULL;
    state->burstEnd = 0;
    state->burstCapacity = 0;
    if (burst == NULL) return tickwire_bio_state_send_queue(state);
    size_t sent = 0;
    while (sent < end) {
        ssize_t count = send(state->fd, burst + sent, end - sent, MSG_NOSIGNAL);
        if (count < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            return -1;
        }
        sent += (size_t)count;
    }
    if (sent == end) return 1;
    return tickwire_bio_queue_append(state, burst + sent, end - sent) ? 0 : -1;
}

/// Sends the queued records in one send(2): 1 once the queue is empty, 0 when the socket takes
/// no more now (the rest stays queued), -1 when the connection failed (errno says why).
static inline int tickwire_bio_send_queue(BIO *bio) {
    return tickwire_bio_state_send_queue(BIO_get_data(bio));
}

// Reading: OpenSSL (without read-ahead) asks for each record's header, then its body. When the
// inbound buffer is empty, one recv(2) of up to `inboundCapacity` bytes fills it, and the requests
// are served from it: the records of a 64 KiB message cost one system call and one copy into
// OpenSSL's record buffer. (OpenSSL's own read-ahead also reads them with one call, but moves the
// records still unread to the front of its buffer before each record, about 1.5 copies of a
// 64 KiB message.) The buffer is freed once read, so an idle connection holds none.

/// Frees the inbound buffer once it has been read.
static inline void tickwire_bio_release_inbound_if_read(tickwire_bio_state *state) {
    if (state->inboundStart < state->inboundEnd) return;
    free(state->inbound);
    state->inbound = NULL;
    state->inboundStart = 0;
    state->inboundEnd = 0;
}

static int tickwire_bio_read(BIO *bio, char *out, int length) {
    tickwire_bio_state *state = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (length <= 0) return 0;
    if (state->inboundStart == state->inboundEnd) {
        if ((size_t)length >= state->inboundCapacity) {
            // As large a request as the buffer: straight into OpenSSL's.
            ssize_t received = recv(state->fd, out, (size_t)length, 0);
            state->isDrained = received < (ssize_t)length;
            if (received < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_read(bio);
                return -1;
            }
            if (received == 0) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
            return (int)received;
        }
        if (state->inbound == NULL) {
            state->inbound = malloc(state->inboundCapacity);
            if (state->inbound == NULL) {
                errno = ENOMEM;
                return -1;
            }
        }
        ssize_t received = recv(state->fd, state->inbound, state->inboundCapacity, 0);
        state->isDrained = received < (ssize_t)state->inboundCapacity;
        if (received <= 0) {
            int saved = errno;
            tickwire_bio_release_inbound_if_read(state);
            errno = saved;
            if (received == 0) {
                BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
                return 0;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_read(bio);
            return -1;
        }
        state->inboundStart = 0;
        state->inboundEnd = (size_t)received;
    }
    size_t available = state->inboundEnd - state->inboundStart;
    size_t count = available < (size_t)length ? available : (size_t)length;
    memcpy(out, state->inbound + state->inboundStart, count);
    state->inboundStart += count;
    tickwire_bio_release_inbound_if_read(state);
    return (int)count;
}

/// Ciphertext received and not yet read by OpenSSL (what no readiness event will announce).
static inline size_t tickwire_bio_inbound_count(const tickwire_bio_state *state) {
    return state->inboundEnd - state->inboundStart;
}

static long tickwire_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    (void)pointer;
    switch (command) {
    case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0;
    case BIO_CTRL_PENDING: return (long)tickwire_bio_inbound_count(BIO_get_data(bio));
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_DUP: return 1;
    default: return 0;
    }
}

static int tickwire_bio_create(BIO *bio) {
    tickwire_bio_state *state = calloc(1, sizeof(tickwire_bio_state));
    if (state == NULL) return 0;
    state->fd = -1;
    BIO_set_data(bio, state);
    BIO_set_init(bio, 1);
    return 1;
}

static int tickwire_bio_destroy(BIO *bio) {
    tickwire_bio_state *state = BIO_get_data(bio);
    if (state != NULL) {
        free(state->queue);
        free(state->inbound);
        free(state);
        BIO_set_data(bio, NULL);
    }
    return 1;
}

/// Makes the BIO method once per process (the caller keeps it).
static inline BIO_METHOD *tickwire_bio_method_new(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "tickwire socket");
    if (method == NULL) return NULL;
    BIO_meth_set_write(method, tickwire_bio_write);
    BIO_meth_set_read(method, tickwire_bio_read);
    BIO_meth_set_ctrl(method, tickwire_bio_ctrl);
    BIO_meth_set_create(method, tickwire_bio_create);
    BIO_meth_set_destroy(method, tickwire_bio_destroy);
    return method;
}

/// A BIO over `fd` with `method` (from tickwire_bio_method_new), whose reads from the socket
/// take up to `inboundCapacity` bytes at once.
static inline BIO *tickwire_bio_new(BIO_METHOD *method, int fd, size_t inboundCapacity) {
    BIO *bio = BIO_new(method);
    if (bio != NULL) {
        tickwire_bio_state *state = BIO_get_data(bio);
        state->fd = fd;
        state->inboundCapacity = inboundCapacity;
    }
    return bio;
}


/// HMAC-SHA-256 of `data` under `key` into `out` (32 bytes). Returns 1, or 0 when OpenSSL fails.
static inline int tickwire_hmac_sha256(const void *key, int keyLength, const unsigned char *data, size_t length, unsigned char *out) {
    unsigned int outLength = 0;
    return HMAC(EVP_sha256(), key, keyLength, data, length, out, &outLength) != NULL && outLength == 32;
}

/// Whether `count` bytes at `a` and `b` are equal, in time that does not depend on where they differ.
static inline int tickwire_constant_time_equal(const void *a, const void *b, size_t count) {
    return CRYPTO_memcmp(a, b, count) == 0;
}

#endif
