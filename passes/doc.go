// Package passes is ipuir's pass infrastructure (MLIR's lib/Pass and the
// rewrite drivers of lib/Transforms/Utils): the registry and pipeline
// syntax, the pass manager with its instrumentation, the greedy rewrite
// driver with its region simplification, and the dialect-conversion
// framework. It knows no dialect and no target: the generic passes
// (canonicalize, cse, dce, symbol-dce) live in package transforms, the
// passes of one dialect beside it (dialects/tensor/transforms), the
// lowerings in conversion/<from>to<to>, and package registry lists them
// all for the tools.
//
// # Passes
//
// A pass is a pointer to a struct with Name, Summary, Anchor and Run
// methods (see Pass). Options are tagged fields,
//
//	MaxIterations int64 `pass:"max-iterations" help:"..." default:"10"`
//
// statistics are Statistic fields tagged `statistic:"name" help:"..."`.
// The struct's Go type name is the display name of IR dumps and reports
// (CSE, Canonicalizer), as a C++ class name is in MLIR.
//
// # Registry
//
// Registration is explicit: NewRegistry, then Register each pass
// (registry.RegisterPasses registers all of ipuir's). A global registry filled by
// init functions would make the set of passes depend on which packages a
// binary happens to link, would share state between tests, and could only
// report a bad registration by panicking during program start; an
// explicit registry states what a tool offers and returns registration
// errors (empty, unspellable or duplicate names, options without help,
// defaults that do not parse) to the caller.
//
// # The API ipu-opt uses
//
//	reg := registry.NewPassRegistry()                     // every pass of ipuir
//	pm, err := reg.ParsePipeline("builtin.module(func.func(cse))") // --pass-pipeline
//	pm, err := reg.ParseFlatPipeline("builtin.module", "canonicalize,cse") // --canonicalize --cse
//	pm.Dump(os.Stderr)                                    // --dump-pass-pipeline
//	reg.WriteList(os.Stdout)                              // --list-passes
//	opts := passes.DefaultOptions()                       // --verify-each on
//	opts.DisableThreading, opts.PrintIR, opts.Timing, opts.CrashReproducer = ...
//	opts.Env, opts.Logger = irtarget.EnvKey.With(nil, t), logger // what passes may need
//	mgr := passes.NewPassManager(ctx, pm, opts)
//	err = mgr.Run(module)                                 // passes.Diagnostics on failure
//	opts.Timing.Report(os.Stderr, passes.TimingTree)      // --mlir-timing
//	mgr.WriteStatistics(os.Stderr, passes.StatisticsPipeline) // --mlir-pass-statistics
//	parser.Config{ExternalResources: {"mlir_reproducer": passes.ReproducerHandler(&cfg)}} // --run-reproducer
//
// What a pass needs of the compilation beyond its op it gets from its
// PassContext: the tool's structured log (Logger) and the facts the tool
// states about the compilation (Env, holding the target), which the
// verification after each pass sees too.
//
// Errors of pipeline parsing and of passes are *ir.Diagnostic values with
// mlir-opt-19's wording. Diagnostics passes emit without failing go to the
// context's handler.
//
// # The pass manager
//
// A pipeline (OpPassManager) is anchored on an op name or `any`; nested
// pipelines run on the ops directly inside the regions of the op their
// parent runs on. Those ops must be isolated from above, so their
// pipelines run in parallel goroutines (bounded by GOMAXPROCS, off with
// Options.DisableThreading). Each task collects its diagnostics, IR dumps
// and times in a frame of its own, merged in IR order afterwards: the
// output of a parallel run is the same as that of a sequential one. After
// each pass the op it ran on is verified (Options.VerifyEach). A failure
// stops the pipeline once the running parallel section is done.
//
// Because one pass value runs on many ops at once, Run keeps its working
// state in local variables; statistics are atomic. Verifier hooks also run
// concurrently on sibling ops and must not read outside their op.
//
// # Rewrites
//
// ApplyPatternsGreedily is MLIR's greedy driver: dead pure ops go, folders
// run with constant operands (constants are materialized through the
// dialect, merged and hoisted), then patterns by benefit, to a fixed point
// bounded by iterations; not converging is an error naming the patterns
// that kept firing. ApplyPartialConversion and ApplyFullConversion, with a
// ConversionTarget and a TypeConverter, are MLIR's dialect conversion, for
// the lowerings.
package passes
