package reference

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// loadExample parses and verifies a file of examples/ and returns its
// @attention.
func loadExample(t *testing.T, name string) *ir.Operation {
	t.Helper()
	path := filepath.Join("..", "..", "examples", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := tensorContext(t)
	module, err := parser.ParseSourceString(ctx, src, parser.Config{Filename: path})
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Verify(module); d != nil {
		t.Fatal(d)
	}
	fn, err := LookupFunction(module, "attention")
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// The checked-in examples compute exactly what the builder-made block of
// the oracle test computes, so the oracle comparison covers them too.
func TestExamplesMatchBuiltAttention(t *testing.T) {
	for _, tc := range []struct {
		file  string
		shape attentionShape
	}{
		{"attention-tiny.ipuir", attentionShape{8, 16, 2}},
		{"attention-small.ipuir", smallAttention},
	} {
		t.Run(tc.file, func(t *testing.T) {
			parsed := loadExample(t, tc.file)
			_, built := buildAttention(t, tc.shape, func(c *ir.Context) ir.Type { return c.F16() })
			in := attentionInputs(t, tc.shape, elem.F16)
			want, err := Run(built, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(parsed, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d, err := eval.MaxAbsDiff(got[0], want[0]); err != nil || d != 0 {
				t.Fatalf("example differs from the built block by %g (%v)", d, err)
			}
		})
	}
}

// The full-size example verifies and has the reference workload's
// signature; running it is the benchmark's job.
func TestFullExampleSignature(t *testing.T) {
	fn := loadExample(t, "attention.ipuir")
	types, err := ArgumentTypes(fn)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tensor<729x1152xf16>", "tensor<1152x1152xf16>", "tensor<1152x1152xf16>",
		"tensor<1152x1152xf16>", "tensor<1152x1152xf16>"}
	if len(types) != len(want) {
		t.Fatalf("%d arguments", len(types))
	}
	for i, ty := range types {
		if ir.TypeString(ty) != want[i] {
			t.Errorf("argument %d is %s, want %s", i, ir.TypeString(ty), want[i])
		}
	}
}
