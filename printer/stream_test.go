package printer

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// largeModule is generic IR of about n ops shaped like the output of a
// model compiler (the shape of tools/ipu-parse-bench's file): tensor ops
// with locations, dense constants (splats, short lists, hex blobs), ops
// with two results, regions with arguments and multi-block regions.
func largeModule(n int) string {
	var b strings.Builder
	b.WriteString("\"builtin.module\"() ({\n")
	types := []string{"tensor<4x8xf16>", "tensor<16xi32>", "tensor<729x64xbf16>", "tensor<?x4xf32>"}
	for fn := 0; fn*100 < n; fn++ {
		ty := types[fn%len(types)]
		fmt.Fprintf(&b, "  \"func.func\"() <{function_type = (%s) -> %s, sym_name = \"f%d\"}> ({\n  ^bb0(%%arg0: %s):\n", ty, ty, fn, ty)
		prev := "%arg0"
		for i := 0; i < 100; i++ {
			loc := fmt.Sprintf(`loc("model/attention.py":%d:%d)`, 10+i, 1+i%7)
			switch i % 10 {
			case 0:
				fmt.Fprintf(&b, "    %%c%d = \"bench.constant\"() <{value = dense<[[1, -2], [3, %d]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32> %s\n", i, i, loc)
				fmt.Fprintf(&b, "    %%h%d = \"bench.constant\"() <{value = dense<\"0x%s\"> : tensor<128xi8>}> : () -> tensor<128xi8> %s\n", i, strings.Repeat(fmt.Sprintf("%02X", i), 128), loc)
			case 1:
				fmt.Fprintf(&b, "    %%s%d:2 = \"bench.split\"(%s) {axis = 1 : i64, sizes = array<i64: 2, 2>} : (%s) -> (%s, %s) %s\n", i, prev, ty, ty, ty, loc)
				prev = fmt.Sprintf("%%s%d#1", i)
			case 2:
				fmt.Fprintf(&b, "    %%r%d = \"bench.reduce\"(%s) <{axes = [0, 1], keep_dims = false}> ({\n    ^bb0(%%lhs: f32, %%rhs: f32):\n      %%x = \"bench.scalar_add\"(%%lhs, %%rhs) : (f32, f32) -> f32\n      \"bench.yield\"(%%x) : (f32) -> ()\n    }) : (%s) -> %s %s\n", i, prev, ty, ty, loc)
				prev = fmt.Sprintf("%%r%d", i)
			case 3:
				fmt.Fprintf(&b, "    %%l%d = \"bench.loop\"(%s) ({\n    ^bb0(%%it: %s):\n      %%c = \"bench.cond\"(%%it) : (%s) -> i1\n      \"bench.cond_br\"(%%c, %%it) [^bb1, ^bb2] : (i1, %s) -> ()\n    ^bb1:\n      \"bench.br\"()[^bb2] : () -> ()\n    ^bb2:\n      \"bench.yield\"(%%it) : (%s) -> ()\n    }) : (%s) -> %s %s\n", i, prev, ty, ty, ty, ty, ty, ty, loc)
				prev = fmt.Sprintf("%%l%d", i)
			case 4:
				fmt.Fprintf(&b, "    %%f%d = \"bench.constant\"() <{value = dense<[1.5, -2.25e-03, 3.140625, 0.0]> : tensor<4xf32>}> : () -> tensor<4xf32> %s\n", i, loc)
			default:
				fmt.Fprintf(&b, "    %%v%d = \"bench.add\"(%s, %s) {fastmath = #bench.fastmath<fast>, tag = \"n%d\"} : (%s, %s) -> %s %s\n", i, prev, prev, i%50, ty, ty, ty, loc)
				prev = fmt.Sprintf("%%v%d", i)
			}
		}
		fmt.Fprintf(&b, "    \"func.return\"(%s) : (%s) -> ()\n  }) : () -> ()\n", prev, ty)
	}
	b.WriteString("}) : () -> ()\n")
	return b.String()
}

func parseLarge(tb testing.TB, n int) *ir.Operation {
	tb.Helper()
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	if err := funcd.Register(ctx); err != nil {
		tb.Fatal(err)
	}
	m, err := parser.ParseSourceString(ctx, []byte(largeModule(n)), parser.Config{Filename: "large.mlir"})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// chunkRecorder keeps each write separately, to see that output streams.
type chunkRecorder struct{ chunks [][]byte }

func (w *chunkRecorder) Write(b []byte) (int, error) {
	w.chunks = append(w.chunks, append([]byte(nil), b...))
	return len(b), nil
}

// Streaming output (written in chunks as ops complete) is byte for byte
// the output of printing the whole module into one buffer, in every mode.
func TestPrintStreamsSameBytes(t *testing.T) {
	m := parseLarge(t, 3000)
	for _, opts := range []Options{{Generic: true}, {}, {DebugInfo: true}, {Generic: true, DebugInfo: true}} {
		w := &chunkRecorder{}
		if err := Print(w, m, opts); err != nil {
			t.Fatal(err)
		}
		if len(w.chunks) < 4 {
			t.Errorf("%+v: %d writes; the output did not stream", opts, len(w.chunks))
		}
		whole := newOpPrinter(m, m, opts) // no output: everything stays buffered
		whole.printTopLevel(m)
		whole.asm.WriteByte('\n')
		if got := bytes.Join(w.chunks, nil); !bytes.Equal(got, whole.asm.Bytes()) {
			t.Errorf("%+v: streamed output differs from the buffered one", opts)
		}
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct {
	buf   bytes.Buffer
	limit int
}

var errFull = errors.New("disk full")

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.buf.Len()+len(b) > w.limit {
		return 0, errFull
	}
	return w.buf.Write(b)
}

// A failing writer's error comes back from Print, and what reached the
// writer before it failed is a prefix of the output.
func TestPrintReportsWriterError(t *testing.T) {
	m := parseLarge(t, 3000)
	full := printString(t, m, Options{Generic: true})
	w := &failingWriter{limit: len(full) / 2}
	if err := Print(w, m, Options{Generic: true}); !errors.Is(err, errFull) {
		t.Fatalf("Print returned %v, want the writer's error", err)
	}
	if w.buf.Len() == 0 || !strings.HasPrefix(full, w.buf.String()) {
		t.Fatalf("wrote %d bytes, not a non-empty prefix of the output", w.buf.Len())
	}
}

// The alias dry run visits the parts of builtin attributes without
// printing them; it must visit exactly what printing them visits.
func TestVisitAttrPartsMatchesPrinting(t *testing.T) {
	c := ir.NewContext()
	c.AllowUnregisteredDialects = true
	tt := c.Tensor([]int64{2}, c.F16())
	attrs := []ir.Attribute{
		c.IntegerAttr(c.I(32), 7), c.Bool(true), c.IntegerAttr(c.Index(), -1),
		c.FloatAttr(c.BF16(), 1.5),
		c.DenseFloats(tt, []float64{1, 2}), c.DenseFloats(tt, []float64{3}),
		c.DenseStrings(c.Tensor([]int64{2}, c.Opaque("d", "s")), []string{"a", "b"}),
		c.String("s"), c.TypedString("s", c.I(8)), c.TypedString("s", c.None()),
		c.DenseI64Array(1, 2), c.DenseFloatArray(c.F32(), []float64{1}),
		c.Unit(), c.SymbolRef("a", "b"), c.StridedLayout(3, []int64{1, ir.Dynamic}),
	}
	for _, a := range attrs {
		for _, elide := range []bool{false, true} {
			printed, visited := &recordingHook{}, &recordingHook{}
			p := &ir.AsmPrinter{Hook: printed}
			p.PrintAttrDirect(a, elide)
			visitAttrParts(&ir.AsmPrinter{Hook: visited}, a, elide)
			if fmt.Sprint(printed.seen) != fmt.Sprint(visited.seen) {
				t.Errorf("%s (elide type %v): printing visits %v, the dry run %v", ir.AttrString(a), elide, printed.seen, visited.seen)
			}
		}
	}
}

// recordingHook notes each value handed to it and handles it (printing
// nothing), so that only the immediate parts are recorded.
type recordingHook struct{ seen []any }

func (h *recordingHook) HookType(_ *ir.AsmPrinter, t ir.Type) bool {
	h.seen = append(h.seen, t)
	return true
}
func (h *recordingHook) HookAttr(_ *ir.AsmPrinter, a ir.Attribute, elideType bool) bool {
	h.seen = append(h.seen, a, elideType)
	return true
}

func BenchmarkPrintGeneric(b *testing.B) {
	m := parseLarge(b, 20000)
	w := &countingWriter{}
	b.ReportAllocs()
	for b.Loop() {
		if err := Print(w, m, Options{Generic: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(w.n / int64(b.N))
}

func BenchmarkPrintCustomDebugInfo(b *testing.B) {
	m := parseLarge(b, 20000)
	w := &countingWriter{}
	b.ReportAllocs()
	for b.Loop() {
		if err := Print(w, m, Options{DebugInfo: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(w.n / int64(b.N))
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(b []byte) (int, error) { w.n += int64(len(b)); return len(b), nil }

// One attribute too large to hold streams too: with local scope (no
// aliases) an attribute that refers twice to a smaller one, 18 times over,
// prints as megabytes in writes no larger than the printer's chunk.
func TestPrintStreamsWithinOneAttribute(t *testing.T) {
	x := newBuilder()
	m := x.module()
	a := ir.Attribute(x.ctx.Array(x.ctx.IntegerAttr(x.ctx.I(32), 1)))
	for range 18 {
		a = x.ctx.Array(a, a)
	}
	x.op("test.op", nil, nil, attr("x", a))
	w := &chunkRecorder{}
	if err := Print(w, m, Options{LocalScope: true}); err != nil {
		t.Fatal(err)
	}
	total, largest := 0, 0
	for _, c := range w.chunks {
		total += len(c)
		largest = max(largest, len(c))
	}
	if total < 2<<20 || largest > 128<<10 {
		t.Fatalf("printed %d bytes with a largest write of %d; want over 2 MiB in writes of at most 128 KiB", total, largest)
	}
}
