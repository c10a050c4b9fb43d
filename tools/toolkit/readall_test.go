package toolkit

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Standard input is read whole whether it is a regular file (one buffer
// of the size the file has left, so a large input is not held twice) or a
// stream (blocks joined once); a file already partly read gives its rest.
func TestReadAllStdin(t *testing.T) {
	want := bytes.Repeat([]byte("// line of a large input\n"), 100000)
	path := filepath.Join(t.TempDir(), "in.ipuir")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(f)
	if err != nil || !bytes.Equal(got, want[3:]) {
		t.Fatalf("regular file: %d bytes, err %v; want the %d after the offset", len(got), err, len(want)-3)
	}
	if cap(got) > len(want) {
		t.Errorf("regular file read into a buffer of %d bytes for %d", cap(got), len(got))
	}
	got, err = readAll(io.MultiReader(bytes.NewReader(want[:1000]), bytes.NewReader(want[1000:])))
	if err != nil || !bytes.Equal(got, want) || cap(got) != len(want) {
		t.Fatalf("stream: %d bytes (cap %d), err %v; want %d exactly", len(got), cap(got), err, len(want))
	}
	got, err = readAll(bytes.NewReader(nil))
	if err != nil || len(got) != 0 {
		t.Fatalf("empty stream: %q, %v", got, err)
	}
}

// A failing output is reported as a write error naming the file; a
// failure of the producer is returned as it is, and leaves an existing
// file as it was.
func TestOutputErrors(t *testing.T) {
	write := func(path string, f func(io.Writer) error) error {
		outs := NewOutputs(nil)
		out, err := outs.Add("-o", path)
		if err != nil {
			return err
		}
		if err := out.Write(f); err != nil {
			outs.Abort()
			return err
		}
		return outs.Commit()
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := write("/dev/full", func(w io.Writer) error {
			_, err := w.Write(bytes.Repeat([]byte("x"), 1<<20))
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "cannot write '/dev/full'") {
			t.Errorf("full device: %v", err)
		}
	}
	path := filepath.Join(t.TempDir(), "out.mlir")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := errors.New("the pipeline failed")
	err := write(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return mine
	})
	if err != mine {
		t.Errorf("producer failure came back as %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the old output became %q", b)
	}
}
