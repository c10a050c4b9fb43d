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
