#!/usr/bin/env python3
"""spec_mutations.py -- the library against spec_reader.py on damaged frames.

    spec_mutations.py LIBSPLITZIP VECTORS_DIR [COUNT] [SEED]

Takes the valid and invalid golden vectors, damages them at random (a flipped bit, a replaced
byte, a cut, or a flipped header bit with the header checksum recomputed so the field checks
are reached), and requires that libsplitzip's splitzip_decompress() and the decoder written
from doc/FORMAT.md alone (spec_reader.py) give the same status for every one, and the same
elements when both accept it. Deterministic for a given seed.
"""
import ctypes
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spec_reader as S  # noqa: E402


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    lib = ctypes.CDLL(sys.argv[1])
    vdir = sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 13)
    lib.splitzip_params_init.argtypes = [ctypes.c_void_p]
    lib.splitzip_ctx_create.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.splitzip_decompress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.c_size_t)]
    lib.splitzip_status_name.restype = ctypes.c_char_p
    lib.splitzip_status_name.argtypes = [ctypes.c_int]
    ctx = ctypes.c_void_p()
    if lib.splitzip_ctx_create(None, ctypes.byref(ctx)) != 0:
        print("spec_mutations: cannot create a context")
        return 1
    files = []
    for sub in ("valid", "invalid"):
        d = os.path.join(vdir, sub)
        files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".sz")]
    frames = {f: open(f, "rb").read() for f in files}
    cap = 1 << 18
    out = (ctypes.c_uint16 * cap)()
    accepted = 0
    for it in range(count):
        name = rng.choice(files)
        b = bytearray(frames[name])
        kind = rng.randrange(4)
        if kind == 0 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif kind == 1 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif kind == 2:
            b = b[:rng.randrange(len(b) + 1)]
        elif len(b) >= 64:
            i = rng.randrange(60)
            b[i] ^= 1 << rng.randrange(8)
            b[60:64] = struct.pack("<I", S.chunk_digest(bytes(b[:60])) & 0xFFFFFFFF)
        b = bytes(b)
        got = ctypes.c_size_t()
        st = lib.splitzip_decompress(ctx, b, len(b), out, cap, ctypes.byref(got))
        lib_status = lib.splitzip_status_name(st).decode()
        try:
            elems, _ = S.read_stream(b)
            spec_status = "OK"
        except S.Reject as r:
            spec_status = r.status
        if lib_status != spec_status:
            print("spec_mutations: %s, mutation %d (kind %d): library %s, spec_reader %s" %
                  (os.path.basename(name), it, kind, lib_status, spec_status))
            return 1
        if st == 0:
            accepted += 1
            if list(out[:got.value]) != elems:
                print("spec_mutations: %s, mutation %d: decoded elements differ" %
                      (os.path.basename(name), it))
                return 1
    print("spec_mutations: %d damaged frames, same status from the library and spec_reader "
          "(%d accepted)" % (count, accepted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
