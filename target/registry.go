package target

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/internal/nearest"
)

// Lookup returns a fresh copy of the built-in target a spec names: NAME,
// or NAME{option=value ...} with Options set on it (the copy is then named
// by the canonical spec, options in the order of Options). The copy is the
// caller's: changing it (say, to try a different SRAM size) affects no one
// else.
func Lookup(spec string) (*Target, error) {
	if mk, ok := builtins[spec]; ok {
		return mk(), nil
	}
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	mk, ok := builtins[s.Name]
	if !ok {
		return nil, fmt.Errorf("unknown target %q%s; known targets: %s", s.Name, nearest.Paren(s.Name, Names()), strings.Join(Names(), ", "))
	}
	return s.apply(mk())
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
