package tests

import (
	"testing"

	"github.com/ipuir/ipuir/lit"
)

// moduleRoot is the repository's root, the folder of its go.mod, where
// the tests find the docs, the examples and the tools' sources.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := lit.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}
