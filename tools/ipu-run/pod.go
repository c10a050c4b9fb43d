package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/dustin/go-humanize"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/pipeline"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
)

// runPod runs a pod package: every micro-batch through every stage, each
// stage on a simulated chip of its own, a stage's inputs the host's model
// inputs or the outputs an earlier chip delivered (the words it computed,
// moved as the link transfer would move them). The pipeline's time is
// priced from the simulated cycles of each stage and the links' cost:
// every stage slot lasts as long as the slowest stage's compute, then the
// slowest link transfer between chips, then one sync across chips, and P
// stages over G micro-batches take G + P − 1 slots. With --check every
// stage is checked against the reference interpreter on its device
// inputs (end to end within the stage, and op by op), and the stages'
// functions, chained on the host, must compute the model's outputs
// exactly as the model's own function does.
func runPod(o *options, stdout, stderr io.Writer) error {
	log, progress, err := startDeviceRun(o, stderr)
	if err != nil {
		return err
	}
	if o.report != "" || o.trace != "" || o.checkAgainst != "" {
		return fmt.Errorf("%s is a pod package: --report, --trace and --check-against take one chip's package", o.file)
	}
	data, err := atomicfile.ReadFile(o.file, ipupkg.MaxFileBytes)
	if err != nil {
		return err
	}
	pod, err := ipupkg.DecodePod(data)
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	tg, err := target.Lookup(pod.Target)
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	// A stage's program runs on its chip, or as one program over the
	// chips it spans.
	chip, err := tg.Stage(pod.Stages[0].SpanChips())
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	if tg.Chips != pod.Chips || pod.Stages[0].Package.Target != chip.Name {
		return fmt.Errorf("%s: its target %s has %d chips of %s; the package says %d chips of %s", o.file, tg.Name, tg.Chips, chip.Name, pod.Chips, pod.Stages[0].Package.Target)
	}
	micro := pod.MicroBatches
	if o.microBatches > 0 {
		micro = o.microBatches
	}
	log.Info("pod package read", "target", tg.Name, "stages", len(pod.Stages), "micro_batches", micro)
	model, err := loadSource(o.file+" (source)", pod.Source, o.function, stderr)
	if err != nil {
		return err
	}
	if len(model.args) != len(pod.Inputs) {
		return fmt.Errorf("%s: its source's @%s takes %d inputs; the pod %d", o.file, model.name, len(model.args), len(pod.Inputs))
	}
	inputsOf, err := microBatchInputs(o, model, pod.Weights)
	if err != nil {
		return model.Report(err, stderr)
	}
	first, _ := inputsOf(0)
	stages := make([]*program, len(pod.Stages))
	for k, st := range pod.Stages {
		if stages[k], err = loadSource(fmt.Sprintf("%s (stage %d source)", o.file, k), st.Package.Source, "", stderr); err != nil {
			return err
		}
		if err := check.Signature(stages[k].fn, st.Package); err != nil {
			return fmt.Errorf("%s: stage %d does not match its source: %v", o.file, k, err)
		}
	}

	// One lock for the pod: a run holds every chip of it.
	release, err := acquire(o, tg, log)
	if err != nil {
		return err
	}
	defer release()

	// Each stage's slowest micro-batch (every one runs the same program).
	stageCycles := make([]int64, len(pod.Stages))
	acrossChips := make([]device.ChipLinks, len(pod.Stages)) // of each stage's slowest micro-batch
	links, err := pipeline.Links(pod, tg)
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	// The model's outputs of micro-batch 0 (what --outputs writes and the
	// summary shows), and with --check every micro-batch's inputs and
	// outputs, which the end-to-end check compares; without it a run of
	// many micro-batches holds one at a time.
	var outputs, batches [][]*eval.Array
	var reports []*check.Report
	// Phases pass their weights and activations through the chip's
	// streaming memory, the weights written there once.
	var dram *pipeline.DRAM
	if pod.Phased() {
		dram = pipeline.NewDRAM(tg)
		for i, w := range pod.Weights {
			if w && !first[i].IsStrings() {
				if err := dram.Store(ipupkg.PodRef{Stage: ipupkg.HostStage, Index: i}, first[i].Bytes()); err != nil {
					return fmt.Errorf("%s: %v", o.file, err)
				}
			}
		}
	}
	for g := range micro {
		batch, err := inputsOf(g)
		if err != nil {
			return model.Report(err, stderr)
		}
		delivered := make([][]*eval.Array, len(pod.Stages))
		for k, st := range pod.Stages {
			ins := make([]*eval.Array, len(st.Inputs))
			if dram != nil {
				if err := fromStreamingMemory(dram, pod, k, batch, ins); err != nil {
					return fmt.Errorf("%s: phase %d, micro-batch %d: %v", o.file, k, g, err)
				}
			}
			for i, ref := range st.Inputs {
				if ins[i] != nil {
					continue
				}
				if ref.Stage == ipupkg.HostStage {
					ins[i] = batch[ref.Index]
					continue
				}
				if pod.Stages[ref.Stage].Chip == st.Chip {
					ins[i] = delivered[ref.Stage][ref.Index] // an earlier phase's, on this chip
				} else if delivered[ref.Stage][ref.Index].IsStrings() {
					ins[i] = delivered[ref.Stage][ref.Index] // no chip holds text
				}
			}
			if err := overLinks(pod, k, delivered, ins); err != nil {
				return fmt.Errorf("%s: stage %d, micro-batch %d: %v", o.file, k, g, err)
			}
			for i, in := range ins {
				if in == nil {
					return fmt.Errorf("%s: stage %d, micro-batch %d: no link transfer delivers input %d (%s)", o.file, k, g, i, st.Inputs[i])
				}
			}
			end := progress.Phase(fmt.Sprintf("micro-batch %d of %d, stage %d", g+1, micro, k))
			got, cycles, err := runStage(chip, st.Package, ins, !o.check, log)
			end()
			if err != nil {
				return fmt.Errorf("%s: stage %d, micro-batch %d: %v", o.file, k, g, err)
			}
			delivered[k] = got.Outputs
			if cycles.Total >= stageCycles[k] {
				stageCycles[k], acrossChips[k] = cycles.Total, cycles.ChipLinks
			}
			if dram != nil {
				for i, out := range got.Outputs {
					if out.IsStrings() {
						continue
					}
					if err := dram.Store(ipupkg.PodRef{Stage: k, Index: i}, out.Bytes()); err != nil {
						return fmt.Errorf("%s: phase %d, micro-batch %d: %v", o.file, k, g, err)
					}
				}
			}
			if o.check {
				rep, err := check.Run(stages[k].fn, st.Package, ins, got, check.Options{SampleLimit: o.sampleLimit, Atol: o.checkAtol, Rtol: o.rtol, MemoryLimit: o.memoryLimit})
				if err != nil {
					return fmt.Errorf("stage %d, micro-batch %d: %v", k, g, err)
				}
				reports = append(reports, rep)
				if !rep.Pass() {
					for _, line := range rep.Explain() {
						fmt.Fprintf(stderr, "ipu-run: stage %d, micro-batch %d: %s\n", k, g, line)
					}
				}
			}
		}
		var outs []*eval.Array
		for _, ref := range pod.Outputs {
			if ref.Stage == ipupkg.HostStage {
				outs = append(outs, batch[ref.Index])
			} else {
				outs = append(outs, delivered[ref.Stage][ref.Index])
			}
		}
		if g == 0 || o.check {
			outputs, batches = append(outputs, outs), append(batches, batch)
		}
	}
	for i := range pod.Outputs {
		name := ""
		if names := model.resultNames(); i < len(names) {
			name = names[i]
		}
		o.outputNames = append(o.outputNames, name)
	}
	summarise(o, outputs[0], stdout)
	if err := compare(o, o.file, model.Ctx, outputs[0], stdout); err != nil {
		return err
	}
	if o.reportCycles && pod.Phased() {
		phases, err := pipeline.Phases(pod, tg)
		if err != nil {
			return fmt.Errorf("%s: %v", o.file, err)
		}
		for k := range phases {
			phases[k].Cycles = stageCycles[k]
		}
		timing, err := pipeline.PricePhases(phases, tg, micro)
		if err != nil {
			return err
		}
		printPhases(stdout, timing, tg)
	} else if o.reportCycles {
		for k := range links {
			links[k].Cycles = stageCycles[k]
		}
		timing, err := pipeline.Price(links, tg, micro)
		if err != nil {
			return err
		}
		printPipeline(stdout, timing, tg, acrossChips)
	}
	if o.check {
		if err := checkPod(o, model, stages, pod, batches, outputs, reports, stdout); err != nil {
			return err
		}
	}
	return writeOutputs(o, "the pod package", outputs[0])
}

// overLinks sets stage k's inputs from other chips (in ins) to what the
// package's link phase delivers: the producers' output bytes carried hop
// by hop over the scheduled route (pipeline.MoveLinks). Strings, which no
// chip holds, are handed over whole.
func overLinks(pod *ipupkg.Pod, k int, delivered [][]*eval.Array, ins []*eval.Array) error {
	streams := pod.Stages[k].Package.Inputs()
	moved, err := pipeline.MoveLinks(pod, func(n int) bool { return pod.Links[n].To == k && ins[pod.Links[n].Input] == nil },
		func(ref ipupkg.PodRef) ([]byte, error) {
			if ref.Stage < 0 || ref.Stage >= len(delivered) || ref.Index >= len(delivered[ref.Stage]) {
				return nil, fmt.Errorf("%s has not run", ref)
			}
			return delivered[ref.Stage][ref.Index].Bytes(), nil
		})
	if err != nil {
		return err
	}
	for n, b := range moved {
		if b == nil {
			continue
		}
		t := pod.Links[n]
		s := streams[t.Input]
		if ins[t.Input], err = eval.FromBytes(b, s.Elem, s.Shape); err != nil {
			return fmt.Errorf("link transfer %d into input %d: %v", n, t.Input, err)
		}
	}
	return nil
}

// fromStreamingMemory sets phase k's inputs (in ins) from the chip's
// streaming memory: its weights as stored there once, the micro-batch's
// other model inputs written there by the host first, and earlier phases'
// outputs as they stored them. Strings, which no chip holds, are left to
// the caller.
func fromStreamingMemory(dram *pipeline.DRAM, pod *ipupkg.Pod, k int, batch []*eval.Array, ins []*eval.Array) error {
	streams := pod.Stages[k].Package.Inputs()
	for i, ref := range pod.Stages[k].Inputs {
		if ref.Stage == ipupkg.HostStage {
			if batch[ref.Index].IsStrings() {
				continue
			}
			if !pod.Weights[ref.Index] {
				if err := dram.Store(ref, batch[ref.Index].Bytes()); err != nil {
					return err
				}
			}
		}
		b, err := dram.Load(ref)
		if err != nil {
			if ref.Stage != ipupkg.HostStage {
				continue // a string output, handed whole
			}
			return err
		}
		if ins[i], err = eval.FromBytes(b, streams[i].Elem, streams[i].Shape); err != nil {
			return fmt.Errorf("input %d from streaming memory: %v", i, err)
		}
	}
	return nil
}

// runStage runs one stage's package on a fresh simulated chip.
func runStage(chip *target.Target, pkg *ipupkg.Package, inputs []*eval.Array, outputsOnly bool, log *slog.Logger) (check.Device, *device.Cycles, error) {
	dev := sim.New(chip, log)
	defer dev.Close()
	if err := dev.Attach(); err != nil {
		return check.Device{}, nil, err
	}
	if err := dev.Initialize(); err != nil {
		return check.Device{}, nil, err
	}
	return check.Execute(dev, pkg, inputs, check.ExecuteOptions{OutputsOnly: outputsOnly})
}

// microBatchInputs returns the model's inputs of micro-batch g, drawn
// when asked for, so that a run of many micro-batches holds one at a
// time. With --generate, the weights (the pod's, the inputs a matmul
// multiplies by) are the same for every micro-batch, as they stay on their
// chips, and the others are drawn afresh for each, micro-batch g with the
// seed moved on by g times the input count; with --inputs, every
// micro-batch takes the given files.
func microBatchInputs(o *options, model *program, weights []bool) (func(g int) ([]*eval.Array, error), error) {
	first, err := model.inputs(o)
	if err != nil {
		return nil, err
	}
	if o.generate == "" {
		return func(int) ([]*eval.Array, error) { return first, nil }, nil
	}
	gen, err := reference.ParseGenerator(o.generate)
	if err != nil {
		return nil, err
	}
	fanIns := reference.FanIns(model.fn)
	return func(g int) ([]*eval.Array, error) {
		if g == 0 {
			return first, nil
		}
		next := *gen
		next.Seed = gen.Seed + uint64(g*len(model.args))
		drawn, err := next.Generate(model.args, fanIns)
		if err != nil {
			return nil, err
		}
		for i := range drawn {
			if i < len(weights) && weights[i] {
				drawn[i] = first[i]
			}
		}
		return drawn, nil
	}, nil
}

// printPipeline prints the stage table and the pipeline's figures.
//
// For a stage spanning chips it says what its program exchanged between
// them (across, of its slowest micro-batch).
func printPipeline(w io.Writer, t *pipeline.Timing, tg *target.Target, across []device.ChipLinks) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tchip\tcycles\tlink bytes in\tlink cycles\tshare of slot\t")
	for k, s := range t.Stages {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%d\t%.1f%%\t\n", k, s.ChipNames(), s.Cycles, humanize.Comma(s.LinkBytes), s.LinkCycles,
			100*float64(s.Cycles)/float64(max(t.Slot, 1)))
	}
	tw.Flush()
	fmt.Fprintf(w, "pipeline: stages=%d micro_batches=%d slot_cycles=%d (slowest stage %d + links %d + chip sync %d) fill_cycles=%d drain_cycles=%d\n",
		len(t.Stages), t.MicroBatches, t.Slot, t.Slowest, t.Links, t.Sync, t.Fill, t.Drain)
	fmt.Fprintf(w, "steady_state_cycles_per_micro_batch=%d throughput=%.1f micro-batches/s (steady state %.1f) at %s\n",
		t.Slot, t.PerSecond, t.SteadyPerSecond, humanize.SIWithDigits(float64(tg.ClockHz), 3, "Hz"))
	for k, l := range across {
		if l.Phases > 0 && k < len(t.Stages) {
			fmt.Fprintf(w, "stage %d (chips %s): %s\n", k, t.Stages[k].ChipNames(), chipLinksLine(l))
		}
	}
	fmt.Fprintf(w, "total_cycles=%d\n", t.Total)
}

// printPhases prints a phased run's table and figures.
func printPhases(w io.Writer, t *pipeline.PhasedTiming, tg *target.Target) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if t.IOTiles == 0 {
		fmt.Fprintln(tw, "phase\tcycles\tweight bytes\tweight load cycles\tactivation bytes\tactivation cycles\t")
		for k, p := range t.Phases {
			fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%s\t%d\t\n", k, p.Cycles, humanize.Comma(p.WeightBytes), p.WeightLoadCycles,
				humanize.Comma(p.ActivationBytes), p.ActivationCycles)
		}
	} else {
		fmt.Fprintln(tw, "phase\tcycles\tweight bytes\tprefetched bytes\tprefetch cycles\tmove cycles\tweight load cycles\tactivation bytes\tactivation cycles\t")
		for k, p := range t.Phases {
			fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t\n", k, p.Cycles, humanize.Comma(p.WeightBytes), humanize.Comma(p.PrefetchBytes),
				p.PrefetchCycles, p.MoveCycles, p.WeightLoadCycles, humanize.Comma(p.ActivationBytes), p.ActivationCycles)
		}
	}
	tw.Flush()
	overlap := "streaming not overlapped with compute"
	if t.IOTiles > 0 {
		overlap = fmt.Sprintf("%d IO tiles prefetch each phase's weights during the phase before: hidden_cycles=%d, all hidden from %d micro-batches", t.IOTiles, t.Hidden, t.HiddenFrom)
	}
	fmt.Fprintf(w, "phased: phases=%d micro_batches=%d weight_load_cycles=%d activation_cycles=%d compute_cycles=%d (weights loaded once a phase, %s)\n",
		len(t.Phases), t.MicroBatches, t.Weights, t.Activations, t.Compute, overlap)
	fmt.Fprintf(w, "cycles_per_micro_batch=%d throughput=%.1f micro-batches/s at %s break_even_reuse=%.1f micro-batches\n",
		t.Total/int64(t.MicroBatches), t.PerSecond, humanize.SIWithDigits(float64(tg.ClockHz), 3, "Hz"), t.BreakEvenReuse)
	fmt.Fprintf(w, "total_cycles=%d\n", t.Total)
}

// checkPod prints the verdict over three checks, each of which compared
// something: every stage's (Run: its outputs and checkpoints against the
// reference on its device inputs, end to end within the stage and op by
// op), the model's outputs end to end (check.Outputs: the chips'
// outputs against the whole model run from the host's inputs), and the
// outline's: the stages' functions chained on the host reproduce the
// model's outputs exactly, micro-batch by micro-batch.
func checkPod(o *options, model *program, stages []*program, pod *ipupkg.Pod, batches, outputs [][]*eval.Array, reports []*check.Report, stdout io.Writer) error {
	pass := true
	var compared, endToEnd int64
	var maxErr, maxRatio float64
	for _, r := range reports {
		pass = pass && r.Pass()
		compared += r.Compared
		maxErr, maxRatio = max(maxErr, r.MaxAbsError), max(maxRatio, r.MaxRatio)
	}
	// The model's outputs, end to end: what the chips delivered from the
	// last stages against the model's function run from the host's inputs
	// with bounds, so that a value moved wrongly between chips fails.
	var pkgs []*ipupkg.Package
	for _, st := range pod.Stages {
		pkgs = append(pkgs, st.Package)
	}
	// The outline: the stages' functions chained on the host compute what
	// the model's function does, bit for bit (the end-to-end check's
	// reference values where it ran the source as written: its bounds do
	// not change them).
	opts := &reference.Options{MemoryLimit: o.memoryLimit}
	var exact int64
	for g, ins := range batches {
		rep, want, err := check.Outputs(model.fn, pkgs, ins, outputs[g], check.Options{SampleLimit: o.sampleLimit, Atol: o.checkAtol, Rtol: o.rtol, MemoryLimit: o.memoryLimit})
		if err != nil {
			return fmt.Errorf("micro-batch %d, the model's outputs: %v", g, err)
		}
		if !rep.Pass() {
			pass = false
			for _, line := range rep.Explain() {
				fmt.Fprintf(stdout, "ipu-run: micro-batch %d, the model's outputs: %s\n", g, line)
			}
		}
		endToEnd += rep.Compared
		maxErr, maxRatio = max(maxErr, rep.MaxAbsError), max(maxRatio, rep.MaxRatio)
		if want == nil { // the end-to-end check ran the source as compiled, not as written
			if want, err = reference.Run(model.fn, ins, opts); err != nil {
				return fmt.Errorf("the model's reference, micro-batch %d: %v", g, err)
			}
		}

		delivered := make([][]*eval.Array, len(pod.Stages))
		for k, st := range pod.Stages {
			args := make([]*eval.Array, len(st.Inputs))
			for i, ref := range st.Inputs {
				if ref.Stage == ipupkg.HostStage {
					args[i] = ins[ref.Index]
				} else {
					args[i] = delivered[ref.Stage][ref.Index]
				}
			}
			if delivered[k], err = reference.Run(stages[k].fn, args, opts); err != nil {
				return fmt.Errorf("stage %d's reference, micro-batch %d: %v", k, g, err)
			}
		}
		for i, ref := range pod.Outputs {
			got := ins[ref.Index]
			if ref.Stage != ipupkg.HostStage {
				got = delivered[ref.Stage][ref.Index]
			}
			if !slices.Equal(got.Shape, want[i].Shape) || !sameBits(got.Data, want[i].Data) {
				pass = false
				fmt.Fprintf(stdout, "ipu-run: micro-batch %d: the stages' functions chained compute model output %d differently from the model\n", g, i)
			}
			exact += int64(len(got.Data))
		}
	}
	verdict := "PASS"
	if !pass || compared == 0 || endToEnd == 0 || exact == 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(stdout, "numericalTest=%s stages=%d micro_batches=%d stage_checks=%d compared=%d model_outputs_compared=%d outline_compared=%d maximumAbsoluteError=%.6g maximumErrorToBound=%.3g hardwareTest=PASS\n",
		verdict, len(pod.Stages), len(batches), len(reports), compared, endToEnd, exact, maxErr, maxRatio)
	if verdict != "PASS" {
		return fmt.Errorf("numericalTest=FAIL")
	}
	return nil
}

// sameBits says a and b hold the same values (NaN equal to NaN).
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// acquire takes tg's device lock (one for all of a pod's chips) in
// --lock-dir, waiting for it unless --no-wait.
func acquire(o *options, tg *target.Target, log *slog.Logger) (func() error, error) {
	lockDir, err := device.LockDir(o.lockDir)
	if err != nil {
		return nil, err
	}
	return device.Acquire(filepath.Join(lockDir, "ipuir-sim-"+lockName(tg)+".lock"), !o.noWait, log)
}

// lockName is the device lock's name for tg: its built-in target's name,
// whatever options its spec sets (they change prices, not the device).
func lockName(tg *target.Target) string {
	if s, err := target.ParseSpec(tg.Name); err == nil {
		return s.Name
	}
	return "target"
}
