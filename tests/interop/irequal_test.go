package interop

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// sameIR reports how two ops parsed into one context differ, or nil when
// they are the same IR: names, types, attributes and properties (uniqued,
// so compared by identity), structure, which value each operand uses and
// which block each successor is; locations too when withLocs. It needs no
// printer, so a printer bug cannot hide a parser bug here.
//
// customForm allows what MLIR's custom form of func.func loses: an
// arg_attrs or res_attrs of empty dictionaries only (mlir-opt 19 prints
// `func.func @f(%arg0: i32)` for it and reads back no such property).
func sameIR(a, b *ir.Operation, withLocs, customForm bool) error {
	c := &irComparer{values: map[*ir.Value]*ir.Value{}, blocks: map[*ir.Block]*ir.Block{}, withLocs: withLocs, customForm: customForm,
		distinct: &ir.DistinctMatcher{}}
	// Values and blocks are mapped first: graph regions and successors use
	// them before their definitions.
	if err := c.mapOp(a, b, "op"); err != nil {
		return err
	}
	return c.compareOp(a, b, "op")
}

type irComparer struct {
	values     map[*ir.Value]*ir.Value
	blocks     map[*ir.Block]*ir.Block
	withLocs   bool
	customForm bool
	// distinct pairs up distinct attributes: a parse makes new ones, so
	// they match by position, not identity.
	distinct *ir.DistinctMatcher
}

func (c *irComparer) mapOp(a, b *ir.Operation, at string) error {
	at = fmt.Sprintf("%s %q", at, a.Name())
	if a.Name() != b.Name() {
		return fmt.Errorf("%s: is %q after the round trip", at, b.Name())
	}
	if a.NumResults() != b.NumResults() || a.NumRegions() != b.NumRegions() {
		return fmt.Errorf("%s: %d results and %d regions become %d and %d",
			at, a.NumResults(), a.NumRegions(), b.NumResults(), b.NumRegions())
	}
	for i, r := range a.Results() {
		c.values[r] = b.Result(i)
	}
	for i, ra := range a.Regions() {
		rb := b.Region(i)
		if ra.NumBlocks() != rb.NumBlocks() {
			return fmt.Errorf("%s region %d: %d blocks become %d", at, i, ra.NumBlocks(), rb.NumBlocks())
		}
		for j, ba := range ra.Blocks() {
			bb := rb.Blocks()[j]
			c.blocks[ba] = bb
			if ba.NumArguments() != bb.NumArguments() || ba.NumOps() != bb.NumOps() {
				return fmt.Errorf("%s region %d block %d: %d arguments and %d ops become %d and %d",
					at, i, j, ba.NumArguments(), ba.NumOps(), bb.NumArguments(), bb.NumOps())
			}
			for k, v := range ba.Arguments() {
				c.values[v] = bb.Argument(k)
			}
			opsB := bb.Ops()
			for k, op := range ba.Ops() {
				if err := c.mapOp(op, opsB[k], fmt.Sprintf("%s region %d block %d op %d", at, i, j, k)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *irComparer) compareOp(a, b *ir.Operation, at string) error {
	at = fmt.Sprintf("%s %q", at, a.Name())
	for i, r := range a.Results() {
		if r.Type() != b.Result(i).Type() {
			return fmt.Errorf("%s result %d: type %s becomes %s", at, i, ir.TypeString(r.Type()), ir.TypeString(b.Result(i).Type()))
		}
	}
	if a.NumOperands() != b.NumOperands() || a.NumSuccessors() != b.NumSuccessors() {
		return fmt.Errorf("%s: %d operands and %d successors become %d and %d",
			at, a.NumOperands(), a.NumSuccessors(), b.NumOperands(), b.NumSuccessors())
	}
	for i, v := range a.Operands() {
		if c.values[v] != b.Operand(i) {
			return fmt.Errorf("%s operand %d: uses another value after the round trip", at, i)
		}
	}
	for i, s := range a.Successors() {
		if c.blocks[s] != b.Successor(i) {
			return fmt.Errorf("%s successor %d: names another block after the round trip", at, i)
		}
	}
	if !c.sameProps(a, b) {
		return fmt.Errorf("%s: properties %s become %s", at, attrString(a.Props()), attrString(b.Props()))
	}
	if err := c.sameAttrs(a.Attrs(), b.Attrs()); err != nil {
		return fmt.Errorf("%s: %v", at, err)
	}
	if c.withLocs && a.Loc() != b.Loc() {
		return fmt.Errorf("%s: location %s becomes %s", at, attrString(a.Loc()), attrString(b.Loc()))
	}
	for i, ra := range a.Regions() {
		for j, ba := range ra.Blocks() {
			bb := c.blocks[ba]
			where := fmt.Sprintf("%s region %d block %d", at, i, j)
			for k, v := range ba.Arguments() {
				w := bb.Argument(k)
				if v.Type() != w.Type() {
					return fmt.Errorf("%s argument %d: type %s becomes %s", where, k, ir.TypeString(v.Type()), ir.TypeString(w.Type()))
				}
				if c.withLocs && v.Loc() != w.Loc() {
					return fmt.Errorf("%s argument %d: location %s becomes %s", where, k, attrString(v.Loc()), attrString(w.Loc()))
				}
			}
			opsB := bb.Ops()
			for k, op := range ba.Ops() {
				if err := c.compareOp(op, opsB[k], fmt.Sprintf("%s op %d", where, k)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// sameAttrs compares dictionaries entry by entry (either may be nil when
// empty), so a difference names the attribute.
func (c *irComparer) sameAttrs(a, b *ir.DictAttr) error {
	var ea, eb []ir.NamedAttr
	if a != nil {
		ea = a.Entries
	}
	if b != nil {
		eb = b.Entries
	}
	if len(ea) != len(eb) {
		return fmt.Errorf("%d attributes become %d", len(ea), len(eb))
	}
	for i := range ea {
		if ea[i].Name != eb[i].Name || !c.distinct.Same(ea[i].Value, eb[i].Value) {
			return fmt.Errorf("attribute %s = %s becomes %s = %s", ea[i].Name, attrString(ea[i].Value), eb[i].Name, attrString(eb[i].Value))
		}
	}
	return nil
}

func attrString(a ir.Attribute) string {
	if a == nil {
		return "none"
	}
	return ir.AttrString(a)
}

func (c *irComparer) sameProps(a, b *ir.Operation) bool {
	if c.distinct.Same(a.Props(), b.Props()) {
		return true
	}
	if !c.customForm || a.Name() != "func.func" {
		return false
	}
	da, ok1 := a.Props().(*ir.DictAttr)
	db, ok2 := b.Props().(*ir.DictAttr)
	if !ok1 || !ok2 {
		return false
	}
	return c.sameAttrs(withoutEmptyArgAttrs(da), withoutEmptyArgAttrs(db)) == nil
}

// withoutEmptyArgAttrs drops arg_attrs and res_attrs that hold only
// empty dictionaries.
func withoutEmptyArgAttrs(d *ir.DictAttr) *ir.DictAttr {
	out := &ir.DictAttr{}
	for _, e := range d.Entries {
		if arr, ok := e.Value.(*ir.ArrayAttr); ok && (e.Name == "arg_attrs" || e.Name == "res_attrs") && allEmpty(arr) {
			continue
		}
		out.Entries = append(out.Entries, e)
	}
	return out
}

func allEmpty(arr *ir.ArrayAttr) bool {
	for _, e := range arr.Elems {
		if d, ok := e.(*ir.DictAttr); !ok || d.Len() > 0 {
			return false
		}
	}
	return true
}
