//go:build unix && !linux

package sim

func adviseHugePages([]byte) {}
