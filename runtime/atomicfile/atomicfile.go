// Package atomicfile is how a tool touches the files it is given. It
// writes files whole or not at all, so that a tool that fails (a full
// disk, a killed process, an error half way) never leaves a truncated file
// where the user had a good one, and never renames a temporary file over
// something that is not a regular file; and it reads inputs with a bound
// (Open, ReadFile), refusing devices, so that /dev/zero is not read
// forever.
//
// A path names a regular file (or none yet): the data go to a temporary
// file in the same folder, renamed over the path when complete. A path
// that is a link is resolved first, so the link stays and the file it
// points to is replaced; a link that points nowhere is refused. Anything
// else (a device such as /dev/null, a FIFO, a terminal, and every path
// under /dev or /proc, such as /dev/stdout and /dev/fd/1, whatever they
// point to) is written through: there is nothing to keep and nothing to
// rename over.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Pending is a file being written: Commit puts it in place, Discard
// drops it. A written-through file has no pending state: Commit only
// closes it.
type Pending struct {
	path    string // as given, for messages
	target  string // the regular file a rename replaces
	mode    os.FileMode
	f       *os.File
	through bool
	done    bool
}

// Create starts writing path, checking first that it can be written: its
// folder exists, and a link resolves.
func Create(path string) (*Pending, error) {
	target, through, mode, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	p := &Pending{path: path, target: target, mode: mode, through: through}
	if through {
		flags := os.O_WRONLY
		if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() {
			flags |= os.O_TRUNC // /dev/stdout redirected to a file
		}
		if p.f, err = os.OpenFile(target, flags, 0); err != nil {
			return nil, fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
		}
		return p, nil
	}
	if p.f, err = os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*"); err != nil {
		return nil, fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
	}
	pending.Lock()
	pending.files[p.f.Name()] = true
	pending.Unlock()
	return p, nil
}

// pending are the temporary files being written, which RemovePending
// removes when the process is told to stop.
var pending = struct {
	sync.Mutex
	files map[string]bool
}{files: map[string]bool{}}

func forget(name string) {
	pending.Lock()
	delete(pending.files, name)
	pending.Unlock()
}

// RemovePending removes every temporary file not yet committed or
// discarded: what a tool stopped by a signal (toolkit.RemoveOutputsOnSignal)
// calls before it dies, so that nothing is left beside its outputs.
func RemovePending() {
	pending.Lock()
	defer pending.Unlock()
	for name := range pending.files {
		os.Remove(name)
		delete(pending.files, name)
	}
}

// Resolve says how path would be written: through (a special file, or a
// path under /dev or /proc), or by renaming over target, the regular file
// path names (links resolved), whose permissions mode keeps (0644 for a
// new one). It fails when the file cannot be written there: no such
// folder, a folder in the file's place, a link to nothing.
func Resolve(path string) (target string, through bool, mode os.FileMode, err error) {
	bad := func(format string, args ...any) (string, bool, os.FileMode, error) {
		return "", false, 0, fmt.Errorf("cannot write '%s': "+format, append([]any{path}, args...)...)
	}
	if abs, err := filepath.Abs(path); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
		if _, err := os.Stat(path); err != nil {
			return bad("%v", unwrap(err))
		}
		return path, true, 0, nil
	}
	target = path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return bad("it is a link to nothing that exists (%v)", unwrap(err))
		}
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return bad("it is a folder")
	case err == nil && !st.Mode().IsRegular():
		return target, true, 0, nil
	case err == nil:
		return target, false, st.Mode().Perm(), nil
	case !errors.Is(err, os.ErrNotExist):
		return bad("%v", unwrap(err))
	}
	dir := filepath.Dir(target)
	if dst, err := os.Stat(dir); err != nil || !dst.IsDir() {
		return bad("there is no folder '%s'", dir)
	}
	return target, false, 0o644, nil
}

// Writer is where the data go.
func (p *Pending) Writer() io.Writer { return p.f }

// Commit completes the file: a temporary one is renamed over the target.
func (p *Pending) Commit() error {
	if p.done {
		return nil
	}
	p.done = true
	fail := func(err error) error {
		if !p.through {
			os.Remove(p.f.Name())
			forget(p.f.Name())
		}
		return fmt.Errorf("cannot write '%s': %v", p.path, unwrap(err))
	}
	if !p.through {
		if err := p.f.Chmod(p.mode); err != nil {
			p.f.Close()
			return fail(err)
		}
	}
	if err := p.f.Close(); err != nil {
		return fail(err)
	}
	if !p.through {
		defer forget(p.f.Name())
		if err := os.Rename(p.f.Name(), p.target); err != nil {
			return fail(err)
		}
	}
	return nil
}

// Discard drops what was written (a written-through file keeps it: it
// has no other place).
func (p *Pending) Discard() {
	if p.done {
		return
	}
	p.done = true
	p.f.Close()
	if !p.through {
		os.Remove(p.f.Name())
		forget(p.f.Name())
	}
}

// WriteFile writes what write produces to path, whole or not at all.
func WriteFile(path string, write func(io.Writer) error) error {
	p, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(p.Writer()); err != nil {
		p.Discard()
		return fmt.Errorf("cannot write '%s': %v", path, unwrap(err))
	}
	return p.Commit()
}

// SameFile reports whether a and b name one file: one existing file (by
// device and inode, links followed), or, where either does not exist yet,
// one cleaned absolute path (the folders' links resolved).
func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	return canonical(a) == canonical(b)
}

// canonical is path made absolute and clean, its folder's links resolved.
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
