package printer

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// valueID is how a value prints: %3 (a number), %arg3 (an entry block
// argument of a form without custom names) or a name (%arg0 with custom
// names, %f, ...; kept in names.named). It is kept small because there is
// one per value or result group of the printed op.
type valueID struct {
	num  uint32
	kind idKind
}

type idKind uint8

const (
	idNumber idKind = iota
	idArg
	idNamed
)

// scope holds the names in use in one region and, through parent, in the
// regions around it: a name may be reused in a sibling region but not in
// a nested one.
type scope struct {
	parent *scope
	used   map[string]bool
}

func (s *scope) has(name string) bool {
	for ; s != nil; s = s.parent {
		if s.used[name] {
			return true
		}
	}
	return false
}

// names assigns every value and block under a root op the name it prints
// with, in the order MLIR's SSANameState does: the root's results, then
// regions depth first. Each region starts from the counters its parent
// region reached (so siblings reuse numbers), except in unique mode.
//
// Without custom names (the generic form), the only names are `argN` of
// entry blocks, and those never clash: the counter only grows from a
// region into the regions nested in it, and siblings do not see each
// other's names. So that form keeps no scopes and no name strings, which
// keeps naming a large module cheap. The custom form does the same unless
// an op suggests a result name of the form argN (argLikeNames), the one
// way a name could clash with an argument's.
type names struct {
	values map[*ir.Value]valueID
	named  map[*ir.Value]string // names of idNamed values
	// groups lists the first result of each result group of ops whose
	// results were named in groups (`%a, %b:2 = ...`).
	groups map[*ir.Operation][]int
	// blocks holds each block's position in its region (^bbN).
	blocks map[*ir.Block]int32

	nextValue, nextArg, nextConflict int
	cur                              *scope
	custom                           bool // custom forms name results through AsmResultNames
	argLikeNames                     bool // some suggested name looks like an argument's (see above)
	// opIDs numbers the ops without results when value users are
	// printed: such an op may be a user (MLIR's operationIDs).
	opIDs map[*ir.Operation]uint32
}

func newNames(root *ir.Operation, custom, unique, valueUsers bool) *names {
	numValues, numBlocks, argLike := countNamed(root, custom)
	n := &names{
		values: make(map[*ir.Value]valueID, numValues),
		groups: map[*ir.Operation][]int{},
		blocks: make(map[*ir.Block]int32, numBlocks),
		custom: custom,

		argLikeNames: argLike,
	}
	if valueUsers {
		n.opIDs = map[*ir.Operation]uint32{}
	}
	type pending struct {
		region               *ir.Region
		value, arg, conflict int
		parent               *scope
	}
	if custom {
		n.cur = &scope{}
	}
	var stack []pending
	for _, r := range root.Regions() {
		stack = append(stack, pending{r, n.nextValue, n.nextArg, n.nextConflict, n.cur})
	}
	n.numberOp(root)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !unique {
			n.nextValue, n.nextArg, n.nextConflict = p.value, p.arg, p.conflict
		}
		if custom {
			n.cur = &scope{parent: p.parent}
		}
		n.numberRegion(p.region)
		for _, b := range p.region.Blocks() {
			for op := b.First(); op != nil; op = op.Next() {
				for _, r := range op.Regions() {
					stack = append(stack, pending{r, n.nextValue, n.nextArg, n.nextConflict, n.cur})
				}
			}
		}
	}
	return n
}

// countNamed counts the map entries names will make under root (result
// groups and block arguments, then blocks), so that the maps are sized
// once instead of growing through the whole module; with custom names it
// also reports whether an op suggests a name of the form argN.
func countNamed(root *ir.Operation, custom bool) (values, blocks int, argLike bool) {
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.NumResults() > 0 {
			values++
		}
		if custom && !argLike && op.Def() != nil && op.Def().AsmResultNames != nil {
			for _, name := range op.Def().AsmResultNames(op) {
				argLike = argLike || isArgName(sanitizeIdentifier(name, "$._-", true))
			}
		}
		for _, r := range op.Regions() {
			for _, b := range r.Blocks() {
				blocks++
				values += b.NumArguments()
			}
		}
		return ir.WalkAdvance
	})
	return values, blocks, argLike
}

// isArgName reports whether name has the form of an entry block
// argument's, arg followed by digits.
func isArgName(name string) bool {
	digits, ok := strings.CutPrefix(name, "arg")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (n *names) numberRegion(r *ir.Region) {
	for i, b := range r.Blocks() {
		n.blocks[b] = int32(i)
		entry := i == 0
		for _, a := range b.Arguments() {
			switch {
			case !entry:
				n.setName(a, "")
			case n.custom && n.argLikeNames:
				n.setName(a, "arg"+strconv.Itoa(n.nextArg))
			default:
				n.values[a] = valueID{num: uint32(n.nextArg), kind: idArg}
			}
			if entry {
				n.nextArg++
			}
		}
		for op := b.First(); op != nil; op = op.Next() {
			n.numberOp(op)
		}
	}
}

func (n *names) numberOp(op *ir.Operation) {
	var groups []int
	if n.custom && op.Def() != nil && op.Def().AsmResultNames != nil {
		groups = []int{0}
		for i, name := range op.Def().AsmResultNames(op) {
			if name == "" || i >= op.NumResults() {
				continue
			}
			n.setName(op.Result(i), name)
			if i != 0 {
				groups = append(groups, i)
			}
		}
	}
	if op.NumResults() == 0 {
		if n.opIDs != nil {
			if _, done := n.opIDs[op]; !done {
				n.opIDs[op] = uint32(n.nextValue)
				n.nextValue++
			}
		}
		return
	}
	if _, done := n.values[op.Result(0)]; !done {
		n.values[op.Result(0)] = valueID{num: uint32(n.nextValue)}
		n.nextValue++
	}
	if len(groups) > 1 {
		sort.Ints(groups)
		n.groups[op] = groups
	}
}

// setName numbers v ("" name) or gives it a unique form of name.
func (n *names) setName(v *ir.Value, name string) {
	if name == "" {
		n.values[v] = valueID{num: uint32(n.nextValue)}
		n.nextValue++
		return
	}
	name = sanitizeIdentifier(name, "$._-", true)
	if n.cur.has(name) {
		base := name + "_"
		for {
			name = base + strconv.Itoa(n.nextConflict)
			n.nextConflict++
			if !n.cur.has(name) {
				break
			}
		}
	}
	if n.cur.used == nil {
		n.cur.used = map[string]bool{}
	}
	n.cur.used[name] = true
	if n.named == nil {
		n.named = map[*ir.Value]string{}
	}
	n.named[v] = name
	n.values[v] = valueID{kind: idNamed}
}

// writeValue prints v's name, with `#k` for a result inside a group of
// several when withResultNo is set.
func (n *names) writeValue(p *ir.AsmPrinter, v *ir.Value, withResultNo bool) {
	if v == nil {
		p.WriteString("<<NULL VALUE>>")
		return
	}
	lookup, resultNo := v, -1
	if op := v.DefiningOp(); op != nil && op.NumResults() > 1 {
		lookup, resultNo = n.resultGroup(op, v.Index())
	}
	id, ok := n.values[lookup]
	if !ok {
		p.WriteString("<<UNKNOWN SSA VALUE>>")
		return
	}
	p.WriteByte('%')
	switch id.kind {
	case idNamed:
		p.WriteString(n.named[lookup])
	case idArg:
		p.WriteString("arg")
		p.WriteUint(uint64(id.num))
	default:
		p.WriteUint(uint64(id.num))
	}
	if resultNo >= 0 && withResultNo {
		p.WriteByte('#')
		p.WriteInt(int64(resultNo))
	}
}

// resultGroup finds the head of the group holding result i of op and i's
// number within it (-1 for a group of one).
func (n *names) resultGroup(op *ir.Operation, i int) (*ir.Value, int) {
	groups, ok := n.groups[op]
	if !ok {
		return op.Result(0), i
	}
	k := sort.SearchInts(groups, i+1) // first group starting after i
	start := groups[k-1]
	size := op.NumResults() - start
	if k < len(groups) {
		size = groups[k] - start
	}
	if size == 1 {
		return op.Result(start), -1
	}
	return op.Result(start), i - start
}

// writeBlock prints b's label (^bbN).
func (n *names) writeBlock(p *ir.AsmPrinter, b *ir.Block) {
	i, ok := n.blocks[b]
	if !ok {
		p.WriteString("INVALIDBLOCK")
		return
	}
	p.WriteString("^bb")
	p.WriteInt(int64(i))
}

// sanitizeIdentifier makes name a valid identifier as MLIR does: a leading
// digit gets a '_' prefix, a trailing digit a '_' suffix when not allowed,
// spaces become '_' and other invalid bytes their hex code.
func sanitizeIdentifier(name, punct string, allowTrailingDigit bool) string {
	valid := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || indexByte(punct, c)
	}
	copyName := func(prefix string) string {
		out := []byte(prefix)
		for i := 0; i < len(name); i++ {
			c := name[i]
			switch {
			case valid(c):
				out = append(out, c)
			case c == ' ':
				out = append(out, '_')
			default:
				out = append(out, []byte(upperHex(c))...)
			}
		}
		return string(out)
	}
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	if isDigit(name[0]) {
		return copyName("_")
	}
	if !allowTrailingDigit && isDigit(name[len(name)-1]) {
		return copyName("") + "_"
	}
	for i := 0; i < len(name); i++ {
		if !valid(name[i]) {
			return copyName("")
		}
	}
	return name
}

func indexByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

func upperHex(c byte) string {
	const digits = "0123456789ABCDEF"
	if c < 16 {
		return string(digits[c])
	}
	return string([]byte{digits[c>>4], digits[c&15]})
}

// writeOpID prints the id of an op without results (value users mode).
func (n *names) writeOpID(p *ir.AsmPrinter, op *ir.Operation) {
	id, ok := n.opIDs[op]
	if !ok {
		p.WriteString("<<UNKNOWN OPERATION>>")
		return
	}
	p.WriteByte('%')
	p.WriteUint(uint64(id))
}
