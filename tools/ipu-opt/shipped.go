//go:build !ipuir_testing

package main

import "github.com/ipuir/ipuir/tools/optmain"

// addTestRegistrations adds nothing: the shipped tool has no test dialect
// or passes (see testing.go).
func addTestRegistrations(*optmain.Tool) {}
