package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// emitPackage writes module's package to out, compiling a tensor-level
// module to tile-asm first; for a target of several chips, the pod
// package of its pipeline stages (emitPod).
//
// The package written, one chip's or a pod's, is handed to cached (the
// compile cache's store).
func emitPackage(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer, pod podOptions, tuningFile string, cached func([]byte)) error {
	tg, ok := irtarget.FromEnv(in.Env)
	if !ok {
		return module.EmitError("--emit-package needs the module's target: an 'ipu.target' attribute or --target (known targets: %v)", target.Names())
	}
	switch {
	case pod.phases < 0:
		return module.EmitError("--phases=%d: a model runs in 2 phases or more (or 0: not in phases)", pod.phases)
	case pod.stageChips < 0:
		return module.EmitError("--stage-chips=%d: a stage spans 1 chip or more (or 0: the fewest with which it fits)", pod.stageChips)
	case pod.stageChips > 0 && !tg.MultiChip():
		return module.EmitError("--stage-chips applies to a target of several chips; %s has one (a program over several chips: --target='%s{span-chips=K}')", tg.Name, tg.Name)
	}
	pipeline := registry.ModulePipeline(registry.LowerToTileAsm)
	var tuning *toolkit.Tuning
	if tuningFile != "" {
		var err error
		tuning, err = toolkit.ReadTuning(tuningFile)
		if err != nil {
			return err
		}
		if tg.MultiChip() || pod.phases > 0 || pkgemit.HasTileAsm(module) {
			return module.EmitError("--tuning applies to a tensor-level program compiled for one chip")
		}
		if err := tuning.Check(in.Source, tg.Name); err != nil {
			return module.EmitError("--tuning=%s: %v", tuningFile, err)
		}
		pipeline = tuning.Pipeline()
		in.Logger.Info("compiling with a tuning record", "file", tuningFile, "pipeline", pipeline, "tuned_cycles", tuning.Cycles, "default_cycles", tuning.DefaultCycles)
	}
	// A compile takes seconds to minutes: on a terminal, the progress
	// line names the pass that is running.
	defer in.Progress.Phase("compiling for " + tg.Name)()
	in.Env = toolkit.PassProgressKey.With(in.Env, in.Progress.Detail)
	if tg.MultiChip() || pod.phases > 0 {
		return emitPod(ctx, module, in, out, tg, pod, cached)
	}
	var pristine *ir.Operation
	if tuningFile == "" && !pkgemit.HasTileAsm(module) {
		pristine = module.Clone(ctx, nil) // for phases, should it not fit
	}
	pkg, err := toolkit.CompilePackageWith(ctx, module, in.Source, in.Env, in.Logger, tg, Version, pipeline)
	if err != nil && pristine != nil && errors.Is(err, target.ErrTileMemory) {
		return emitInPhases(ctx, pristine, in, out, tg, pod, err, cached)
	}
	if err != nil && tuning != nil {
		// The record chose the options that failed: say which record.
		what := fmt.Sprintf("while compiling with the tuning record %s (plan_gemms weights=%s constraints=%q)", tuningFile, tuning.PlanGemms.Weights, tuning.PlanGemms.Constraints)
		var d *ir.Diagnostic
		if errors.As(err, &d) {
			c := *d
			c.Notes = append(slices.Clip(d.Notes), &ir.Diagnostic{Severity: ir.SeverityNote, Loc: d.Loc, Message: what})
			return &c
		}
		return fmt.Errorf("%v (%s)", err, what)
	}
	if err != nil {
		return err
	}
	data, err := pkg.Marshal()
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return err
	}
	in.Logger.Info("application package written", "bytes", len(data), "buffers", len(pkg.Buffers), "instructions", len(pkg.Program), "exchange_tables", len(pkg.Exchanges))
	if cached != nil {
		cached(data)
	}
	return nil
}

// maxAutoPhases is the most phases emitInPhases tries: each try is a
// whole compile, and a model that needs more is better cut by hand
// (--phases) or given more chips.
const maxAutoPhases = 4

// emitInPhases writes the pod package of module (tensor-level, one chip)
// cut into the fewest phases, 2 to maxAutoPhases, whose each fits tile
// memory, after the program as one did not (refusal): each phase's
// weights are streamed in before it runs (docs/pods.md). ViT-B/16 in f32
// at batch 4, 344 MB of weights beside its activations, exchange tables
// and code, runs so in two. When no cut fits, the refusal stands, with a
// note of what the phases said.
func emitInPhases(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer, tg *target.Target, pod podOptions, refusal error, cached func([]byte)) error {
	if pod.microBatches == 0 {
		pod.microBatches = 1 // the user gave a batch, not a stream of them
	}
	var last error
	for n := 2; n <= maxAutoPhases; n++ {
		in.Logger.Info("the program does not fit tile memory as one; compiling it in phases", "phases", n, "reason", refusal)
		pod.phases = n
		if last = emitPod(ctx, module.Clone(ctx, nil), in, out, tg, pod, cached); last == nil {
			return nil
		}
		in.Logger.Info("the program does not compile in phases", "phases", n, "reason", last)
		if !errors.Is(last, target.ErrTileMemory) {
			break // refused for another reason: more phases will not help
		}
	}
	var d *ir.Diagnostic
	if errors.As(refusal, &d) {
		first, _, _ := strings.Cut(last.Error(), "\n")
		d.Notes = append(d.Notes, &ir.Diagnostic{Severity: ir.SeverityNote, Loc: d.Loc,
			Message: fmt.Sprintf("nor does it compile in phases (tried up to %d with --phases): %s", pod.phases, first)})
	}
	return refusal
}

// dumpPackage validates the package at path and prints it to -o.
func dumpPackage(path string, args []string, stdout io.Writer, log *slog.Logger) error {
	outs, out, err := earlyOutputs(args, stdout, [2]string{"--dump-package", path})
	if err != nil {
		return err
	}
	defer outs.Abort()
	data, err := atomicfile.ReadFile(path, ipupkg.MaxFileBytes)
	if err != nil {
		return err
	}
	if ipupkg.IsPod(data) {
		pod, err := ipupkg.DecodePod(data)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		log.Info("pod package read", "stages", len(pod.Stages), "compiler", pod.Compiler, "target", pod.Target)
		if err := out.Write(func(w io.Writer) error { return ipupkg.DumpPod(w, pod) }); err != nil {
			return err
		}
		return outs.Commit()
	}
	pkg, sections, err := decodePackage(path, data, log)
	if err != nil {
		return err
	}
	log.Info("application package read", "tiles", pkg.Tiles, "compiler", pkg.Compiler, "target", pkg.Target)
	if err := out.Write(func(w io.Writer) error { return ipupkg.Dump(w, pkg, sections) }); err != nil {
		return err
	}
	return outs.Commit()
}

// readPackage reads and validates the package at path (a regular file, or
// a pipe of at most ipupkg.MaxFileBytes).
func readPackage(path string, log *slog.Logger) (*ipupkg.Package, []ipupkg.SectionInfo, error) {
	data, err := atomicfile.ReadFile(path, ipupkg.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	return decodePackage(path, data, log)
}

// decodePackage validates and decodes the package read from path.
func decodePackage(path string, data []byte, log *slog.Logger) (*ipupkg.Package, []ipupkg.SectionInfo, error) {
	log.Info("reading application package", "path", path, "bytes", len(data))
	pkg, sections, err := ipupkg.Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	return pkg, sections, nil
}
