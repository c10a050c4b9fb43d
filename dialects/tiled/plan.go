package tiled

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/ipuir/ipuir/ir"
)

// Orientation says which operand the AMP streams as rows.
type Orientation uint8

const (
	// Normal computes C = A·B with A's rows as AMP rows.
	Normal Orientation = iota
	// Swapped computes Cᵀ = Bᵀ·Aᵀ: B's columns become AMP rows, and C is
	// stored as transposed-matrix blocks. It pays when C has more columns
	// than rows, since the AMP fit rewards many rows per tile.
	Swapped
)

// ReductionStaging says how partial sums over inner partitions are combined.
type ReductionStaging uint8

const (
	// Complete: one exchange phase in which each owner of a piece of the
	// result receives every other inner partition's partial piece at once.
	// Fewest syncs; the most receive buffer.
	Complete ReductionStaging = iota
	// Pairwise: recursive halving in ⌈log2 inner⌉ phases, each receiving at
	// most half of what is left. More syncs; half the receive buffer.
	Pairwise
)

// WeightStaging says how the AMP reaches its right operand (weights).
type WeightStaging uint8

const (
	// Direct: the AMP loads weights from where they are stored.
	Direct WeightStaging = iota
	// Staged: weights are copied, one column group at a time, into an
	// interleaved scratch buffer that allows 128-bit loads.
	Staged
)

// GemmPlan is how one matmul is partitioned over tiles. Partition counts are
// in AMP terms: rows are the AMP's streamed rows (A's rows when Normal, B's
// columns when Swapped), columns the other result axis, inner the reduced
// axis. The tile grid is batch × rows × inner × columns; the result of each
// (batch, row, column) cell is reduced over its inner partitions and left
// cut into result_row_partitions × result_column_partitions pieces, each on
// one of the cell's inner tiles.
type GemmPlan struct {
	Orientation      Orientation
	BatchPartitions  int64
	RowPartitions    int64
	ColumnPartitions int64
	InnerPartitions  int64
	// InnerSteps cuts each tile's inner range into serial steps (a
	// temporal split): in step s every tile of the grid receives the s-th
	// slice of its operand blocks and accumulates its product, so a tile
	// holds one slice at a time instead of its whole blocks. The operands
	// then live spread over the tiles (DefaultLayout) between steps. 1 is
	// a purely spatial plan; the attribute omits it.
	InnerSteps             int64
	ResultRowPartitions    int64
	ResultColumnPartitions int64
	// OutputColumnBlock is the block size of the result's column axis: AMP
	// column groups are written whole, so it is a multiple of 16 in any plan
	// the planner proposes.
	OutputColumnBlock int64
	// WeightMemoryClass names the target memory class of the AMP's right
	// operand.
	WeightMemoryClass  string
	ReductionStaging   ReductionStaging
	LocalWeightStaging WeightStaging
}

// Tiles is the number of tiles the plan's grid occupies.
func (p *GemmPlan) Tiles() int64 {
	return satMul(satMul(satMul(p.BatchPartitions, p.RowPartitions), p.ColumnPartitions), p.InnerPartitions)
}

// planField numbers the fields of a plan, in their printed order.
type planField uint8

const (
	fieldOrientation planField = iota
	fieldBatch
	fieldRows
	fieldColumns
	fieldInner
	fieldInnerSteps
	fieldResultRows
	fieldResultColumns
	fieldOutputColumnBlock
	fieldWeightMemoryClass
	fieldReductionStaging
	fieldLocalWeightStaging
	numPlanFields
)

var planFieldNames = [numPlanFields]string{"orientation", "batch_partitions", "row_partitions", "column_partitions",
	"inner_partitions", "inner_steps", "result_row_partitions", "result_column_partitions", "output_column_block",
	"weight_memory_class", "reduction_staging", "local_weight_staging"}

// enumWords are the spellings of the enumerated fields, syntax and log.
var (
	orientationWords = [...]string{"normal", "swapped"}
	orientationDebug = [...]string{"Normal", "Swapped"}
	reductionWords   = [...]string{"complete", "pairwise"}
	reductionDebug   = [...]string{"Complete", "Pairwise"}
	stagingWords     = [...]string{"direct", "staged"}
	stagingDebug     = [...]string{"Direct", "Staged"}
)

func (o Orientation) String() string      { return enumWord(orientationWords[:], int(o)) }
func (r ReductionStaging) String() string { return enumWord(reductionWords[:], int(r)) }
func (s WeightStaging) String() string    { return enumWord(stagingWords[:], int(s)) }

func enumWord(words []string, i int) string {
	if i < len(words) {
		return words[i]
	}
	return "invalid"
}

func (p *GemmPlan) intField(f planField) *int64 {
	switch f {
	case fieldBatch:
		return &p.BatchPartitions
	case fieldRows:
		return &p.RowPartitions
	case fieldColumns:
		return &p.ColumnPartitions
	case fieldInner:
		return &p.InnerPartitions
	case fieldInnerSteps:
		return &p.InnerSteps
	case fieldResultRows:
		return &p.ResultRowPartitions
	case fieldResultColumns:
		return &p.ResultColumnPartitions
	case fieldOutputColumnBlock:
		return &p.OutputColumnBlock
	}
	return nil
}

// fieldText writes one field's value in the attribute syntax (debug=false)
// or the log's notation (debug=true).
func (p *GemmPlan) fieldText(f planField, debug bool) string {
	pick := func(words, debugWords []string, i int) string {
		if debug {
			return enumWord(debugWords, i)
		}
		return enumWord(words, i)
	}
	switch f {
	case fieldOrientation:
		return pick(orientationWords[:], orientationDebug[:], int(p.Orientation))
	case fieldWeightMemoryClass:
		return p.WeightMemoryClass
	case fieldReductionStaging:
		return pick(reductionWords[:], reductionDebug[:], int(p.ReductionStaging))
	case fieldLocalWeightStaging:
		return pick(stagingWords[:], stagingDebug[:], int(p.LocalWeightStaging))
	}
	return strconv.FormatInt(*p.intField(f), 10)
}

func (p *GemmPlan) fieldsEqual(o *GemmPlan, f planField) bool {
	switch f {
	case fieldOrientation:
		return p.Orientation == o.Orientation
	case fieldWeightMemoryClass:
		return p.WeightMemoryClass == o.WeightMemoryClass
	case fieldReductionStaging:
		return p.ReductionStaging == o.ReductionStaging
	case fieldLocalWeightStaging:
		return p.LocalWeightStaging == o.LocalWeightStaging
	}
	return *p.intField(f) == *o.intField(f)
}

// String is the plan's attribute body.
func (p *GemmPlan) String() string {
	w := &fieldWriter{}
	for f := planField(0); f < numPlanFields; f++ {
		if f != fieldInnerSteps || p.InnerSteps > 1 {
			w.raw(planFieldNames[f], p.fieldText(f, false))
		}
	}
	return w.String()
}

// DebugString renders the plan in the log's notation: `GemmPlan { ... }`.
func (p *GemmPlan) DebugString() string {
	var parts []string
	for f := planField(0); f < numPlanFields; f++ {
		if f != fieldInnerSteps || p.InnerSteps > 1 {
			parts = append(parts, planFieldNames[f]+": "+p.fieldText(f, true))
		}
	}
	return "GemmPlan { " + strings.Join(parts, ", ") + " }"
}

// GemmConstraint pins any subset of a plan's fields.
type GemmConstraint struct {
	// Values holds the pinned values; other fields are ignored.
	Values GemmPlan
	pinned uint16
	// SourceOperation, when not negative, names the matmul the constraint
	// is for: its index among the matmuls plan-gemms visits, in walk order
	// (the log's source_operation). Constraints attached to an op leave it -1.
	SourceOperation int64
}

// Pin pins field name (a plan field's syntax name) to the value of that
// field in v. It reports false for an unknown name.
func (c *GemmConstraint) Pin(name string, v *GemmPlan) bool {
	for f := planField(0); f < numPlanFields; f++ {
		if planFieldNames[f] == name {
			c.pinned |= 1 << f
			c.copyField(f, v)
			return true
		}
	}
	return false
}

func (c *GemmConstraint) copyField(f planField, v *GemmPlan) {
	switch f {
	case fieldOrientation:
		c.Values.Orientation = v.Orientation
	case fieldWeightMemoryClass:
		c.Values.WeightMemoryClass = v.WeightMemoryClass
	case fieldReductionStaging:
		c.Values.ReductionStaging = v.ReductionStaging
	case fieldLocalWeightStaging:
		c.Values.LocalWeightStaging = v.LocalWeightStaging
	default:
		*c.Values.intField(f) = *v.intField(f)
	}
}

// IsPinned reports whether the field with the given syntax name is pinned.
func (c *GemmConstraint) IsPinned(name string) bool {
	for f := planField(0); f < numPlanFields; f++ {
		if planFieldNames[f] == name {
			return c.pinned&(1<<f) != 0
		}
	}
	return false
}

// Empty reports whether nothing is pinned.
func (c *GemmConstraint) Empty() bool { return c.pinned == 0 }

// Matches reports whether p agrees with every pinned field.
func (c *GemmConstraint) Matches(p *GemmPlan) bool {
	for f := planField(0); f < numPlanFields; f++ {
		if c.pinned&(1<<f) != 0 && !c.Values.fieldsEqual(p, f) {
			return false
		}
	}
	return true
}

// PinnedInt returns the pinned value of an integer field, if pinned.
func (c *GemmConstraint) PinnedInt(name string) (int64, bool) {
	for f := planField(0); f < numPlanFields; f++ {
		if planFieldNames[f] == name && c.pinned&(1<<f) != 0 {
			if v := c.Values.intField(f); v != nil {
				return *v, true
			}
		}
	}
	return 0, false
}

// String is the constraint's attribute body: the pinned fields only.
func (c *GemmConstraint) String() string {
	w := &fieldWriter{}
	if c.SourceOperation >= 0 {
		w.int("source_operation", c.SourceOperation)
	}
	for f := planField(0); f < numPlanFields; f++ {
		if c.pinned&(1<<f) != 0 {
			w.raw(planFieldNames[f], c.Values.fieldText(f, false))
		}
	}
	return w.String()
}

// DebugString renders the constraint as the log does:
// `GemmPlanConstraint { source_operation: 2, orientation: Swapped, ... }`.
func (c *GemmConstraint) DebugString() string {
	var parts []string
	if c.SourceOperation >= 0 {
		parts = append(parts, "source_operation: "+strconv.FormatInt(c.SourceOperation, 10))
	}
	for f := planField(0); f < numPlanFields; f++ {
		if c.pinned&(1<<f) != 0 {
			parts = append(parts, planFieldNames[f]+": "+c.Values.fieldText(f, true))
		}
	}
	if len(parts) == 0 {
		return "GemmPlanConstraint { }"
	}
	return "GemmPlanConstraint { " + strings.Join(parts, ", ") + " }"
}

// GemmPlanAttr is #tiled.gemm_plan<...>, every field written:
//
//	#tiled.gemm_plan<orientation = swapped, batch_partitions = 1, row_partitions = 16,
//	  column_partitions = 46, inner_partitions = 2, result_row_partitions = 1,
//	  result_column_partitions = 1, output_column_block = 16,
//	  weight_memory_class = Ipu21Standard, reduction_staging = complete,
//	  local_weight_staging = direct>
type GemmPlanAttr struct{ Plan GemmPlan }

// NewGemmPlanAttr uniques p as an attribute.
func NewGemmPlanAttr(ctx *ir.Context, p GemmPlan) *GemmPlanAttr {
	return ir.UniqueAttr(ctx, &GemmPlanAttr{Plan: p})
}

func (a *GemmPlanAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#tiled.gemm_plan<")
	p.WriteString(a.Plan.String())
	p.WriteString(">")
}

// GemmConstraintAttr is #tiled.gemm_constraint<...> with any subset of the
// plan's fields, e.g. #tiled.gemm_constraint<orientation = swapped,
// inner_partitions = 2>. Attached to a matmul as `tiled.constraint`, it pins
// that matmul's plan.
type GemmConstraintAttr struct{ Constraint GemmConstraint }

// NewGemmConstraintAttr uniques c as an attribute.
func NewGemmConstraintAttr(ctx *ir.Context, c GemmConstraint) *GemmConstraintAttr {
	return ir.UniqueAttr(ctx, &GemmConstraintAttr{Constraint: c})
}

func (a *GemmConstraintAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#tiled.gemm_constraint<")
	p.WriteString(a.Constraint.String())
	p.WriteString(">")
}

// planFieldsFromSyntax reads plan fields from f into p and returns the mask
// of fields given; with all set, every field is required.
func planFieldsFromSyntax(f *fieldSet, p *GemmPlan, all bool) (uint16, error) {
	var given uint16
	for fld := planField(0); fld < numPlanFields; fld++ {
		name := planFieldNames[fld]
		if !f.has(name) {
			if all && fld != fieldBatch && fld != fieldInnerSteps {
				return 0, f.missing(name, "")
			}
			continue
		}
		given |= 1 << fld
		var err error
		switch fld {
		case fieldOrientation:
			var w string
			w, err = f.word(name, true, orientationWords[:]...)
			p.Orientation = Orientation(indexOf(orientationWords[:], w))
		case fieldReductionStaging:
			var w string
			w, err = f.word(name, true, reductionWords[:]...)
			p.ReductionStaging = ReductionStaging(indexOf(reductionWords[:], w))
		case fieldLocalWeightStaging:
			var w string
			w, err = f.word(name, true, stagingWords[:]...)
			p.LocalWeightStaging = WeightStaging(indexOf(stagingWords[:], w))
		case fieldWeightMemoryClass:
			p.WeightMemoryClass, err = f.word(name, true)
		default:
			*p.intField(fld), err = f.positive(name, 0, true)
		}
		if err != nil {
			return 0, err
		}
	}
	if all && given&(1<<fieldBatch) == 0 {
		p.BatchPartitions = 1
	}
	if all && given&(1<<fieldInnerSteps) == 0 {
		p.InnerSteps = 1
	}
	return given, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return 0
}

func planFromSyntax(args *syntaxArgs) (GemmPlan, error) {
	var p GemmPlan
	f, err := newFieldSet("#tiled.gemm_plan", lexer.Position{}, args)
	if err != nil {
		return p, err
	}
	if _, err := planFieldsFromSyntax(f, &p, true); err != nil {
		return p, err
	}
	return p, f.done(planFieldNames[:]...)
}

// constraintFromSyntax reads a constraint body; allowSource admits
// source_operation (pass options name their matmul with it).
func constraintFromSyntax(what string, args *syntaxArgs, allowSource bool) (GemmConstraint, error) {
	c := GemmConstraint{SourceOperation: -1}
	f, err := newFieldSet(what, lexer.Position{}, args)
	if err != nil {
		return c, err
	}
	if allowSource && f.has("source_operation") {
		if c.SourceOperation, err = f.int("source_operation", 0, true); err != nil {
			return c, err
		}
		if c.SourceOperation < 0 {
			return c, errAt(f.items["source_operation"].Value.Pos, "%s: source_operation must not be negative, got %d", what, c.SourceOperation)
		}
	}
	if c.pinned, err = planFieldsFromSyntax(f, &c.Values, false); err != nil {
		return c, err
	}
	known := planFieldNames[:]
	if allowSource {
		known = append([]string{"source_operation"}, known...)
	}
	return c, f.done(known...)
}

// ParseGemmConstraint parses a constraint as a pass option writes it: the
// attribute body's fields, optionally with source_operation = N, e.g.
// `source_operation = 2, orientation = swapped, inner_partitions = 2`.
func ParseGemmConstraint(text string) (GemmConstraint, error) {
	tree, err := parseBody(nil, "constraint", "<"+text+">")
	if err != nil {
		if be, ok := err.(*ir.BodyError); ok {
			// The text is an option value: say where in it, by column.
			return GemmConstraint{}, fmt.Errorf("constraint %q: at column %d: %s", text, max(be.Offset, 1), be.Message)
		}
		return GemmConstraint{}, fmt.Errorf("constraint %q: %v", text, err)
	}
	c, err := constraintFromSyntax("constraint", tree.Args, true)
	if be, ok := err.(*ir.BodyError); ok {
		// The message names the field at fault already.
		return GemmConstraint{}, errors.New(be.Message)
	}
	return c, err
}
