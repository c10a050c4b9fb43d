package tiled

import (
	"errors"
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
)

// GemmPlanAttr is #tiled.gemm_plan<...>, every field written:
//
//	#tiled.gemm_plan<orientation = swapped, batch_partitions = 1, row_partitions = 16,
//	  column_partitions = 46, inner_partitions = 2, result_row_partitions = 1,
//	  result_column_partitions = 1, output_column_block = 16,
//	  weight_memory_class = Ipu21Standard, reduction_staging = complete,
//	  local_weight_staging = direct>
type GemmPlanAttr struct{ Plan layout.GemmPlan }

// NewGemmPlanAttr uniques p as an attribute.
func NewGemmPlanAttr(ctx *ir.Context, p layout.GemmPlan) *GemmPlanAttr {
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
type GemmConstraintAttr struct{ Constraint layout.GemmConstraint }

// NewGemmConstraintAttr uniques c as an attribute.
func NewGemmConstraintAttr(ctx *ir.Context, c layout.GemmConstraint) *GemmConstraintAttr {
	return ir.UniqueAttr(ctx, &GemmConstraintAttr{Constraint: c})
}

func (a *GemmConstraintAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#tiled.gemm_constraint<")
	p.WriteString(a.Constraint.String())
	p.WriteString(">")
}

// planFieldsFromSyntax reads plan fields from f into p and returns the
// names of the fields given; with all set, every field that is not
// optional is required, and the optional ones left out take their default
// (1, start_tile 0).
func planFieldsFromSyntax(f *fieldSet, p *layout.GemmPlan, all bool) ([]string, error) {
	var given []string
	for i, fld := range layout.PlanFields {
		if !f.has(fld.Name) {
			if all && !fld.Optional {
				return nil, f.missing(fld.Name, "")
			}
			if all {
				p.SetInt(i, fld.Default)
			}
			continue
		}
		given = append(given, fld.Name)
		if fld.Words == nil {
			var v int64
			var err error
			if fld.Default == 0 { // a tile index: 0 is one
				pos := f.items[fld.Name].Value.Pos
				if v, err = f.int(fld.Name, 0, true); err == nil && v < 0 {
					err = errAt(pos, "%s: field '%s' must be at least 0, got %d", f.what, fld.Name, v)
				}
			} else {
				v, err = f.positive(fld.Name, 0, true)
			}
			if err != nil {
				return nil, err
			}
			p.SetInt(i, v)
			continue
		}
		w, err := f.word(fld.Name, true, fld.Words...)
		if err != nil {
			return nil, err
		}
		p.SetWord(i, w)
	}
	return given, nil
}

func planFromSyntax(args *syntaxArgs) (layout.GemmPlan, error) {
	var p layout.GemmPlan
	f, err := newFieldSet("#tiled.gemm_plan", lexer.Position{}, args)
	if err != nil {
		return p, err
	}
	if _, err := planFieldsFromSyntax(f, &p, true); err != nil {
		return p, err
	}
	return p, f.done(layout.PlanFieldNames()...)
}

// constraintFromSyntax reads a constraint body; allowSource admits
// source_operation (pass options name their matmul with it).
func constraintFromSyntax(what string, args *syntaxArgs, allowSource bool) (layout.GemmConstraint, error) {
	c := layout.GemmConstraint{SourceOperation: -1}
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
	var values layout.GemmPlan
	given, err := planFieldsFromSyntax(f, &values, false)
	if err != nil {
		return c, err
	}
	for _, name := range given {
		c.Pin(name, &values)
	}
	known := layout.PlanFieldNames()
	if allowSource {
		known = append([]string{"source_operation"}, known...)
	}
	return c, f.done(known...)
}

// ParseGemmConstraint parses a constraint as a pass option writes it: the
// attribute body's fields, optionally with source_operation = N, e.g.
// `source_operation = 2, orientation = swapped, inner_partitions = 2`.
func ParseGemmConstraint(text string) (layout.GemmConstraint, error) {
	tree, err := parseBody(nil, "constraint", "<"+text+">")
	if err != nil {
		if be, ok := err.(*ir.BodyError); ok {
			// The text is an option value: say where in it, by column.
			return layout.GemmConstraint{}, fmt.Errorf("constraint %q: at column %d: %s", text, max(be.Offset, 1), be.Message)
		}
		return layout.GemmConstraint{}, fmt.Errorf("constraint %q: %v", text, err)
	}
	c, err := constraintFromSyntax("constraint", tree.Args, true)
	if be, ok := err.(*ir.BodyError); ok {
		// The message names the field at fault already.
		return layout.GemmConstraint{}, errors.New(be.Message)
	}
	return c, err
}
