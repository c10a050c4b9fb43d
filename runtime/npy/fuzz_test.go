package npy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the reader. It must never panic, must
// fail only with a *FormatError (the input is in memory, so there are no I/O
// errors), must agree with the streaming path that cannot see the input's
// length, and whatever it accepts must be a valid array that survives a
// write and a re-read unchanged. The seed corpus is every fixture in
// testdata plus testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "*.npy"))
	if err != nil || len(fixtures) == 0 {
		f.Fatalf("no fixtures to seed from: %v", err)
	}
	for _, path := range fixtures {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Decode(data)
		streamed, streamErr := Read(struct{ io.Reader }{bytes.NewReader(data)}) // hides Len
		if (err == nil) != (streamErr == nil) {
			t.Fatalf("Decode and streaming Read disagree: %v vs %v", err, streamErr)
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.As(streamErr, &fe) {
				t.Fatalf("error is not a *FormatError: %v / %v", err, streamErr)
			}
			if !strings.HasPrefix(err.Error(), "npy: ") {
				t.Fatalf("error lacks the package prefix: %v", err)
			}
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("accepted an invalid array: %v", err)
		}
		if a.DType != streamed.DType || !slices.Equal(a.Shape, streamed.Shape) || !bytes.Equal(a.Data, streamed.Data) {
			t.Fatalf("Decode gave %v, streaming Read gave %v", a, streamed)
		}
		enc, err := Encode(a)
		if err != nil {
			t.Fatalf("cannot write back an accepted array %v: %v", a, err)
		}
		back, err := Decode(enc)
		if err != nil || back.DType != a.DType || !slices.Equal(back.Shape, a.Shape) || !bytes.Equal(back.Data, a.Data) {
			t.Fatalf("write and re-read of %v changed it: %v, %v", a, back, err)
		}
	})
}
