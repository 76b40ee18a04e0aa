#ifndef TICKWIRE_CTLS_SHIM_H
#define TICKWIRE_CTLS_SHIM_H

// OpenSSL 3 for TLS (wss://). Many of its calls are C macros over SSL_ctrl/BIO_ctrl, which
// Swift cannot call; the static inline wrappers below name them. No cryptography lives here.

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <errno.h>
#include <stdint.h>
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

/// SSL_CTX_set_read_ahead is a macro: read as many records as the socket holds at once.
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
// connection; this one sends with MSG_NOSIGNAL like the rest of TickwireIO. Its data is the
// descriptor in the low 32 bits and, in bit 32, "more records follow": then it sends with
// MSG_MORE, so the records of one large write leave in full segments rather than each record
// ending in a short one. The BIO never closes the descriptor (the channel's Socket owns it).

_Static_assert(sizeof(intptr_t) >= 8, "the BIO's data packs a flag above a 32-bit descriptor");
#define TICKWIRE_BIO_MORE ((intptr_t)1 << 32)

static int tickwire_bio_write(BIO *bio, const char *in, int length) {
    intptr_t data = (intptr_t)BIO_get_data(bio);
    int fd = (int)(data & 0xFFFFFFFF);
    BIO_clear_retry_flags(bio);
    ssize_t sent = send(fd, in, (size_t)length, MSG_NOSIGNAL | ((data & TICKWIRE_BIO_MORE) ? MSG_MORE : 0));
    if (sent < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_write(bio);
        return -1;
    }
    return (int)sent;
}

/// Says whether the records written next are followed by more (sent with MSG_MORE) or end a write.
static inline void tickwire_bio_set_more(BIO *bio, int more) {
    intptr_t data = (intptr_t)BIO_get_data(bio) & 0xFFFFFFFF;
    BIO_set_data(bio, (void *)(more ? (data | TICKWIRE_BIO_MORE) : data));
}

static int tickwire_bio_read(BIO *bio, char *out, int length) {
    int fd = (int)((intptr_t)BIO_get_data(bio) & 0xFFFFFFFF);
    BIO_clear_retry_flags(bio);
    ssize_t received = recv(fd, out, (size_t)length, 0);
    if (received < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_read(bio);
        return -1;
    }
    if (received == 0) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
    return (int)received;
}

static long tickwire_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    (void)pointer;
    switch (command) {
    case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0;
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_DUP: return 1;
    default: return 0;
    }
}

static int tickwire_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static int tickwire_bio_destroy(BIO *bio) {
    (void)bio;
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

/// A BIO over `fd` with `method` (from tickwire_bio_method_new).
static inline BIO *tickwire_bio_new(BIO_METHOD *method, int fd) {
    BIO *bio = BIO_new(method);
    if (bio != NULL) BIO_set_data(bio, (void *)((intptr_t)fd & 0xFFFFFFFF));
    return bio;
}

#endif
