package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/trace"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/htmlreport"
)

// emitReport writes the HTML report of the package at path (and of other
// beside it) to -o, with cycles from a run on the simulated device, and
// that run's trace to traceFile when it is given.
func emitReport(path, other, traceFile string, stage int, args []string, stdout io.Writer, log *slog.Logger) error {
	outs, out, err := earlyOutputs(args, stdout, [2]string{"--emit-report", path}, [2]string{"--compare", other})
	if err != nil {
		return err
	}
	defer outs.Abort()
	traceOut, err := outs.Add("--trace", traceFile)
	if err != nil {
		return err
	}
	d, run, err := reportOf(path, stage, log)
	if err != nil {
		return err
	}
	var o *htmlreport.Data
	if other != "" {
		if o, _, err = reportOf(other, stage, log); err != nil {
			return err
		}
	}
	if err := out.Write(func(w io.Writer) error { return htmlreport.Write(w, d, o) }); err != nil {
		return err
	}
	if traceOut != nil {
		if err := traceOut.Write(run); err != nil {
			return err
		}
	}
	return outs.Commit()
}

// reportOf builds the report of the package at path, and returns beside it
// what writes its run's trace. Of a pod package, it is the pipeline's, with
// stage's package (-1: the slowest) in the other views and the trace.
func reportOf(path string, stage int, log *slog.Logger) (*htmlreport.Data, func(io.Writer) error, error) {
	data, err := atomicfile.ReadFile(path, ipupkg.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	if ipupkg.IsPod(data) {
		pod, err := ipupkg.DecodePod(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		tg, err := target.Lookup(pod.Target)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		log.Info("simulating every stage for the report's cycles", "path", path, "stages", len(pod.Stages))
		d, err := htmlreport.BuildPod(filepath.Base(path), pod, tg, pod.MicroBatches, stage)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		shown := pod.Stages[d.Stage].Package
		chip, err := target.Lookup(shown.Target)
		if err != nil {
			return nil, nil, err
		}
		return d, func(w io.Writer) error {
			cycles, err := htmlreport.Cycles(shown, chip)
			if err != nil {
				return err
			}
			return trace.Write(w, shown, cycles, chip.ClockHz)
		}, nil
	}
	if stage != -1 {
		return nil, nil, fmt.Errorf("--stage=%d: %s is one chip's package, not a pod's", stage, path)
	}
	p, _, err := decodePackage(path, data, log)
	if err != nil {
		return nil, nil, err
	}
	tg, err := target.Lookup(p.Target)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	log.Info("simulating for the report's cycles", "path", path, "tiles", p.Tiles)
	cycles, err := htmlreport.Cycles(p, tg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	d, err := htmlreport.Build(filepath.Base(path), p, tg, cycles)
	return d, func(w io.Writer) error { return trace.Write(w, p, cycles, tg.ClockHz) }, err
}
