#ifndef TICKWIRE_CZLIB_SHIM_H
#define TICKWIRE_CZLIB_SHIM_H

#include <zlib.h>

/// deflateInit2 is a C macro; Swift cannot call it, so wrap it.
static inline int tickwire_deflateInit2(z_streamp strm, int level, int method,
                                        int windowBits, int memLevel, int strategy) {
    return deflateInit2_(strm, level, method, windowBits, memLevel, strategy,
                         ZLIB_VERSION, (int)sizeof(z_stream));
}

/// inflateInit2 is a C macro; Swift cannot call it, so wrap it.
static inline int tickwire_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2_(strm, windowBits, ZLIB_VERSION, (int)sizeof(z_stream));
}

#endif
