package device

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrBusy is Acquire's error when another runner holds the device and the
// caller does not wait.
var ErrBusy = errors.New("the device is in use by another runner")

// LockDir is the folder of the devices' lock files: dir when given, else
// $XDG_RUNTIME_DIR/ipuir, else ipuir-UID in the system's temporary folder.
// The folder is created 0700 when missing, and refused when it is a link,
// is not a folder, or belongs to another user: a lock in a folder others
// can write is one they can plant a link in.
func LockDir(dir string) (string, error) {
	if dir == "" {
		if run := os.Getenv("XDG_RUNTIME_DIR"); run != "" {
			dir = filepath.Join(run, "ipuir")
		} else {
			dir = filepath.Join(os.TempDir(), "ipuir-"+strconv.Itoa(os.Getuid()))
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("cannot make the lock folder '%s': %v", dir, unwrap(err))
		}
	}
	st, err := os.Lstat(dir)
	switch {
	case err != nil:
		return "", fmt.Errorf("lock folder '%s': %v", dir, unwrap(err))
	case st.Mode()&os.ModeSymlink != 0:
		return "", fmt.Errorf("lock folder '%s' is a link: refusing to follow it", dir)
	case !st.IsDir():
		return "", fmt.Errorf("lock folder '%s' is not a folder", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return "", fmt.Errorf("lock folder '%s' belongs to user %d, not to you (%d): refusing to lock there", dir, sys.Uid, os.Getuid())
	}
	return dir, nil
}

// Acquire takes the ownership lock at path (flock, exclusive): it waits for
// another holder, logging that it waits, or with wait false fails at once
// with ErrBusy and the holder's process id. Release gives it back; so does
// the kernel when the process exits, however it exits, so a crashed runner
// never leaves the device locked. The file is opened without following a
// link (a link planted in its place is refused, not written through) and
// is never truncated: the holder's id is written over its first bytes.
func Acquire(path string, wait bool, log *slog.Logger) (release func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("the device's lock file '%s' is a link: refusing to follow it", path)
		}
		return nil, fmt.Errorf("cannot open the device's lock file: %v", unwrap(err))
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("the device's lock file '%s' is not a regular file", path)
	}
	log.Info("waiting for hardware ownership", "path", path)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("cannot lock '%s': %v", path, err)
		}
		holder := holderOf(path)
		if !wait {
			f.Close()
			return nil, fmt.Errorf("%w (%s, held by %s); not waiting (--no-wait)", ErrBusy, path, holder)
		}
		log.Info("hardware ownership held by another runner, waiting", "path", path, "holder", holder)
		for {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot lock '%s': %v", path, err)
		}
	}
	// Say who holds it, for the runners that wait: over the first bytes,
	// padded to a fixed width, so nothing is truncated.
	f.WriteAt([]byte(fmt.Sprintf("pid %-20d\n", os.Getpid())), 0)
	log.Info("acquired hardware ownership", "path", path)
	return func() error {
		f.WriteAt([]byte(fmt.Sprintf("%-24s\n", "free")), 0)
		return f.Close() // closing drops the lock
	}, nil
}

func holderOf(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "an unknown process"
	}
	defer f.Close()
	var b [64]byte
	n, _ := f.Read(b[:])
	line, _, _ := strings.Cut(string(b[:n]), "\n")
	pid, ok := strings.CutPrefix(strings.TrimSpace(line), "pid ")
	if !ok {
		return "an unknown process"
	}
	return "process " + strings.TrimSpace(pid)
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
