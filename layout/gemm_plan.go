package layout

import (
	"strconv"
	"strings"
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
	// StartTile is the first tile of the plan's grid: the grid occupies
	// tiles [StartTile, StartTile + Tiles()). Plans of fewer tiles than the
	// chip start where plan-gemms{start-tiles=spread} spreads them, so that
	// their weights and exchange tables do not all land on the first
	// tiles. 0, the default, is omitted by the attribute.
	StartTile int64
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
	fieldStartTile
	numPlanFields
)

var planFieldNames = [numPlanFields]string{"orientation", "batch_partitions", "row_partitions", "column_partitions",
	"inner_partitions", "inner_steps", "result_row_partitions", "result_column_partitions", "output_column_block",
	"weight_memory_class", "reduction_staging", "local_weight_staging", "start_tile"}

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
	case fieldStartTile:
		return &p.StartTile
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
	w := &FieldWriter{}
	for f := planField(0); f < numPlanFields; f++ {
		if !p.elided(f) {
			w.Raw(planFieldNames[f], p.fieldText(f, false))
		}
	}
	return w.String()
}

// elided reports whether field f has the value the attribute leaves out:
// one inner step, start tile 0.
func (p *GemmPlan) elided(f planField) bool {
	return (f == fieldInnerSteps && p.InnerSteps <= 1) || (f == fieldStartTile && p.StartTile == 0)
}

// DebugString renders the plan in the log's notation: `GemmPlan { ... }`.
func (p *GemmPlan) DebugString() string {
	var parts []string
	for f := planField(0); f < numPlanFields; f++ {
		if !p.elided(f) {
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

// PinAll is the constraint that pins every field of p, for the matmul
// sourceOperation (-1: attached to the op): p and nothing else.
func PinAll(p *GemmPlan, sourceOperation int64) GemmConstraint {
	c := GemmConstraint{SourceOperation: sourceOperation}
	for f := planField(0); f < numPlanFields; f++ {
		if f == fieldStartTile && p.StartTile == 0 {
			continue // where the grid starts is placement's (spread or not), unless set
		}
		c.pinned |= 1 << f
		c.copyField(f, p)
	}
	return c
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
	w := &FieldWriter{}
	if c.SourceOperation >= 0 {
		w.Int("source_operation", c.SourceOperation)
	}
	for f := planField(0); f < numPlanFields; f++ {
		if c.pinned&(1<<f) != 0 {
			w.Raw(planFieldNames[f], c.Values.fieldText(f, false))
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

// PlanField describes one field of a plan, in printed order, for the
// syntax that reads plans and constraints.
type PlanField struct {
	Name string
	// Words are the spellings of an enumerated field; nil for an integer
	// field; empty but not nil for a free word (a memory class name).
	Words []string
	// Optional fields take Default when a whole plan is read.
	Optional bool
	Default  int64
}

// PlanFields are a plan's fields, in printed order.
var PlanFields = func() []PlanField {
	out := make([]PlanField, numPlanFields)
	for f := planField(0); f < numPlanFields; f++ {
		out[f] = PlanField{Name: planFieldNames[f], Optional: f == fieldBatch || f == fieldInnerSteps || f == fieldStartTile, Default: 1}
		if f == fieldStartTile {
			out[f].Default = 0
		}
		switch f {
		case fieldOrientation:
			out[f].Words = orientationWords[:]
		case fieldReductionStaging:
			out[f].Words = reductionWords[:]
		case fieldLocalWeightStaging:
			out[f].Words = stagingWords[:]
		case fieldWeightMemoryClass:
			out[f].Words = []string{}
		}
	}
	return out
}()

// PlanFieldNames are the names of PlanFields.
func PlanFieldNames() []string { return planFieldNames[:] }

// SetInt sets integer field i of PlanFields.
func (p *GemmPlan) SetInt(i int, v int64) {
	if q := p.intField(planField(i)); q != nil {
		*q = v
	}
}

// SetWord sets enumerated or word field i of PlanFields to w, which must
// be one of its Words when it has any.
func (p *GemmPlan) SetWord(i int, w string) {
	switch planField(i) {
	case fieldOrientation:
		p.Orientation = Orientation(indexOf(orientationWords[:], w))
	case fieldReductionStaging:
		p.ReductionStaging = ReductionStaging(indexOf(reductionWords[:], w))
	case fieldLocalWeightStaging:
		p.LocalWeightStaging = WeightStaging(indexOf(stagingWords[:], w))
	case fieldWeightMemoryClass:
		p.WeightMemoryClass = w
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return 0
}
