package pkgemit_test

import (
	"bytes"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/registry/registrytest"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// compile lowers a tensor-level file to tile-asm, as ipu-translate
// --emit-package does, and returns the module, its target and the options
// that keep its source.
func compile(t testing.TB, path string) (*ir.Operation, *target.Target, pkgemit.Options) {
	t.Helper()
	ctx, module, src := registrytest.ParseFile(t, path)
	opts := pkgemit.Options{Compiler: "0.1.0", Source: src, SourceOps: pkgemit.SourceOps(module)}
	tg, err := registrytest.Run(t, ctx, module, registry.LowerToTileAsm)
	if err != nil {
		t.Fatal(err)
	}
	return module, tg, opts
}

// The tiny attention block's package is the one checked in for the
// runtime's tests (go test ./translate/pkgemit -update rewrites it), and
// emitting, reading and emitting again gives the same bytes.
func TestAttentionTinyPackage(t *testing.T) {
	module, tg, opts := compile(t, "../../examples/attention-tiny.ipuir")
	opts.Metadata = []ipupkg.Entry{{Key: "target", Value: "test16"}, {Key: "pipeline", Value: registry.ModulePipeline(registry.LowerToTileAsm)}}
	pkg, err := pkgemit.Build(module, tg, opts)
	if err != nil {
		t.Fatal(err)
	}
	data := pkg.Encode()
	g := goldie.New(t, goldie.WithFixtureDir("../../runtime/ipupkg/testdata"), goldie.WithNameSuffix(".ipupkg"))
	g.Assert(t, "attention-tiny", data)
	back, _, err := ipupkg.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Encode(), data) {
		t.Error("emit, read, emit again gives other bytes")
	}
	// Every argument is an input stream and the result an output; the
	// source ops' results are checkpoints.
	inputs, outputs := 0, 0
	for _, s := range back.Streams {
		if s.Output {
			outputs++
		} else {
			inputs++
		}
	}
	if inputs != 5 || outputs != 1 || len(back.Checkpoints) < 9 || len(back.Source) == 0 {
		t.Errorf("%d inputs, %d outputs, %d checkpoints, %d bytes of source", inputs, outputs, len(back.Checkpoints), len(back.Source))
	}
}

// A module with no tile-asm program, or two, is refused.
func TestBuildRefuses(t *testing.T) {
	_, module := registrytest.Parse(t, "empty.ipuir", []byte(`module attributes {ipu.target = "test16"} {}`))
	tg, _ := target.Lookup("test16")
	if _, err := pkgemit.Build(module, tg, pkgemit.Options{}); err == nil {
		t.Error("an empty module was packaged")
	}
}

// BenchmarkAttentionPackage writes and reads the attention block's package
// for ipu21 and reports its size per section.
func BenchmarkAttentionPackage(b *testing.B) {
	module, tg, opts := compile(b, "../../examples/attention.ipuir")
	var data []byte
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			pkg, err := pkgemit.Build(module, tg, opts)
			if err != nil {
				b.Fatal(err)
			}
			data = pkg.Encode()
		}
		b.ReportMetric(float64(len(data)), "bytes")
	})
	b.Run("read", func(b *testing.B) {
		if data == nil { // -bench 'AttentionPackage/read' alone
			pkg, err := pkgemit.Build(module, tg, opts)
			if err != nil {
				b.Fatal(err)
			}
			data = pkg.Encode()
		}
		var sections []ipupkg.SectionInfo
		for b.Loop() {
			var err error
			if _, sections, err = ipupkg.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
		for _, s := range sections {
			b.Logf("section %-16s %9d bytes", s.ID, s.Length)
		}
	})
}
