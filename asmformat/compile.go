package asmformat

import (
	"fmt"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
)

// refKind names what a variable or directive argument refers to.
type refKind uint8

const (
	refOperand     refKind = iota // operand group index
	refResult                     // result group index
	refAttr                       // attribute index in OpDef.Attributes
	refRegion                     // region index
	refAllOperands                // `operands`
	refAllResults                 // `results`
	refAllRegions                 // `regions`
	refSuccessors                 // `successors`
)

type ref struct {
	kind  refKind
	index int
	name  string // as written, for messages and custom arguments
}

type elemKind uint8

const (
	elLiteral    elemKind = iota // a keyword or punctuation
	elSpace                      // `` ` ` `` or ``` `` ```: spacing only
	elVar                        // an operand, attribute, region, or one of operands/regions/successors
	elType                       // type(ref)
	elFunctional                 // functional-type(ref, ref2)
	elAttrDict
	elCustom
	elGroup
)

// element is one compiled piece of a format.
type element struct {
	kind elemKind
	text string // literal text; custom directive name
	ref  ref    // elVar, elType, elFunctional inputs
	ref2 ref    // elFunctional results
	// keyword marks attr-dict-with-keyword.
	keyword bool
	custom  *Custom
	args    []customArg
	// Optional groups.
	then, els []*element
	anchor    *element
	// elidedAnchor is a unit attribute anchoring its group: its presence
	// is the group's presence and it prints nothing.
	elidedAnchor bool
	// space says whether a space prints before the element, decided when
	// compiling by the rules ODS's generated printers follow.
	space bool
}

type customArg struct {
	kind  ArgKind
	ref   ref
	isRef bool
}

// format is a compiled assembly format.
type format struct {
	def   *ir.OpDef
	elems []*element
	// segmented operand and result groups need a segment-sizes attribute.
	operandSegments, resultSegments bool
}

var cache sync.Map // *ir.OpDef -> *compiled

type compiled struct {
	f   *format
	err error
}

// Check compiles def's assembly format and reports what is wrong with it.
// Ops without an assembly format pass.
func Check(def *ir.OpDef) error {
	if def.AssemblyFormat == "" {
		return nil
	}
	_, err := formatIn(def, def.Dialect())
	return err
}

// CheckDialect checks the format of every op of d.
func CheckDialect(d *ir.Dialect) error {
	for _, op := range d.Ops {
		if op.AssemblyFormat == "" {
			continue
		}
		if _, err := formatIn(op, d); err != nil {
			return err
		}
	}
	return nil
}

func formatOf(def *ir.OpDef) (*format, error) { return formatIn(def, def.Dialect()) }

// formatIn compiles def's format with the custom directives of d, the
// dialect declaring def (nil before the dialect is registered anywhere).
func formatIn(def *ir.OpDef, d *ir.Dialect) (*format, error) {
	if c, ok := cache.Load(def); ok {
		return c.(*compiled).f, c.(*compiled).err
	}
	f, err := compile(def, d)
	if err != nil {
		err = fmt.Errorf("assembly format of '%s': %w", def.Name, err)
	}
	cache.Store(def, &compiled{f, err})
	return f, err
}

func directivesOf(d *ir.Dialect) map[string]*ir.CustomDirective {
	if d == nil {
		return nil
	}
	return d.Directives
}

// compiler holds what compiling one format has found so far.
type compiler struct {
	def        *ir.OpDef
	dialect    string
	directives map[string]*ir.CustomDirective

	boundOperands  []bool
	boundAttrs     []bool
	boundRegions   []bool
	allOperands    bool
	allRegions     bool
	successors     bool
	attrDict       bool
	typedOperands  []bool
	typedResults   []bool
	allOperandsTyp bool
	allResultsTyp  bool
	inGroup        bool
}

func posError(pos lexer.Position, format string, args ...any) error {
	return fmt.Errorf("%d:%d: %s", pos.Line, pos.Column, fmt.Sprintf(format, args...))
}

func compile(def *ir.OpDef, d *ir.Dialect) (*format, error) {
	tree, err := formatParser.ParseString("", def.AssemblyFormat)
	if err != nil {
		if pe, ok := err.(participle.Error); ok {
			return nil, posError(pe.Position(), "%s", pe.Message())
		}
		return nil, err
	}
	c := &compiler{
		def:           def,
		dialect:       ir.DialectNamespace(def.Name),
		directives:    directivesOf(d),
		boundOperands: make([]bool, len(def.Operands)),
		boundAttrs:    make([]bool, len(def.Attributes)),
		boundRegions:  make([]bool, len(def.Regions)),
		typedOperands: make([]bool, len(def.Operands)),
		typedResults:  make([]bool, len(def.Results)),
	}
	elems, err := c.elements(tree.Elems)
	if err != nil {
		return nil, err
	}
	if err := c.checkComplete(); err != nil {
		return nil, err
	}
	f := &format{def: def, elems: elems,
		operandSegments: flexibleGroups(def.Operands) > 1,
		resultSegments:  flexibleGroups(def.Results) > 1,
	}
	shouldSpace, lastPunct := true, false
	assignSpacing(elems, &shouldSpace, &lastPunct)
	return f, nil
}

func flexibleGroups(defs []ir.ValueDef) int {
	n := 0
	for _, d := range defs {
		if d.Kind != ir.Single {
			n++
		}
	}
	return n
}

func (c *compiler) elements(syn []*syntaxElem) ([]*element, error) {
	var out []*element
	for _, s := range syn {
		e, err := c.element(s)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (c *compiler) element(s *syntaxElem) (*element, error) {
	switch {
	case s.Literal != nil:
		return c.literal(s.Pos, strings.Trim(*s.Literal, "`"))
	case s.Var != nil:
		if s.Var.Anchor && !c.inGroup {
			return nil, posError(s.Pos, "'^' anchors only appear inside optional groups")
		}
		r, err := c.resolve(s.Pos, s.Var.Name)
		if err != nil {
			return nil, err
		}
		if err := c.bind(s.Pos, r); err != nil {
			return nil, err
		}
		return &element{kind: elVar, ref: r}, nil
	case s.Group != nil:
		return c.group(s.Pos, s.Group)
	}
	if s.Dir.Anchor && !c.inGroup {
		return nil, posError(s.Pos, "'^' anchors only appear inside optional groups")
	}
	return c.directive(s.Dir)
}

// punctuation the parser can read (ir.OpAsmParser.ParsePunct).
var punctuation = map[string]bool{"(": true, ")": true, ",": true, ":": true, "->": true, "=": true,
	"<": true, ">": true, "[": true, "]": true, "{": true, "}": true, "*": true, "?": true, "+": true, "...": true}

func (c *compiler) literal(pos lexer.Position, text string) (*element, error) {
	switch {
	case text == "" || text == " ":
		return &element{kind: elSpace, text: text}, nil
	case text == "\\n":
		return nil, posError(pos, "newline literals are not supported")
	case isKeyword(text) || punctuation[text]:
		return &element{kind: elLiteral, text: text}, nil
	}
	return nil, posError(pos, "literal `%s` is neither a keyword nor punctuation the parser reads", text)
}

func isKeyword(s string) bool {
	if s == "" || !(isAlpha(s[0]) || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !(isAlpha(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '_' || s[i] == '$' || s[i] == '.') {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// resolve finds what `$name` refers to.
func (c *compiler) resolve(pos lexer.Position, v string) (ref, error) {
	name := strings.TrimPrefix(v, "$")
	for i, o := range c.def.Operands {
		if o.Name == name {
			return ref{kind: refOperand, index: i, name: name}, nil
		}
	}
	for i, a := range c.def.Attributes {
		if a.Name == name {
			return ref{kind: refAttr, index: i, name: name}, nil
		}
	}
	for i, r := range c.def.Regions {
		if r.Name == name {
			return ref{kind: refRegion, index: i, name: name}, nil
		}
	}
	for i, r := range c.def.Results {
		if r.Name == name {
			return ref{kind: refResult, index: i, name: name}, nil
		}
	}
	return ref{}, posError(pos, "'%s' is not an operand, attribute, region or result of the op", v)
}

// bind records that the format prints r (outside type directives).
func (c *compiler) bind(pos lexer.Position, r ref) error {
	var seen *bool
	switch r.kind {
	case refOperand:
		seen = &c.boundOperands[r.index]
		if c.allOperands {
			return posError(pos, "'$%s' is already bound by 'operands'", r.name)
		}
	case refAttr:
		seen = &c.boundAttrs[r.index]
		a := c.def.Attributes[r.index]
		if a.Optional && !c.inGroup {
			return posError(pos, "optional attribute '$%s' must be inside an optional group", r.name)
		}
	case refRegion:
		seen = &c.boundRegions[r.index]
	case refResult:
		return posError(pos, "result '$%s' can only be used inside type(...)", r.name)
	case refAllOperands:
		for _, b := range c.boundOperands {
			if b {
				return posError(pos, "'operands' after an operand was bound on its own")
			}
		}
		seen = &c.allOperands
	case refAllRegions:
		seen = &c.allRegions
	case refSuccessors:
		seen = &c.successors
	case refAllResults:
		return posError(pos, "'results' can only be used inside type(...)")
	}
	if *seen {
		return posError(pos, "'%s' is bound twice", displayRef(r))
	}
	*seen = true
	return nil
}

func displayRef(r ref) string {
	switch r.kind {
	case refAllOperands:
		return "operands"
	case refAllResults:
		return "results"
	case refAllRegions:
		return "regions"
	case refSuccessors:
		return "successors"
	}
	return "$" + r.name
}

func (c *compiler) directive(d *syntaxDirective) (*element, error) {
	switch d.name() {
	case "attr-dict", "attr-dict-with-keyword":

		if c.attrDict {
			return nil, posError(d.Pos, "'attr-dict' appears twice")
		}
		if c.inGroup {
			return nil, posError(d.Pos, "'attr-dict' cannot be inside an optional group")
		}
		c.attrDict = true
		return &element{kind: elAttrDict, keyword: d.name() == "attr-dict-with-keyword"}, nil
	case "operands", "regions", "successors":
		r := map[string]ref{"operands": {kind: refAllOperands}, "regions": {kind: refAllRegions},
			"successors": {kind: refSuccessors}}[d.Bare]
		if err := c.bind(d.Pos, r); err != nil {
			return nil, err
		}
		return &element{kind: elVar, ref: r}, nil
	case "type":
		if len(d.Args) != 1 {
			return nil, posError(d.Pos, "'type' takes one argument")
		}
		r, err := c.typeTarget(d.Args[0])
		if err != nil {
			return nil, err
		}
		return &element{kind: elType, ref: r}, nil
	case "functional-type":
		if len(d.Args) != 2 {
			return nil, posError(d.Pos, "'functional-type' takes two arguments: inputs and results")
		}
		in, err := c.typeTarget(d.Args[0])
		if err != nil {
			return nil, err
		}
		out, err := c.typeTarget(d.Args[1])
		if err != nil {
			return nil, err
		}
		return &element{kind: elFunctional, ref: in, ref2: out}, nil
	case "qualified":
		if len(d.Args) != 1 {
			return nil, posError(d.Pos, "'qualified' takes one argument")
		}
		return c.element(&syntaxElem{Pos: d.Args[0].Pos, Var: varOf(d.Args[0]), Dir: d.Args[0].Dir})
	case "custom":
		return c.customDirective(d)
	}
	return nil, posError(d.Pos, "unknown directive '%s'", d.name())
}

func varOf(a *syntaxArg) *syntaxVar {
	if a.Var == nil {
		return nil
	}
	return &syntaxVar{Name: *a.Var}
}

// typeTarget resolves the argument of type(...) or functional-type and
// records that those types are printed.
func (c *compiler) typeTarget(a *syntaxArg) (ref, error) {
	if a.Dir != nil && a.Dir.name() == "qualified" && len(a.Dir.Args) == 1 {
		return c.typeTarget(a.Dir.Args[0])
	}
	if a.Var != nil {
		r, err := c.resolve(a.Pos, *a.Var)
		if err != nil {
			return ref{}, err
		}
		switch r.kind {
		case refOperand:
			c.typedOperands[r.index] = true
		case refResult:
			c.typedResults[r.index] = true
		default:
			return ref{}, posError(a.Pos, "type(...) takes an operand or a result, not '%s'", *a.Var)
		}
		return r, nil
	}
	switch {
	case a.Dir.Bare == "operands":
		c.allOperandsTyp = true
		return ref{kind: refAllOperands, name: "operands"}, nil
	case a.Dir.Bare == "results":
		c.allResultsTyp = true
		return ref{kind: refAllResults, name: "results"}, nil
	}
	return ref{}, posError(a.Pos, "type(...) takes an operand, a result, 'operands' or 'results'")
}

func (c *compiler) customDirective(d *syntaxDirective) (*element, error) {
	if d.Custom == "" {
		return nil, posError(d.Pos, "expected custom<Name>(...)")
	}
	impl := c.directives[d.Custom]
	if impl == nil {
		return nil, posError(d.Pos, "custom directive '%s' is not registered for dialect '%s'", d.Custom, c.dialect)
	}
	e := &element{kind: elCustom, text: d.Custom, custom: impl}
	for _, a := range d.Args {
		isRef := false
		if a.Dir != nil && a.Dir.name() == "ref" {
			if len(a.Dir.Args) != 1 {
				return nil, posError(a.Pos, "'ref' takes one argument")
			}
			isRef, a = true, a.Dir.Args[0]
		}
		arg, err := c.customArg(a, isRef)
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, arg)
	}
	return e, nil
}

func (c *compiler) customArg(a *syntaxArg, isRef bool) (customArg, error) {
	if a.Dir != nil && a.Dir.name() == "type" {
		if len(a.Dir.Args) != 1 {
			return customArg{}, posError(a.Pos, "'type' takes one argument")
		}
		r, err := c.typeTarget(a.Dir.Args[0])
		return customArg{kind: ArgTypes, ref: r, isRef: isRef}, err
	}
	var r ref
	if a.Var != nil {
		var err error
		if r, err = c.resolve(a.Pos, *a.Var); err != nil {
			return customArg{}, err
		}
	} else {
		switch a.Dir.Bare {
		case "operands":
			r = ref{kind: refAllOperands, name: "operands"}
		case "successors":
			r = ref{kind: refSuccessors, name: "successors"}
		default:
			return customArg{}, posError(a.Pos, "a custom directive argument is a variable, type(...), operands or successors")
		}
	}
	if !isRef {
		if err := c.bind(a.Pos, r); err != nil {
			return customArg{}, err
		}
	}
	kind := map[refKind]ArgKind{refOperand: ArgOperands, refAllOperands: ArgOperands, refAttr: ArgAttr,
		refRegion: ArgRegion, refSuccessors: ArgSuccessors}[r.kind]
	if r.kind == refResult || r.kind == refAllRegions {
		return customArg{}, posError(a.Pos, "'%s' cannot be passed to a custom directive", displayRef(r))
	}
	return customArg{kind: kind, ref: r, isRef: isRef}, nil
}

func (c *compiler) group(pos lexer.Position, g *syntaxGroup) (*element, error) {
	if !g.Optional {
		return nil, posError(pos, "a group must be optional: ( ... )?")
	}
	if c.inGroup {
		return nil, posError(pos, "optional groups cannot nest")
	}
	c.inGroup = true
	defer func() { c.inGroup = false }()
	e := &element{kind: elGroup}
	var err error
	if e.then, err = c.elements(g.Then); err != nil {
		return nil, err
	}
	if e.els, err = c.elements(g.Else); err != nil {
		return nil, err
	}
	// Find the anchor.
	for i, s := range g.Then {
		anchored := s.Var != nil && s.Var.Anchor || s.Dir != nil && s.Dir.Anchor
		if !anchored {
			continue
		}
		if e.anchor != nil {
			return nil, posError(s.Pos, "an optional group has only one '^' anchor")
		}
		e.anchor = e.then[i]
	}
	if e.anchor == nil {
		return nil, posError(pos, "an optional group needs a '^' anchor")
	}
	if err := c.checkAnchor(pos, e.anchor); err != nil {
		return nil, err
	}
	first := firstParsable(e.then)
	if first == nil || !c.optionallyParsable(first) {
		return nil, posError(pos, "an optional group must start with a literal, an operand, a region or a symbol name attribute, which the parser can try")
	}
	if a := e.anchor; a.kind == elVar && a.ref.kind == refAttr && a != first && isUnitAttr(c.def.Attributes[a.ref.index]) {
		a.elidedAnchor = true
	}
	for _, el := range e.then {
		if err := c.checkInGroup(pos, el); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func isUnitAttr(a ir.AttrDef) bool { return a.Kind.Desc == ir.UnitAttrKind.Desc }

func firstParsable(elems []*element) *element {
	for _, e := range elems {
		if e.kind != elSpace {
			return e
		}
	}
	return nil
}

// optionallyParsable reports whether the parser can try e and back off:
// OpAsmParser has optional forms for punctuation, keywords, operands,
// regions and symbol names only.
func (c *compiler) optionallyParsable(e *element) bool {
	switch e.kind {
	case elLiteral:
		return true
	case elVar:
		switch e.ref.kind {
		case refOperand, refAllOperands, refRegion:
			return true
		case refAttr:
			return c.def.Attributes[e.ref.index].Name == ir.SymbolAttrName
		}
	}
	return false
}

// checkAnchor requires an anchor whose presence can vary.
func (c *compiler) checkAnchor(pos lexer.Position, a *element) error {
	switch a.kind {
	case elVar, elType:
		switch a.ref.kind {
		case refOperand:
			if c.def.Operands[a.ref.index].Kind != ir.Single {
				return nil
			}
		case refAttr:
			if c.def.Attributes[a.ref.index].Optional {
				return nil
			}
		case refRegion, refAllOperands, refAllRegions, refSuccessors:
			return nil
		case refResult:
			if c.def.Results[a.ref.index].Kind != ir.Single {
				return nil
			}
		}
	case elCustom:
		if len(a.args) > 0 {
			return nil
		}
	}
	return posError(pos, "an optional group's anchor must be an optional or variadic operand, an optional attribute, a region, or their type")
}

// checkInGroup rejects elements that must always print.
func (c *compiler) checkInGroup(pos lexer.Position, e *element) error {
	if e.kind == elVar && e.ref.kind == refOperand && c.def.Operands[e.ref.index].Kind == ir.Single {
		return posError(pos, "operand '$%s' is required and cannot be inside an optional group", e.ref.name)
	}
	if e.kind == elVar && e.ref.kind == refAttr && !c.def.Attributes[e.ref.index].Optional {
		return posError(pos, "attribute '$%s' is required and cannot be inside an optional group", e.ref.name)
	}
	return nil
}

// checkComplete requires every operand, region, successor and required
// attribute to be bound, attr-dict to appear, and every type to be
// printed or inferable.
func (c *compiler) checkComplete() error {
	def := c.def
	if !c.attrDict {
		return fmt.Errorf("'attr-dict' directive not found")
	}
	if !c.allOperands {
		for i, b := range c.boundOperands {
			if !b {
				return fmt.Errorf("operand #%d, named '%s', is not bound by the format", i, def.Operands[i].Name)
			}
		}
	}
	if !c.allRegions {
		for i, b := range c.boundRegions {
			if !b {
				return fmt.Errorf("region #%d, named '%s', is not bound by the format", i, def.Regions[i].Name)
			}
		}
	}
	if def.Successors != 0 && !c.successors {
		return fmt.Errorf("the successors are not bound by the format ('successors')")
	}
	same := def.Traits&ir.TraitSameOperandsAndResultType != 0
	anyTyped := c.allOperandsTyp || c.allResultsTyp
	for _, t := range append(append([]bool(nil), c.typedOperands...), c.typedResults...) {
		anyTyped = anyTyped || t
	}
	if !c.allOperandsTyp {
		for i, t := range c.typedOperands {
			if !t && !(same && anyTyped) {
				return fmt.Errorf("type of operand #%d, named '%s', is neither printed nor inferable", i, def.Operands[i].Name)
			}
		}
	}
	if !c.allResultsTyp && def.InferResultTypes == nil {
		for i, t := range c.typedResults {
			if t {
				continue
			}
			if !same || def.Results[i].Kind != ir.Single || len(def.Operands) == 0 || !anyTyped {
				return fmt.Errorf("type of result #%d, named '%s', is neither printed nor inferable", i, def.Results[i].Name)
			}
		}
	}
	return nil
}

// assignSpacing decides where spaces print, following the generated
// printers of MLIR's ODS: the state flows through optional groups as if
// they were present.
func assignSpacing(elems []*element, shouldSpace, lastPunct *bool) {
	for _, e := range elems {
		switch e.kind {
		case elLiteral:
			e.space = *shouldSpace && spaceBefore(e.text, *lastPunct)
			*shouldSpace = len(e.text) != 1 || !strings.ContainsRune("<({[", rune(e.text[0]))
			*lastPunct = e.text[0] != '_' && !isAlpha(e.text[0])
		case elSpace:
			*lastPunct = e.text == ""
			*shouldSpace = false
		case elAttrDict:
			*lastPunct = false
		case elGroup:
			for _, t := range e.then {
				if !t.elidedAnchor {
					assignSpacing([]*element{t}, shouldSpace, lastPunct)
				}
			}
			assignSpacing(e.els, shouldSpace, lastPunct)
		default:
			e.space = *shouldSpace || !*lastPunct
			*lastPunct = false
			*shouldSpace = true
		}
	}
}

func spaceBefore(lit string, lastPunct bool) bool {
	if len(lit) != 1 && lit != "->" {
		return true
	}
	if lastPunct {
		return !strings.ContainsRune(">)}],", rune(lit[0]))
	}
	return !strings.ContainsRune("<>(){}[],", rune(lit[0]))
}
