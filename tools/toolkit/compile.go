package toolkit

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"

	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/pipeline"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/translate/pkgemit"
	"github.com/ipuir/ipuir/translate/podemit"
)

// RunPipeline runs the pipeline text on module in env.
func RunPipeline(ctx *ir.Context, module *ir.Operation, pipeline string, env *ir.Env, log *slog.Logger) error {
	pm, err := registry.NewPassRegistry().ParsePipeline(pipeline)
	if err != nil {
		return err
	}
	popts := passes.DefaultOptions()
	popts.Env, popts.Logger = env, log
	if f, ok := PassProgressKey.Get(env); ok {
		popts.BeforePass = f
	}
	return passes.NewPassManager(ctx, pm, popts).Run(module)
}

// PassProgressKey, in a compile's environment, is told the name of each
// pass as it starts: a progress line's detail (Progress.Detail).
var PassProgressKey = ir.NewEnvKey[func(string)]("pass progress")

// CompilePackage compiles module, whose text is source, into tg's package
// (a tensor-level module is lowered with lower-to-tile-asm first), as
// ipu-translate --emit-package does. compiler names the compiler's
// version in the package.
func CompilePackage(ctx *ir.Context, module *ir.Operation, source []byte, env *ir.Env, log *slog.Logger, tg *target.Target, compiler string) (*ipupkg.Package, error) {
	return CompilePackageWith(ctx, module, source, env, log, tg, compiler, registry.ModulePipeline(registry.LowerToTileAsm))
}

// CompilePackageWith is CompilePackage lowering a tensor-level module with
// pipeline, lower-to-tile-asm's passes with options of their own (a
// tuning record's, Tuning.Pipeline).
//
// The planner plans beside the target's support reserve for each tile's
// code and exchange tables. A long program's can take more, and its
// storage placement then fails with plans chosen for memory it does not
// have; the placement records what it measured, and the module is compiled
// again from its start with the planner told (plan-gemms{support-bytes})
// while the measure grows. Where that does not help, the plans that span
// fewer tiles than the chip are spread over it (plan-gemms{
// spread-start-tiles}) rather than all starting at tile 0, and the
// measuring starts again. A program that fits as first planned keeps its
// plans. The first failure is returned when nothing helps.
func CompilePackageWith(ctx *ir.Context, module *ir.Operation, source []byte, env *ir.Env, log *slog.Logger, tg *target.Target, compiler, pipeline string) (*ipupkg.Package, error) {
	opts := pkgemit.Options{Compiler: compiler, Metadata: []ipupkg.Entry{{Key: "target", Value: tg.Name}}}
	if !pkgemit.HasTileAsm(module) {
		opts.SetSource(source, module)
		pristine := module.Clone(ctx, nil)
		err := RunPipeline(ctx, module, pipeline, env, log)
		first, last, spread := err, int64(0), false
		for tries := 0; err != nil && tries < 6; tries++ {
			measured, ok := pkgemit.MeasuredSupport(module)
			again, planned := withSupportBytes(pipeline, measured)
			if !ok || measured <= last || !planned {
				if spread || !pkgemit.Planned(module) {
					break // spreading moves plans; it cannot make a matmul plan
				}
				// Measuring no longer helps: spread the plans over the chip
				// (their weights and tables off the first tiles), and
				// measure again.
				if again, planned = withPlanOption(pipeline, "spread-start-tiles=true"); !planned {
					break
				}
				spread, last = true, 0
				log.Info("planning again with plans spread over the chip instead of from tile 0")
			} else {
				last = measured
				log.Info("planning again beside the support memory the placement measured", "support_bytes", measured,
					"support_reserve_bytes", tg.SupportReserveBytes)
			}
			pipeline = again
			module = pristine.Clone(ctx, nil)
			err = RunPipeline(ctx, module, again, env, log)
		}
		if err != nil {
			return nil, first
		}
		opts.Metadata = append(opts.Metadata, ipupkg.Entry{Key: "pipeline", Value: pipeline})
	}
	log.Info("writing application package", "tiles", tg.Tiles)
	pkg, err := pkgemit.Build(module, tg, opts)
	if err != nil {
		return nil, err
	}
	// The tile-asm verifier applies the device's rules; a package the
	// device would refuse is a compiler bug, never written.
	if err := sim.Validate(pkg); err != nil {
		return nil, fmt.Errorf("BUG: the compiled package would be refused by the device: %v", err)
	}
	return pkg, nil
}

// withSupportBytes is pipeline (lower-to-tile-asm's, as CompilePackage and
// TunedPipeline spell it) with plan-gemms told the support memory n; false
// when pipeline plans no matmuls.
func withSupportBytes(pipeline string, n int64) (string, bool) {
	if strings.Contains(pipeline, "support-bytes=") {
		// Told again: the newer measure replaces the older.
		i := strings.Index(pipeline, "support-bytes=")
		j := i + len("support-bytes=")
		for j < len(pipeline) && pipeline[j] >= '0' && pipeline[j] <= '9' {
			j++
		}
		return pipeline[:i] + fmt.Sprintf("support-bytes=%d", n) + pipeline[j:], true
	}
	return withPlanOption(pipeline, fmt.Sprintf("support-bytes=%d", n))
}

// withPlanOption is pipeline (lower-to-tile-asm's, as CompilePackage and
// TunedPipeline spell it) with plan-gemms given opt; false when pipeline
// plans no matmuls.
func withPlanOption(pipeline, opt string) (string, bool) {
	if pipeline == registry.ModulePipeline(registry.LowerToTileAsm) {
		pipeline = TunedPipeline(CompileOptions{})
	}
	switch {
	case strings.Contains(pipeline, "plan-gemms{"):
		return strings.Replace(pipeline, "plan-gemms{", "plan-gemms{"+opt+" ", 1), true
	case strings.Contains(pipeline, "plan-gemms,"), strings.Contains(pipeline, "plan-gemms)"):
		return strings.Replace(pipeline, "plan-gemms", "plan-gemms{"+opt+"}", 1), true
	}
	return pipeline, false
}

// PodOptions are how a model is compiled for a target of several chips.
type PodOptions struct {
	Balance string // pipeline-stages' balance: "cycles" or "bytes"
	// Phases, on a single chip, is how many phases to cut the model into,
	// run one after the other with their weights streamed in (0: a
	// multi-chip target's chips).
	Phases       int
	MicroBatches int // the pod package's default micro-batch count
	// StageChips is how many chips each stage spans (0: pipeline-stages
	// chooses).
	StageChips int
	Compiler   string
}

// CompilePod compiles a tensor-level module for tg, a target of several
// chips, or one chip run in phases: pipeline-stages cuts its function into
// one stage per chip (or opts.Phases phases of one chip), each
// stage is outlined into a module of its own (translate/podemit) and
// compiled as one chip's package, and the packages, with how their
// streams are joined, make the pod package.
//
// On a pod, unless opts.StageChips fixes it, the cut gives each stage the
// fewest chips with which the planner's estimates fit its weights; where
// a stage's program then does not compile (its placement finds tiles
// short), the model is cut again into stages of more chips, up to the
// whole pod, and the first failure is reported if none compiles.
func CompilePod(ctx *ir.Context, module *ir.Operation, source []byte, env *ir.Env, log *slog.Logger, tg *target.Target, opts PodOptions) (*ipupkg.Pod, error) {
	pod, err := compilePod(ctx, module, source, env, log, tg, opts)
	span, cut := podemit.StageChips(module)
	if err == nil || opts.StageChips > 0 || !tg.MultiChip() || !cut {
		return pod, err // a cut that failed has tried every size already
	}
	for k := span + 1; k <= tg.Chips; k++ {
		if tg.Chips%k != 0 {
			continue
		}
		log.Info("pipeline stages do not compile; cutting into stages of more chips", "stage_chips", k, "reason", err)
		more := opts
		more.StageChips = k
		if pod, kerr := compilePod(ctx, module, source, env, log, tg, more); kerr == nil {
			return pod, nil
		}
	}
	return nil, err
}

func compilePod(ctx *ir.Context, module *ir.Operation, source []byte, env *ir.Env, log *slog.Logger, tg *target.Target, opts PodOptions) (*ipupkg.Pod, error) {
	if opts.MicroBatches < 1 {
		return nil, fmt.Errorf("--micro-batches=%d: a pipeline runs at least one", opts.MicroBatches)
	}
	cut := fmt.Sprintf("builtin.module(pipeline-stages{balance=%s})", opts.Balance)
	if opts.StageChips > 0 {
		cut = fmt.Sprintf("builtin.module(pipeline-stages{balance=%s stage-chips=%d})", opts.Balance, opts.StageChips)
	}
	if tg.MultiChip() && opts.Phases > 0 {
		return nil, fmt.Errorf("--phases cuts one chip's model into phases; %s has %d chips, one stage each", tg.Name, tg.Chips)
	}
	if !tg.MultiChip() {
		if opts.Phases < 2 {
			return nil, fmt.Errorf("target %s has one chip: phased execution needs 2 phases or more (--phases)", tg.Name)
		}
		if tg.Streaming.BytesPerChip == 0 {
			return nil, fmt.Errorf("target %s has no streaming memory to stream phases' weights from", tg.Name)
		}
		cut = fmt.Sprintf("builtin.module(pipeline-stages{balance=%s stages=%d})", opts.Balance, opts.Phases)
	}
	if err := RunPipeline(ctx, module, cut, env, log); err != nil {
		return nil, err
	}
	// Each stage's program is one chip's, or, where the cut gave stages
	// several chips, one program over them (a target with span-chips).
	span, _ := podemit.StageChips(module)
	chip, err := tg.Stage(span)
	if err != nil {
		return nil, err
	}
	chipSpec := chip.Name
	outlined, err := podemit.Outline(module, chipSpec)
	if err != nil {
		return nil, err
	}
	// The weights are the inputs a matmul multiplies by (what the input
	// generator scales by fan-in): the same for every micro-batch.
	fanIns := reference.FanIns(outlined.Function)
	weights := make([]bool, len(outlined.Inputs))
	for i := range weights {
		weights[i] = i < len(fanIns) && fanIns[i] > 0
	}
	pod := &ipupkg.Pod{Compiler: opts.Compiler, Target: tg.Name, Chips: max(tg.Chips, 1), MicroBatches: opts.MicroBatches,
		Inputs: outlined.Inputs, Weights: weights, Outputs: outlined.Outputs, Source: source,
		Metadata: []ipupkg.Entry{{Key: "target", Value: tg.Name}, {Key: "pipeline", Value: cut}}}
	// Each stage is compiled from its own text in a context of its own,
	// so that stages compile side by side (a chip's lowering is mostly
	// one thread), at most GOMAXPROCS at once. The stage's text is its
	// source: what its checkpoints and a check's reference are read from;
	// its ops keep the model's locations, and the model's text is kept
	// beside it so that names resolve to the model's.
	modelFile := ""
	if l, ok := module.Loc().(*ir.FileLineColLoc); ok {
		modelFile = l.File
	}
	texts := make([][]byte, len(outlined.Stages))
	for k, st := range outlined.Stages {
		var text bytes.Buffer
		if err := printer.Print(&text, st.Module, printer.Options{DebugInfo: true}); err != nil {
			return nil, err
		}
		texts[k] = text.Bytes()
	}
	pkgs := make([]*ipupkg.Package, len(texts))
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for k := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			log.Info("compiling pipeline stage", "stage", k, "chip", k*span, "chips", span, "target", chipSpec, "inputs", len(outlined.Stages[k].Inputs))
			loader := &Loader{Setup: registry.RegisterDialects, Env: func(*ir.Operation) (*ir.Env, error) { return irtarget.EnvKey.With(env, chip), nil }}
			p, err := loader.LoadSource(fmt.Sprintf("stage %d of %s", k, modelFile), texts[k], io.Discard)
			if err != nil {
				errs[k] = fmt.Errorf("BUG: stage %d's text does not load: %v", k, err)
				return
			}
			if modelFile != "" {
				p.Sources.Add(modelFile, source)
			}
			if pkgs[k], err = CompilePackage(p.Ctx, p.Module, texts[k], p.Env, log, chip, opts.Compiler); err != nil {
				errs[k] = fmt.Errorf("pipeline stage %d: %w", k, err)
			}
		}()
	}
	wg.Wait()
	for k, st := range outlined.Stages {
		if errs[k] != nil {
			return nil, errs[k]
		}
		chipOf := k * span
		if !tg.MultiChip() {
			chipOf = 0 // phases, one after the other
		}
		pod.Stages = append(pod.Stages, ipupkg.PodStage{Chip: chipOf, Chips: span, Package: pkgs[k], Inputs: st.Inputs})
	}
	// A phased run keeps every weight in the chip's streaming memory.
	if pod.Phased() {
		phases, err := pipeline.Phases(pod, tg)
		if err != nil {
			return nil, err
		}
		var weights int64
		for _, ph := range phases {
			weights += ph.WeightBytes
		}
		if weights > tg.Streaming.BytesPerChip {
			return nil, fmt.Errorf("the model's weights (%d bytes) do not fit the %d bytes of streaming memory behind a chip of %s", weights, tg.Streaming.BytesPerChip, tg.Name)
		}
	}
	// The values that cross chips, scheduled over the links.
	links, phase, err := pipeline.ScheduleLinks(pod, tg)
	if err != nil {
		return nil, err
	}
	pod.Links = links
	if n, cycles, _ := podemit.LinkPhase(module); n != phase.Transfers || cycles != phase.Cycles {
		return nil, fmt.Errorf("BUG: the pod package's link phase (%d transfers, %d cycles) is not the module's exchange.link_phase (%d transfers, %d cycles)",
			phase.Transfers, phase.Cycles, n, cycles)
	}
	if phase.Transfers > 0 {
		log.Info("scheduled link phase", "transfers", phase.Transfers, "bytes", phase.Bytes, "cycles", phase.Cycles,
			"lower_bound", phase.LowerBound, "lower_bound_gap", phase.Cycles-phase.LowerBound)
	}
	if err := pod.Validate(); err != nil {
		return nil, fmt.Errorf("BUG: the pod package does not validate: %v", err)
	}
	return pod, nil
}
