// Package check compares what a device computed for an application package
// with the reference interpreter, and says PASS only when it compared
// something and every compared element is within its bound.
//
// Two checks run, each over every element of every output the host
// received and of every checkpoint (or an even sample of each, when the
// caller asks for one):
//
//   - end to end: the reference runs the source function from the inputs
//     the device was given, carrying beside each value a bound on how far
//     a device's value may lie from it (tensor.Bound: each op's own
//     rounding, plus its inputs' bounds carried through it), so the bound
//     grows with the program's depth and conditioning;
//   - local: the reference runs again with each checkpointed value
//     replaced by the device's own, so each op is evaluated on the
//     device's inputs and its bound is that op's rounding alone (plus
//     what unchecked ops just before it add). A fault shows up at the
//     instruction that made it, not as a cascade downstream.
//
// Besides comparing values, it checks what the package claims against the
// source: the output streams match the function's results, each
// checkpoint names an op of the source of its type, and, in a package
// compiled from the tensor level (it carries its source), every value the
// source computes from its inputs has a checkpoint (unless the compiler
// folded or merged it away), so a package cannot pass by leaving out what
// it got wrong. A package compiled from lower IR has no checkpoints: its
// outputs are compared.
//
// Values the device computes in a narrower type than the source's are
// compared in the source's: i64 computed as i32 exactly; f64 computed as
// f32 (narrow-f64) against the source narrowed the same way, on inputs
// rounded to f32, so that the bounds are f32's. Rewrites that change which
// values the program computes (matmul-reassociate), which the package
// names in its metadata, are replayed on a clone of the source, and the
// device is checked against that.
package check

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target/irtarget"
)

// Options tune a check.
type Options struct {
	// SampleLimit compares at most this many evenly spaced elements of
	// each output and checkpoint; 0 compares every element.
	SampleLimit int
	// Atol and Rtol are slack on top of each element's bound: an element
	// passes when |device − reference| ≤ bound + Atol + Rtol·|reference|.
	Atol, Rtol float64
	// MemoryLimit bounds the reference interpreter (0: its default).
	MemoryLimit int64
	// Source names the reference's source in messages (a file name).
	Source string
}

// Device is what the device produced: one array per output stream, in
// order, and one per checkpoint of the package (as the checkpoint's
// buffer held it after it was written).
type Device struct {
	Outputs     []*eval.Array
	Checkpoints []*eval.Array
}

// Compared is one array compared by one check.
type Compared struct {
	What, Check           string
	Elements              int
	MaxAbsError, MaxRatio float64
}

// Failure is one compared value with elements outside their bound.
type Failure struct {
	What  string // "output #0", "checkpoint 3 (tensor.matmul at f.ipuir:9:10)"
	Check string // "local" or "end-to-end"
	// Bad is how many of the Compared elements failed; the first is at
	// Index (row major), Coord, with these values and bound.
	Bad, Compared            int
	Index                    int
	Coord                    []int
	Device, Reference, Bound float64
}

func (f Failure) String() string {
	return fmt.Sprintf("%s, %s check: %d of %d elements outside their bound; the first is element %d %v: device %s, reference %s, bound %s",
		f.What, f.Check, f.Bad, f.Compared, f.Index, f.Coord, num(f.Device), num(f.Reference), num(f.Bound))
}

// Report is a check's outcome.
type Report struct {
	Outputs, Checkpoints int
	// Compared counts compared elements over both checks; Values lists
	// each comparison (every output and checkpoint, once per check).
	Compared int64
	Values   []Compared
	// MaxAbsError is the largest |device − reference| of the end-to-end
	// check; MaxRatio the largest error over its bound in either check
	// (1 is at the bound).
	MaxAbsError, MaxRatio float64
	// Unbounded counts the end-to-end comparisons whose bound is
	// infinite: the worst case carried from the inputs grew past the
	// value's range (deep stacks of matmuls do that within a layer or
	// two), so only the local check, which bounds each op on the device's
	// own inputs, says anything of those elements.
	Unbounded int64
	Failures  []Failure
	// Problems are what the package claims that the source contradicts,
	// and a check that compared nothing.
	Problems []string
	// NonFinite names inputs that hold NaN or infinite values (they make
	// every bound downstream infinite).
	NonFinite []string
}

// Pass says whether every compared element is within its bound, something
// was compared, and nothing contradicts the source.
func (r *Report) Pass() bool { return len(r.Failures) == 0 && len(r.Problems) == 0 && r.Compared > 0 }

// Line is the verdict line ipu-run prints.
func (r *Report) Line() string {
	verdict := "PASS"
	if !r.Pass() {
		verdict = "FAIL"
	}
	unbounded := ""
	if r.Unbounded > 0 {
		unbounded = fmt.Sprintf(" unboundedEndToEnd=%d", r.Unbounded)
	}
	return fmt.Sprintf("numericalTest=%s outputs=%d checkpoints=%d compared=%d%s maximumAbsoluteError=%.6g maximumErrorToBound=%.3g hardwareTest=PASS",
		verdict, r.Outputs, r.Checkpoints, r.Compared, unbounded, r.MaxAbsError, r.MaxRatio)
}

// MaxExplained is how many failures Explain lists; the rest are counted.
const MaxExplained = 12

// Explain is why a check failed, one line each (empty on PASS): every
// problem, then the failures, end to end and local, in program order, up
// to MaxExplained.
func (r *Report) Explain() []string {
	var out []string
	out = append(out, r.Problems...)
	for i, f := range r.Failures {
		if i == MaxExplained {
			out = append(out, fmt.Sprintf("and %d more values outside their bounds", len(r.Failures)-i))
			break
		}
		out = append(out, f.String())
	}
	return out
}

func num(v float64) string { return fmt.Sprintf("%.6g", v) }

// Signature checks that the package's host streams are fn's arguments
// and results: as many, in order, of the same element types and shapes.
func Signature(fn *ir.Operation, pkg *ipupkg.Package) error {
	f, ok := ir.Interface[ir.FunctionLike](fn)
	if !ok {
		return fmt.Errorf("'%s' is not a function", fn.Name())
	}
	ft := f.FunctionType(fn)
	for _, side := range []struct {
		name   string
		output bool
		types  []ir.Type
	}{{"input", false, ft.Inputs}, {"output", true, ft.Results}} {
		var streams []ipupkg.Stream
		for _, s := range pkg.Streams {
			if s.Output == side.output {
				streams = append(streams, s)
			}
		}
		slices.SortFunc(streams, func(a, b ipupkg.Stream) int { return a.Index - b.Index })
		if len(streams) != len(side.types) {
			return fmt.Errorf("the function has %d %ss, but the package has %d %s streams", len(side.types), side.name, len(streams), side.name)
		}
		for i, s := range streams {
			rt, ok := side.types[i].(*ir.RankedTensorType)
			if s.Text {
				// Text the host parses or formats (host-strings): the
				// source holds strings of the stream's shape.
				if !ok || !tensor.IsStringTensor(rt) || !slices.Equal(rt.Dims, s.Shape) {
					return fmt.Errorf("%s #%d is %s, but the package's %s stream #%d (%s) is text of shape %v", side.name, i, ir.TypeString(side.types[i]), side.name, i, s.Name, s.Shape)
				}
				continue
			}
			et, known := irelem.Of(ir.ElementTypeOrSelf(side.types[i]))
			var dims []int64
			if ok {
				dims = rt.Dims
			}
			if !known || et != s.Elem || !slices.Equal(dims, s.Shape) {
				return fmt.Errorf("%s #%d is %s, but the package's %s stream #%d (%s) is %v %v", side.name, i, ir.TypeString(side.types[i]), side.name, i, s.Name, s.Elem, s.Shape)
			}
		}
	}
	return nil
}

// Run checks dev, the device's run of pkg on inputs, against fn, the
// package's tensor-level source function (or the user's own).
func Run(fn *ir.Operation, pkg *ipupkg.Package, inputs []*eval.Array, dev Device, opts Options) (*Report, error) {
	c := &checker{opts: opts, pkg: pkg, rep: &Report{Outputs: len(dev.Outputs), Checkpoints: len(pkg.Checkpoints)},
		checkpointOf: map[*ir.Operation]int{}}
	if err := Signature(fn, pkg); err != nil {
		c.problem("the package does not match the source: %v", err)
	}
	fn, inputs, err := c.asCompiled(fn, inputs, computesF64AsF32(pkg), sourceRewrites(pkg))
	if err != nil {
		return nil, err
	}
	body := fn.Region(0).Front()
	c.matchCheckpoints(body, dev)

	// The two checks are independent runs of the reference: run them side
	// by side (each its own copy of the checker), then report end to end
	// first.
	e2e, local := c.fork(), c.fork()
	var errs [2]error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); errs[0] = e2e.endToEnd(fn, body, inputs, dev) }()
	go func() { defer wg.Done(); errs[1] = local.local(fn, inputs, dev) }()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
	}
	c.merge(e2e.rep)
	c.merge(local.rep)
	if c.rep.Compared == 0 {
		c.problem("nothing was compared: the package has no outputs and no checkpoints")
	}
	return c.rep, nil
}

// asCompiled is the source as the device computes it: with f64 narrowed
// to f32 (narrow-f64) and its inputs rounded to f32 when narrowed, so
// that each bound is f32's rounding (the f64 source's bounds would hold
// the device to f64's precision, which no f32 arithmetic meets), and the
// rewrites the package names replayed. It notes non-finite inputs.
func (c *checker) asCompiled(fn *ir.Operation, inputs []*eval.Array, narrowed bool, rewrites []string) (*ir.Operation, []*eval.Array, error) {
	if narrowed {
		fn = fn.Clone(fn.Context(), nil)
		if _, err := tensor.NarrowF64(fn); err != nil {
			return nil, nil, fmt.Errorf("narrowing the source's f64 to f32: %v", err)
		}
		rounded := make([]*eval.Array, len(inputs))
		for i, a := range inputs {
			rounded[i] = a
			if a.Kind == elem.F64 {
				var err error
				if rounded[i], err = eval.Convert(a, elem.F32); err != nil {
					return nil, nil, fmt.Errorf("input #%d: %v", i, err)
				}
			}
		}
		inputs = rounded
	}
	if len(rewrites) > 0 {
		replayed, err := replayRewrites(fn, rewrites)
		if err != nil {
			return nil, nil, err
		}
		fn = replayed
		c.replayed = rewrites
	}
	for i, a := range inputs {
		if nan, inf := nonFinite(a); nan+inf > 0 {
			c.rep.NonFinite = append(c.rep.NonFinite, fmt.Sprintf("input #%d holds %d NaN and %d infinite values", i, nan, inf))
		}
	}
	return fn, inputs, nil
}

// Outputs checks what no one package computes: a model's outputs that
// several packages made together (a pipeline's stages, each on its own
// chip). The reference runs fn from inputs with bounds, as the compiled
// packages compute it (f64 narrowed if any of them narrows it, their
// rewrites replayed), and every element of each output is compared with
// its value there, end to end. Each package's own values are Run's to
// check. Beside the report it returns the reference's outputs when they
// are the source's own (no rewrite replayed, no f64 narrowed), else nil.
func Outputs(fn *ir.Operation, pkgs []*ipupkg.Package, inputs, outputs []*eval.Array, opts Options) (*Report, []*eval.Array, error) {
	c := &checker{opts: opts, pkg: &ipupkg.Package{}, rep: &Report{Outputs: len(outputs)}, checkpointOf: map[*ir.Operation]int{}}
	narrowed := false
	var rewrites []string
	for _, p := range pkgs {
		narrowed = narrowed || computesF64AsF32(p)
		for _, r := range sourceRewrites(p) {
			if !slices.Contains(rewrites, r) {
				rewrites = append(rewrites, r)
			}
		}
	}
	fn, inputs, err := c.asCompiled(fn, inputs, narrowed, rewrites)
	if err != nil {
		return nil, nil, err
	}
	results, err := reference.RunValues(fn, inputs, &reference.Options{Bounds: true, MemoryLimit: opts.MemoryLimit})
	if err != nil {
		return nil, nil, fmt.Errorf("reference: %w", err)
	}
	c.compareOutputs(results, Device{Outputs: outputs}, "end-to-end")
	if c.rep.Compared == 0 {
		c.problem("nothing was compared: the model has no outputs")
	}
	if narrowed || len(rewrites) > 0 {
		return c.rep, nil, nil
	}
	want := make([]*eval.Array, len(results))
	for i, r := range results {
		want[i] = r.Array
	}
	return c.rep, want, nil
}

// endToEnd runs the reference from the inputs and compares every
// checkpoint and output with its value there, then says which values lack
// a checkpoint.
func (c *checker) endToEnd(fn *ir.Operation, body *ir.Block, inputs []*eval.Array, dev Device) error {
	hashes := map[*ir.Value]uint64{}
	for i, a := range body.Arguments() {
		if i < len(inputs) {
			hashes[a] = hashOf(inputs[i])
		}
	}
	results, err := reference.RunValues(fn, inputs, &reference.Options{Bounds: true, MemoryLimit: c.opts.MemoryLimit,
		After: func(op *ir.Operation, v *tensor.Value) error {
			hashes[op.Result(0)] = hashOf(v.Array)
			if k, ok := c.checkpointOf[op]; ok {
				c.compare(c.checkpointName(k, op), "end-to-end", dev.Checkpoints[k], *v)
			}
			return nil
		}})
	if err != nil {
		return err
	}
	c.compareOutputs(results, dev, "end-to-end")
	// A package compiled from the tensor level carries its source and a
	// checkpoint for each value it computes; one compiled from lower IR
	// has neither, and only its outputs can be compared.
	if len(c.pkg.Source) > 0 {
		c.requireCheckpoints(body, hashes)
	}
	return nil
}

// local runs the reference with each checkpointed op's value replaced by
// the device's for the ops after it, comparing each checkpoint and output
// with the reference's value on the device's own inputs.
func (c *checker) local(fn *ir.Operation, inputs []*eval.Array, dev Device) error {
	results, err := reference.RunValues(fn, inputs, &reference.Options{Bounds: true, MemoryLimit: c.opts.MemoryLimit,
		After: func(op *ir.Operation, v *tensor.Value) error {
			if k, ok := c.checkpointOf[op]; ok {
				c.compare(c.checkpointName(k, op), "local", dev.Checkpoints[k], *v)
				*v = tensor.Value{Array: dev.Checkpoints[k]}
			}
			return nil
		}})
	if err != nil {
		return err
	}
	c.compareOutputs(results, dev, "local")
	return nil
}

// sourceReplays are the rewrites a check knows how to replay: each changes
// which values the program computes, so the device is checked against
// the source rewritten the same way (values equal in exact arithmetic,
// and each checkpoint's op the one the compiled program computes).
var sourceReplays = map[string]func(fn *ir.Operation) error{
	// matmul-reassociate runs on the decomposed softmax and layer_norm
	// (tiled-prepare), so the replay decomposes them first.
	"matmul-reassociate": func(fn *ir.Operation) error {
		if _, err := tensor.DecomposeIf(fn, func(op *ir.Operation) bool { return op.Is(tensor.SoftmaxOp, tensor.LayerNormOp) }); err != nil {
			return err
		}
		_, err := tensor.Reassociate(fn)
		return err
	},
}

// sourceRewrites are the rewrites pkg's metadata names.
func sourceRewrites(pkg *ipupkg.Package) []string {
	for _, m := range pkg.Metadata {
		if m.Key == ipupkg.MetadataSourceRewrites && m.Value != "" {
			return strings.Split(m.Value, ",")
		}
	}
	return nil
}

// replayRewrites is a clone of fn with the rewrites applied, in order.
func replayRewrites(fn *ir.Operation, rewrites []string) (*ir.Operation, error) {
	clone := fn.Clone(fn.Context(), nil)
	for _, name := range rewrites {
		if ok, err := tensor.ReplayPartials(clone, name); ok {
			if err != nil {
				return nil, fmt.Errorf("replaying %s on the source: %v", name, err)
			}
			continue
		}
		replay, ok := sourceReplays[name]
		if !ok {
			return nil, fmt.Errorf("the package was compiled with the source rewrite '%s', which this checker cannot replay", name)
		}
		if err := replay(clone); err != nil {
			return nil, fmt.Errorf("replaying %s on the source: %v", name, err)
		}
	}
	return clone, nil
}

// computesF64AsF32 reports whether a stream of pkg carries f64 over an
// f32 buffer.
func computesF64AsF32(pkg *ipupkg.Package) bool {
	for _, s := range pkg.Streams {
		if s.Elem == elem.F64 && s.Buffer >= 0 && s.Buffer < len(pkg.Buffers) && pkg.Buffers[s.Buffer].Elem == elem.F32 {
			return true
		}
	}
	return false
}

// fork is a checker with an empty report of its own that shares c's
// read-only state, for one check.
func (c *checker) fork() *checker {
	d := *c
	d.rep = &Report{}
	return &d
}

// merge adds a forked checker's findings to c's report.
func (c *checker) merge(r *Report) {
	c.rep.Compared += r.Compared
	c.rep.Values = append(c.rep.Values, r.Values...)
	c.rep.Failures = append(c.rep.Failures, r.Failures...)
	c.rep.Problems = append(c.rep.Problems, r.Problems...)
	c.rep.Unbounded += r.Unbounded
	c.rep.MaxAbsError = max(c.rep.MaxAbsError, r.MaxAbsError)
	c.rep.MaxRatio = max(c.rep.MaxRatio, r.MaxRatio)
}

type checker struct {
	// replayed are the source rewrites the check replayed (sourceReplays).
	replayed     []string
	opts         Options
	pkg          *ipupkg.Package
	rep          *Report
	checkpointOf map[*ir.Operation]int // source op → checkpoint
	ops          []*ir.Operation       // checkpoint → source op
}

func (c *checker) problem(format string, args ...any) {
	c.rep.Problems = append(c.rep.Problems, fmt.Sprintf(format, args...))
}

// where is op's place in the source, as file:line:col.
func (c *checker) where(op *ir.Operation) string {
	if l, ok := ir.FileLineColOf(op.Loc()); ok {
		file := c.opts.Source
		if file == "" {
			file = l.File
		}
		return fmt.Sprintf("%s:%d:%d", file, l.Line, l.Col)
	}
	return "an unknown place"
}

// checkpointName names checkpoint k, which samples op, in messages and
// logs: by what the source calls it (the package's name for it, when that
// is not just the op and its place), the op and where it is.
func (c *checker) checkpointName(k int, op *ir.Operation) string {
	what := op.Name() + " at " + c.where(op)
	if n := c.pkg.Checkpoints[k].Name; n != "" && !strings.HasPrefix(n, op.Name()+"@") {
		what = n + ": " + what
	}
	if len(c.replayed) > 0 {
		// The op is the rewritten source's: say so, since the source as
		// written has another op there (a mul where the product is now
		// scaled).
		return fmt.Sprintf("checkpoint %d (%s, in the source as %s rewrote it)", k, what, strings.Join(c.replayed, ", "))
	}
	return fmt.Sprintf("checkpoint %d (%s)", k, what)
}

// matchCheckpoints finds each checkpoint's op: the last op of the source
// at the checkpoint's line and column whose result has the type of the
// checkpoint's buffer.
func (c *checker) matchCheckpoints(body *ir.Block, dev Device) {
	c.ops = make([]*ir.Operation, len(c.pkg.Checkpoints))
	for k, cp := range c.pkg.Checkpoints {
		buf := c.pkg.Buffers[cp.Buffer]
		for _, op := range body.Ops() {
			l, ok := ir.FileLineColOf(op.Loc())
			if !ok || l.Line != cp.Line || l.Col != cp.Column || op.NumResults() != 1 {
				continue
			}
			rt, ok := op.Result(0).Type().(*ir.RankedTensorType)
			et, known := irelem.Of(ir.ElementTypeOrSelf(op.Result(0).Type()))
			if ok && known && (ipupkg.Stream{Elem: et}).Carries(buf.Elem) && slices.Equal(rt.Dims, cp.SourceShape(buf.Shape)) {
				c.ops[k] = op
			}
		}
		switch {
		case c.ops[k] == nil:
			c.problem("checkpoint %d (%s) names no op of the source at %d:%d with its buffer's type (%v %v)", k, cp.Name, cp.Line, cp.Column, buf.Elem, cp.SourceShape(buf.Shape))
		case k >= len(dev.Checkpoints) || dev.Checkpoints[k] == nil:
			c.problem("checkpoint %d (%s) was not taken by the device", k, cp.Name)
			c.ops[k] = nil
		default:
			// A value the device computes in another type (i64 as i32, f64 as f32)
			// is compared, and evaluated on, in the source's.
			if et, _ := irelem.Of(ir.ElementTypeOrSelf(c.ops[k].Result(0).Type())); dev.Checkpoints[k].Kind != et {
				if wide, err := eval.Convert(dev.Checkpoints[k], et); err == nil {
					dev.Checkpoints[k] = wide
				}
			}
			if prev, dup := c.checkpointOf[c.ops[k]]; dup {
				c.problem("checkpoints %d and %d name the same op (%s at %s)", prev, k, c.ops[k].Name(), c.where(c.ops[k]))
			}
			c.checkpointOf[c.ops[k]] = k
		}
	}
}

// requireCheckpoints says which computed values of the source have no
// checkpoint. A value needs one when it has a place in the source, is
// computed from the function's inputs and reaches a result, unless the
// compiler had nothing of its own to store: its value is bit for bit one
// it was computed from (a fold: x·1, a transpose of a transpose), or its
// op is the same operation on the same operands as a checkpointed one (the
// two were merged).
func (c *checker) requireCheckpoints(body *ir.Block, hashes map[*ir.Value]uint64) {
	live := liveValues(body)
	// The pieces of a decomposed op share its location: its checkpoint
	// covers them all.
	checkpointed := map[[2]int]bool{}
	for op := range c.checkpointOf {
		if l, ok := ir.FileLineColOf(op.Loc()); ok {
			checkpointed[[2]int{l.Line, l.Col}] = true
		}
	}
	fromInputs := map[*ir.Value]bool{}
	for _, a := range body.Arguments() {
		fromInputs[a] = true
	}
	// ancestors[v] are the hashes of every value v was computed from.
	ancestors := map[*ir.Value]map[uint64]bool{}
	for _, op := range body.Ops() {
		if op.HasTrait(ir.TraitReturnLike) || op.NumResults() != 1 {
			continue
		}
		r := op.Result(0)
		from := map[uint64]bool{}
		for _, v := range op.Operands() {
			fromInputs[r] = fromInputs[r] || fromInputs[v]
			from[hashes[v]] = true
			for h := range ancestors[v] {
				from[h] = true
			}
		}
		ancestors[r] = from
		if _, has := c.checkpointOf[op]; has || !fromInputs[r] || !live[r] {
			continue
		}
		l, ok := ir.FileLineColOf(op.Loc())
		if !ok || checkpointed[[2]int{l.Line, l.Col}] || convertsOnHostOnly(op) || convertsTextOnHost(op) {
			continue
		}
		if from[hashes[r]] || c.mergedWithChecked(op) {
			continue
		}
		// A transpose only rearranges its operand, and sink-transposes
		// cancels it against another: nothing of its own is stored. Its
		// users' checkpoints are evaluated on it (locally, from its
		// operand's checkpoint), so an element moved wrong still fails
		// there.
		if op.Is(tensor.TransposeOp) {
			continue
		}
		c.problem("the package has no checkpoint for %s at %s: every value the source computes from its inputs has one", op.Name(), c.where(op))
	}
}

// convertsOnHostOnly says whether op is a conversion between two types
// the machines compute in one (f64 and f32, bf16 and f32): the device holds
// one value for both, the operand's, checked there, and the conversion
// happens where the host reads an output. A program that keeps binary64
// (irtarget.KeepsBinary64) computes its conversions from f64 on the device.
func convertsOnHostOnly(op *ir.Operation) bool {
	if !op.Is(tensor.ConvertOp) || op.NumOperands() != 1 {
		return false
	}
	from, ok1 := irelem.Of(ir.ElementTypeOrSelf(op.Operand(0).Type()))
	to, ok2 := irelem.Of(ir.ElementTypeOrSelf(op.Result(0).Type()))
	if binary64, _ := irtarget.KeepsBinary64(op); binary64 && (from == elem.F64 || to == elem.F64) {
		return false
	}
	return ok1 && ok2 && ipupkg.ComputedAs(from) == ipupkg.ComputedAs(to)
}

// convertsTextOnHost says whether op is a string conversion the host
// makes at a stream (host-strings): a string_parse of an argument, or a
// string_format whose value is only returned.
func convertsTextOnHost(op *ir.Operation) bool {
	switch {
	case op.Is(tensor.StringParseOp):
		return op.Operand(0).IsBlockArgument()
	case op.Is(tensor.StringFormatOp):
		for _, u := range op.Result(0).Users() {
			if !u.HasTrait(ir.TraitReturnLike) {
				return false
			}
		}
		return true
	}
	return false
}

// mergedWithChecked says whether a checkpointed op computes the same
// operation as op on the same operands.
func (c *checker) mergedWithChecked(op *ir.Operation) bool {
	for other := range c.checkpointOf {
		if other.Name() == op.Name() && slices.Equal(other.Operands(), op.Operands()) &&
			slices.Equal(other.ResultTypes(), op.ResultTypes()) && attrsText(other) == attrsText(op) {
			return true
		}
	}
	return false
}

// attrsText is every attribute of op, printed (for comparing two ops).
func attrsText(op *ir.Operation) string {
	var b strings.Builder
	for _, a := range op.AllAttrs() {
		b.WriteString(a.Name + "=" + ir.AttrString(a.Value) + ";")
	}
	return b.String()
}

// liveValues are the values a result of body depends on.
func liveValues(body *ir.Block) map[*ir.Value]bool {
	var results []*ir.Value
	if term := body.Last(); term != nil {
		results = term.Operands()
	}
	return ir.BackwardSlice(results, nil)
}

func (c *checker) compareOutputs(results []tensor.Value, dev Device, check string) {
	if len(results) != len(dev.Outputs) {
		c.problem("the function returns %d results, but the device delivered %d outputs", len(results), len(dev.Outputs))
		return
	}
	for i, r := range results {
		c.compare(fmt.Sprintf("output #%d", i), check, dev.Outputs[i], r)
	}
}

// compare compares a device's array with the reference's value.
func (c *checker) compare(what, check string, got *eval.Array, want tensor.Value) {
	if want.Array.IsStrings() || (got != nil && got.IsStrings()) {
		c.compareStrings(what, check, got, want.Array)
		return
	}
	if got == nil || len(got.Data) != len(want.Array.Data) {
		n := 0
		if got != nil {
			n = len(got.Data)
		}
		c.problem("%s: the device's value has %d elements, the reference's %d", what, n, len(want.Array.Data))
		return
	}
	n := len(got.Data)
	samples := n
	if c.opts.SampleLimit > 0 && c.opts.SampleLimit < n {
		samples = c.opts.SampleLimit
	}
	f := Failure{What: what, Check: check, Compared: samples}
	v := Compared{What: what, Check: check, Elements: samples}
	for s := range samples {
		i := s
		if samples < n {
			i = int(int64(s) * int64(n) / int64(samples))
		}
		d, r := got.Data[i], want.Array.Data[i]
		b := 0.0
		if want.Bound != nil {
			b = want.Bound.Data[i]
		}
		if math.IsNaN(b) {
			b = math.Inf(1)
		}
		if math.IsInf(b, 1) && check == "end-to-end" {
			c.rep.Unbounded++
		}
		allowed := b + c.opts.Atol + c.opts.Rtol*math.Abs(r)
		var ok bool
		err := math.Abs(d - r)
		switch {
		case math.IsNaN(r):
			ok, err = math.IsNaN(d), 0
		case math.IsInf(r, 0):
			ok, err = d == r, 0
		default:
			ok = err <= allowed
		}
		if !math.IsNaN(err) && !math.IsInf(err, 0) {
			v.MaxAbsError = max(v.MaxAbsError, err)
		}
		switch {
		case err == 0:
		case allowed > 0:
			v.MaxRatio = max(v.MaxRatio, err/allowed)
		default:
			v.MaxRatio = math.Inf(1)
		}
		if !ok {
			if f.Bad == 0 {
				f.Index, f.Coord, f.Device, f.Reference, f.Bound = i, coord(got.Shape, i), d, r, allowed
			}
			f.Bad++
		}
	}
	c.rep.Compared += int64(samples)
	c.rep.Values = append(c.rep.Values, v)
	if check == "end-to-end" {
		c.rep.MaxAbsError = max(c.rep.MaxAbsError, v.MaxAbsError)
	}
	c.rep.MaxRatio = max(c.rep.MaxRatio, v.MaxRatio)
	if f.Bad > 0 {
		c.rep.Failures = append(c.rep.Failures, f)
	}
}

// compareStrings compares text (an output the host formats) exactly:
// the host and the reference write numbers by the same rules.
func (c *checker) compareStrings(what, check string, got, want *eval.Array) {
	if got == nil || !got.IsStrings() || !want.IsStrings() || len(got.Strs) != len(want.Strs) {
		c.problem("%s: the device's value is not the reference's %s", what, want.TypeString())
		return
	}
	bad, first := 0, -1
	for i, s := range got.Strs {
		if s != want.Strs[i] {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	c.rep.Compared += int64(len(got.Strs))
	c.rep.Values = append(c.rep.Values, Compared{What: what, Check: check, Elements: len(got.Strs)})
	if bad > 0 {
		c.problem("%s (%s): %d of %d strings differ; the first, element %d, is %q on the device and %q in the reference",
			what, check, bad, len(got.Strs), first, got.Strs[first], want.Strs[first])
	}
}

// coord is row-major index i of shape as a multi-index.
func coord(shape []int, i int) []int {
	out := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			out[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return out
}

func nonFinite(a *eval.Array) (nan, inf int) {
	for _, v := range a.Data {
		switch {
		case math.IsNaN(v):
			nan++
		case math.IsInf(v, 0):
			inf++
		}
	}
	return nan, inf
}

var seed = maphash.MakeSeed()

// hashOf identifies an array's elements bit for bit.
func hashOf(a *eval.Array) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [8]byte
	for _, s := range a.Strs {
		h.WriteString(s)
		h.WriteByte(0)
	}
	for _, v := range a.Data {
		u := math.Float64bits(v)
		for k := range b {
			b[k] = byte(u >> (8 * k))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// Summary is the verdict line and, on FAIL, why, for a tool to print.
func (r *Report) Summary() string {
	lines := append([]string{r.Line()}, r.Explain()...)
	for _, s := range r.NonFinite {
		lines = append(lines, "note: "+s)
	}
	return strings.Join(lines, "\n")
}
