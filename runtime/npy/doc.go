// Package npy reads and writes NumPy .npy files (format versions 1.0, 2.0
// and 3.0), the way model inputs, weights and reference outputs travel
// between ipuir's tools and Python.
//
// A file is the magic "\x93NUMPY", a major and minor version byte, the
// header length (little-endian uint16 in 1.0, uint32 in 2.0 and 3.0), a
// header that is a Python dict literal ({'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), }) in Latin-1 (1.0, 2.0) or UTF-8 (3.0), padded
// with spaces and ended by a newline, then the raw data.
//
// Reading is strict about meaning and lenient about layout, as NumPy is: it
// needs exactly the three keys with values of the right types, but accepts
// any alignment (files from NumPy before 1.14 are 16-byte aligned, newer
// ones 64) and Python 2 long-integer suffixes (3L) in 1.0 and 2.0 headers.
// Every malformed input is an error, never a panic; memory is allocated only
// as input actually arrives, so a header that promises terabytes costs
// nothing before the data runs out.
//
// Every Array holds its data in C order and little-endian: a big-endian file
// is byte-swapped and a Fortran-order file transposed while reading. One
// canonical layout means the interpreter, the package writer and the CLI
// never check flags; ReadHeader still reports what the file said, for tools
// that want to show it.
//
// Writing produces exactly the bytes NumPy's np.save writes (NumPy 1.23 and
// later, which also add spare header space for in-place growth): version 1.0
// unless the header is too long for it, C order, little-endian.
package npy
