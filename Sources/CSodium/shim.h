// libsodium for TickwireNetcode: the AEAD primitives netcode.io 1.02 uses
// (XChaCha20-Poly1305-IETF for connect tokens, ChaCha20-Poly1305-IETF for packets and challenge
// tokens), randombytes_buf and sodium_init. Debian: libsodium-dev; Homebrew: libsodium.
#ifndef TICKWIRE_CSODIUM_SHIM_H
#define TICKWIRE_CSODIUM_SHIM_H
#include <sodium.h>
#endif
