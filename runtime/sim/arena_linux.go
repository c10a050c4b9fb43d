package sim

import "syscall"

// adviseHugePages asks for transparent huge pages: the regions are dense,
// and a first touch of 2 MiB costs one fault rather than 512. A kernel
// that declines leaves the mapping as it was.
func adviseHugePages(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
