package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestFailedWriteKeepsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("a failing writer succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "precious" {
		t.Errorf("the file holds %q after a failed write", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the temporary file was left behind: %v", entries)
	}
	if err := WriteFile(path, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if got, _ := os.ReadFile(path); string(got) != "new" || st.Mode().Perm() != 0o600 {
		t.Errorf("after success: %q, mode %v", got, st.Mode().Perm())
	}
	if err := WriteFile(os.DevNull, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Errorf("writing to %s: %v", os.DevNull, err)
	}
}

// RemovePending removes the temporaries of files still being written,
// and none of those committed or discarded.
func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	a, err := Create(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Writer().Write([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	RemovePending()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "b" {
		t.Errorf("after RemovePending: %v, want [b]", names)
	}
	a.Discard() // its file is gone already; discarding it is harmless
}
