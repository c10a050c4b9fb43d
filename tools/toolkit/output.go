package toolkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/ipuir/ipuir/runtime/atomicfile"
)

// WriteOutput writes data to the file called name, or to stdout when name
// is "-" or empty. A file is written whole or not at all: the data goes to
// a temporary file in the same folder, which is renamed over name once it
// is complete, so that a failure (a full disk, a killed process) leaves
// what was there before. An existing file keeps its permissions. inputs
// are the files the tool read: writing over one of them is refused, since
// the tool would destroy what it was given.
func WriteOutput(name string, data []byte, stdout io.Writer, inputs ...string) error {
	return StreamOutput(name, stdout, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, inputs...)
}

// StreamOutput is WriteOutput for output produced piece by piece: write
// gets a buffered writer on the output; the text goes straight to stdout
// for "-", and otherwise to a temporary file that replaces name only if
// write returns nil (so that a failure, whose error StreamOutput returns,
// leaves an existing file as it was).
func StreamOutput(name string, stdout io.Writer, write func(io.Writer) error, inputs ...string) error {
	var writeErr error // the output's own failure, which atomicfile reports as such
	produce := func(w io.Writer) error {
		bw := bufio.NewWriterSize(recordingWriter{w, &writeErr}, 256<<10)
		err := write(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	if name == "-" || name == "" {
		return produce(stdout)
	}
	if err := CheckOutput(name, inputs...); err != nil {
		return err
	}
	var failure error
	err := atomicfile.WriteFile(name, func(w io.Writer) error {
		failure = produce(w)
		return failure
	})
	if failure != nil && !errors.Is(failure, writeErr) {
		return failure // the caller's error, not a write error
	}
	return err // "cannot write 'name': ..."
}

// recordingWriter notes the first error of w in *err.
type recordingWriter struct {
	w   io.Writer
	err *error
}

func (r recordingWriter) Write(b []byte) (int, error) {
	n, err := r.w.Write(b)
	if err != nil && *r.err == nil {
		*r.err = err
	}
	return n, err
}

// CheckOutput refuses an output that is one of the inputs, before any work
// is done.
func CheckOutput(name string, inputs ...string) error {
	if name == "-" || name == "" {
		return nil
	}
	for _, in := range inputs {
		if in != "-" && in != "" && atomicfile.SameFile(name, in) {
			return fmt.Errorf("output file '%s' is the input file: refusing to overwrite it", name)
		}
	}
	return nil
}
