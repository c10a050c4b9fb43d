package toolkit

import (
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
	if name == "-" || name == "" {
		_, err := stdout.Write(data)
		return err
	}
	if err := CheckOutput(name, inputs...); err != nil {
		return err
	}
	return atomicfile.WriteFile(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
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
