package filecheck

import (
	"math/big"
	"strings"
)

// This file holds numeric substitution blocks, [[#%x,VAR:EXPR]]: their
// formats, variables, expression trees and parser. Values are exact integers;
// FileCheck's APInts widen on overflow, which amounts to the same.

type formatKind int

const (
	formatNone formatKind = iota
	formatUnsigned
	formatSigned
	formatHexUpper
	formatHexLower
)

type exprFormat struct {
	kind      formatKind
	precision int
	alternate bool // the # flag: hex values carry a 0x prefix
}

func (f exprFormat) String() string {
	switch f.kind {
	case formatUnsigned:
		return "%u"
	case formatSigned:
		return "%d"
	case formatHexUpper:
		return "%X"
	case formatHexLower:
		return "%x"
	}
	return "<none>"
}

// equal is ExpressionFormat's operator==: no format equals nothing.
func (f exprFormat) equal(o exprFormat) bool {
	return f.kind != formatNone && f == o
}

func (f exprFormat) wildcardRegex() string {
	prefix := ""
	if f.alternate {
		prefix = "0x"
	}
	withPrecision := func(s string) string {
		return prefix + s + "{" + itoa(f.precision) + "}"
	}
	switch f.kind {
	case formatUnsigned:
		if f.precision > 0 {
			return withPrecision("([1-9][0-9]*)?[0-9]")
		}
		return "[0-9]+"
	case formatSigned:
		if f.precision > 0 {
			return withPrecision("-?([1-9][0-9]*)?[0-9]")
		}
		return "-?[0-9]+"
	case formatHexUpper:
		if f.precision > 0 {
			return withPrecision("([1-9A-F][0-9A-F]*)?[0-9A-F]")
		}
		return prefix + "[0-9A-F]+"
	case formatHexLower:
		if f.precision > 0 {
			return withPrecision("([1-9a-f][0-9a-f]*)?[0-9a-f]")
		}
		return prefix + "[0-9a-f]+"
	}
	return ""
}

// matchingString renders v the way the format matches it; ok is false when
// the format cannot show v (a negative value in an unsigned format).
func (f exprFormat) matchingString(v *big.Int) (string, bool) {
	if f.kind != formatSigned && v.Sign() < 0 {
		return "", false
	}
	radix := 10
	if f.kind == formatHexUpper || f.kind == formatHexLower {
		radix = 16
	}
	abs := new(big.Int).Abs(v).Text(radix)
	if f.kind == formatHexUpper {
		abs = strings.ToUpper(abs)
	}
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
	}
	prefix := ""
	if f.alternate {
		prefix = "0x"
	}
	if f.precision > len(abs) {
		abs = strings.Repeat("0", f.precision-len(abs)) + abs
	}
	return sign + prefix + abs, true
}

// valueFromString parses text that this format's wildcard matched.
func (f exprFormat) valueFromString(s string) *big.Int {
	negative := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	hex := f.kind == formatHexUpper || f.kind == formatHexLower
	if f.kind != formatSigned && f.alternate {
		s = strings.TrimPrefix(s, "0x")
	}
	base := 10
	if hex {
		base = 16
	}
	v, ok := new(big.Int).SetString(s, base)
	if !ok {
		v = new(big.Int)
	}
	if negative {
		v.Neg(v)
	}
	return v
}

// numericVariable is a numeric variable. A use of an undefined name creates
// one without a value so that the failure can be reported when matching.
type numericVariable struct {
	name   string
	format exprFormat
	value  *big.Int
	// captured is the input text the value was read from, if any.
	captured   *span
	defLine    int // check-file line of the definition; 0 when unknown
	hasDefLine bool
}

// span is a range of the input buffer.
type span struct{ start, end int }

func (v *numericVariable) clear() {
	v.value = nil
	v.captured = nil
}

// evalError is a failure to evaluate an expression: an undefined variable
// (named at nameRef) or an overflow.
type evalError struct {
	undefined bool
	name      ref
}

func (e evalError) message() string {
	if e.undefined {
		return "undefined variable: " + e.name.str()
	}
	return "overflow error"
}

type exprNode interface {
	eval() (*big.Int, []evalError)
	implicitFormat() (exprFormat, *diagError)
	exprString() ref
}

type literalExpr struct {
	text  ref
	value *big.Int
}

func (e *literalExpr) eval() (*big.Int, []evalError)            { return e.value, nil }
func (e *literalExpr) implicitFormat() (exprFormat, *diagError) { return exprFormat{}, nil }
func (e *literalExpr) exprString() ref                          { return e.text }

type variableExpr struct {
	name ref
	v    *numericVariable
}

func (e *variableExpr) eval() (*big.Int, []evalError) {
	if e.v.value == nil {
		return nil, []evalError{{undefined: true, name: e.name}}
	}
	return e.v.value, nil
}
func (e *variableExpr) implicitFormat() (exprFormat, *diagError) { return e.v.format, nil }
func (e *variableExpr) exprString() ref                          { return e.name }

type binaryExpr struct {
	text        ref
	op          func(a, b *big.Int) (*big.Int, bool)
	left, right exprNode
}

func (e *binaryExpr) eval() (*big.Int, []evalError) {
	l, lerr := e.left.eval()
	r, rerr := e.right.eval()
	if lerr != nil || rerr != nil {
		return nil, append(lerr, rerr...)
	}
	v, ok := e.op(l, r)
	if !ok {
		return nil, []evalError{{}}
	}
	return v, nil
}

func (e *binaryExpr) implicitFormat() (exprFormat, *diagError) {
	lf, lerr := e.left.implicitFormat()
	rf, rerr := e.right.implicitFormat()
	if lerr != nil {
		return exprFormat{}, lerr
	}
	if rerr != nil {
		return exprFormat{}, rerr
	}
	if lf.kind != formatNone && rf.kind != formatNone && !lf.equal(rf) {
		return exprFormat{}, errorAt(e.text.loc(), "implicit format conflict between '"+
			e.left.exprString().str()+"' ("+lf.String()+") and '"+e.right.exprString().str()+"' ("+
			rf.String()+"), need an explicit format specifier")
	}
	if lf.kind != formatNone {
		return lf, nil
	}
	return rf, nil
}

func (e *binaryExpr) exprString() ref { return e.text }

func opAdd(a, b *big.Int) (*big.Int, bool) { return new(big.Int).Add(a, b), true }
func opSub(a, b *big.Int) (*big.Int, bool) { return new(big.Int).Sub(a, b), true }
func opMul(a, b *big.Int) (*big.Int, bool) { return new(big.Int).Mul(a, b), true }
func opDiv(a, b *big.Int) (*big.Int, bool) {
	if b.Sign() == 0 {
		return nil, false
	}
	return new(big.Int).Quo(a, b), true
}
func opMax(a, b *big.Int) (*big.Int, bool) {
	if a.Cmp(b) < 0 {
		return b, true
	}
	return a, true
}
func opMin(a, b *big.Int) (*big.Int, bool) {
	if m, _ := opMax(a, b); m == a {
		return b, true
	}
	return a, true
}

// expression is a parsed numeric block: its tree (nil for a bare
// definition) and the format its value is matched with.
type expression struct {
	ast    exprNode
	format exprFormat
}

// diagError is an error located in a buffer (ErrorDiagnostic); an invalid
// location prints the message alone.
type diagError struct {
	loc location
	msg string
}

func errorAt(loc location, msg string) *diagError { return &diagError{loc, msg} }

type allowedOperand int

const (
	operandLineVar allowedOperand = iota
	operandLegacyLiteral
	operandAny
)

// variableProps is the result of parseVariable.
type variableProps struct {
	name     ref
	isPseudo bool
}

func isValidVarNameStart(c byte) bool { return c == '_' || isAlphaByte(c) }
func isAlphaByte(c byte) bool         { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigitByte(c byte) bool         { return c >= '0' && c <= '9' }

// parseVariable reads a variable name ($global, @pseudo or plain) from the
// front of s.
func parseVariable(s *ref) (variableProps, *diagError) {
	if s.empty() {
		return variableProps{}, errorAt(s.loc(), "empty variable name")
	}
	i := 0
	isPseudo := s.at(0) == '@'
	if s.at(0) == '$' || isPseudo {
		i++
	}
	if i == s.len() {
		kind := "global "
		if isPseudo {
			kind = "pseudo "
		}
		return variableProps{}, errorAt(s.from(i).loc(), "empty "+kind+"variable name")
	}
	if !isValidVarNameStart(s.at(i)) {
		return variableProps{}, errorAt(s.loc(), "invalid variable name")
	}
	i++
	for i < s.len() && (s.at(i) == '_' || isAlphaByte(s.at(i)) || isDigitByte(s.at(i))) {
		i++
	}
	name := s.take(i)
	*s = s.from(i)
	return variableProps{name: name, isPseudo: isPseudo}, nil
}

// numericParser parses numeric blocks for one pattern; lineNumber is the
// check-file line of the directive (0 when parsing -D definitions).
type numericParser struct {
	ctx        *context
	lineNumber int
	hasLine    bool
}

func (p *numericParser) parseVariableDefinition(expr *ref, format exprFormat) (*numericVariable, *diagError) {
	props, err := parseVariable(expr)
	if err != nil {
		return nil, err
	}
	name := props.name.str()
	if props.isPseudo {
		return nil, errorAt(props.name.loc(), "definition of pseudo numeric variable unsupported")
	}
	if p.ctx.definedVars[name] {
		return nil, errorAt(props.name.loc(), "string variable with name '"+name+"' already exists")
	}
	*expr = expr.trimLeft(spaceChars)
	if !expr.empty() {
		return nil, errorAt(expr.loc(), "unexpected characters after numeric variable name")
	}
	if v, ok := p.ctx.numericVars[name]; ok {
		if !v.format.equal(format) {
			return nil, errorAt(expr.loc(), "format different from previous variable definition")
		}
		return v, nil
	}
	v := &numericVariable{name: name, format: format, defLine: p.lineNumber, hasDefLine: p.hasLine}
	p.ctx.allNumericVars = append(p.ctx.allNumericVars, v)
	return v, nil
}

func (p *numericParser) parseVariableUse(name ref, isPseudo bool) (exprNode, *diagError) {
	n := name.str()
	if isPseudo && n != "@LINE" {
		return nil, errorAt(name.loc(), "invalid pseudo numeric variable '"+n+"'")
	}
	v, ok := p.ctx.numericVars[n]
	if !ok {
		v = &numericVariable{name: n, format: exprFormat{kind: formatUnsigned}}
		p.ctx.numericVars[n] = v
		p.ctx.allNumericVars = append(p.ctx.allNumericVars, v)
	}
	if v.hasDefLine && p.hasLine && v.defLine == p.lineNumber {
		return nil, errorAt(name.loc(), "numeric variable '"+n+"' defined earlier in the same CHECK directive")
	}
	return &variableExpr{name: name, v: v}, nil
}

func (p *numericParser) parseOperand(expr *ref, ao allowedOperand, maybeInvalidConstraint bool) (exprNode, *diagError) {
	if expr.hasPrefix("(") {
		if ao != operandAny {
			return nil, errorAt(expr.loc(), "parenthesized expression not permitted here")
		}
		return p.parseParenExpr(expr)
	}
	if ao == operandLineVar || ao == operandAny {
		saved := *expr
		props, err := parseVariable(expr)
		if err == nil {
			if expr.trimLeft(spaceChars).hasPrefix("(") {
				if ao != operandAny {
					return nil, errorAt(props.name.loc(), "unexpected function call")
				}
				return p.parseCallExpr(expr, props.name)
			}
			return p.parseVariableUse(props.name, props.isPseudo)
		}
		if ao == operandLineVar {
			return nil, err
		}
		*expr = saved
	}
	save := *expr
	negative := expr.consume("-")
	radix := 0
	if ao == operandLegacyLiteral {
		radix = 10
	}
	if v, ok := consumeInteger(expr, radix); ok {
		if negative {
			v.Neg(v)
		}
		return &literalExpr{text: save.dropBack(expr.len()), value: v}, nil
	}
	msg := "invalid "
	if maybeInvalidConstraint {
		msg += "matching constraint or "
	}
	return nil, errorAt(save.loc(), msg+"operand format")
}

func (p *numericParser) parseParenExpr(expr *ref) (exprNode, *diagError) {
	*expr = expr.trimLeft(spaceChars)
	expr.consume("(")
	*expr = expr.trimLeft(spaceChars)
	if expr.empty() {
		return nil, errorAt(expr.loc(), "missing operand in expression")
	}
	sub, err := p.parseOperand(expr, operandAny, false)
	*expr = expr.trimLeft(spaceChars)
	for err == nil && !expr.empty() && !expr.hasPrefix(")") {
		orig := *expr
		sub, err = p.parseBinop(orig, expr, sub, false)
		*expr = expr.trimLeft(spaceChars)
	}
	if err != nil {
		return nil, err
	}
	if !expr.consume(")") {
		return nil, errorAt(expr.loc(), "missing ')' at end of nested expression")
	}
	return sub, nil
}

func (p *numericParser) parseBinop(whole ref, rest *ref, left exprNode, legacy bool) (exprNode, *diagError) {
	*rest = rest.trimLeft(spaceChars)
	if rest.empty() {
		return left, nil
	}
	opLoc := rest.loc()
	operator := rest.at(0)
	*rest = rest.from(1)
	var op func(a, b *big.Int) (*big.Int, bool)
	switch operator {
	case '+':
		op = opAdd
	case '-':
		op = opSub
	default:
		return nil, errorAt(opLoc, "unsupported operation '"+string(operator)+"'")
	}
	*rest = rest.trimLeft(spaceChars)
	if rest.empty() {
		return nil, errorAt(rest.loc(), "missing operand in expression")
	}
	ao := operandAny
	if legacy {
		ao = operandLegacyLiteral
	}
	right, err := p.parseOperand(rest, ao, false)
	if err != nil {
		return nil, err
	}
	whole = whole.dropBack(rest.len())
	return &binaryExpr{text: whole, op: op, left: left, right: right}, nil
}

func (p *numericParser) parseCallExpr(expr *ref, funcName ref) (exprNode, *diagError) {
	*expr = expr.trimLeft(spaceChars)
	var fn func(a, b *big.Int) (*big.Int, bool)
	switch funcName.str() {
	case "add":
		fn = opAdd
	case "div":
		fn = opDiv
	case "max":
		fn = opMax
	case "min":
		fn = opMin
	case "mul":
		fn = opMul
	case "sub":
		fn = opSub
	default:
		return nil, errorAt(funcName.loc(), "call to undefined function '"+funcName.str()+"'")
	}
	expr.consume("(")
	*expr = expr.trimLeft(spaceChars)
	var args []exprNode
	for !expr.empty() && !expr.hasPrefix(")") {
		if expr.hasPrefix(",") {
			return nil, errorAt(expr.loc(), "missing argument")
		}
		outer := *expr
		arg, err := p.parseOperand(expr, operandAny, false)
		for err == nil && !expr.empty() {
			*expr = expr.trimLeft(spaceChars)
			if expr.hasPrefix(",") || expr.hasPrefix(")") {
				break
			}
			arg, err = p.parseBinop(outer, expr, arg, false)
		}
		if err != nil {
			return nil, err
		}
		args = append(args, arg)
		*expr = expr.trimLeft(spaceChars)
		if !expr.consume(",") {
			break
		}
		*expr = expr.trimLeft(spaceChars)
		if expr.hasPrefix(")") {
			return nil, errorAt(expr.loc(), "missing argument")
		}
	}
	if !expr.consume(")") {
		return nil, errorAt(expr.loc(), "missing ')' at end of call expression")
	}
	if len(args) == 2 {
		return &binaryExpr{text: *expr, op: fn, left: args[0], right: args[1]}, nil
	}
	return nil, errorAt(funcName.loc(), "function '"+funcName.str()+"' takes 2 arguments but "+
		itoa(len(args))+" given")
}

// parseSubstitutionBlock parses the inside of [[#...]]: an optional format,
// an optional "VAR:" definition, an optional "==" constraint and an
// expression. It returns the expression and the variable defined, if any.
func (p *numericParser) parseSubstitutionBlock(expr ref, legacy bool) (*expression, *numericVariable, *diagError) {
	var explicit exprFormat
	precision := 0
	formatEnd := expr.indexByte(',')
	funcStart := expr.indexByte('(')
	if formatEnd >= 0 && (funcStart < 0 || formatEnd < funcStart) {
		formatExpr := expr.take(formatEnd)
		expr = expr.from(formatEnd + 1)
		formatExpr = formatExpr.trimLeft(spaceChars).trimRight(spaceChars)
		if !formatExpr.consume("%") {
			return nil, nil, errorAt(formatExpr.loc(), "invalid matching format specification in expression")
		}
		altLoc := formatExpr.loc()
		alternate := formatExpr.consume("#")
		if formatExpr.consume(".") {
			v, ok := consumeInteger(&formatExpr, 10)
			if !ok || !v.IsInt64() || v.Int64() > 1<<32-1 {
				return nil, nil, errorAt(formatExpr.loc(), "invalid precision in format specifier")
			}
			precision = int(v.Int64())
		}
		if !formatExpr.empty() {
			fmtLoc := formatExpr.loc()
			c := formatExpr.at(0)
			formatExpr = formatExpr.from(1)
			switch c {
			case 'u':
				explicit = exprFormat{kind: formatUnsigned, precision: precision}
			case 'd':
				explicit = exprFormat{kind: formatSigned, precision: precision}
			case 'x':
				explicit = exprFormat{kind: formatHexLower, precision: precision, alternate: alternate}
			case 'X':
				explicit = exprFormat{kind: formatHexUpper, precision: precision, alternate: alternate}
			default:
				return nil, nil, errorAt(fmtLoc, "invalid format specifier in expression")
			}
		}
		if alternate && explicit.kind != formatHexLower && explicit.kind != formatHexUpper {
			return nil, nil, errorAt(altLoc, "alternate form only supported for hex values")
		}
		formatExpr = formatExpr.trimLeft(spaceChars)
		if !formatExpr.empty() {
			return nil, nil, errorAt(formatExpr.loc(), "invalid matching format specification in expression")
		}
	}

	var defExpr ref
	defEnd := expr.indexByte(':')
	if defEnd >= 0 {
		defExpr = expr.take(defEnd)
		expr = expr.from(defEnd + 1)
	}

	expr = expr.trimLeft(spaceChars)
	constraint := expr.consume("==")
	expr = expr.trimLeft(spaceChars)
	var ast exprNode
	if expr.empty() {
		if constraint {
			return nil, nil, errorAt(expr.loc(), "empty numeric expression should not have a constraint")
		}
	} else {
		expr = expr.trimRight(spaceChars)
		outer := expr
		ao := operandAny
		if legacy {
			ao = operandLineVar
		}
		node, err := p.parseOperand(&expr, ao, !constraint)
		for err == nil && !expr.empty() {
			node, err = p.parseBinop(outer, &expr, node, legacy)
			if err == nil && legacy && !expr.empty() {
				return nil, nil, errorAt(expr.loc(), "unexpected characters at end of expression '"+expr.str()+"'")
			}
		}
		if err != nil {
			return nil, nil, err
		}
		ast = node
	}

	format := explicit
	if format.kind == formatNone && ast != nil {
		f, err := ast.implicitFormat()
		if err != nil {
			return nil, nil, err
		}
		format = f
	}
	if format.kind == formatNone {
		format = exprFormat{kind: formatUnsigned, precision: precision}
	}
	e := &expression{ast: ast, format: format}

	if defEnd >= 0 {
		defExpr = defExpr.trimLeft(spaceChars)
		v, err := p.parseVariableDefinition(&defExpr, format)
		if err != nil {
			return nil, nil, err
		}
		return e, v, nil
	}
	return e, nil, nil
}

// consumeInteger parses an unsigned integer from the front of s like
// StringRef::consumeInteger into an APInt. Radix 0 senses 0x, 0b, 0o and a
// leading 0 (octal).
func consumeInteger(s *ref, radix int) (*big.Int, bool) {
	str := *s
	if radix == 0 {
		switch {
		case str.len() >= 2 && str.at(0) == '0' && (str.at(1) == 'x' || str.at(1) == 'X'):
			radix = 16
			str = str.from(2)
		case str.len() >= 2 && str.at(0) == '0' && (str.at(1) == 'b' || str.at(1) == 'B'):
			radix = 2
			str = str.from(2)
		case str.hasPrefix("0o"):
			radix = 8
			str = str.from(2)
		case str.len() > 1 && str.at(0) == '0' && isDigitByte(str.at(1)):
			radix = 8
			str = str.from(1)
		default:
			radix = 10
		}
	}
	if str.empty() {
		return nil, false
	}
	str = str.trimLeft("0")
	if str.empty() {
		*s = str
		return new(big.Int), true
	}
	v := new(big.Int)
	r := big.NewInt(int64(radix))
	for !str.empty() {
		c := str.at(0)
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 10
		default:
			d = 99
		}
		if d >= radix {
			break
		}
		v.Mul(v, r)
		v.Add(v, big.NewInt(int64(d)))
		str = str.from(1)
	}
	if s.len() == str.len() {
		return nil, false
	}
	*s = str
	return v, true
}

func itoa(n int) string {
	return big.NewInt(int64(n)).String()
}
