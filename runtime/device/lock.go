package device

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrBusy is Acquire's error when another runner holds the device and the
// caller does not wait.
var ErrBusy = errors.New("the device is in use by another runner")

// Acquire takes the ownership lock at path (flock, exclusive): it waits for
// another holder, logging that it waits, or with wait false fails at once
// with ErrBusy and the holder's process id. Release gives it back; so does
// the kernel when the process exits, however it exits, so a crashed runner
// never leaves the device locked.
func Acquire(path string, wait bool, log *slog.Logger) (release func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open the device's lock file: %v", unwrap(err))
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
	// Say who holds it, for the runners that wait.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	log.Info("acquired hardware ownership", "path", path)
	return func() error {
		f.Truncate(0)
		return f.Close() // closing drops the lock
	}, nil
}

func holderOf(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return "an unknown process"
	}
	return "process " + strings.TrimPrefix(strings.TrimSpace(string(b)), "pid ")
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
