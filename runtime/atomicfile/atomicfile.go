// Package atomicfile writes files whole or not at all, so that a tool that
// fails (a full disk, a killed process, an error half way) never leaves a
// truncated file where the user had a good one.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes what write produces to path. The data goes to a
// temporary file in the same folder, which is renamed over path once it
// is complete; on any error path is left as it was. An existing file keeps
// its permissions (new ones get 0644). A path that exists but is not a
// regular file (/dev/null, a FIFO) is written directly: there is nothing
// to keep and nothing to rename over.
func WriteFile(path string, write func(io.Writer) error) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
			}
			err = write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
			}
			return nil
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
	}
	done = true
	return nil
}

// SameFile reports whether a and b name one existing file.
func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
