package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// Each generated file is deterministic, of the size asked for, parses and
// verifies with our loader, and with mlir-opt-19 when it is installed, so
// that both sides of the comparison do the same work.
func TestGeneratedFilesParse(t *testing.T) {
	mlirOpt, _ := exec.LookPath("mlir-opt-19")
	for kind, gen := range generators {
		t.Run(kind, func(t *testing.T) {
			const size = 256 << 10
			var a, b bytes.Buffer
			if err := gen(&a, size, 1); err != nil {
				t.Fatal(err)
			}
			if err := gen(&b, size, 1); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("two runs generate different files")
			}
			if a.Len() < size || a.Len() > 2*size {
				t.Fatalf("generated %d bytes for %d", a.Len(), size)
			}
			loader := &toolkit.Loader{Setup: registry.RegisterDialects, AllowUnregistered: true}
			ctx, err := loader.NewContext()
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := loader.Parse(ctx, toolkit.Chunk{File: kind + ".mlir", Source: a.Bytes(), FirstLine: 1})
			if err != nil {
				t.Fatal(err)
			}
			ops := 0
			m.Walk(func(*ir.Operation) ir.WalkResult { ops++; return ir.WalkAdvance })
			if ops < 1000 {
				t.Fatalf("%d ops in %d bytes", ops, a.Len())
			}
			if mlirOpt == "" {
				t.Log("mlir-opt-19 not installed: checked with our parser only")
				return
			}
			path := filepath.Join(t.TempDir(), kind+".mlir")
			if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(mlirOpt, "--allow-unregistered-dialect", path, "-o", os.DevNull).CombinedOutput(); err != nil {
				t.Fatalf("mlir-opt-19 refuses the file: %v\n%s", err, out)
			}
		})
	}
}
