#ifndef TICKWIRE_CTLS_SHIM_H
#define TICKWIRE_CTLS_SHIM_H

// OpenSSL 3 for TLS (wss://). Many of its calls are C macros over SSL_ctrl/BIO_ctrl, which
// Swift cannot call; the static inline wrappers below name them. No cryptography lives here:
// every cipher, key derivation and handshake step is OpenSSL's; the record helpers at the end
// only lay out a TLS 1.3 record's bytes around OpenSSL's AEAD calls.

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
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
    /// The TLS 1.3 application traffic secrets (`CLIENT_TRAFFIC_SECRET_0`, `SERVER_TRAFFIC_SECRET_0`)
    /// OpenSSL's key log callback handed over (tickwire_keylog), for the record layer that takes
    /// over after the handshake; wiped once it has derived its keys, and when the BIO is freed.
    unsigned char clientSecret[64];
    size_t clientSecretLength;
    unsigned char serverSecret[64];
    size_t serverSecretLength;
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

/// Sends `count` bytes of records at `bytes` with one send(2), after the queue when it holds
/// records, and copies what the kernel does not take into the queue. Returns 1 when everything
/// is sent, 0 when records wait in the queue, -1 when the connection failed or memory ran out
/// (errno says which).
static inline int tickwire_bio_send_or_queue(tickwire_bio_state *state, const unsigned char *bytes, size_t count) {
    if (state->queueStart != state->queueEnd) {
        if (!tickwire_bio_queue_append(state, bytes, count)) return -1;
        return tickwire_bio_state_send_queue(state);
    }
    size_t sent = 0;
    while (sent < count) {
        ssize_t written = send(state->fd, bytes + sent, count - sent, MSG_NOSIGNAL);
        if (written < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            return -1;
        }
        sent += (size_t)written;
    }
    if (sent == count) return 1;
    return tickwire_bio_queue_append(state, bytes + sent, count - sent) ? 0 : -1;
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
    return tickwire_bio_send_or_queue(state, burst, end);
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
        OPENSSL_cleanse(state, sizeof(*state));
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

// The record layer after a TLS 1.3 handshake (TLSRecordLayer in TickwireIO). Once OpenSSL has
// finished the handshake, the connection's records are sealed and opened with OpenSSL's AEAD
// directly: a record is decrypted from the socket BIO's inbound buffer straight into the reader's
// buffer, and encrypted from the writer's bytes straight into the buffer that goes to send(2),
// where SSL_read and SSL_write each copy every byte once more through OpenSSL's record buffers.
// The keys come from the traffic secrets OpenSSL reports to a key log callback (OpenSSL 3.0 has
// no other public route to them; QUIC stacks built on it take them the same way), derived by
// OpenSSL's TLS13-KDF.

static inline int tickwire_hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// OpenSSL's key log callback: keeps the application traffic secrets of the session whose BIO is
/// a tickwire socket BIO (every session of this library); ignores every other line.
static void tickwire_keylog(const SSL *ssl, const char *line) {
    static const char clientLabel[] = "CLIENT_TRAFFIC_SECRET_0 ";
    static const char serverLabel[] = "SERVER_TRAFFIC_SECRET_0 ";
    int isClient = strncmp(line, clientLabel, sizeof(clientLabel) - 1) == 0;
    if (!isClient && strncmp(line, serverLabel, sizeof(serverLabel) - 1) != 0) return;
    BIO *bio = SSL_get_rbio(ssl);
    // Only a tickwire socket BIO's data is a tickwire_bio_state.
    if (bio == NULL || BIO_method_name(bio) == NULL || strcmp(BIO_method_name(bio), "tickwire socket") != 0) return;
    tickwire_bio_state *state = BIO_get_data(bio);
    if (state == NULL) return;
    const char *random = line + sizeof(clientLabel) - 1;
    const char *space = strchr(random, ' ');
    if (space == NULL) return;
    const char *hex = space + 1;
    size_t digits = strlen(hex);
    if (digits % 2 != 0 || digits / 2 > sizeof(state->clientSecret)) return;
    unsigned char *secret = isClient ? state->clientSecret : state->serverSecret;
    for (size_t index = 0; index < digits / 2; index++) {
        int high = tickwire_hex_digit(hex[2 * index]);
        int low = tickwire_hex_digit(hex[2 * index + 1]);
        if (high < 0 || low < 0) return;
        secret[index] = (unsigned char)(high << 4 | low);
    }
    if (isClient) state->clientSecretLength = digits / 2;
    else state->serverSecretLength = digits / 2;
}

/// Sets the key log callback that hands a session's traffic secrets to its record layer.
static inline void tickwire_SSL_CTX_keep_traffic_secrets(SSL_CTX *ctx) {
    SSL_CTX_set_keylog_callback(ctx, tickwire_keylog);
}

/// SSL_CTX_set_num_tickets: a server that issues no TLS 1.3 session tickets writes no record of
/// its own after the handshake, so its record layer starts at sequence number 0.
static inline int tickwire_SSL_CTX_issue_no_tickets(SSL_CTX *ctx) {
    return SSL_CTX_set_num_tickets(ctx, 0);
}

/// Wipes the traffic secrets once the record layer has derived its keys (or will not take over).
static inline void tickwire_bio_forget_secrets(tickwire_bio_state *state) {
    OPENSSL_cleanse(state->clientSecret, sizeof(state->clientSecret));
    OPENSSL_cleanse(state->serverSecret, sizeof(state->serverSecret));
    state->clientSecretLength = 0;
    state->serverSecretLength = 0;
}

/// Receives into the inbound buffer after the bytes not yet read, which move to its front first
/// (at most part of one record): returns the count received, 0 at the end of the stream, -1 when
/// nothing can be read now (errno EAGAIN) or the read failed (errno says why).
static inline ssize_t tickwire_bio_receive_inbound(tickwire_bio_state *state) {
    if (state->inbound == NULL) {
        state->inbound = malloc(state->inboundCapacity);
        if (state->inbound == NULL) {
            errno = ENOMEM;
            return -1;
        }
        state->inboundStart = 0;
        state->inboundEnd = 0;
    } else if (state->inboundStart > 0) {
        memmove(state->inbound, state->inbound + state->inboundStart, state->inboundEnd - state->inboundStart);
        state->inboundEnd -= state->inboundStart;
        state->inboundStart = 0;
    }
    size_t room = state->inboundCapacity - state->inboundEnd;
    ssize_t received;
    do {
        received = recv(state->fd, state->inbound + state->inboundEnd, room, 0);
    } while (received < 0 && errno == EINTR);
    state->isDrained = received < (ssize_t)room;
    if (received > 0) {
        state->inboundEnd += (size_t)received;
    } else {
        int saved = errno;
        tickwire_bio_release_inbound_if_read(state);
        errno = saved;
    }
    return received;
}

/// HKDF-Expand-Label (RFC 8446 section 7.1) with an empty context, by OpenSSL's TLS13-KDF:
/// `outLength` bytes for `label` ("key", "iv", "traffic upd") from `secret`, with the suite's
/// hash (`digest`: "SHA256", "SHA384"). Returns 1, or 0 when OpenSSL fails.
static inline int tickwire_tls13_expand_label(const char *digest, const unsigned char *secret, size_t secretLength,
                                              const char *label, unsigned char *out, size_t outLength) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "TLS13-KDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (context == NULL) return 0;
    int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    static const char prefix[] = "tls13 ";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)digest, 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, secretLength),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PREFIX, (void *)prefix, sizeof(prefix) - 1),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_LABEL, (void *)label, strlen(label)),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_DATA, (void *)"", 0),
        OSSL_PARAM_construct_end(),
    };
    int derived = EVP_KDF_derive(context, out, outLength, params) == 1;
    EVP_KDF_CTX_free(context);
    return derived;
}

/// An AEAD context for one direction of a TLS 1.3 connection's records, keyed with `key`: the
/// cipher of the suite `suite` (0x1301 AES-128-GCM, 0x1302 AES-256-GCM, 0x1303 ChaCha20-Poly1305).
/// NULL for another suite or when OpenSSL fails.
static inline EVP_CIPHER_CTX *tickwire_tls13_aead_new(uint16_t suite, const unsigned char *key, int sealing) {
    const EVP_CIPHER *cipher = suite == 0x1301 ? EVP_aes_128_gcm()
                             : suite == 0x1302 ? EVP_aes_256_gcm()
                             : suite == 0x1303 ? EVP_chacha20_poly1305()
                                               : NULL;
    if (cipher == NULL) return NULL;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_CipherInit_ex(context, cipher, NULL, key, NULL, sealing) != 1) {
        EVP_CIPHER_CTX_free(context);
        return NULL;
    }
    return context;
}

/// Seals one TLS 1.3 record (RFC 8446 section 5.2) at `out`: the 5-byte header, then `first` and
/// `second` followed by `contentType`, encrypted under `nonce` with the header as additional data,
/// then the 16-byte tag; 5 + firstLength + secondLength + 1 + 16 bytes in all. Returns that count,
/// or 0 when OpenSSL fails.
static inline size_t tickwire_tls13_seal(EVP_CIPHER_CTX *context, const unsigned char *nonce,
                                         const unsigned char *first, size_t firstLength,
                                         const unsigned char *second, size_t secondLength,
                                         unsigned char contentType, unsigned char *out) {
    size_t length = firstLength + secondLength;
    size_t bodyLength = length + 1 + 16;
    out[0] = 23;  // application_data, the outer type of every TLS 1.3 record after the handshake
    out[1] = 3;
    out[2] = 3;
    out[3] = (unsigned char)(bodyLength >> 8);
    out[4] = (unsigned char)bodyLength;
    unsigned char *body = out + 5;
    int produced = 0;
    if (EVP_EncryptInit_ex(context, NULL, NULL, NULL, nonce) != 1) return 0;
    if (EVP_EncryptUpdate(context, NULL, &produced, out, 5) != 1) return 0;
    if (firstLength > 0 && (EVP_EncryptUpdate(context, body, &produced, first, (int)firstLength) != 1 || produced != (int)firstLength)) return 0;
    if (secondLength > 0
        && (EVP_EncryptUpdate(context, body + firstLength, &produced, second, (int)secondLength) != 1 || produced != (int)secondLength))
        return 0;
    if (EVP_EncryptUpdate(context, body + length, &produced, &contentType, 1) != 1 || produced != 1) return 0;
    if (EVP_EncryptFinal_ex(context, body + length + 1, &produced) != 1 || produced != 0) return 0;
    if (EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, body + length + 1) != 1) return 0;
    return 5 + bodyLength;
}

/// Opens one TLS 1.3 record: decrypts `body` (`bodyLength` bytes, the ciphertext then the 16-byte
/// tag) under `nonce`, authenticated with its 5-byte `header`, into `out` (bodyLength - 16 bytes,
/// not overlapping `body`). Returns 1, or 0 when the record does not authenticate (then `out`
/// holds bytes that must not be used).
static inline int tickwire_tls13_open(EVP_CIPHER_CTX *context, const unsigned char *nonce, const unsigned char *header,
                                      const unsigned char *body, size_t bodyLength, unsigned char *out) {
    if (bodyLength < 16) return 0;
    size_t length = bodyLength - 16;
    int produced = 0;
    if (EVP_DecryptInit_ex(context, NULL, NULL, NULL, nonce) != 1) return 0;
    if (EVP_DecryptUpdate(context, NULL, &produced, header, 5) != 1) return 0;
    if (length > 0 && (EVP_DecryptUpdate(context, out, &produced, body, (int)length) != 1 || produced != (int)length)) return 0;
    if (EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, (void *)(body + length)) != 1) return 0;
    return EVP_DecryptFinal_ex(context, out + length, &produced) == 1;
}

#endif
