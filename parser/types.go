package parser

import (
	"math"

	"github.com/ipuir/ipuir/ir"
)

// Builtin types, hand-written because every op's function type goes
// through here. parseType first looks the exact source text up in the
// per-parse cache (see cache.go), so a type spelled the same way twice is
// parsed and uniqued once.

var floatKinds = func() map[string]ir.FloatKind {
	m := map[string]ir.FloatKind{}
	for _, n := range []string{"f16", "bf16", "f32", "f64", "f80", "f128", "tf32", "f8E5M2", "f8E4M3",
		"f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E4M3B11FNUZ"} {
		k, ok := ir.FloatKindByName(n)
		if !ok {
			panic("BUG: ir lacks float type " + n)
		}
		m[n] = k
	}
	return m
}()

// parseType parses any type: a function type or a non-function type.
func (p *parser) parseType() (ir.Type, error) {
	start := p.tok.Start
	if t, ok := p.cachedType(); ok {
		return t, nil
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var t ir.Type
	var err error
	if p.tok.Kind == LParen {
		t, err = p.parseFunctionType()
	} else {
		t, err = p.parseNonFunctionTypeUncached()
	}
	if err != nil {
		return nil, err
	}
	p.st.cache.putType(p.src[start:p.prevEnd], t)
	return t, nil
}

// parseNonFunctionType parses any type but a function type.
func (p *parser) parseNonFunctionType() (ir.Type, error) {
	if p.tok.Kind == LParen {
		return nil, p.wrongToken("expected non-function type")
	}
	return p.parseType()
}

func (p *parser) parseNonFunctionTypeUncached() (ir.Type, error) {
	switch p.tok.Kind {
	case BangIdent:
		return p.parseExtendedType()
	case BareIdent:
		return p.parseKeywordType()
	}
	return nil, p.wrongToken("expected non-function type")
}

// isTypeStart reports whether the current token can begin a type.
func (p *parser) isTypeStart() bool {
	switch p.tok.Kind {
	case LParen, BangIdent:
		return true
	case BareIdent:
		text := p.text(p.tok)
		switch string(text) {
		case "memref", "tensor", "complex", "tuple", "vector", "index", "none":
			return true
		}
		if _, ok := floatKinds[string(text)]; ok {
			return true
		}
		_, _, ok := intTypeSpelling(text)
		return ok
	}
	return false
}

// isOptionalAttributeStart reports whether the current token begins an
// attribute that MLIR's parseOptionalAttribute reads; a tensor encoding is
// parsed that way. It has no case for array<...>, strided<...> or
// distinct[...]<...> (only parseAttribute reaches them), so mlir-opt stops
// before those, as before any token that begins no attribute, and reports
// the missing '>' of the tensor type.
func (p *parser) isOptionalAttributeStart() bool {
	switch p.tok.Kind {
	case LSquare, LBrace, HashIdent, Float, Integer, Minus, String, AtIdent:
		return true
	case BareIdent:
		switch string(p.text(p.tok)) {
		case "true", "false", "unit", "dense", "dense_resource", "sparse", "affine_map", "affine_set", "loc":
			return true
		}
	}
	return p.isTypeStart()
}

// intTypeSpelling recognises iN, siN and uiN, as MLIR's lexer does.
func intTypeSpelling(text []byte) (digits []byte, s ir.Signedness, ok bool) {
	switch {
	case len(text) > 1 && text[0] == 'i':
		digits, s = text[1:], ir.Signless
	case len(text) > 2 && text[1] == 'i' && text[0] == 's':
		digits, s = text[2:], ir.Signed
	case len(text) > 2 && text[1] == 'i' && text[0] == 'u':
		digits, s = text[2:], ir.Unsigned
	default:
		return nil, 0, false
	}
	for _, c := range digits {
		if !isDigit(c) {
			return nil, 0, false
		}
	}
	return digits, s, true
}

func (p *parser) parseKeywordType() (ir.Type, error) {
	text := p.text(p.tok)
	switch string(text) {
	case "tensor":
		return p.parseTensorType()
	case "memref":
		return p.parseMemRefType()
	case "vector":
		return p.parseVectorType()
	case "complex":
		return p.parseComplexType()
	case "tuple":
		return p.parseTupleType()
	case "index":
		p.Next()
		return p.ctx.Index(), nil
	case "none":
		p.Next()
		return p.ctx.None(), nil
	}
	if k, ok := floatKinds[string(text)]; ok {
		p.Next()
		return p.ctx.Float(k), nil
	}
	if digits, s, ok := intTypeSpelling(text); ok {
		w, ok := parseUint(digits, 10)
		if !ok || w > math.MaxUint32 {
			return nil, p.errorf("invalid integer width")
		}
		if w > ir.MaxIntegerWidth {
			return nil, p.errorf("integer bitwidth is limited to %d bits", ir.MaxIntegerWidth)
		}
		p.Next()
		return p.ctx.IntegerType(int(w), s), nil
	}
	return nil, p.wrongToken("expected non-function type")
}

// parseTypeListParens parses `(` (type (`,` type)*)? `)`.
func (p *parser) parseTypeListParens() ([]ir.Type, error) {
	if err := p.expect(LParen, "expected '('"); err != nil {
		return nil, err
	}
	if p.consumeIf(RParen) {
		return nil, nil
	}
	ts, err := p.parseTypeListNoParens()
	if err != nil {
		return nil, err
	}
	return ts, p.expect(RParen, "expected ')'")
}

// parseTypeListNoParens parses type (`,` type)*.
func (p *parser) parseTypeListNoParens() ([]ir.Type, error) {
	var ts []ir.Type
	for {
		t, err := p.parseType()
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
		if !p.consumeIf(Comma) {
			return ts, nil
		}
	}
}

// parseFunctionResultTypes parses `(types)` or a single non-function type.
func (p *parser) parseFunctionResultTypes() ([]ir.Type, error) {
	if p.tok.Kind == LParen {
		return p.parseTypeListParens()
	}
	t, err := p.parseNonFunctionType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

// parseFunctionType parses `(types) -> types`. The types gather on the
// state's typeStack (nested function types above them), and the context
// copies them only when the function type is new: most ops of a large
// file repeat one.
func (p *parser) parseFunctionType() (ir.Type, error) {
	mark := len(p.st.typeStack)
	defer func() { p.st.typeStack = p.st.typeStack[:mark] }()
	if err := p.pushTypeListParens(); err != nil {
		return nil, err
	}
	ins := len(p.st.typeStack) - mark
	if err := p.expect(Arrow, "expected '->' in function type"); err != nil {
		return nil, err
	}
	if p.tok.Kind == LParen {
		if err := p.pushTypeListParens(); err != nil {
			return nil, err
		}
	} else {
		t, err := p.parseNonFunctionType()
		if err != nil {
			return nil, err
		}
		p.st.typeStack = append(p.st.typeStack, t)
	}
	all := p.st.typeStack[mark:]
	return p.ctx.Function(all[:ins:ins], all[ins:]), nil
}

// pushTypeListParens parses `(` (type (`,` type)*)? `)` onto typeStack.
func (p *parser) pushTypeListParens() error {
	if err := p.expect(LParen, "expected '('"); err != nil {
		return err
	}
	if p.consumeIf(RParen) {
		return nil
	}
	for {
		t, err := p.parseType()
		if err != nil {
			return err
		}
		p.st.typeStack = append(p.st.typeStack, t)
		if !p.consumeIf(Comma) {
			return p.expect(RParen, "expected ')'")
		}
	}
}

// parseIntegerInDimensionList parses a dimension size. A hex literal such
// as `0xf32` is `0` followed by `xf32`.
func (p *parser) parseIntegerInDimensionList() (int64, error) {
	text := p.text(p.tok)
	if len(text) > 1 && text[1] == 'x' {
		p.ResetTo(p.tok.Start + 1)
		return 0, nil
	}
	v, ok := parseUint(text, 10)
	if !ok || v > math.MaxInt64 {
		return 0, p.errorf("invalid dimension")
	}
	p.NextSplittingX()
	return int64(v), nil
}

// parseXInDimensionList consumes the `x` of a dimension list, splitting
// tokens such as `xf32` and `x4xf32`.
func (p *parser) parseXInDimensionList() error {
	if p.tok.Kind != BareIdent || p.src[p.tok.Start] != 'x' {
		return p.wrongToken("expected 'x' in dimension list")
	}
	if p.tok.End-p.tok.Start > 1 {
		p.ResetTo(p.tok.Start + 1)
	} else {
		p.Next()
	}
	return nil
}

// parseDimensionListRanked parses (dimension `x`)* where a dimension is an
// integer or `?`.
func (p *parser) parseDimensionListRanked() ([]int64, error) {
	dims := []int64{}
	for p.tok.Kind == Integer || p.tok.Kind == Question {
		if p.tok.Kind == Question {
			p.NextSplittingX()
			dims = append(dims, ir.Dynamic)
		} else {
			d, err := p.parseIntegerInDimensionList()
			if err != nil {
				return nil, err
			}
			dims = append(dims, d)
		}
		if err := p.parseXInDimensionList(); err != nil {
			return nil, err
		}
	}
	return dims, nil
}

// validTensorElement: tensors hold anything but builtin aggregates.
func validTensorElement(t ir.Type) bool {
	switch t.(type) {
	case *ir.RankedTensorType, *ir.UnrankedTensorType, *ir.MemRefType, *ir.UnrankedMemRefType,
		*ir.TupleType, *ir.NoneType, *ir.FunctionType:
		return false
	}
	return true
}

// validMemRefElement: scalars, complex, vectors and memrefs.
func validMemRefElement(t ir.Type) bool {
	switch t.(type) {
	case *ir.IntegerType, *ir.IndexType, *ir.FloatType, *ir.ComplexType, *ir.VectorType,
		*ir.MemRefType, *ir.UnrankedMemRefType:
		return true
	}
	return false
}

func isIntOrIndexOrFloat(t ir.Type) bool {
	switch t.(type) {
	case *ir.IntegerType, *ir.IndexType, *ir.FloatType:
		return true
	}
	return false
}

// shapedTypeStart is how tensor and memref types begin: '<', then `*x`
// (unranked) or a ranked dimension list, then the element type.
type shapedTypeStart struct {
	dims     []int64 // nil when unranked
	unranked bool
	elemTok  Token // where the element type starts, for errors about it
	elem     ir.Type
}

// parseShapedTypeStart reads the keyword and the shapedTypeStart of a tensor
// or memref type; kind ("tensor", "memref") names the type in errors.
func (p *parser) parseShapedTypeStart(kind string) (shapedTypeStart, error) {
	var st shapedTypeStart
	p.Next()
	if p.tok.Kind != Less {
		return st, p.expect(Less, "expected '<' in "+kind+" type")
	}
	p.Next()
	var err error
	if p.consumeIf(Star) {
		st.unranked = true
		err = p.parseXInDimensionList()
	} else {
		st.dims, err = p.parseDimensionListRanked()
	}
	if err != nil {
		return st, err
	}
	st.elemTok = p.tok
	st.elem, err = p.parseType()
	return st, err
}

func (p *parser) parseTensorType() (ir.Type, error) {
	st, err := p.parseShapedTypeStart("tensor")
	if err != nil {
		return nil, err
	}
	unranked, dims, elem := st.unranked, st.dims, st.elem
	var enc ir.Attribute
	if p.consumeIf(Comma) && p.isOptionalAttributeStart() {
		if enc, err = p.parseAttribute(nil); err != nil {
			return nil, err
		}
	}
	if err := p.expect(Greater, "expected '>' in tensor type"); err != nil {
		return nil, err
	}
	if !validTensorElement(elem) {
		return nil, p.errorAt(st.elemTok, "invalid tensor element type")
	}
	if unranked {
		if enc != nil {
			return nil, p.errorf("cannot apply encoding to unranked tensor")
		}
		return p.ctx.UnrankedTensor(elem), nil
	}
	return p.ctx.TensorWithEncoding(dims, elem, enc), nil
}

func (p *parser) parseMemRefType() (ir.Type, error) {
	memTok := p.tok
	st, err := p.parseShapedTypeStart("memref")
	if err != nil {
		return nil, err
	}
	unranked, dims, elem := st.unranked, st.dims, st.elem
	if !validMemRefElement(elem) {
		return nil, p.errorAt(st.elemTok, "invalid memref element type")
	}
	var layout, space ir.Attribute
	if !p.consumeIf(Greater) {
		if err := p.expect(Comma, "expected ',' or '>' in memref type"); err != nil {
			return nil, err
		}
		err := p.parseCommaSeparatedListUntil(Greater, false, func() error {
			a, err := p.parseAttribute(nil)
			if err != nil {
				return err
			}
			switch a.(type) {
			case *ir.AffineMapAttr, *ir.StridedLayoutAttr:
				layout = a
			default:
				if space != nil {
					return p.errorf("multiple memory spaces specified in memref type")
				}
				space = a
				return nil
			}
			if unranked {
				return p.errorf("cannot have affine map for unranked memref type")
			}
			if space != nil {
				return p.errorf("expected memory space to be last in memref type")
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	space, ok := canonicalMemorySpace(space)
	if !ok {
		return nil, p.errorAt(memTok, "unsupported memory space Attribute")
	}
	if unranked {
		return p.ctx.UnrankedMemRef(elem, space), nil
	}
	switch l := layout.(type) {
	case *ir.AffineMapAttr:
		if l.Map.NumDims != len(dims) {
			return nil, p.errorAt(memTok, "memref layout mismatch between rank and affine map: %d != %d",
				len(dims), l.Map.NumDims)
		}
		if l.Map.IsIdentity() {
			layout = nil
		}
	case *ir.StridedLayoutAttr:
		if len(l.Strides) != len(dims) {
			return nil, p.errorAt(memTok, "expected the number of strides to match the rank")
		}
	}
	return p.ctx.MemRef(dims, elem, layout, space), nil
}

// canonicalMemorySpace drops the default space (integer 0) and rejects
// builtin attributes that cannot name a memory space.
func canonicalMemorySpace(a ir.Attribute) (ir.Attribute, bool) {
	switch a := a.(type) {
	case nil:
		return nil, true
	case *ir.IntegerAttr:
		if a.Big == nil && a.Int == 0 {
			return nil, true
		}
		return a, true
	case *ir.StringAttr, *ir.DictAttr:
		return a, true
	case *ir.UnitAttr, *ir.FloatAttr, *ir.ArrayAttr, *ir.TypeAttr, *ir.SymbolRefAttr, *ir.OpaqueAttr,
		*ir.StridedLayoutAttr, *ir.AffineMapAttr, *ir.IntegerSetAttr, *ir.DenseElementsAttr,
		*ir.DenseStringElementsAttr, *ir.SparseElementsAttr, *ir.DenseArrayAttr,
		*ir.DenseResourceElementsAttr, *ir.UnknownLoc, *ir.FileLineColLoc, *ir.NameLoc, *ir.CallSiteLoc,
		*ir.FusedLoc:
		return nil, false
	}
	// A dialect's own attribute.
	return a, true
}

func (p *parser) parseVectorType() (ir.Type, error) {
	p.Next()
	if err := p.expect(Less, "expected '<' in vector type"); err != nil {
		return nil, err
	}
	var dims []int64
	var scalable []bool
	for p.tok.Kind == Integer || p.tok.Kind == LSquare {
		sc := p.consumeIf(LSquare)
		d, err := p.parseIntegerInDimensionList()
		if err != nil {
			return nil, err
		}
		if sc && !p.consumeIf(RSquare) {
			return nil, p.wrongToken("missing ']' closing scalable dimension")
		}
		dims = append(dims, d)
		scalable = append(scalable, sc)
		if err := p.parseXInDimensionList(); err != nil {
			return nil, err
		}
	}
	for _, d := range dims {
		if d <= 0 {
			return nil, p.errorf("vector types must have positive constant sizes")
		}
	}
	elemTok := p.tok
	elem, err := p.parseType()
	if err != nil {
		return nil, err
	}
	if err := p.expect(Greater, "expected '>' in vector type"); err != nil {
		return nil, err
	}
	if !isIntOrIndexOrFloat(elem) {
		return nil, p.errorAt(elemTok, "vector elements must be int/index/float type")
	}
	if dims == nil {
		dims = []int64{}
	}
	return p.ctx.Vector(dims, scalable, elem), nil
}

func (p *parser) parseComplexType() (ir.Type, error) {
	p.Next()
	if err := p.expect(Less, "expected '<' in complex type"); err != nil {
		return nil, err
	}
	elemTok := p.tok
	elem, err := p.parseType()
	if err != nil {
		return nil, err
	}
	if err := p.expect(Greater, "expected '>' in complex type"); err != nil {
		return nil, err
	}
	switch elem.(type) {
	case *ir.FloatType, *ir.IntegerType:
	default:
		return nil, p.errorAt(elemTok, "invalid element type for complex")
	}
	return p.ctx.Complex(elem), nil
}

func (p *parser) parseTupleType() (ir.Type, error) {
	p.Next()
	if err := p.expect(Less, "expected '<' in tuple type"); err != nil {
		return nil, err
	}
	if p.consumeIf(Greater) {
		return p.ctx.Tuple(), nil
	}
	ts, err := p.parseTypeListNoParens()
	if err != nil {
		return nil, err
	}
	if err := p.expect(Greater, "expected '>' in tuple type"); err != nil {
		return nil, err
	}
	return p.ctx.Tuple(ts...), nil
}

// parseCommaSeparatedListUntil parses elements separated by commas up to
// the closing token, which it consumes.
func (p *parser) parseCommaSeparatedListUntil(closing TokenKind, allowEmpty bool, elem func() error) error {
	if p.tok.Kind == closing {
		if !allowEmpty {
			return p.wrongToken("expected list element")
		}
		p.Next()
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if !p.consumeIf(Comma) {
			break
		}
	}
	if p.tok.Kind == closing {
		p.Next()
		return nil
	}
	return p.expect(closing, "expected ',' or '"+closing.String()+"'")
}

// parseCommaSeparatedList parses a delimited, possibly empty list:
// open (elem (`,` elem)*)? close. ctxMsg is appended to the messages.
func (p *parser) parseCommaSeparatedList(open, closing TokenKind, ctxMsg string, elem func() error) error {
	// The messages are built only on failure: this runs for every list of
	// a large file.
	if p.tok.Kind != open {
		return p.expect(open, "expected '"+open.String()+"'"+ctxMsg)
	}
	p.Next()
	if p.consumeIf(closing) {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if !p.consumeIf(Comma) {
			break
		}
	}
	if p.tok.Kind == closing {
		p.Next()
		return nil
	}
	return p.expect(closing, "expected '"+closing.String()+"'"+ctxMsg)
}
