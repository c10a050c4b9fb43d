// Package rowmajor maps between a tensor's multi-dimensional indices and
// their row-major positions, for the code that walks tensors element by
// element (the ONNX importer's constant folding, the simulated device).
package rowmajor

// Linear is the row-major position of idx in a tensor of shape.
func Linear(shape, idx []int64) int64 {
	lin := int64(0)
	for i, d := range shape {
		lin = lin*d + idx[i]
	}
	return lin
}

// Unravel writes into idx the index at row-major position lin of a tensor
// of shape (a 0 extent is taken as 1, so an empty tensor's walk stays in
// range) and returns it.
func Unravel(lin int64, shape, idx []int64) []int64 {
	for i := len(shape) - 1; i >= 0; i-- {
		d := max(shape[i], 1)
		idx[i] = lin % d
		lin /= d
	}
	return idx
}

// Elements is how many elements a tensor of shape holds.
func Elements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// ForEach calls f with every position of a tensor of shape, in row-major
// order, and its index (reused between calls).
func ForEach(shape []int64, f func(lin int64, idx []int64)) {
	n := Elements(shape)
	idx := make([]int64, len(shape))
	for lin := range n {
		f(lin, Unravel(lin, shape, idx))
	}
}
