package tests

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/internal/randprog"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// differentialTrials is how many random programs TestCompilerAgainstReference
// compiles and runs by default; IPUIR_DIFFERENTIAL_TRIALS asks for more
// (the long suite runs 2,000).
func differentialTrials() int {
	if n, err := strconv.Atoi(os.Getenv("IPUIR_DIFFERENTIAL_TRIALS")); err == nil && n > 0 {
		return n
	}
	return 120
}

// TestCompilerAgainstReference is the differential test of the whole
// compiler: random tensor programs (every op of the tensor dialect, f16
// and f32, views, reductions, arguments and constants as results, several
// results and the same one twice) compiled for test16 to a package, run on
// the simulated device, and checked value by value against the reference
// interpreter (execution/check: every element of every output and
// checkpoint, end to end and locally). A program the compiler refuses must
// be refused with a diagnostic; one it compiles must run and PASS.
func TestCompilerAgainstReference(t *testing.T) {
	trials := differentialTrials()
	rng := rand.New(rand.NewPCG(22, 23))
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	passed, elements := 0, int64(0)
	refused := map[string]int{}
	for trial := range trials {
		src := randprog.Program(rng, tg.Name)
		pkg, reason, err := compileProgram(src, tg)
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, src)
		}
		if reason != "" {
			refused[reason]++
			continue
		}
		rep, err := runAndCheck(pkg, src, tg, uint64(trial))
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, src)
		}
		if !rep.Pass() {
			t.Fatalf("trial %d: %s\n%s", trial, rep.Summary(), src)
		}
		passed++
		elements += rep.Compared
	}
	var reasons []string
	for r, n := range refused {
		reasons = append(reasons, fmt.Sprintf("%d: %s", n, r))
	}
	sort.Strings(reasons)
	t.Logf("%d random programs: %d compiled, ran and passed (%d elements compared), %d refused:\n  %s",
		trials, passed, elements, trials-passed, strings.Join(reasons, "\n  "))
	if passed < trials/2 {
		t.Errorf("only %d of %d programs compiled", passed, trials)
	}
}

// compileProgram compiles src as ipu-translate --emit-package does. A
// refusal is a diagnostic's message (with its place cut off, so that
// refusals group by reason); anything else that fails is an error.
func compileProgram(src string, tg *target.Target) (*ipupkg.Package, string, error) {
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "random.ipuir"})
	if err != nil {
		return nil, "", fmt.Errorf("the generator wrote invalid IR: %v", err)
	}
	opts := pkgemit.Options{Compiler: "test"}
	opts.SetSource([]byte(src), module)
	pm, err := registry.NewPassRegistry().ParsePipeline(registry.ModulePipeline(registry.LowerToTileAsm))
	if err != nil {
		return nil, "", err
	}
	popts := passes.DefaultOptions()
	popts.Env = irtarget.EnvKey.With(nil, tg)
	if err := passes.NewPassManager(ctx, pm, popts).Run(module); err != nil {
		var d *ir.Diagnostic
		if !errors.As(err, &d) {
			return nil, "", fmt.Errorf("a failure that is not a diagnostic: %v", err)
		}
		return nil, reasonOf(d.Error()), nil
	}
	pkg, err := pkgemit.Build(module, tg, opts)
	if err != nil {
		return nil, "", fmt.Errorf("the compiled program does not package: %v", err)
	}
	// Through the wire format, as a runner reads it.
	back, _, err := ipupkg.Decode(pkg.Encode())
	if err != nil {
		return nil, "", fmt.Errorf("the package does not read back: %v", err)
	}
	return back, "", nil
}

// reasonOf is a diagnostic's message without its location and numbers.
func reasonOf(msg string) string {
	if i := strings.Index(msg, "error: "); i >= 0 {
		msg = msg[i+len("error: "):]
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	// The chip-wide account of a shortfall names values that differ from
	// program to program; the first tile's reason groups them.
	if i := strings.Index(msg, ". Across the chip"); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, " are live in "); i >= 0 {
		msg = msg[:i] + " are live in other buffers"
	}
	var b strings.Builder
	for _, r := range msg {
		if r >= '0' && r <= '9' {
			r = '#'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// runAndCheck runs pkg on a simulated device with generated inputs and
// checks it against src's function.
func runAndCheck(pkg *ipupkg.Package, src string, tg *target.Target, seed uint64) (*check.Report, error) {
	rep, _, err := runAndCheckFn(pkg, src, tg, seed, "f")
	return rep, err
}

// runAndCheckFn is runAndCheck of the function called name; it returns
// the run's total cycles too.
func runAndCheckFn(pkg *ipupkg.Package, src string, tg *target.Target, seed uint64, name string) (*check.Report, int64, error) {
	fn, inputs, err := generatedInputs(src, name, seed)
	if err != nil {
		return nil, 0, err
	}
	return runAndCheckOn(pkg, fn, tg, inputs)
}

// runAndCheckInputs is runAndCheckFn on given inputs: the first ones
// (token ids, masks) as given, the others generated.
func runAndCheckInputs(pkg *ipupkg.Package, src string, tg *target.Target, name string, given [][]float64) (*check.Report, int64, error) {
	fn, inputs, err := generatedInputs(src, name, 1)
	if err != nil {
		return nil, 0, err
	}
	for i, vals := range given {
		a, err := eval.FromValues(inputs[i].Shape, inputs[i].Kind, vals)
		if err != nil {
			return nil, 0, err
		}
		inputs[i] = a
	}
	return runAndCheckOn(pkg, fn, tg, inputs)
}

// generatedInputs parses src and generates inputs for its function called
// name (gaussian, seeded).
func generatedInputs(src, name string, seed uint64) (*ir.Operation, []*eval.Array, error) {
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "random.ipuir"})
	if err != nil {
		return nil, nil, err
	}
	fn, err := reference.LookupFunction(module, name)
	if err != nil {
		return nil, nil, err
	}
	types, err := reference.ArgumentTypes(fn)
	if err != nil {
		return nil, nil, err
	}
	g, err := reference.ParseGenerator(fmt.Sprintf("gaussian:seed=%d", seed))
	if err != nil {
		return nil, nil, err
	}
	inputs, err := g.Generate(types, reference.FanIns(fn))
	return fn, inputs, err
}

// runAndCheckOn runs pkg on a simulated device with inputs and checks it
// against fn.
func runAndCheckOn(pkg *ipupkg.Package, fn *ir.Operation, tg *target.Target, inputs []*eval.Array) (*check.Report, int64, error) {
	rep, cycles, err := runAndCheckOnDevice(pkg, fn, tg, inputs)
	if err != nil {
		return nil, 0, err
	}
	return rep, cycles.Total, nil
}

// runAndCheckOnDevice is runAndCheckOn with the device's whole count.
func runAndCheckOnDevice(pkg *ipupkg.Package, fn *ir.Operation, tg *target.Target, inputs []*eval.Array) (*check.Report, *device.Cycles, error) {
	dev := sim.New(tg, nil)
	if err := dev.Attach(); err != nil {
		return nil, nil, err
	}
	if err := dev.Initialize(); err != nil {
		return nil, nil, err
	}
	got, cycles, err := check.Execute(dev, pkg, inputs, check.ExecuteOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("the device refused or faulted: %v", err)
	}
	rep, err := check.Run(fn, pkg, inputs, got, check.Options{})
	return rep, cycles, err
}
