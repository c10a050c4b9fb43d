package tests

import (
	"os"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target/irtarget"
)

// FuzzExchangeVerify reads arbitrary text as a module at the exchange level
// and verifies it against its target: the phase verifier meets hostile
// transfer lists and schedules (tiles out of range, boxes of any rank,
// huge words and cycles) and must answer with a diagnostic, never a panic.
func FuzzExchangeVerify(f *testing.F) {
	addFiles(f, "exchange/ops.ipuir", "exchange/invalid.ipuir")
	f.Add(`module attributes {ipu.target = "test16"} {
  func.func @f(%x: tensor<4x4xf32, #tiled.layout<order = row_major, tile_count = 4, axes = [{axis = -2, partitions = 4}], memory_class = Test16Standard>>) {
    %y = exchange.phase 0 %x {schedule = #exchange.schedule<horizon = 9223372036854775807, lower_bound = 2, kind = matching, segments = [[0, 9223372036854775806, 2]]>, transfers = #exchange.transfers<[{src = 1073741824, dst = [0], words = 4611686018427387904, box = [[-5, 9223372036854775807], [0, 2]]}]>} : tensor<4x4xf32, #tiled.layout<order = row_major, tile_count = 4, axes = [{axis = -2, partitions = 4}], memory_class = Test16Standard>> -> tensor<4x4xf32, #tiled.layout<order = row_major, tile_count = 4, axes = [{axis = -1, partitions = 2}], memory_class = Test16Standard>>
    return
  }
}`)
	f.Fuzz(verifyText)
}

// verifyText parses src and verifies it against its module's target; the
// fuzz targets require only that it returns.
func verifyText(t *testing.T, src string) {
	if len(src) > 1<<16 {
		return
	}
	ctx := registry.NewContext()
	m, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "fuzz.ipuir"})
	if err != nil {
		return
	}
	env, err := irtarget.EnvOfModule(m)
	if err != nil {
		return
	}
	_ = ir.VerifyIn(m, env)
}

// addFiles adds test files as seeds.
func addFiles(f *testing.F, paths ...string) {
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
}
