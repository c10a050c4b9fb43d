// Package randprog writes random programs for the lowering tests: seeded,
// small, and built from the ops each level takes, so that a test can run
// hundreds of them through a pipeline and require that each either lowers
// and verifies or is refused with a diagnostic.
package randprog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target/irtarget"
)

// Tensor writes a tensor-level function on the test16 target from a
// seeded mix of the ops the lowering takes: elementwise ops, matmuls
// (plain and batched), transposes, reshapes, reductions, broadcasts,
// softmax, layer norm, slices and concats, on small random shapes.
func Tensor(rng *rand.Rand) string {
	type val struct {
		name  string
		shape []int64
	}
	ty := func(s []int64) string {
		parts := make([]string, len(s))
		for i, d := range s {
			parts[i] = fmt.Sprint(d)
		}
		return "tensor<" + strings.Join(append(parts, "f16"), "x") + ">"
	}
	dim := func() int64 { return []int64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}[rng.IntN(12)] }
	var b strings.Builder
	var vals []val
	var args []string
	for i := range 1 + rng.IntN(3) {
		s := make([]int64, 1+rng.IntN(3))
		for k := range s {
			s[k] = dim()
		}
		name := fmt.Sprintf("%%a%d", i)
		vals = append(vals, val{name, s})
		args = append(args, name+": "+ty(s))
	}
	n := 0
	emit := func(shape []int64, format string, a ...any) {
		name := fmt.Sprintf("%%v%d", n)
		n++
		fmt.Fprintf(&b, "    %s = "+format+"\n", append([]any{name}, a...)...)
		vals = append(vals, val{name, shape})
	}
	for range 4 + rng.IntN(8) {
		x := vals[rng.IntN(len(vals))]
		r := len(x.shape)
		if r == 0 {
			continue
		}
		switch rng.IntN(10) {
		case 0:
			emit(x.shape, "tensor.exp %s : %s", x.name, ty(x.shape))
		case 1:
			emit(x.shape, "tensor.add %s, %s : %s", x.name, x.name, ty(x.shape))
		case 2:
			if r >= 2 {
				k := x.shape[r-1]
				out := append(append([]int64{}, x.shape[:r-1]...), dim())
				w := append(append([]int64{}, x.shape[:r-2]...), k, out[r-1])
				name := fmt.Sprintf("%%w%d", len(args))
				args = append(args, name+": "+ty(w))
				op := "tensor.matmul"
				if r > 2 {
					op = "tensor.batch_matmul"
				}
				emit(out, "%s %s, %s : %s, %s -> %s", op, x.name, name, ty(x.shape), ty(w), ty(out))
			}
		case 3:
			if r >= 2 {
				perm := rng.Perm(r)
				out := make([]int64, r)
				ps := make([]string, r)
				for j, p := range perm {
					out[j] = x.shape[p]
					ps[j] = fmt.Sprint(p)
				}
				emit(out, "tensor.transpose %s permutation = [%s] : %s -> %s", x.name, strings.Join(ps, ", "), ty(x.shape), ty(out))
			}
		case 4:
			total := int64(1)
			for _, d := range x.shape {
				total *= d
			}
			out := []int64{total}
			if total%4 == 0 && rng.IntN(2) == 0 {
				out = []int64{4, total / 4}
			}
			emit(out, "tensor.reshape %s : %s -> %s", x.name, ty(x.shape), ty(out))
		case 5:
			ax := rng.IntN(r)
			out := append(append([]int64{}, x.shape[:ax]...), x.shape[ax+1:]...)
			emit(out, "tensor.reduce_max %s axes = [%d] : %s -> %s", x.name, ax, ty(x.shape), ty(out))
		case 6:
			emit(x.shape, "tensor.softmax %s axis = %d : %s", x.name, rng.IntN(r), ty(x.shape))
		case 7:
			if x.shape[r-1] > 1 {
				half := x.shape[r-1] / 2
				out := append(append([]int64{}, x.shape[:r-1]...), half)
				off := make([]string, r)
				sizes := make([]string, r)
				strides := make([]string, r)
				for j := range r {
					off[j], sizes[j], strides[j] = "0", fmt.Sprint(out[j]), "1"
				}
				off[r-1] = fmt.Sprint(rng.Int64N(x.shape[r-1] - half + 1))
				emit(out, "tensor.slice %s offsets = [%s] sizes = [%s] strides = [%s] : %s -> %s", x.name,
					strings.Join(off, ", "), strings.Join(sizes, ", "), strings.Join(strides, ", "), ty(x.shape), ty(out))
			}
		case 8:
			out := append(append([]int64{}, x.shape[:r-1]...), 2*x.shape[r-1])
			emit(out, "tensor.concat %s, %s axis = %d : %s, %s -> %s", x.name, x.name, r-1, ty(x.shape), ty(x.shape), ty(out))
		case 9:
			out := append([]int64{dim()}, x.shape...)
			dims := make([]string, r)
			for j := range r {
				dims[j] = fmt.Sprint(j + 1)
			}
			emit(out, "tensor.broadcast %s dimensions = [%s] : %s -> %s", x.name, strings.Join(dims, ", "), ty(x.shape), ty(out))
		}
	}
	last := vals[len(vals)-1]
	return fmt.Sprintf("module attributes {ipu.target = \"test16\"} {\n  func.func @f(%s) -> %s {\n%s    return %s : %s\n  }\n}\n",
		strings.Join(args, ", "), ty(last.shape), b.String(), last.name, ty(last.shape))
}

// Trials is how many programs a default test run lowers (each a few
// milliseconds); IPUIR_RANDOM_TRIALS asks for more.
var Trials = func() int {
	if n, err := strconv.Atoi(os.Getenv("IPUIR_RANDOM_TRIALS")); err == nil && n > 0 {
		return n
	}
	return 150
}()

// LowerAll runs Trials random programs (seeded by seed) through pipeline
// on a fresh context each: a panic, a failure that is not a diagnostic, or
// a result that does not verify fails t; a diagnostic is a refusal. It
// returns how many lowered, and fails t when fewer than a third did.
func LowerAll(t testing.TB, pipeline string, seed uint64) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	reg := registry.NewPassRegistry()
	lowered := 0
	for trial := range Trials {
		src := Tensor(rng)
		ctx := registry.NewContext()
		module, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "random.ipuir"})
		if err != nil {
			t.Fatalf("trial %d: the generator wrote invalid IR: %v\n%s", trial, err, src)
		}
		env, err := irtarget.EnvOfModule(module)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := reg.ParsePipeline("builtin.module(" + pipeline + ")")
		if err != nil {
			t.Fatal(err)
		}
		opts := passes.DefaultOptions()
		opts.Env = env
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("trial %d panicked: %v\n%s", trial, p, src)
				}
			}()
			if err := passes.NewPassManager(ctx, pm, opts).Run(module); err != nil {
				var d *ir.Diagnostic
				if !errors.As(err, &d) {
					t.Fatalf("trial %d: a failure that is not a diagnostic: %v\n%s", trial, err, src)
				}
				return
			}
			if d := ir.VerifyIn(module, env); d != nil {
				t.Fatalf("trial %d: the lowered program does not verify: %v\n%s", trial, d, src)
			}
			lowered++
		}()
	}
	if lowered < Trials/3 {
		t.Errorf("only %d of %d random programs lowered", lowered, Trials)
	}
	t.Logf("%d of %d random programs lowered", lowered, Trials)
	return lowered
}
