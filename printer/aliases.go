package printer

import (
	"sort"
	"strconv"

	"github.com/ipuir/ipuir/ir"
)

// AliasNamer is implemented by dialect types and attributes that want to
// print through an alias (`!name = ...` or `#name = ...` at the top of the
// file, `!name` where used), as MLIR's OpAsmDialectInterface::getAlias
// offers. The name is sanitized and numbered (`#layout`, `#layout1`, ...).
type AliasNamer interface {
	AliasName() (string, bool)
}

// aliasEntry is one type, attribute or location seen by the dry run.
type aliasEntry struct {
	value      any // ir.Type or ir.Attribute
	isType     bool
	base       string // alias name before numbering; "" when none
	depth      int    // 1 for an alias without aliased parts, more when nested
	deferrable bool   // only used by op locations: may be defined at the end
	children   []int

	// size is how many values print when this one prints inline (itself
	// and its parts, an aliased part counting one); uses is how many
	// times it is referred to. Together they find shared values too large
	// to repeat (sharedAliasSize).
	size int
	uses int
}

// aliasFrame gathers the children of the value being visited.
type aliasFrame struct {
	children []int
	maxDepth int
	size     int
}

// sharedAliasSize is the size (in values printed) from which a value that
// is referred to more than once prints through an alias (`#attr`,
// `!type`) although its kind has no alias name. MLIR has no such rule and
// prints every reference in full, so a few hundred bytes of aliases that
// each refer twice to the previous one print as terabytes; with it the
// output stays as large as the input's DAG. Values this large and shared
// do not occur in ordinary IR, whose printing is unchanged.
const sharedAliasSize = 1024

// aliasCollector is the ir.AsmHook of the dry run: it records each value
// the first time it would print, its alias name, and its nesting, as
// MLIR's AliasInitializer does, and prints nothing.
type aliasCollector struct {
	entries    []*aliasEntry
	index      map[any]int
	stack      []*aliasFrame
	deferrable bool // the visit under way started at an op location
	shared     bool // some value took an alias for its size (aliasShared)
}

func newAliasCollector() *aliasCollector {
	return &aliasCollector{index: map[any]int{}, stack: []*aliasFrame{{}}}
}

func (c *aliasCollector) HookType(p *ir.AsmPrinter, t ir.Type) bool {
	c.visit(t, true, func() { t.Print(p) })
	return true
}

func (c *aliasCollector) HookAttr(p *ir.AsmPrinter, a ir.Attribute, elideType bool) bool {
	c.visit(a, false, func() { visitAttrParts(p, a, elideType) })
	return true
}

// visitAttrParts does what printing a would do to the hook: it visits the
// types and attributes a prints. For the builtin attributes whose only
// part is their type it visits that type alone, which spares the dry run
// from formatting their values (dense data above all); others print.
func visitAttrParts(p *ir.AsmPrinter, a ir.Attribute, elideType bool) {
	switch a := a.(type) {
	case *ir.IntegerAttr:
		if !elideType && !a.IsBool() {
			p.PrintType(a.Typ)
		}
	case *ir.FloatAttr:
		if !elideType {
			p.PrintType(a.Typ)
		}
	case *ir.DenseElementsAttr:
		if !elideType {
			p.PrintType(a.Typ)
		}
	case *ir.DenseStringElementsAttr:
		if !elideType {
			p.PrintType(a.Typ)
		}
	case *ir.StringAttr:
		if _, none := a.Typ.(*ir.NoneType); !elideType && a.Typ != nil && !none {
			p.PrintType(a.Typ)
		}
	case *ir.DenseArrayAttr:
		p.PrintType(a.Elem)
	case *ir.UnitAttr, *ir.SymbolRefAttr, *ir.StridedLayoutAttr:
	default:
		p.PrintAttrDirect(a, elideType)
	}
}

// visit records value (visiting its parts through print on first sight)
// as a child of the value being visited.
func (c *aliasCollector) visit(value any, isType bool, print func()) {
	parent := c.stack[len(c.stack)-1]
	if i, seen := c.index[value]; seen {
		if !c.deferrable {
			c.markNonDeferrable(i)
		}
		e := c.entries[i]
		e.uses++
		if e.base == "" && e.size >= sharedAliasSize {
			c.aliasShared(e)
		}
		c.addChild(parent, i)
		return
	}
	i := len(c.entries)
	e := &aliasEntry{value: value, isType: isType, uses: 1}
	if name, ok := aliasNameOf(value); ok && name != "" {
		// Only aliased entries carry the deferral, so marking a value
		// non-deferrable stops at parts without an alias, as in MLIR.
		e.base = sanitizeIdentifier(name, "$_-", false)
		e.depth = 1
		e.deferrable = c.deferrable
	}
	c.entries = append(c.entries, e)
	c.index[value] = i
	frame := &aliasFrame{}
	c.stack = append(c.stack, frame)
	print()
	c.stack = c.stack[:len(c.stack)-1]
	e.children = frame.children
	if frame.maxDepth > 0 {
		e.depth = frame.maxDepth + 1
	}
	e.size = 1 + frame.size
	c.addChild(parent, i)
}

func (c *aliasCollector) addChild(f *aliasFrame, i int) {
	if f == c.stack[0] {
		// Values visited from ops themselves have no parent to note them.
		return
	}
	f.children = append(f.children, i)
	e := c.entries[i]
	if d := e.depth; d > f.maxDepth {
		f.maxDepth = d
	}
	if e.base != "" {
		f.size++
	} else {
		f.size = min(f.size+e.size, 1<<40) // saturates: sizes only compare
	}
}

// aliasShared gives e, a large value met again, an alias of its own.
// Values that took it in before are the larger for it (their size counted
// e in full), which only errs towards more aliases. Depths that counted e
// as unaliased are recomputed once the dry run ends (fixDepths).
func (c *aliasCollector) aliasShared(e *aliasEntry) {
	e.base = "attr"
	if e.isType {
		e.base = "type"
	}
	c.shared = true
}

// fixDepths recomputes every depth after shared values took aliases, so
// that each alias is defined after the aliases it refers to.
func (c *aliasCollector) fixDepths() {
	done := make([]bool, len(c.entries))
	var depth func(i int) int
	depth = func(i int) int {
		e := c.entries[i]
		if done[i] {
			return e.depth
		}
		done[i] = true
		m := 0
		for _, ch := range e.children {
			m = max(m, depth(ch))
		}
		switch {
		case m > 0:
			e.depth = m + 1
		case e.base != "":
			e.depth = 1
		default:
			e.depth = 0
		}
		return e.depth
	}
	for i := range c.entries {
		depth(i)
	}
}

func (c *aliasCollector) markNonDeferrable(i int) {
	e := c.entries[i]
	if !e.deferrable {
		return
	}
	e.deferrable = false
	for _, ch := range e.children {
		c.markNonDeferrable(ch)
	}
}

// aliasNameOf is the builtin dialect's choice of alias (maps, sets,
// locations, tuples of more than 16 types) or a dialect value's own.
func aliasNameOf(v any) (string, bool) {
	switch v := v.(type) {
	case *ir.AffineMapAttr:
		return "map", true
	case *ir.IntegerSetAttr:
		return "set", true
	case ir.Location:
		return "loc", true
	case *ir.TupleType:
		return "tuple", len(v.Types) > 16
	case *ir.DistinctAttr:
		// MLIR's builtin getAlias leaves distinct[N]<> (unit) inline.
		_, unit := v.Referenced.(*ir.UnitAttr)
		return "distinct", !unit
	case AliasNamer:
		return v.AliasName()
	}
	return "", false
}

// aliasTable is the outcome: the name of each aliased value and the order
// in which the definitions print.
type aliasTable struct {
	types    map[ir.Type]string
	attrs    map[ir.Attribute]string
	leading  []*aliasEntry // printed before the op
	trailing []*aliasEntry // deferrable ones (op locations), printed after it
	names    map[*aliasEntry]string
}

// table orders the aliases as MLIR does (by depth, types first, then name,
// then first sight) and numbers repeated names.
func (c *aliasCollector) table() *aliasTable {
	t := &aliasTable{types: map[ir.Type]string{}, attrs: map[ir.Attribute]string{}, names: map[*aliasEntry]string{}}
	if c.shared {
		c.fixDepths()
	}
	var named []*aliasEntry
	for _, e := range c.entries {
		if e.base != "" {
			named = append(named, e)
		}
	}
	sort.SliceStable(named, func(i, j int) bool {
		a, b := named[i], named[j]
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		if a.isType != b.isType {
			return a.isType
		}
		return a.base < b.base
	})
	counts := map[string]int{}
	for _, e := range named {
		name := e.base
		if k := counts[e.base]; k > 0 {
			name += strconv.Itoa(k)
		}
		counts[e.base]++
		t.names[e] = name
		if e.isType {
			t.types[e.value.(ir.Type)] = name
		} else {
			t.attrs[e.value.(ir.Attribute)] = name
		}
		if e.deferrable {
			t.trailing = append(t.trailing, e)
		} else {
			t.leading = append(t.leading, e)
		}
	}
	return t
}
