package toolkit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		if !st.Mode().IsRegular() {
			// A device or a pipe (/dev/null, a FIFO): nothing to keep,
			// and nothing to rename over.
			f, err := os.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("cannot write '%s': %v", name, unwrapPath(err))
			}
			_, err = f.Write(data)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("cannot write '%s': %v", name, unwrapPath(err))
			}
			return nil
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write '%s': %v", name, unwrapPath(err))
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("cannot write '%s': %v", name, unwrapPath(err))
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("cannot write '%s': %v", name, unwrapPath(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write '%s': %v", name, unwrapPath(err))
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("cannot write '%s': %v", name, unwrapPath(err))
	}
	done = true
	return nil
}

// CheckOutput refuses an output that is one of the inputs, before any work
// is done.
func CheckOutput(name string, inputs ...string) error {
	if name == "-" || name == "" {
		return nil
	}
	out, err := os.Stat(name)
	if err != nil {
		return nil // a new file
	}
	for _, in := range inputs {
		if in == "-" || in == "" {
			continue
		}
		if st, err := os.Stat(in); err == nil && os.SameFile(st, out) {
			return fmt.Errorf("output file '%s' is the input file: refusing to overwrite it", name)
		}
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
