package device

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two runners of one device: the second fails at once with --no-wait,
// naming the holder, or waits (and logs that it waits) until the first
// releases the device.
func TestOwnership(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim.lock")
	var log1 bytes.Buffer
	release, err := Acquire(path, false, slog.New(slog.NewTextHandler(&log1, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log1.String(), "acquired hardware ownership") {
		t.Errorf("log: %s", log1.String())
	}
	_, err = Acquire(path, false, slog.New(slog.DiscardHandler))
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "held by process ") || !strings.Contains(err.Error(), "--no-wait") {
		t.Fatalf("a second runner with --no-wait: %v", err)
	}
	var log2 bytes.Buffer
	got := make(chan error, 1)
	go func() {
		rel, err := Acquire(path, true, slog.New(slog.NewTextHandler(&log2, nil)))
		if err == nil {
			err = rel()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the second runner did not wait: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second runner still waits after the first released the device")
	}
	if !strings.Contains(log2.String(), "held by another runner, waiting") || !strings.Contains(log2.String(), "acquired hardware ownership") {
		t.Errorf("the waiting runner's log: %s", log2.String())
	}
}

// A runner killed while it holds the device leaves it free: the kernel
// drops a flock with its holder.
func TestCrashedRunnerLeavesTheDeviceFree(t *testing.T) {
	if path := os.Getenv("IPUIR_LOCK_CHILD"); path != "" {
		if _, err := Acquire(path, false, slog.New(slog.DiscardHandler)); err != nil {
			os.Exit(3)
		}
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "sim.lock")
	child := exec.Command(os.Args[0], "-test.run=TestCrashedRunnerLeavesTheDeviceFree")
	child.Env = append(os.Environ(), "IPUIR_LOCK_CHILD="+path)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		rel, err := Acquire(path, false, slog.New(slog.DiscardHandler))
		if errors.Is(err, ErrBusy) {
			break
		}
		if err == nil {
			rel()
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("the child never took the device")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	rel, err := Acquire(path, false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	rel()
}

// A link planted where the lock file goes is refused, and what it points
// to is left untouched; the lock file is never truncated.
func TestLockFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "ipuir-sim-test16.lock")
	if err := os.Symlink(victim, lock); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(lock, false, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "is a link: refusing to follow it") {
		t.Errorf("a planted link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious data\n" {
		t.Errorf("the link's target became %q", b)
	}
	// A real lock file keeps its length: the holder's id is written over
	// its first bytes.
	plain := filepath.Join(dir, "plain.lock")
	os.WriteFile(plain, []byte(strings.Repeat("x", 100)), 0o600)
	release, err := Acquire(plain, false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(plain); st.Size() != 100 {
		t.Errorf("the lock file was truncated to %d bytes", st.Size())
	}
	release()
}

// The lock folder is the user's own: a link, a file, or a folder of
// another user is refused; the default one is made 0700.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	got, err := LockDir("")
	if err != nil || got != filepath.Join(dir, "ipuir") {
		t.Fatalf("default lock folder: %q, %v", got, err)
	}
	if st, _ := os.Stat(got); st.Mode().Perm() != 0o700 {
		t.Errorf("made %v, want 0700", st.Mode().Perm())
	}
	link := filepath.Join(dir, "link")
	os.Symlink(dir, link)
	if _, err := LockDir(link); err == nil || !strings.Contains(err.Error(), "is a link") {
		t.Errorf("a link: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := LockDir(file); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("a file: %v", err)
	}
	if os.Getuid() == 0 {
		other := filepath.Join(dir, "other")
		os.Mkdir(other, 0o777)
		if err := os.Chown(other, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if _, err := LockDir(other); err == nil || !strings.Contains(err.Error(), "belongs to user 12345") {
			t.Errorf("another user's folder: %v", err)
		}
	}
}
