//go:build !unix

package sim

// mapMemory allocates n zeroed bytes from Go's heap where anonymous
// mappings are not available.
func mapMemory(n int64) ([]byte, func() error, error) {
	return make([]byte, n), func() error { return nil }, nil
}
