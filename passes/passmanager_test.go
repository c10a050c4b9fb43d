package passes_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
	"github.com/ipuir/ipuir/tests/testdialect"
)

// manyFuncs builds n functions @f0..@fn-1, each with foldable and
// duplicate work.
func manyFuncs(n int) *fixture.Fixture {
	f := fixture.New()
	for i := 0; i < n; i++ {
		a := f.Fn(fmt.Sprintf("f%d", i), "", 1)
		x := f.Add(a[0], f.Add(f.C(1), f.C(2)))
		f.Ret(f.Mul(x, f.Add(f.C(3), a[0])))
		f.B.InsertionBlock().ParentOp().SetLoc(f.Ctx.FileLineCol("test.ipuir", i+2, 3))
	}
	return f
}

func TestAnchorMismatch(t *testing.T) {
	f := manyFuncs(1)
	err := f.Run(t, "test.func(cse)", passes.DefaultOptions())
	if err == nil || err.Error() != "test.ipuir:1:1: error: can't run 'test.func' pass manager on 'builtin.module' op" {
		t.Errorf("got %v", err)
	}
}

func TestFailingPassStopsThePipeline(t *testing.T) {
	for _, threads := range []bool{true, false} {
		f := manyFuncs(3)
		opts := passes.DefaultOptions()
		opts.DisableThreading = !threads
		before := fixture.Show(t, f.Module)
		err := f.Run(t, "builtin.module(test.func(test-pass-failure),cse)", opts)
		ds, ok := err.(passes.Diagnostics)
		if !ok || len(ds) != 3 {
			t.Fatalf("got %v", err)
		}
		for i, d := range ds {
			if got, want := d.Error(), fmt.Sprintf("test.ipuir:%d:3: error: test-pass-failure failed as asked", i+2); got != want {
				t.Errorf("got %s want %s", got, want)
			}
			if len(d.Notes) != 1 || d.Notes[0].Message != fmt.Sprintf("while running pass 'test-pass-failure' on 'test.func' operation: @f%d", i) {
				t.Errorf("notes %v", d.Notes)
			}
		}
		if fixture.Show(t, f.Module) != before {
			t.Error("cse ran after a failure")
		}
	}
}

func TestVerifyEach(t *testing.T) {
	f := manyFuncs(2)
	err := f.Run(t, "builtin.module(test.func(cse),test.func(test-pass-create-invalid-ir))", passes.DefaultOptions())
	ds, ok := err.(passes.Diagnostics)
	if !ok || len(ds) != 2 {
		t.Fatalf("got %v", err)
	}
	d := ds[1]
	if d.Error() != "test.ipuir:3:3: error: 'test.constant' op requires attribute 'value'" || d.Op == nil || d.Op.Name() != testdialect.Constant {
		t.Errorf("got %s (op %v)", d.Error(), d.Op)
	}
	if len(d.Notes) != 1 || d.Notes[0].Message != "the IR is invalid after running pass 'test-pass-create-invalid-ir' on 'test.func' operation: @f1" {
		t.Errorf("notes %v", d.Notes)
	}
	// Without verification the broken IR goes through.
	f = manyFuncs(2)
	opts := passes.DefaultOptions()
	opts.VerifyEach = false
	if err := f.Run(t, "builtin.module(test.func(test-pass-create-invalid-ir))", opts); err != nil {
		t.Errorf("got %v", err)
	}
}

func TestScheduling(t *testing.T) {
	f := manyFuncs(1)
	f.Ctx.AllowUnregisteredDialects = true
	f.B.SetInsertionPointToEnd(ir.ModuleBody(f.Module))
	f.Region(testdialect.Scope, func() {})
	f.Region(testdialect.IsolatedScope, func() {})
	f.B.Create(&ir.OperationState{Name: "x.y", NumRegions: 1})
	var seen []string
	f.Ctx.SetDiagnosticHandler(func(d *ir.Diagnostic) { seen = append(seen, d.Message) })
	// any() runs on registered isolated ops only.
	if err := f.Run(t, "builtin.module(any(test-remarks))", passes.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, "; "); got != "visited 'test.func' @f0; visited 'test.isolated_scope'" {
		t.Errorf("any() visited %s", got)
	}
	// An any() pipeline holding a pass anchored elsewhere skips ops it cannot run on.
	seen = nil
	pm := passes.NewOpPassManager("builtin.module")
	pm.Nest(passes.AnyOp).AddPass(&anchoredPass{})
	if err := passes.NewPassManager(f.Ctx, pm, passes.DefaultOptions()).Run(f.Module); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct{ pipeline, err string }{
		{"builtin.module(test.scope(cse))", "<unknown>:0: error: 'test.scope' op trying to schedule a pass on an operation not marked as 'IsolatedFromAbove'"},
		{"builtin.module(x.y(cse))", "<unknown>:0: error: 'x.y' op trying to schedule a pass on an unregistered operation"},
	} {
		if err := f.Run(t, tc.pipeline, passes.DefaultOptions()); err == nil || err.Error() != tc.err {
			t.Errorf("%s: got %v", tc.pipeline, err)
		}
	}
}

func TestParallelRunsAreDeterministic(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Log("one CPU: parallel sections run on one goroutine")
	}
	run := func(threads bool) (string, []string, error) {
		f := manyFuncs(40)
		var remarks []string
		f.Ctx.SetDiagnosticHandler(func(d *ir.Diagnostic) { remarks = append(remarks, d.Error()) })
		opts := passes.DefaultOptions()
		opts.DisableThreading = !threads
		var dumps strings.Builder
		opts.IROutput = &dumps
		opts.PrintIR.AfterAll = true
		err := f.Run(t, "builtin.module(test.func(canonicalize,test-remarks,cse),test.func(test-remarks))", opts)
		return fixture.Show(t, f.Module) + dumps.String(), remarks, err
	}
	seqIR, seqRemarks, err := run(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqRemarks) != 80 || !strings.HasPrefix(seqRemarks[0], "test.ipuir:2:3: remark: visited 'test.func' @f0") {
		t.Fatalf("remarks %v", seqRemarks[:2])
	}
	for i := 0; i < 3; i++ {
		parIR, parRemarks, err := run(true)
		if err != nil {
			t.Fatal(err)
		}
		if parIR != seqIR {
			t.Fatal("parallel output differs from sequential")
		}
		if strings.Join(parRemarks, "\n") != strings.Join(seqRemarks, "\n") {
			t.Fatal("parallel remarks differ from sequential")
		}
	}
}

func TestIRPrinting(t *testing.T) {
	dumps := func(pipeline string, print passes.IRPrintOptions, threads bool) (string, error) {
		f := manyFuncs(2)
		opts := passes.DefaultOptions()
		opts.PrintIR = print
		opts.DisableThreading = !threads
		var out strings.Builder
		opts.IROutput = &out
		err := f.Run(t, pipeline, opts)
		return out.String(), err
	}
	headers := func(s string) string {
		var hs []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "// -----//") {
				hs = append(hs, l)
			}
		}
		return strings.Join(hs, "\n")
	}
	const pipeline = "builtin.module(test.func(canonicalize,cse),symbol-dce)"
	out, err := dumps(pipeline, passes.IRPrintOptions{AfterAll: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	fixture.CheckLines(t, headers(out), `
// -----// IR Dump After Canonicalizer (canonicalize) //----- //
// -----// IR Dump After CSE (cse) //----- //
// -----// IR Dump After Canonicalizer (canonicalize) //----- //
// -----// IR Dump After CSE (cse) //----- //
// -----// IR Dump After SymbolDCE (symbol-dce) //----- //`)
	if !strings.HasPrefix(out, "// -----// IR Dump After Canonicalizer (canonicalize) //----- //\n\"test.func\"() <{sym_name = \"f0\"}> ({\n") ||
		!strings.Contains(out, "}) : () -> ()\n\n// -----// IR Dump After CSE (cse) //----- //\n") ||
		!strings.HasSuffix(out, "}\n\n") {
		t.Errorf("layout:\n%s", out)
	}

	out, _ = dumps(pipeline, passes.IRPrintOptions{Before: []string{"canonicalize", "symbol-dce"}, After: []string{"cse"}}, true)
	fixture.CheckLines(t, headers(out), `
// -----// IR Dump Before Canonicalizer (canonicalize) //----- //
// -----// IR Dump After CSE (cse) //----- //
// -----// IR Dump Before Canonicalizer (canonicalize) //----- //
// -----// IR Dump After CSE (cse) //----- //
// -----// IR Dump Before SymbolDCE (symbol-dce) //----- //`)

	// After-change: canonicalize and cse change both functions, a
	// second cse finds nothing, and neither does symbol-dce.
	out, _ = dumps("builtin.module(test.func(canonicalize,cse,cse),symbol-dce)", passes.IRPrintOptions{AfterAll: true, AfterChange: true}, true)
	fixture.CheckLines(t, headers(out), `
// -----// IR Dump After Canonicalizer (canonicalize) //----- //
// -----// IR Dump After CSE (cse) //----- //
// -----// IR Dump After Canonicalizer (canonicalize) //----- //
// -----// IR Dump After CSE (cse) //----- //`)

	// After-failure dumps the failing pass only, with its header.
	out, _ = dumps("builtin.module(test.func(cse,test-pass-failure))", passes.IRPrintOptions{AfterFailure: true}, true)
	fixture.CheckLines(t, headers(out), `
// -----// IR Dump After TestFailurePass Failed (test-pass-failure) //----- //
// -----// IR Dump After TestFailurePass Failed (test-pass-failure) //----- //`)

	// Module scope prints the whole module and names the op.
	out, _ = dumps("builtin.module(test.func(cse))", passes.IRPrintOptions{AfterAll: true, ModuleScope: true}, false)
	fixture.CheckLines(t, headers(out), `
// -----// IR Dump After CSE (cse) ('test.func' operation: @f0) //----- //
// -----// IR Dump After CSE (cse) ('test.func' operation: @f1) //----- //`)
	if !strings.Contains(out, "//----- //\nmodule {\n") {
		t.Errorf("module scope does not print the module:\n%s", out)
	}
	if _, err := dumps("builtin.module(test.func(cse))", passes.IRPrintOptions{AfterAll: true, ModuleScope: true}, true); err == nil ||
		err.Error() != "<unknown>:0: error: IR print for module scope can't be setup on a pass-manager without disabling multi-threading first." {
		t.Errorf("got %v", err)
	}
}

func TestIRPrintingTreeDir(t *testing.T) {
	dir := t.TempDir()
	f := manyFuncs(2)
	opts := passes.DefaultOptions()
	opts.PrintIR = passes.IRPrintOptions{BeforeAll: true, AfterAll: true, TreeDir: dir}
	var out strings.Builder
	opts.IROutput = &out
	if err := f.Run(t, "builtin.module(test.func(canonicalize,cse),symbol-dce,cse)", opts); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("dumps went to the output: %s", out.String())
	}
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	// The names mlir-opt-19 gives for the same pipeline.
	fixture.CheckLines(t, strings.Join(files, "\n"), `
builtin_module_no-symbol-name/1_symbol-dce.mlir
builtin_module_no-symbol-name/2_symbol-dce.mlir
builtin_module_no-symbol-name/3_cse.mlir
builtin_module_no-symbol-name/4_cse.mlir
builtin_module_no-symbol-name/test_func_f0/0_0_canonicalize.mlir
builtin_module_no-symbol-name/test_func_f0/0_1_canonicalize.mlir
builtin_module_no-symbol-name/test_func_f0/0_2_cse.mlir
builtin_module_no-symbol-name/test_func_f0/0_3_cse.mlir
builtin_module_no-symbol-name/test_func_f1/0_0_canonicalize.mlir
builtin_module_no-symbol-name/test_func_f1/0_1_canonicalize.mlir
builtin_module_no-symbol-name/test_func_f1/0_2_cse.mlir
builtin_module_no-symbol-name/test_func_f1/0_3_cse.mlir`)
	data, _ := os.ReadFile(filepath.Join(dir, "builtin_module_no-symbol-name/2_symbol-dce.mlir"))
	if !strings.HasPrefix(string(data), "// -----// IR Dump After SymbolDCE (symbol-dce) //----- //\nmodule {\n") {
		t.Errorf("file content:\n%s", data)
	}
}

func TestTimingReport(t *testing.T) {
	for _, threads := range []bool{true, false} {
		f := manyFuncs(4)
		opts := passes.DefaultOptions()
		opts.DisableThreading = !threads
		opts.Timing = passes.NewTiming()
		parse := opts.Timing.Start("Parser")
		parse.Stop()
		if err := f.Run(t, "builtin.module(test.func(canonicalize,cse),symbol-dce)", opts); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := opts.Timing.Report(&b, passes.TimingTree); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		header := "  ----Wall Time----  ----Name----"
		if threads {
			header = "  ----User Time----" + header
		}
		if lines[0] != "===-------------------------------------------------------------------------===" ||
			lines[1] != "                         ... Execution time report ..." ||
			!strings.HasPrefix(lines[3], "  Total Execution Time: ") || lines[5] != header {
			t.Errorf("header:\n%s", b.String())
		}
		var got []string
		for _, l := range lines[6:] {
			i := strings.LastIndex(l, "%)  ")
			got = append(got, l[i+4:])
		}
		fixture.CheckLines(t, strings.Join(got, "\n"), `
Parser
'test.func' Pipeline
  Canonicalizer
  CSE
SymbolDCE
Rest
Total`)
		if !strings.HasSuffix(lines[len(lines)-1], "(100.0%)  Total") {
			t.Errorf("total line %q", lines[len(lines)-1])
		}
		var list strings.Builder
		opts.Timing.Report(&list, passes.TimingList)
		if !strings.Contains(list.String(), "  CSE\n") || !strings.Contains(list.String(), "  Total\n") {
			t.Errorf("list display:\n%s", list.String())
		}
	}
}

func TestCrashReproducer(t *testing.T) {
	for _, local := range []bool{false, true} {
		dir := t.TempDir()
		file := filepath.Join(dir, "repro.ipuir")
		f := manyFuncs(2)
		opts := passes.DefaultOptions()
		opts.CrashReproducer = file
		opts.LocalReproducer = local
		err := f.Run(t, "builtin.module(test.func(canonicalize{max-iterations=4},test-pass-crash),symbol-dce)", opts)
		ds, ok := err.(passes.Diagnostics)
		if !ok || len(ds) != 3 {
			t.Fatalf("got %v", err)
		}
		if ds[0].Message != "pass 'test-pass-crash' crashed: BUG: test-pass-crash crashed as asked" {
			t.Errorf("crash: %s", ds[0].Message)
		}
		last := ds[2]
		if last.Error() != "test.ipuir:2:3: error: Failures have been detected while processing an MLIR pass pipeline" {
			t.Errorf("got %s", last.Error())
		}
		wantNote := "Pipeline failed while executing [`TestCrashPass` on 'test.func' operation: @f0, `TestCrashPass` on 'test.func' operation: @f1]: reproducer generated at `" + file + "`"
		if len(last.Notes) != 1 || last.Notes[0].Message != wantNote {
			t.Errorf("notes %v", last.Notes)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		cfg, err := readReproducer(data)
		if err != nil {
			t.Fatal(err)
		}
		wantPipeline := "builtin.module(test.func(canonicalize{  max-iterations=4 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},test-pass-crash), symbol-dce)"
		if local {
			// The IR just before the failing pass: canonicalized already.
			wantPipeline = "builtin.module(test.func(test-pass-crash))"
			if strings.Contains(text, "value = 1 : i32") || !strings.Contains(text, "value = 3 : i32") {
				t.Errorf("local reproducer IR:\n%s", text)
			}
		} else if !strings.Contains(text, "value = 1 : i32") {
			t.Errorf("full reproducer IR:\n%s", text)
		}
		if cfg.Pipeline != wantPipeline || cfg.DisableThreading || !cfg.VerifyEach {
			t.Errorf("config %+v", cfg)
		}
		if !strings.HasPrefix(text, "module {\n") || !strings.Contains(text, "}\n\n{-#\n  external_resources: {\n    mlir_reproducer: {\n      pipeline: \"") ||
			!strings.HasSuffix(text, "\",\n      disable_threading: false,\n      verify_each: true\n    }\n  }\n#-}\n") {
			t.Errorf("layout:\n%s", text)
		}
		// The recorded pipeline parses back.
		if _, err := fixture.Registry(t).ParsePipeline(cfg.Pipeline); err != nil {
			t.Error(err)
		}
	}
}

// readReproducer parses src as ipu-opt --run-reproducer does: the IR,
// with the mlir_reproducer resources going to passes.ReproducerHandler.
func readReproducer(src []byte) (passes.ReproducerConfig, error) {
	var cfg passes.ReproducerConfig
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	ctx.SetDiagnosticHandler(func(*ir.Diagnostic) {}) // warnings of other groups
	_, err := parser.ParseSourceString(ctx, src, parser.Config{Filename: "r.mlir",
		ExternalResources: map[string]parser.ResourceHandler{"mlir_reproducer": passes.ReproducerHandler(&cfg)}})
	return cfg, err
}

func TestReproducerHandler(t *testing.T) {
	good := `module {
}

{-#
  dialect_resources: { builtin: { blob: "0x04000000010203" } },
  external_resources: {
    // comment
    other_tool: { x: 1 },
    mlir_reproducer: {
      pipeline: "builtin.module(func.func(cse), \22quoted\22)",
      disable_threading: true,
      verify_each: false
    }
  }
#-}
`
	cfg, err := readReproducer([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Found || cfg.Pipeline != `builtin.module(func.func(cse), "quoted")` || !cfg.DisableThreading || cfg.VerifyEach {
		t.Errorf("got %+v", cfg)
	}
	opts := passes.DefaultOptions()
	cfg.Apply(&opts)
	if !opts.DisableThreading || opts.VerifyEach {
		t.Errorf("apply: %+v", opts)
	}
	if cfg, err := readReproducer([]byte("module {}")); err != nil || cfg.Found {
		t.Errorf("no resources: %+v, %v", cfg, err)
	}
	// Errors in mlir-opt-19's words, at the value or key at fault.
	for bad, want := range map[string]string{
		`{-# external_resources: { mlir_reproducer: { pipeline: 3 } } #-}`:                "r.mlir:1:56: error: expected string value for key 'pipeline'",
		`{-# external_resources: { mlir_reproducer: { disable_threading: "yes" } } #-}`:   "r.mlir:1:65: error: expected 'true' or 'false' value for key 'disable_threading'",
		`{-# external_resources: { mlir_reproducer: { verify_each: 1 } } #-}`:             "r.mlir:1:59: error: expected 'true' or 'false' value for key 'verify_each'",
		`{-# external_resources: { mlir_reproducer: { pipeline: "x", bogus: true } } #-}`: "r.mlir:1:61: error: unknown 'mlir_reproducer' resource key 'bogus'",
		`{-# external_resources: { mlir_reproducer: { pipeline "x" } } #-}`:               "r.mlir:1:46: error: unexpected token",
		"{-# external_resources: ": "r.mlir:1:24: error: expected '#-}'",
	} {
		_, err := readReproducer([]byte(bad))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s:\ngot  %v\nwant %s...", bad, err, want)
		}
	}
}

// countingAnalysis counts how often it is computed.
type countingAnalysis struct{ n int }

var analysisRuns int

// analysisPass asks for countingAnalysis and may preserve it.
type analysisPass struct {
	Preserve bool `pass:"preserve" help:"Preserve analyses"`
}

func (*analysisPass) Name() string    { return "test-analysis" }
func (*analysisPass) Summary() string { return "Uses an analysis" }
func (*analysisPass) Anchor() string  { return "" }
func (p *analysisPass) Run(op *ir.Operation, pc *passes.PassContext) error {
	a := passes.GetAnalysis(pc.Analyses(), func(*ir.Operation) *countingAnalysis { analysisRuns++; return &countingAnalysis{} })
	a.n++
	if p.Preserve {
		pc.Analyses().PreserveAll()
	}
	return nil
}

func TestAnalysisCache(t *testing.T) {
	r := passes.NewRegistry()
	r.Register(&analysisPass{})
	for _, tc := range []struct {
		pipeline string
		runs     int
	}{
		{"builtin.module(test-analysis,test-analysis,test-analysis)", 3},
		{"builtin.module(test-analysis{preserve},test-analysis{preserve},test-analysis)", 1},
		// A nested pipeline may change the op: its analyses go.
		{"builtin.module(test-analysis{preserve},test.func(test-analysis),test-analysis)", 3},
	} {
		analysisRuns = 0
		f := manyFuncs(1)
		pm, err := r.ParsePipeline(tc.pipeline)
		if err != nil {
			t.Fatal(err)
		}
		if err := passes.NewPassManager(f.Ctx, pm, passes.DefaultOptions()).Run(f.Module); err != nil {
			t.Fatal(err)
		}
		if analysisRuns != tc.runs {
			t.Errorf("%s: computed %d times, want %d", tc.pipeline, analysisRuns, tc.runs)
		}
	}
}

// FuzzParseReproducer: no input panics, and a failure is a diagnostic.
func FuzzParseReproducer(f *testing.F) {
	f.Add([]byte("module {}\n{-#\n  external_resources: {\n    mlir_reproducer: {\n      pipeline: \"builtin.module(cse)\",\n      disable_threading: false,\n      verify_each: true\n    }\n  }\n#-}\n"))
	f.Add([]byte(`{-# external_resources: { mlir_reproducer: { pipeline: "\22\5C", a: {b: {}} } } #-}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := readReproducer(src); err != nil {
			if _, ok := err.(*ir.Diagnostic); !ok {
				t.Fatalf("%T is not a diagnostic: %v", err, err)
			}
		}
	})
}

// TestCustomPrinterRunsAlone: a tool's printer may read the whole module,
// so with it the dumps never overlap passes on other functions.
func TestCustomPrinterRunsAlone(t *testing.T) {
	f := manyFuncs(16)
	var inFlight, maxInFlight, calls int32
	var mu sync.Mutex
	opts := passes.DefaultOptions()
	opts.PrintIR.AfterAll = true
	opts.IROutput = io.Discard
	opts.PrintOp = func(w io.Writer, op *ir.Operation) error {
		mu.Lock()
		inFlight++
		calls++
		maxInFlight = max(maxInFlight, inFlight)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		fmt.Fprintf(w, "%s\n", op.Name())
		mu.Lock()
		inFlight--
		mu.Unlock()
		return nil
	}
	opts.Timing = passes.NewTiming()
	if err := f.Run(t, "builtin.module(test.func(cse))", opts); err != nil {
		t.Fatal(err)
	}
	if calls != 16 || maxInFlight != 1 {
		t.Errorf("%d calls, %d at once", calls, maxInFlight)
	}
	var b strings.Builder
	opts.Timing.Report(&b, passes.TimingTree)
	if strings.Contains(b.String(), "User Time") {
		t.Error("a sequential run reports user time")
	}
}
