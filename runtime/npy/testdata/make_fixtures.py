#!/usr/bin/env python3
"""Writes the .npy fixtures in this directory, byte for byte as NumPy does.

NumPy could not be installed where these were made, so this script carries
the header-writing steps of numpy/lib/format.py (NumPy 1.23 through 2.x:
_write_array_header, _wrap_header, _wrap_header_guess_version) and runs them
on real Python values, so repr() of the dict entries is Python's own. Data
bytes come from the struct module. The Go tests compare package npy's writer
against these files, so the two are independent implementations of one
format.

Also written: a legacy header as NumPy before 1.14 wrote it (16-byte
alignment) by Python 2 (shape entries with an L suffix), which readers must
still accept.

Run from this directory: python3 make_fixtures.py
"""

import struct

MAGIC_PREFIX = b"\x93NUMPY"
ARRAY_ALIGN = 64
GROWTH_AXIS_MAX_DIGITS = 21
HEADER_SIZE_INFO = {(1, 0): ("<H", "latin1"), (2, 0): ("<I", "latin1"), (3, 0): ("<I", "utf8")}


def wrap_header(header, version):
    fmt, encoding = HEADER_SIZE_INFO[version]
    header = header.encode(encoding)
    hlen = len(header) + 1
    padlen = ARRAY_ALIGN - ((len(MAGIC_PREFIX) + 2 + struct.calcsize(fmt) + hlen) % ARRAY_ALIGN)
    try:
        prefix = MAGIC_PREFIX + bytes(version) + struct.pack(fmt, hlen + padlen)
    except struct.error:
        raise ValueError("header too long for version %r" % (version,))
    return prefix + header + b" " * padlen + b"\n"


def wrap_header_guess_version(header):
    try:
        return wrap_header(header, (1, 0))
    except ValueError:
        pass
    try:
        return wrap_header(header, (2, 0))
    except UnicodeEncodeError:
        pass
    return wrap_header(header, (3, 0))


def array_header(descr, fortran_order, shape, version=None):
    d = {"descr": descr, "fortran_order": fortran_order, "shape": shape}
    header = ["{"]
    for key, value in sorted(d.items()):
        header.append("'%s': %s, " % (key, repr(value)))
    header.append("}")
    header = "".join(header)
    header += " " * ((GROWTH_AXIS_MAX_DIGITS - len(repr(shape[-1 if fortran_order else 0]))) if len(shape) > 0 else 0)
    if version is None:
        return wrap_header_guess_version(header)
    return wrap_header(header, version)


def legacy_py2_header(header_text):
    # NumPy < 1.14: pad with spaces so that magic + length + header + "\n" is
    # a multiple of 16.
    current = len(MAGIC_PREFIX) + 2 + 2 + len(header_text) + 1
    topad = 16 - (current % 16)
    header = header_text + " " * topad + "\n"
    return MAGIC_PREFIX + bytes((1, 0)) + struct.pack("<H", len(header)) + header.encode("latin1")


def write(name, header, data):
    with open(name, "wb") as f:
        f.write(header + data)


# np.save("f4_2x3.npy", np.arange(6, dtype="<f4").reshape(2, 3))
write("f4_2x3.npy", array_header("<f4", False, (2, 3)), struct.pack("<6f", 0, 1, 2, 3, 4, 5))
# np.save("f8_scalar.npy", np.array(3.5))
write("f8_scalar.npy", array_header("<f8", False, ()), struct.pack("<d", 3.5))
# np.save("i8_5.npy", np.arange(5))
write("i8_5.npy", array_header("<i8", False, (5,)), struct.pack("<5q", 0, 1, 2, 3, 4))
# np.save("f2_4.npy", np.array([1, -2, 0.5, 65504], dtype="<f2"))
write("f2_4.npy", array_header("<f2", False, (4,)), struct.pack("<4e", 1, -2, 0.5, 65504))
# np.save("b1_3.npy", np.array([True, False, True]))
write("b1_3.npy", array_header("|b1", False, (3,)), bytes([1, 0, 1]))
# np.save("u1_2x2.npy", np.array([[0, 255], [7, 8]], dtype="|u1"))
write("u1_2x2.npy", array_header("|u1", False, (2, 2)), bytes([0, 255, 7, 8]))
# np.save("i1_3.npy", np.array([-128, 0, 127], dtype="|i1"))
write("i1_3.npy", array_header("|i1", False, (3,)), struct.pack("<3b", -128, 0, 127))
# np.save("i2_3.npy", np.array([-32768, 1, 32767], dtype="<i2"))
write("i2_3.npy", array_header("<i2", False, (3,)), struct.pack("<3h", -32768, 1, 32767))
# np.save("i4_3.npy", np.array([-2**31, 1, 2**31 - 1], dtype="<i4"))
write("i4_3.npy", array_header("<i4", False, (3,)), struct.pack("<3i", -(2**31), 1, 2**31 - 1))
# np.save("u2_3.npy", np.array([0, 1, 65535], dtype="<u2"))
write("u2_3.npy", array_header("<u2", False, (3,)), struct.pack("<3H", 0, 1, 65535))
# np.save("u4_3.npy", np.array([0, 1, 2**32 - 1], dtype="<u4"))
write("u4_3.npy", array_header("<u4", False, (3,)), struct.pack("<3I", 0, 1, 2**32 - 1))
# np.save("u8_3.npy", np.array([0, 1, 2**64 - 1], dtype="<u8"))
write("u8_3.npy", array_header("<u8", False, (3,)), struct.pack("<3Q", 0, 1, 2**64 - 1))
# np.save("i2_0x3.npy", np.zeros((0, 3), dtype="<i2"))
write("i2_0x3.npy", array_header("<i2", False, (0, 3)), b"")
# np.save("i4be_2x3.npy", np.arange(6, dtype=">i4").reshape(2, 3))
write("i4be_2x3.npy", array_header(">i4", False, (2, 3)), struct.pack(">6i", 0, 1, 2, 3, 4, 5))
# np.save("f8be_3.npy", np.array([1.5, -2, 1e300], dtype=">f8"))
write("f8be_3.npy", array_header(">f8", False, (3,)), struct.pack(">3d", 1.5, -2, 1e300))
# np.save("f2be_2.npy", np.array([1, -0.5], dtype=">f2"))
write("f2be_2.npy", array_header(">f2", False, (2,)), struct.pack(">2e", 1, -0.5))
# np.save("f4_fortran_2x3.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
# Fortran order stores the transpose's C order: column by column.
write("f4_fortran_2x3.npy", array_header("<f4", True, (2, 3)), struct.pack("<6f", 0, 3, 1, 4, 2, 5))
# np.save of np.arange(24, dtype="<i2").reshape(2, 3, 4) in Fortran order.
fortran_234 = [i * 12 + j * 4 + k for k in range(4) for j in range(3) for i in range(2)]
write("i2_fortran_2x3x4.npy", array_header("<i2", True, (2, 3, 4)), struct.pack("<24h", *fortran_234))
# np.lib.format.write_array(f, np.arange(6, dtype="<f4").reshape(2, 3), version=(2, 0)) and (3, 0)
write("f4_2x3_v2.npy", array_header("<f4", False, (2, 3), (2, 0)), struct.pack("<6f", 0, 1, 2, 3, 4, 5))
write("f4_2x3_v3.npy", array_header("<f4", False, (2, 3), (3, 0)), struct.pack("<6f", 0, 1, 2, 3, 4, 5))
# A Python 2 era file: np.save of np.arange(6, dtype="<i4").reshape(2, 3)
# with NumPy < 1.14 under Python 2 (16-byte alignment, long-int suffixes).
write("legacy_py2_i4_2x3.npy",
      legacy_py2_header("{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }"),
      struct.pack("<6i", 0, 1, 2, 3, 4, 5))
# A header whose unpadded end falls exactly on a 64-byte boundary: NumPy then
# pads a full 64 bytes (ARRAY_ALIGN - 0), not none. The zero dimension keeps
# the data empty. np.save("f4_pad64.npy", np.zeros((0, 1, 1, 1) + (10,) * 8, dtype="<f4"))
write("f4_pad64.npy", array_header("<f4", False, (0, 1, 1, 1) + (10,) * 8), b"")


def utf32(strings, width, order="<"):
    # NumPy's str dtype: each element width UTF-32 code units, NUL-padded.
    out = b""
    for s in strings:
        units = [ord(c) for c in s] + [0] * (width - len(s))
        out += struct.pack(order + "%dI" % width, *units)
    return out


# np.save("U6_2x2.npy", np.array([["monday", "été"], ["x", ""]]))
write("U6_2x2.npy", array_header("<U6", False, (2, 2)), utf32(["monday", "été", "x", ""], 6))
# np.save("U3be_2.npy", np.array(["ab", "c"], dtype=">U3"))
write("U3be_2.npy", array_header(">U3", False, (2,)), utf32(["ab", "c"], 3, ">"))
# np.save("U3_fortran_2x3.npy", np.asfortranarray(np.array([["a", "bb", "ccc"], ["dd", "e", ""]])))
write("U3_fortran_2x3.npy", array_header("<U3", True, (2, 3)), utf32(["a", "dd", "bb", "e", "ccc", ""], 3))
