package npy

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ipuir/ipuir/runtime/atomicfile"
)

// Read reads one .npy array from r and returns it in C order,
// little-endian. The data must be exactly as long as the shape says: a
// short file and trailing bytes are both errors.
func Read(r io.Reader) (*Array, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	data, err := readData(r, h)
	if err != nil {
		return nil, err
	}
	return normalise(h, data), nil
}

// Decode reads a .npy array from an in-memory file. The array does not
// share memory with b.
func Decode(b []byte) (*Array, error) { return Read(bytes.NewReader(b)) }

// MaxFileBytes is the largest .npy file ReadFile reads.
const MaxFileBytes = 1 << 36

// ReadFile reads the .npy file at path: a regular file, whose size the
// header's shape must account for before any data is read, or a pipe,
// read no further than its header promises (atomicfile.Open refuses a
// device such as /dev/zero).
func ReadFile(path string) (*Array, error) {
	f, size, err := atomicfile.Open(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if size >= 0 {
		r = &sizedReader{r: f, left: size}
	}
	a, err := Read(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// sizedReader is a file that knows how much of it is left, so that
// readData checks the header's promise against it before allocating.
type sizedReader struct {
	r    io.Reader
	left int64
}

func (s *sizedReader) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	s.left -= int64(n)
	return n, err
}

func (s *sizedReader) Len() int { return int(s.left) }

// readData reads exactly the data bytes the header promises and checks
// that nothing follows them. Memory grows only as data arrives, so a header
// that promises more than the input holds costs no more than the input.
func readData(r io.Reader, h *Header) ([]byte, error) {
	want := h.DataBytes()
	describe := func() string {
		return fmt.Sprintf("shape %s of %v needs %d data bytes", shapeString(h.Shape), h.DType, want)
	}
	if sized, ok := r.(interface{ Len() int }); ok {
		// An in-memory reader knows what is left: check before allocating.
		if have := int64(sized.Len()); have != want {
			if have < want {
				return nil, formatErrorf("truncated data: %s, but only %d follow the header", describe(), have)
			}
			return nil, formatErrorf("trailing data: %s, but %d follow the header (%d too many)", describe(), have, have-want)
		}
		data := make([]byte, want)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("npy: reading data: %w", err)
		}
		return data, nil
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, want)); err != nil {
		return nil, fmt.Errorf("npy: reading data: %w", err)
	}
	if have := int64(buf.Len()); have < want {
		return nil, formatErrorf("truncated data: %s, but only %d follow the header", describe(), have)
	}
	var extra [1]byte
	if n, err := io.ReadFull(r, extra[:]); n > 0 {
		return nil, formatErrorf("trailing data: %s, but more follow the header", describe())
	} else if err != io.EOF {
		return nil, fmt.Errorf("npy: reading data: %w", err)
	}
	return buf.Bytes(), nil
}

// normalise turns file data into an Array's layout: little-endian, C order.
func normalise(h *Header, data []byte) *Array {
	size := h.DType.Size() // a string's code units swap one by one
	if h.BigEndian {
		for off := 0; off < len(data); off += size {
			e := data[off : off+size]
			for i, j := 0, size-1; i < j; i, j = i+1, j-1 {
				e[i], e[j] = e[j], e[i]
			}
		}
	}
	if n := elemBytes(h.DType, h.Width); h.FortranOrder && len(h.Shape) > 1 && n > 0 {
		data = fortranToC(data, h.Shape, n)
	}
	return &Array{DType: h.DType, Width: h.Width, Shape: h.Shape, Data: data}
}

// fortranToC reorders column-major element data into row-major order. In
// Fortran order the element at index (i0, ..., i(d-1)) sits at element
// offset Σ ik·sk with s0 = 1 and sk = s(k-1)·shape(k-1). The loop walks the
// C-order indices like an odometer, keeping the Fortran offset in step.
func fortranToC(in []byte, shape []int, size int) []byte {
	out := make([]byte, len(in))
	n := len(in) / size
	if n == 0 {
		return out
	}
	d := len(shape)
	stride := make([]int, d)
	stride[0] = 1
	for k := 1; k < d; k++ {
		stride[k] = stride[k-1] * shape[k-1]
	}
	idx := make([]int, d)
	f := 0
	for c := 0; c < n; c++ {
		copy(out[c*size:(c+1)*size], in[f*size:(f+1)*size])
		for k := d - 1; k >= 0; k-- {
			idx[k]++
			f += stride[k]
			if idx[k] < shape[k] {
				break
			}
			f -= stride[k] * shape[k]
			idx[k] = 0
		}
	}
	return out
}
