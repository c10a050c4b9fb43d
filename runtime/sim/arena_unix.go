//go:build unix

package sim

import "syscall"

// mapMemory maps n bytes of anonymous memory: the kernel hands out zeroed
// pages as they are first touched, so a tile's unused bytes cost nothing,
// and the Go collector never sees them.
func mapMemory(n int64) ([]byte, func() error, error) {
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	adviseHugePages(b)
	return b, func() error { return syscall.Munmap(b) }, nil
}
