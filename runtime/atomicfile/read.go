package atomicfile

import (
	"fmt"
	"io"
	"os"

	"github.com/dustin/go-humanize"
)

// OpenError is an input that cannot be opened, or is not one a tool
// reads: Err says why.
type OpenError struct {
	Path string
	Err  error
}

func (e *OpenError) Error() string { return fmt.Sprintf("cannot open '%s': %v", e.Path, e.Err) }
func (e *OpenError) Unwrap() error { return e.Err }

// Open opens path for reading what a tool is given: a regular file of at
// most limit bytes (its size is returned), or a pipe or FIFO, whose size
// is unknown (-1) and which ReadAll reads no further than limit. A device
// (/dev/zero, a terminal), a folder or a socket is refused: none is a file
// a tool should read to its end.
func Open(path string, limit int64) (*os.File, int64, error) {
	fail := func(f *os.File, err error) (*os.File, int64, error) {
		if f != nil {
			f.Close()
		}
		return nil, 0, &OpenError{Path: path, Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(nil, unwrap(err))
	}
	st, err := f.Stat()
	if err != nil {
		return fail(f, unwrap(err))
	}
	switch mode := st.Mode(); {
	case mode.IsRegular():
		if st.Size() > limit {
			return fail(f, fmt.Errorf("it holds %s, more than the %s this input may", humanize.IBytes(uint64(st.Size())), humanize.IBytes(uint64(limit))))
		}
		return f, st.Size(), nil
	case mode&os.ModeNamedPipe != 0:
		return f, -1, nil
	case mode.IsDir():
		return fail(f, fmt.Errorf("it is a folder, not a file"))
	case mode&os.ModeDevice != 0:
		return fail(f, fmt.Errorf("it is a device, not a file (give a file, or - for standard input)"))
	default:
		return fail(f, fmt.Errorf("it is not a regular file (%v)", mode.Type()))
	}
}

// ReadAll reads r to its end, at most limit bytes: more is an error naming
// what (a file, standard input).
func ReadAll(r io.Reader, what string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", what, unwrap(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s holds more than the %s this input may hold", what, humanize.IBytes(uint64(limit)))
	}
	return data, nil
}

// ReadFile reads the file at path whole (see Open), at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size >= 0 {
		data := make([]byte, size)
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, fmt.Errorf("reading '%s': %v", path, unwrap(err))
		}
		return data, nil
	}
	return ReadAll(f, "'"+path+"'", limit)
}
