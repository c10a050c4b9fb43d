package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
)

// runAndCheckStagnating runs pkg on inputs whose f16 partial sums
// stagnate: x is ones, the first block of w's rows 128 (a partial sum of
// 2,048, whose f16 ulp is 2) and the rest 0.05, so every later block adds
// 0.8, under half an ulp, and an f16 partial sum rounds it away while an
// f32 one keeps it: the error f16 partials can make, about 100 here.
func runAndCheckStagnating(pkg *ipupkg.Package, src string, tg *target.Target) (*check.Report, int64, error) {
	fn, inputs, err := generatedInputs(src, "f", 3)
	if err != nil {
		return nil, 0, err
	}
	x, w := inputs[0], inputs[1]
	for i := range x.Data {
		x.Data[i] = 1
	}
	n := int(w.Shape[1])
	for i := range w.Data {
		w.Data[i] = numeric.RoundF16(0.05)
		if i/n < tensor.PartialsBlock {
			w.Data[i] = 128
		}
	}
	return runAndCheckOn(pkg, fn, tg, inputs)
}

// f16 partials, end to end: a matmul declared partials_type = f16 runs at
// the f16-partials vertex's rate on the device, which keeps its partial
// sums in f16, and --check PASSes it against the source that declares it.
// The same device results checked against the source without the
// declaration, whose bound assumes f32 partials, FAIL: the check's bound
// follows the partials type, so a faster choice cannot pass a result its
// rounding made wrong.
func TestF16PartialsRunFasterAndAreCheckedAsF16(t *testing.T) {
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	// One block of the f16 vertex is tensor.PartialsBlock products: the
	// reference's bound and the device's arithmetic agree on it.
	if v, _ := tg.AMPVertexFor(elem.F16, elem.F16); v.InputChannels() != tensor.PartialsBlock {
		t.Fatalf("the f16 vertex's block is %d inputs, tensor.PartialsBlock %d", v.InputChannels(), tensor.PartialsBlock)
	}
	const module = `module attributes {ipu.target = "test16"} {
  func.func @f(%%x: tensor<16x2048xf16>, %%w: tensor<2048x16xf16>) -> tensor<16x16xf16> {
    %%y = tensor.matmul %%x, %%w%s : tensor<16x2048xf16>, tensor<2048x16xf16> -> tensor<16x16xf16>
    return %%y : tensor<16x16xf16>
  }
}
`
	half, full := fmt.Sprintf(module, " {partials_type = f16}"), fmt.Sprintf(module, "")
	cycles := map[string]int64{}
	for _, src := range []string{half, full} {
		pkg, reason, err := compileProgram(src, tg)
		if err != nil || reason != "" {
			t.Fatalf("compile: %v %s", err, reason)
		}
		rep, n, err := runAndCheckStagnating(pkg, src, tg)
		if err != nil || !rep.Pass() {
			t.Fatalf("check against its own source: %v %v", err, rep)
		}
		cycles[src] = n
		if src == half {
			if !strings.Contains(string(pkg.Encode()), "partials") {
				t.Fatal("the package's AMP instruction does not say f16 partials")
			}
			// The f16-partials device results against the f32-partials source.
			wrong, _, err := runAndCheckStagnating(pkg, full, tg)
			if err != nil {
				t.Fatal(err)
			}
			if wrong.Pass() {
				t.Fatalf("f16 partials' results PASS against f32 partials' bound: %s", wrong.Summary())
			}
			t.Logf("against its own source: %s; against the f32-partials source: %s", rep.Line(), wrong.Line())
		}
	}
	if cycles[half] >= cycles[full] {
		t.Errorf("f16 partials take %d cycles, f32 partials %d", cycles[half], cycles[full])
	}
	t.Logf("f16 partials %d cycles, f32 partials %d", cycles[half], cycles[full])
}

// The partials type is checked where a package is read and where the
// device loads it: a partials word the instruction table does not know is
// refused by the reader, and f16 partials on an f32 matmul (which no AMP
// vertex computes) by the device's validation, each broken on purpose in
// a package that is otherwise sound.
func TestBrokenPartialsAreRefused(t *testing.T) {
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	const src = `module attributes {ipu.target = "test16"} {
  func.func @f(%%x: tensor<16x64x%[1]s>, %%w: tensor<64x16x%[1]s>) -> tensor<16x16x%[1]s> {
    %%y = tensor.matmul %%x, %%w : tensor<16x64x%[1]s>, tensor<64x16x%[1]s> -> tensor<16x16x%[1]s>
    return %%y : tensor<16x16x%[1]s>
  }
}
`
	amps := func(pkg *ipupkg.Package) []*ipupkg.Instruction {
		var out []*ipupkg.Instruction
		for i := range pkg.Program {
			if pkg.Program[i].Op == ipupkg.OpAmp {
				out = append(out, &pkg.Program[i])
			}
		}
		if len(out) == 0 {
			t.Fatal("no AMP instruction")
		}
		return out
	}
	refused := 0
	for _, c := range []struct {
		elem, word, want string
		atRead           bool
	}{
		{"f16", "f8", "partials", true},
		{"f32", "f16", "only f16 inputs may accumulate in f16", false},
	} {
		pkg, reason, err := compileProgram(fmt.Sprintf(src, c.elem), tg)
		if err != nil || reason != "" {
			t.Fatalf("compile: %v %s", err, reason)
		}
		if err := sim.Validate(pkg); err != nil {
			t.Fatalf("the sound %s package is refused: %v", c.elem, err)
		}
		for _, in := range amps(pkg) {
			in.Params = append(in.Params, ipupkg.Param{Key: ipupkg.ParamPartials, IsString: true, Str: c.word})
		}
		if c.atRead {
			if _, _, err := ipupkg.Decode(pkg.Encode()); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("partials=%s on %s read back: %v", c.word, c.elem, err)
			} else {
				refused++
			}
			continue
		}
		if err := sim.Validate(pkg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("partials=%s on %s loaded: %v", c.word, c.elem, err)
		} else {
			refused++
		}
	}
	t.Logf("%d broken packages refused", refused)
}
