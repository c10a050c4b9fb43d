package target

import (
	"fmt"
	"slices"
	"strings"
)

// Lookup returns a fresh copy of the built-in target with the given name.
// The copy is the caller's: changing it (say, to try a different SRAM size)
// affects no one else.
func Lookup(name string) (*Target, error) {
	if mk, ok := builtins[name]; ok {
		return mk(), nil
	}
	return nil, fmt.Errorf("unknown target %q; known targets: %s", name, strings.Join(Names(), ", "))
}

// Names returns the names of the built-in targets, sorted.
func Names() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// All returns fresh copies of all built-in targets, in Names order.
func All() []*Target {
	names := Names()
	all := make([]*Target, len(names))
	for i, n := range names {
		all[i] = builtins[n]()
	}
	return all
}
