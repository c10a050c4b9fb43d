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

// defaultMicroBatches is how many micro-batches a pod package's run feeds
// unless --micro-batches says: enough to fill a pipeline of a few stages.
const defaultMicroBatches = 16

// emitPod writes the pod package of a tensor-level module for tg, a target
// of several chips (toolkit.CompilePod).
func emitPod(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer, tg *target.Target, opts podOptions, cached func([]byte)) error {
	if opts.microBatches == 0 {
		opts.microBatches = defaultMicroBatches
	}
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
	if cached != nil {
		cached(data)
	}
	return nil
}
