package npy

import (
	"io"

	"github.com/ipuir/ipuir/runtime/atomicfile"
)

// Write writes a as a .npy file the way np.save does: format 1.0 unless the
// header needs 2.0, C order, little-endian.
func Write(w io.Writer, a *Array) error { return WriteVersion(w, a, Version{}) }

// WriteVersion writes a in the given format version (V1, V2 or V3); the zero
// Version chooses as Write does. The header is the same text in every
// version; only the length field and the version bytes differ.
func WriteVersion(w io.Writer, a *Array, v Version) error {
	if err := a.Validate(); err != nil {
		return err
	}
	header, err := encodeHeader(descrOf(a.DType, a.Width), a.Shape, v)
	if err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err = w.Write(a.Data)
	return err
}

// Encode returns the bytes Write would write.
func Encode(a *Array) ([]byte, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	header, err := encodeHeader(descrOf(a.DType, a.Width), a.Shape, Version{})
	if err != nil {
		return nil, err
	}
	return append(header, a.Data...), nil
}

// WriteFile writes a to a .npy file at path, replacing any file there
// only once the whole file is written (a failure leaves it as it was).
func WriteFile(path string, a *Array) error {
	if err := a.Validate(); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error { return Write(w, a) })
}
