package main

import (
	"io"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// podOptions are --emit-package's flags for a target of several chips.
type podOptions struct {
	balance      string
	microBatches int
	phases       int
	stageChips   int
}

// emitPod writes the pod package of a tensor-level module for tg, a target
// of several chips (toolkit.CompilePod).
func emitPod(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer, tg *target.Target, opts podOptions) error {
	pod, err := toolkit.CompilePod(ctx, module, in.Source, in.Env, in.Logger, tg,
		toolkit.PodOptions{Balance: opts.balance, MicroBatches: opts.microBatches, Phases: opts.phases, StageChips: opts.stageChips, Compiler: Version})
	if err != nil {
		return err
	}
	data, err := pod.Marshal()
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return err
	}
	in.Logger.Info("pod package written", "bytes", len(data), "stages", len(pod.Stages), "chips", pod.Chips)
	return nil
}
