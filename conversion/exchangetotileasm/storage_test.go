package exchangetotileasm_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/conversion/exchangetotileasm"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/registry/registrytest"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/target/storage"
)

func lowerToExchange(t testing.TB, src []byte) (*ir.Operation, *target.Target) {
	t.Helper()
	m, tg, err := tryLower(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return m, tg
}

func tryLower(t testing.TB, src []byte) (*ir.Operation, *target.Target, error) {
	t.Helper()
	ctx, module := registrytest.Parse(t, "input.ipuir", src)
	tg, err := registrytest.Run(t, ctx, module, registry.LowerToExchange)
	return module, tg, err
}

func function(module *ir.Operation) *ir.Operation {
	return module.Region(0).Front().Ops()[0]
}

// The attention block's values placed on every ipu21 tile: each placement
// checks out, and the busiest tile's peak is the figure to set beside the
// reference log's (peak standard 266,772 to 357,756 bytes).
func TestAttentionStorage(t *testing.T) {
	src, err := os.ReadFile("../../examples/attention.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	module, tg := lowerToExchange(t, src)
	tiles, err := exchangetotileasm.PlaceStorage(function(module), tg)
	if err != nil {
		t.Fatal(err)
	}
	std, _ := tg.Class(target.Standard)
	il, _ := tg.Class(target.Interleaved)
	var peakStd, peakIL, liveStd int64
	busiest := 0
	for _, ts := range tiles {
		if err := storage.Check(tg, ts.Tile, ts.Buffers, ts.Placement.Address); err != nil {
			t.Fatal(err)
		}
		if ts.Placement.Peak[std.Name] > peakStd {
			peakStd, busiest = ts.Placement.Peak[std.Name], ts.Tile
		}
		peakIL = max(peakIL, ts.Placement.Peak[il.Name])
		liveStd = max(liveStd, ts.Placement.Live[std.Name])
	}
	if peakStd == 0 || peakStd > std.Size() || peakIL > il.Size() {
		t.Fatalf("peaks: standard %d, interleaved %d", peakStd, peakIL)
	}
	t.Logf("attention on ipu21: peak standard %d bytes (tile %d; most live at once %d), peak interleaved %d bytes", peakStd, busiest, liveStd, peakIL)
}

// A program whose values do not fit its tiles' memory all together (each
// op alone does) is refused as soon as the tiled level places them, naming
// the tile, the buffer (as the source calls its value) and the bytes short; one that fits places at the
// exchange level too.
func TestStorageShortfall(t *testing.T) {
	src := []byte(`module attributes {ipu.target = "test16"} {
  func.func @f(%x: tensor<128x64xf16>) -> (tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>) {
    %a = tensor.exp %x : tensor<128x64xf16>
    %b = tensor.tanh %x : tensor<128x64xf16>
    %c = tensor.erf %x : tensor<128x64xf16>
    %d = tensor.gelu %x : tensor<128x64xf16>
    return %a, %b, %c, %d : tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>
  }
}`)
	module, tg := lowerToExchange(t, src)
	tiles, err := exchangetotileasm.PlaceStorage(function(module), tg)
	if err != nil {
		// Each tile holds 8 rows (1 KiB) of five live values: this fits.
		t.Fatalf("small program: %v", err)
	}
	if len(tiles) != 16 || len(tiles[0].Buffers) != 5 {
		t.Fatalf("%d tiles, %d buffers on tile 0", len(tiles), len(tiles[0].Buffers))
	}
	big := []byte(strings.ReplaceAll(string(src), "128x64", "1024x96"))
	_, _, err = tryLower(t, big)
	want := "the program does not fit tile memory: tile 0: buffer %c (tiled.elementwise) (12288 bytes, live in steps 2 on) does not fit Test16Standard (49152 bytes): 40960 bytes are live in %a (tiled.elementwise) (12288 bytes), support memory (reserved) (4096 bytes), %x (12288 bytes), %b (tiled.elementwise) (12288 bytes); short by 4096 bytes"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	// And for the whole chip: every tile is over, and the chip is short in
	// total, not only unevenly used.
	for _, want := range []string{"Across the chip, 16 of 16 tiles need more Test16Standard than it holds at their busiest step",
		"the busiest, tile 0, has 65536 bytes live at step 3 against 49152 (short by 16384), held by %x (12288 bytes, live in steps 0 to 3)",
		"the chip as a whole needs 1.0 MiB of it at the tiles' busiest steps and has 768 KiB: short by 256 KiB in total"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %v\nwant it to say %s", err, want)
		}
	}
}

// A program planned without room for its code (a target that keeps no
// support reserve) does not fit once the code is sized: the diagnostic is
// at the op whose result did not fit, and names the tile, the buffer, what
// is live there (support memory among it) and the bytes short.
func TestPlacementFailureIsLocated(t *testing.T) {
	// Each tile holds 64 rows of 96 f16 of x and of each result: 4 × 12 KiB,
	// the whole of Test16Standard.
	src := []byte(`module attributes {ipu.target = "test16"} {
  func.func @f(%x: tensor<1024x96xf16>) -> (tensor<1024x96xf16>, tensor<1024x96xf16>, tensor<1024x96xf16>) {
    %a = tensor.exp %x : tensor<1024x96xf16>
    %b = tensor.tanh %x : tensor<1024x96xf16>
    %c = tensor.erf %x : tensor<1024x96xf16>
    return %a, %b, %c : tensor<1024x96xf16>, tensor<1024x96xf16>, tensor<1024x96xf16>
  }
}`)
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	tg.SupportReserveBytes = 0
	ctx, module := registrytest.Parse(t, "input.ipuir", src)
	err = registrytest.RunOn(t, ctx, module, tg, registry.LowerToTileAsm)
	var d *ir.Diagnostic
	if !errors.As(err, &d) {
		t.Fatalf("want a diagnostic, got %v", err)
	}
	msg := d.Error()
	for _, want := range []string{"storage placement: tile ", "does not fit Test16Standard (49152 bytes)", "support memory (", "; short by "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the diagnostic lacks %q:\n%s", want, msg)
		}
	}
	if loc, ok := d.Loc.(*ir.FileLineColLoc); !ok || loc.Line < 3 {
		t.Errorf("the diagnostic is not at the op that made the buffer: %v", d.Loc)
	}
	t.Log(msg)
}

// BenchmarkAttentionToTileAsm times convert-exchange-to-tile-asm on the
// attention block for ipu21 (placing every buffer on 1,472 tiles, sizing
// the support memory, writing the program).
func BenchmarkAttentionToTileAsm(b *testing.B) {
	src, err := os.ReadFile("../../examples/attention.ipuir")
	if err != nil {
		b.Fatal(err)
	}
	reg := registry.NewPassRegistry()
	for b.Loop() {
		b.StopTimer()
		module, tg := lowerToExchange(b, src)
		ctx := module.Context()
		pm, err := reg.ParsePipeline("builtin.module(convert-exchange-to-tile-asm)")
		if err != nil {
			b.Fatal(err)
		}
		opts := passes.DefaultOptions()
		opts.Env = irtarget.EnvKey.With(nil, tg)
		b.StartTimer()
		if err := passes.NewPassManager(ctx, pm, opts).Run(module); err != nil {
			b.Fatal(err)
		}
	}
}
