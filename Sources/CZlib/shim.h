#ifndef FETCHLAB_CZLIB_SHIM_H
#define FETCHLAB_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro in zlib.h; Swift cannot call macros, so wrap it.
static inline int fetchlab_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}

/// `deflateInit2` is a macro too.
static inline int fetchlab_deflateInit2(z_streamp strm, int level, int windowBits, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}
#endif
