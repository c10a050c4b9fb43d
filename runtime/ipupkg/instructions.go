package ipupkg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/internal/enum"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/layout/movement"
)

// The package's instruction set, as Go's compiler declares its opcodes:
// each instruction once in Instructions, with its operands and parameters,
// and everything else derived from it: the opcode names, the reader's
// validation of every parameter (checkParams), the dump's listing, and the
// typed accessors the device reads parameters with. The parameter keys
// are the package's own names, not the IR's: pkgemit maps each tile-asm
// attribute to one explicitly, so renaming an IR attribute cannot change
// the file format.

// ParamKind is what a parameter holds.
type ParamKind uint8

// The parameter kinds.
const (
	IntParam    ParamKind = iota + 1 // one integer
	IntsParam                        // a list of integers
	StringParam                      // a string
	FlagParam                        // present or absent; holds nothing
)

var paramKindNames = []string{IntParam: "an integer", IntsParam: "a list of integers", StringParam: "a string", FlagParam: "a flag"}

func (k ParamKind) String() string { return enum.Name(k, paramKindNames, "ParamKind") }

// ParamSpec declares one parameter of an instruction or a view.
type ParamSpec struct {
	Key      string
	Kind     ParamKind
	Required bool
	// Min is the least value of each integer (IntParam, IntsParam).
	Min int64
	// Len is a list's exact length (IntsParam); 0 is any length.
	Len int
	// Words are the values a string may take (StringParam); nil is any.
	Words func() []string
	Doc   string
}

// InstructionSpec declares one instruction.
type InstructionSpec struct {
	Op   Opcode
	Name string
	// MinOperands and MaxOperands bound its buffers (the output last);
	// MaxOperands -1 is no bound.
	MinOperands, MaxOperands int
	Params                   []ParamSpec
	// Dropped are parameters versions 1 and 2 wrote that the instruction
	// no longer takes; reading those versions drops them.
	Dropped []string
	// InExchange says the instruction runs in its superstep's exchange,
	// after the sync (bsp.Exchange); the others compute.
	InExchange bool
	Doc        string
}

// The parameter keys.
const (
	ParamPlan        = "plan"
	ParamBlocks      = "blocks"
	ParamPartial     = "partial"
	ParamPartials    = "partials"
	ParamFn          = "fn"
	ParamAxes        = "axes"
	ParamMovement    = "kind"
	ParamExchange    = "exchange"
	ParamPermutation = "permutation"
	ParamDimensions  = "dimensions"
	ParamOffsets     = "offsets"
	ParamSizes       = "sizes"
	ParamStrides     = "strides"
	ParamAxis        = "axis"
)

// MovementParams are the parameters of a copy's or a view's movement
// (layout/movement.Params, by key); its kind is the copy's kind parameter
// or the view's ViewKind.
var MovementParams = []ParamSpec{
	{Key: ParamPermutation, Kind: IntsParam, Doc: "transpose: result axis i is operand axis permutation[i]"},
	{Key: ParamDimensions, Kind: IntsParam, Doc: "broadcast: operand axis i becomes result axis dimensions[i]"},
	{Key: ParamOffsets, Kind: IntsParam, Doc: "slice: the first index taken on each axis"},
	{Key: ParamSizes, Kind: IntsParam, Doc: "slice: how many indices are taken on each axis (the result's shape)"},
	{Key: ParamStrides, Kind: IntsParam, Min: 1, Doc: "slice: the step between indices taken on each axis"},
	{Key: ParamAxis, Kind: IntParam, Doc: "concat: the axis the operands are joined along"},
}

// movementKinds are the movements a copy or view names.
func movementKinds() []string {
	var names []string
	for _, k := range movement.Kinds {
		names = append(names, k.Name)
	}
	return names
}

func fnNames() []string { return kernel.FnNames() }

func partialsTypes() []string { return []string{"f32", "f16"} }

func reductionNames() []string {
	var names []string
	for _, r := range kernel.Reductions {
		names = append(names, r.Name)
	}
	return names
}

// Instructions are the instruction set, by opcode.
var Instructions = []InstructionSpec{
	{Op: OpAmp, Name: "amp", MinOperands: 3, MaxOperands: 3, Doc: "a matmul piece on the AMP unit: lhs, rhs, output", Params: []ParamSpec{
		{Key: ParamPlan, Kind: IntsParam, Required: true, Len: 8, Min: 0,
			Doc: "the GEMM plan: orientation (PlanNormal or PlanSwapped), batch, row, column and inner partitions, result row and column partitions, output column block"},
		{Key: ParamBlocks, Kind: IntsParam, Len: 3, Min: 0, Doc: "the AMP blocks of the tile's piece: row, inner and column groups"},
		{Key: ParamPartial, Kind: FlagParam, Doc: "the output holds one partial sum per inner partition (its first axis)"},
		{Key: ParamPartials, Kind: StringParam, Words: partialsTypes, Doc: "the type the AMP keeps partial sums in between blocks of 16 inputs: f32 (the default when absent) or f16"},
	}},
	{Op: OpVector, Name: "vector", MinOperands: 2, MaxOperands: -1, Doc: "an elementwise function of the kernel table: inputs, output", Params: []ParamSpec{
		{Key: ParamFn, Kind: StringParam, Required: true, Words: fnNames, Doc: "the function (kernel.Fns)"},
	}},
	{Op: OpReduce, Name: "reduce", MinOperands: 2, MaxOperands: 2, Doc: "each tile's piece reduced along axes: input, output", Params: []ParamSpec{
		{Key: ParamFn, Kind: StringParam, Required: true, Words: reductionNames, Doc: "the reduction (kernel.Reductions)"},
		{Key: ParamAxes, Kind: IntsParam, Required: true, Min: 0, Doc: "the axes reduced"},
	}},
	{Op: OpCopy, Name: "copy", MinOperands: 2, MaxOperands: -1, Doc: "a data movement on each tile: inputs, output", Params: append([]ParamSpec{
		{Key: ParamMovement, Kind: StringParam, Required: true, Words: movementKinds, Doc: "the movement (layout/movement.Kinds)"},
	}, MovementParams...)},
	{Op: OpExchange, Name: "exchange", MinOperands: 2, MaxOperands: -1, Doc: "an exchange phase: sources, destination", Params: []ParamSpec{
		{Key: ParamExchange, Kind: IntParam, Required: true, Min: 0, Doc: "the phase's exchange table (an index into Exchanges)"},
	}, Dropped: []string{"phase", "source_offsets", "source_strides"}, InExchange: true}, // in the exchange table
	{Op: OpSync, Name: "sync", MinOperands: 0, MaxOperands: 0, Doc: "an all-tile synchronisation"},
	{Op: OpStreamIn, Name: "stream-in", MinOperands: 1, MaxOperands: 1, InExchange: true,
		Doc: "a load from the chip's streaming memory, in its superstep's exchange: the buffer of the input stream the host wrote there, filled from this step"},
}

// Spec returns the instruction's declaration.
func (o Opcode) Spec() (*InstructionSpec, bool) {
	for i := range Instructions {
		if Instructions[i].Op == o {
			return &Instructions[i], true
		}
	}
	return nil, false
}

func (o Opcode) String() string {
	if s, ok := o.Spec(); ok {
		return s.Name
	}
	return "opcode " + itoa(int64(o))
}

// checkParams checks params against specs: every key declared, once, of
// its kind, length and range, with a string among its words, and every
// required parameter present.
func checkParams(params []Param, specs []ParamSpec) error {
	seen := map[string]bool{}
	for _, pr := range params {
		i := slices.IndexFunc(specs, func(s ParamSpec) bool { return s.Key == pr.Key })
		if i < 0 {
			keys := make([]string, len(specs))
			for k, s := range specs {
				keys[k] = s.Key
			}
			if len(keys) == 0 {
				return fmt.Errorf("parameter '%s', but it takes none", pr.Key)
			}
			return fmt.Errorf("unknown parameter '%s' (it takes %s)", pr.Key, strings.Join(keys, ", "))
		}
		if seen[pr.Key] {
			return fmt.Errorf("parameter '%s' given twice", pr.Key)
		}
		seen[pr.Key] = true
		if err := specs[i].check(pr); err != nil {
			return fmt.Errorf("parameter '%s': %v", pr.Key, err)
		}
	}
	for _, s := range specs {
		if s.Required && !seen[s.Key] {
			return fmt.Errorf("no '%s' parameter (%s)", s.Key, s.Doc)
		}
	}
	return nil
}

func (s *ParamSpec) check(pr Param) error {
	switch s.Kind {
	case StringParam:
		if !pr.IsString {
			return fmt.Errorf("integers %v where %s is wanted", pr.Ints, s.Kind)
		}
		if s.Words != nil {
			if words := s.Words(); !slices.Contains(words, pr.Str) {
				return fmt.Errorf("unknown value '%s' (known: %s)", pr.Str, strings.Join(words, ", "))
			}
		}
		return nil
	case FlagParam:
		if pr.IsString || len(pr.Ints) > 0 {
			return fmt.Errorf("a value where a flag, which holds none, is wanted")
		}
		return nil
	}
	if pr.IsString {
		return fmt.Errorf("string %q where %s is wanted", pr.Str, s.Kind)
	}
	switch {
	case s.Kind == IntParam && len(pr.Ints) != 1:
		return fmt.Errorf("%d integers where one is wanted", len(pr.Ints))
	case s.Kind == IntsParam && s.Len > 0 && len(pr.Ints) != s.Len:
		return fmt.Errorf("%d integers where %d are wanted", len(pr.Ints), s.Len)
	case len(pr.Ints) > MaxRank && s.Len == 0:
		return fmt.Errorf("%d integers (at most %d)", len(pr.Ints), MaxRank)
	}
	for _, v := range pr.Ints {
		if v < s.Min {
			return fmt.Errorf("%d is below the least value %d", v, s.Min)
		}
	}
	return nil
}

// Int is the integer parameter key (0 when absent: the reader has checked
// the required ones).
func (in *Instruction) Int(key string) int64 {
	if pr, ok := in.Param(key); ok && len(pr.Ints) == 1 {
		return pr.Ints[0]
	}
	return 0
}

// Ints is the list parameter key (nil when absent).
func (in *Instruction) Ints(key string) []int64 {
	pr, _ := in.Param(key)
	return pr.Ints
}

// Str is the string parameter key ("" when absent).
func (in *Instruction) Str(key string) string {
	pr, _ := in.Param(key)
	return pr.Str
}

// Flag reports whether the flag parameter key is present.
func (in *Instruction) Flag(key string) bool {
	_, ok := in.Param(key)
	return ok
}

// Movement is the movement a copy's or a view's parameters describe.
func Movement(params []Param) movement.Params {
	get := func(key string) []int64 {
		for _, pr := range params {
			if pr.Key == key {
				return pr.Ints
			}
		}
		return nil
	}
	p := movement.Params{Permutation: get(ParamPermutation), Dimensions: get(ParamDimensions),
		Offsets: get(ParamOffsets), Sizes: get(ParamSizes), Strides: get(ParamStrides)}
	if a := get(ParamAxis); len(a) == 1 {
		p.Axis, p.HasAxis = a[0], true
	}
	return p
}

// FormatParams writes parameters declared by specs as the dump lists
// them: key=value, a flag by its key alone.
func FormatParams(params []Param, specs []ParamSpec) string {
	var parts []string
	for _, pr := range params {
		kind := IntsParam
		if i := slices.IndexFunc(specs, func(s ParamSpec) bool { return s.Key == pr.Key }); i >= 0 {
			kind = specs[i].Kind
		}
		switch {
		case pr.IsString:
			parts = append(parts, pr.Key+"="+pr.Str)
		case kind == FlagParam:
			parts = append(parts, pr.Key)
		case kind == IntParam && len(pr.Ints) == 1:
			parts = append(parts, pr.Key+"="+itoa(pr.Ints[0]))
		default:
			parts = append(parts, pr.Key+"="+movement.FormatInts(pr.Ints))
		}
	}
	return strings.Join(parts, " ")
}
