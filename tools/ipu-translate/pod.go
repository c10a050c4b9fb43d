package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/translate/podemit"
)

// podOptions are --emit-package's flags for a target of several chips.
type podOptions struct {
	balance      string
	microBatches int
}

// emitPod compiles a tensor-level module for a pod: pipeline-stages cuts
// its function into one stage per chip, each stage is outlined into a
// module of its own and compiled as one chip's package, and the packages,
// with how their streams are joined, make the pod package.
func emitPod(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer, tg *target.Target, opts podOptions) error {
	if opts.microBatches < 1 {
		return fmt.Errorf("--micro-batches=%d: a pipeline runs at least one", opts.microBatches)
	}
	chipSpec, err := tg.ChipSpec()
	if err != nil {
		return err
	}
	chip, err := target.Lookup(chipSpec)
	if err != nil {
		return err
	}
	cut := fmt.Sprintf("builtin.module(pipeline-stages{balance=%s})", opts.balance)
	if err := runPipeline(ctx, module, cut, in.Env, in.Logger); err != nil {
		return err
	}
	outlined, err := podemit.Outline(module, chipSpec)
	if err != nil {
		return err
	}
	pod := &ipupkg.Pod{Compiler: Version, Target: tg.Name, Chips: tg.Chips, MicroBatches: opts.microBatches,
		Inputs: outlined.Inputs, Outputs: outlined.Outputs, Source: in.Source,
		Metadata: []ipupkg.Entry{{Key: "target", Value: tg.Name}, {Key: "pipeline", Value: cut}}}
	env := irtarget.EnvKey.With(in.Env, chip)
	for k, st := range outlined.Stages {
		// The stage's own text is its source: what its checkpoints and
		// a check's reference are read from. Its ops keep the model's
		// locations.
		var text bytes.Buffer
		if err := printer.Print(&text, st.Module, printer.Options{DebugInfo: true}); err != nil {
			return err
		}
		in.Logger.Info("compiling pipeline stage", "stage", k, "chip", k, "target", chipSpec, "inputs", len(st.Inputs))
		pkg, err := compilePackage(ctx, st.Module, text.Bytes(), env, in.Logger, chip)
		if err != nil {
			return fmt.Errorf("pipeline stage %d: %w", k, err)
		}
		pod.Stages = append(pod.Stages, ipupkg.PodStage{Chip: k, Package: pkg, Inputs: st.Inputs})
	}
	if err := pod.Validate(); err != nil {
		return fmt.Errorf("BUG: the pod package does not validate: %v", err)
	}
	data := pod.Encode()
	if _, err := out.Write(data); err != nil {
		return err
	}
	in.Logger.Info("pod package written", "bytes", len(data), "stages", len(pod.Stages), "chips", pod.Chips)
	return nil
}
