package optmain_test

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tests/testdialect"
	"github.com/ipuir/ipuir/tests/testpasses"
	"github.com/ipuir/ipuir/tools/optmain"
)

// The fuzz target drives what `ipu-opt` does with a file: parse, verify,
// run a pipeline, print, and read the printed text back. Its only oracle is
// the project's rule that user input never panics or hangs: every failure
// must come back as an error or diagnostic. Round-tripping is checked too,
// as a verified module that prints text we cannot parse is a printer bug.

// fuzzPipeline is what every valid input runs through; modules that name a
// target are also lowered to tiled.
const (
	fuzzPipeline         = "builtin.module(func.func(canonicalize,cse),dce,symbol-dce,tensor-decompose)"
	fuzzLoweringPipeline = "builtin.module(func.func(canonicalize,cse),dce,symbol-dce,tensor-decompose,lower-tensor-to-tiled)"
)

// fuzzInputBudget is how long one input may take before it counts as a
// hang. It stays under the fuzz engine's own limit (10 s without a word
// from a worker), so that a hang is reported with its stack, not as a lost
// worker.
const fuzzInputBudget = 4 * time.Second

var updateFuzzSeeds = flag.Bool("update-fuzz-seeds", false,
	"rewrite testdata/fuzz/FuzzPipeline from the .ipuir/.mlir files under tests/ and examples/")

// newFuzzContext registers what ipu-opt registers (tools/ipu-opt/dialects.go).
// It runs off the test goroutine, so a registration error panics (it is a
// bug in a dialect, not in the input).
func newFuzzContext() *ir.Context {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	for _, register := range []func(*ir.Context) error{registry.RegisterDialects, testdialect.Register} {
		if err := register(ctx); err != nil {
			panic("BUG: registering dialects: " + err.Error())
		}
	}
	// Diagnostics are results here, not output.
	ctx.SetDiagnosticHandler(func(*ir.Diagnostic) {})
	return ctx
}

func newFuzzRegistry(t testing.TB) *passes.Registry {
	r := passes.NewRegistry()
	for _, register := range []func(*passes.Registry) error{registry.RegisterPasses, testpasses.Register} {
		if err := register(r); err != nil {
			t.Fatalf("registering passes: %v", err)
		}
	}
	return r
}

func FuzzPipeline(f *testing.F) {
	if *updateFuzzSeeds {
		writeFuzzSeeds(f)
	}
	reg := newFuzzRegistry(f)
	plain, err := reg.ParsePipeline(fuzzPipeline)
	if err != nil {
		f.Fatalf("parsing %s: %v", fuzzPipeline, err)
	}
	lowering, err := reg.ParsePipeline(fuzzLoweringPipeline)
	if err != nil {
		f.Fatalf("parsing %s: %v", fuzzLoweringPipeline, err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		done := make(chan string, 1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					done <- fmt.Sprintf("panic: %v\n%s", v, debug.Stack())
				}
			}()
			done <- runFuzzPipeline(src, plain, lowering)
		}()
		select {
		case failure := <-done:
			if failure != "" {
				t.Fatalf("input %q:\n%s", src, failure)
			}
		case <-time.After(fuzzInputBudget):
			t.Fatalf("input %q: no result after %v (a hang?)\n%s", src, fuzzInputBudget, allStacks())
		}
	})
}

// runFuzzPipeline returns "" when src was handled, accepted or rejected with
// a diagnostic, and what went wrong otherwise. It runs on its own goroutine,
// so it reports instead of calling t.Fatal.
func runFuzzPipeline(src []byte, plain, lowering *passes.OpPassManager) string {
	ctx := newFuzzContext()
	module, err := parser.ParseSourceString(ctx, src, parser.Config{Filename: "fuzz.ipuir"})
	if err != nil {
		return ""
	}
	env, err := irtarget.EnvOfModule(module)
	if err != nil {
		return ""
	}
	if d := ir.VerifyIn(module, env); d != nil {
		// ipu-opt prints the op a diagnostic names (--mlir-print-op-on-diagnostic),
		// and that op may be invalid.
		if d.Op != nil {
			printer.OpString(d.Op, printer.Options{Generic: true})
		}
		return ""
	}
	pipeline := plain
	if module.Attr(irtarget.ModuleAttr) != nil {
		pipeline = lowering
	}
	runErr := passes.NewPassManager(ctx, pipeline, passes.Options{DisableThreading: true, VerifyEach: true, Env: env}).Run(module)
	// A failed pass may leave the IR invalid; it must still print, but only
	// verified IR must print text that parses.
	verified := runErr == nil || ir.VerifyIn(module, env) == nil
	for _, generic := range []bool{false, true} {
		var text bytes.Buffer
		if err := printer.Print(&text, module, printer.Options{Generic: generic}); err != nil {
			if verified {
				return fmt.Sprintf("printing verified IR (generic=%v): %v", generic, err)
			}
			continue
		}
		if !verified {
			continue
		}
		if _, err := parser.ParseSourceString(newFuzzContext(), text.Bytes(), parser.Config{Filename: "printed.ipuir"}); err != nil {
			return fmt.Sprintf("printed IR (generic=%v) does not parse: %v\n%s", generic, err, text.String())
		}
	}
	return ""
}

func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// writeFuzzSeeds turns every chunk of every test and example file into a
// seed, without its comment lines (RUN and CHECK lines only make inputs
// longer for the mutator).
func writeFuzzSeeds(f *testing.F) {
	dir := filepath.Join("testdata", "fuzz", "FuzzPipeline")
	if err := os.RemoveAll(dir); err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	seen := map[string]bool{}
	for _, root := range []string{"../../tests", "../../examples"} {
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext != ".ipuir" && ext != ".mlir" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel("../..", path)
			base := strings.NewReplacer("/", "_", ".", "_").Replace(rel)
			for i, chunk := range splitSeedChunks(string(data)) {
				if chunk == "" || seen[chunk] {
					continue
				}
				seen[chunk] = true
				body := "go test fuzz v1\n[]byte(" + strconv.Quote(chunk) + ")\n"
				name := filepath.Join(dir, fmt.Sprintf("%s_%d", base, i))
				if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
	}
}

func splitSeedChunks(src string) []string {
	var chunks []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, optmain.SplitMarker) {
			chunks = append(chunks, cur.String())
			cur.Reset()
			continue
		}
		if strings.HasPrefix(trimmed, "//") || trimmed == "" {
			continue
		}
		cur.WriteString(line)
	}
	return append(chunks, cur.String())
}
