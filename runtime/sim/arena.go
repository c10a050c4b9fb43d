package sim

import (
	"fmt"
	"unsafe"
)

// arena is one block of memory that the simulated tiles' regions are cut
// from; release gives it back at once (Close, or the next Load).
type arena struct {
	buf  []byte
	used int64
	free func() error
}

func newArena(n int64) (*arena, error) {
	if n < 0 || n > maxArenaBytes {
		return nil, fmt.Errorf("more than the simulator's %d bytes", int64(maxArenaBytes))
	}
	buf, free, err := mapMemory(max(n, 1))
	if err != nil {
		return nil, err
	}
	return &arena{buf: buf, free: free}, nil
}

// maxArenaBytes bounds the simulated tiles' memory: a package's classes
// are validated against its SRAM per tile, and 1 TiB is beyond any
// target's tiles × SRAM.
const maxArenaBytes = 1 << 40

// take returns the next n bytes, zeroed, starting at a multiple of 8.
func (a *arena) take(n int64) []byte {
	s := a.buf[a.used : a.used+n : a.used+n]
	a.used += alignUp(n, granule)
	return s
}

// takeAs returns the next n elements of T (at most 8 bytes each, so the
// arena's 8-byte alignment is theirs).
func takeAs[T uint16 | uint32](a *arena, n int64) []T {
	var zero T
	b := a.take(n * int64(unsafe.Sizeof(zero)))
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

func (a *arena) release() {
	if a != nil && a.free != nil {
		a.free()
		a.buf, a.free = nil, nil
	}
}
