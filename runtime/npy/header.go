package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	magic = "\x93NUMPY"
	// arrayAlign is the alignment NumPy pads headers to (ARRAY_ALIGN).
	arrayAlign = 64
	// growthAxisMaxDigits is NumPy's GROWTH_AXIS_MAX_DIGITS: since NumPy
	// 1.23 np.save leaves room after the dict for the growing axis's length
	// to reach this many digits, so the header can be rewritten in place.
	growthAxisMaxDigits = 21
	// MaxHeaderBytes bounds the header length field. Headers for the
	// supported dtypes are a few hundred bytes even at NumPy's 64-dimension
	// limit; NumPy's own loader refuses more than 10,000 characters by
	// default. Anything longer is taken to be corrupt rather than read.
	MaxHeaderBytes = 1 << 20
	// MaxDims is NumPy's limit on the number of dimensions (NPY_MAXDIMS in
	// NumPy 2; NumPy 1 allowed 32).
	MaxDims = 64
)

// Version is a .npy format version.
type Version struct{ Major, Minor uint8 }

// The format versions NumPy defines. They differ only in the width of the
// header length (16 bits in 1.0, 32 in 2.0 and 3.0) and in the header's
// encoding (Latin-1 in 1.0 and 2.0, UTF-8 in 3.0).
var (
	V1 = Version{1, 0}
	V2 = Version{2, 0}
	V3 = Version{3, 0}
)

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

func (v Version) known() bool { return v == V1 || v == V2 || v == V3 }

// lengthFieldSize is the width in bytes of the header length field.
func (v Version) lengthFieldSize() int {
	if v == V1 {
		return 2
	}
	return 4
}

// Header is what a file's header says, as written: the byte order and
// memory order of the data in the file, before Read normalises them.
type Header struct {
	Version      Version
	DType        DType
	Width        int  // code units per element of a Unicode dtype
	BigEndian    bool // the data is big-endian (descr '>' on a multi-byte type)
	FortranOrder bool // the data is in Fortran (column-major) order
	Shape        []int
	// DataOffset is the file offset of the first data byte: the size of
	// magic, version, length field and header together.
	DataOffset int64
}

// Len returns the number of elements the shape describes (1 for shape ()).
func (h *Header) Len() int {
	n, _ := elementCount(h.Shape)
	return n
}

// DataBytes returns the number of data bytes the header promises.
func (h *Header) DataBytes() int64 { return int64(h.Len()) * int64(elemBytes(h.DType, h.Width)) }

// FormatError is a malformed or unsupported .npy file.
type FormatError struct{ Reason string }

func (e *FormatError) Error() string { return "npy: " + e.Reason }

func formatErrorf(format string, args ...any) error {
	return &FormatError{Reason: fmt.Sprintf(format, args...)}
}

// ReadHeader reads and checks the magic, version and header of a .npy
// stream, leaving r at the first data byte.
func ReadHeader(r io.Reader) (*Header, error) {
	var prefix [len(magic) + 2]byte
	n, err := io.ReadFull(r, prefix[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("npy: reading the magic string: %w", err)
	}
	switch seen := min(n, len(magic)); {
	case n == 0:
		return nil, formatErrorf("not a .npy file: the input is empty")
	case string(prefix[:seen]) != magic[:seen]:
		return nil, formatErrorf("not a .npy file: it starts with %q, not the magic string %q", prefix[:seen], magic)
	case n < len(prefix):
		return nil, formatErrorf("truncated: the input ends after %d bytes, inside the magic string and version", n)
	}
	version := Version{prefix[6], prefix[7]}
	if !version.known() {
		return nil, formatErrorf("unsupported format version %v (known: 1.0, 2.0, 3.0)", version)
	}

	lengthField := make([]byte, version.lengthFieldSize())
	if _, err := io.ReadFull(r, lengthField); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, formatErrorf("truncated: the file ends inside the %d-byte header length field", len(lengthField))
		}
		return nil, fmt.Errorf("npy: reading the header length: %w", err)
	}
	var headerLen int64
	if version == V1 {
		headerLen = int64(binary.LittleEndian.Uint16(lengthField))
	} else {
		headerLen = int64(binary.LittleEndian.Uint32(lengthField))
	}
	if headerLen > MaxHeaderBytes {
		return nil, formatErrorf("header length %d bytes is absurd (limit %d); the file is corrupt or not a .npy file", headerLen, MaxHeaderBytes)
	}
	// Read through a limit rather than allocating headerLen up front: the
	// buffer only grows as bytes actually arrive.
	raw, err := io.ReadAll(io.LimitReader(r, headerLen))
	if err != nil {
		return nil, fmt.Errorf("npy: reading the header: %w", err)
	}
	if int64(len(raw)) < headerLen {
		return nil, formatErrorf("truncated header: the length field says %d bytes, but only %d follow", headerLen, len(raw))
	}

	h, err := parseHeader(raw, version)
	if err != nil {
		return nil, err
	}
	h.DataOffset = int64(len(prefix)+len(lengthField)) + headerLen
	return h, nil
}

// parseHeader interprets the header text of the given version.
func parseHeader(raw []byte, version Version) (*Header, error) {
	var text string
	if version == V3 {
		if !utf8.Valid(raw) {
			return nil, formatErrorf("a version 3.0 header must be UTF-8, and this one is not")
		}
		text = string(raw)
	} else {
		text = latin1ToString(raw)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return nil, formatErrorf("the header contains a NUL byte")
	}
	dict, err := parsePyLiteral(text, version != V3)
	if err != nil {
		return nil, err
	}
	if dict.kind != pyDict {
		return nil, formatErrorf("the header is a Python %v, not a dict: %s", dict.kind, abbreviate(text))
	}
	// Python keeps the last of repeated keys; so does this.
	fields := map[string]pyValue{}
	var nonString []string
	for i := 0; i < len(dict.items); i += 2 {
		key := dict.items[i]
		if key.kind != pyStr {
			nonString = append(nonString, key.kind.String())
			continue
		}
		fields[key.str] = dict.items[i+1]
	}
	if len(nonString) > 0 || len(fields) != 3 || !hasKeys(fields, "descr", "fortran_order", "shape") {
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, strconv.Quote(k))
		}
		sort.Strings(keys)
		for _, k := range nonString {
			keys = append(keys, "a key of type "+k)
		}
		return nil, formatErrorf("the header must have exactly the keys 'descr', 'fortran_order' and 'shape'; it has %s", strings.Join(keys, ", "))
	}

	h := &Header{Version: version}
	descr := fields["descr"]
	switch descr.kind {
	case pyStr:
		h.DType, h.Width, h.BigEndian, err = parseDescr(descr.str)
		if err != nil {
			return nil, err
		}
	case pyList:
		return nil, formatErrorf("structured dtypes (a list as descr) are not supported")
	default:
		return nil, formatErrorf("descr must be a string, not a Python %v", descr.kind)
	}

	order := fields["fortran_order"]
	if order.kind != pyBool {
		return nil, formatErrorf("fortran_order must be True or False, not a Python %v", order.kind)
	}
	h.FortranOrder = order.bool

	shape := fields["shape"]
	if shape.kind != pyTuple {
		return nil, formatErrorf("shape must be a tuple of ints, not a Python %v", shape.kind)
	}
	if len(shape.items) > MaxDims {
		return nil, formatErrorf("shape has %d dimensions; NumPy allows at most %d", len(shape.items), MaxDims)
	}
	h.Shape = make([]int, len(shape.items))
	for i, d := range shape.items {
		switch {
		case d.kind != pyInt:
			return nil, formatErrorf("shape entry %d is a Python %v, not an int", i, d.kind)
		case strings.HasPrefix(d.str, "-"):
			return nil, formatErrorf("shape entry %d is negative (%s)", i, d.str)
		case d.big || d.int > math.MaxInt:
			return nil, formatErrorf("shape entry %d (%s) is too large", i, d.str)
		}
		h.Shape[i] = int(d.int)
	}
	n, ok := elementCount(h.Shape)
	if !ok {
		return nil, formatErrorf("shape %s has more elements than memory can address", shapeString(h.Shape))
	}
	if size := elemBytes(h.DType, h.Width); size > 0 && uint64(n) > uint64(math.MaxInt64-1)/uint64(size) {
		return nil, formatErrorf("shape %s of %v is more bytes than memory can address", shapeString(h.Shape), h.DType)
	}
	return h, nil
}

func hasKeys(m map[string]pyValue, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// latin1ToString decodes Latin-1: every byte is the code point of its value.
func latin1ToString(b []byte) string {
	for _, c := range b {
		if c >= 0x80 {
			runes := make([]rune, len(b))
			for i, c := range b {
				runes[i] = rune(c)
			}
			return string(runes)
		}
	}
	return string(b)
}

// abbreviate shortens header text for an error message.
func abbreviate(s string) string {
	s = strings.TrimRight(s, " \n")
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strconv.Quote(s)
}

// elementCount returns the product of the dimensions and whether it fits
// in an int.
func elementCount(shape []int) (int, bool) {
	n := uint64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return 0, false
		}
		n = lo
	}
	return int(n), true
}

// shapeString spells a shape the way Python's repr spells a tuple of ints:
// (), (5,), (2, 3).
func shapeString(shape []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// encodeHeader returns magic, version, length field and header for an array
// of the given dtype and shape in C order, exactly as NumPy's
// _write_array_header writes them. With version zero it chooses as np.save
// does: 1.0 unless the header does not fit its 16-bit length, then 2.0 (the
// header is ASCII, so 3.0 is never needed).
func encodeHeader(descr string, shape []int, version Version) ([]byte, error) {
	// Keys in sorted order, each value as Python's repr, each entry followed
	// by ", ", then the spare room for growing the first axis.
	text := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shapeString(shape))
	if len(shape) > 0 {
		text += strings.Repeat(" ", max(0, growthAxisMaxDigits-len(strconv.Itoa(shape[0]))))
	}
	return wrapHeaderAs(text, version)
}

// wrapHeaderAs wraps header text in the given version, or chooses the
// version as np.save does when it is zero.
func wrapHeaderAs(text string, version Version) ([]byte, error) {
	if version == (Version{}) {
		if b, err := wrapHeader(text, V1); err == nil {
			return b, nil
		}
		return wrapHeader(text, V2)
	}
	if !version.known() {
		return nil, fmt.Errorf("npy: cannot write format version %v (known: 1.0, 2.0, 3.0)", version)
	}
	return wrapHeader(text, version)
}

// wrapHeader pads the header text with spaces and a newline so that the
// data starts at a multiple of 64 bytes, and prefixes magic, version and
// length. Like NumPy it pads by a full 64 bytes when the unpadded header
// already ends on a boundary: pad = 64 - (size % 64), never 0.
func wrapHeader(text string, version Version) ([]byte, error) {
	prefixLen := len(magic) + 2 + version.lengthFieldSize()
	hlen := len(text) + 1
	pad := arrayAlign - (prefixLen+hlen)%arrayAlign
	total := hlen + pad
	if version == V1 && total > math.MaxUint16 {
		return nil, fmt.Errorf("npy: a %d-byte header does not fit format 1.0", total)
	}
	if total > MaxHeaderBytes {
		return nil, fmt.Errorf("npy: a %d-byte header exceeds the %d-byte limit", total, MaxHeaderBytes)
	}
	b := make([]byte, 0, prefixLen+total)
	b = append(b, magic...)
	b = append(b, version.Major, version.Minor)
	if version == V1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(total))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(total))
	}
	b = append(b, text...)
	for range pad {
		b = append(b, ' ')
	}
	return append(b, '\n'), nil
}
