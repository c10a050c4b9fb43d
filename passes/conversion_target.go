package passes

import "github.com/ipuir/ipuir/ir"

// ConversionTarget says which ops a dialect conversion must leave behind:
// legal ops stay, illegal ops must be rewritten, and dynamically legal ops
// are legal when a function of the op says so. Legality is declared per op
// name and per dialect; an op's own entry wins over its dialect's. Ops with
// neither are unknown: a partial conversion leaves them alone, a full one
// must convert them, unless MarkUnknownOpDynamicallyLegal decides for them.
type ConversionTarget struct {
	ops      map[string]legality
	dialects map[string]legality
	unknown  func(*ir.Operation) bool
}

type legality struct {
	legal   bool
	dynamic func(*ir.Operation) bool
}

func (l legality) eval(op *ir.Operation) bool {
	if l.dynamic != nil {
		return l.dynamic(op)
	}
	return l.legal
}

// NewConversionTarget returns a target that knows no op.
func NewConversionTarget() *ConversionTarget {
	return &ConversionTarget{ops: map[string]legality{}, dialects: map[string]legality{}}
}

// AddLegalOp marks ops legal by name.
func (t *ConversionTarget) AddLegalOp(names ...string) {
	for _, n := range names {
		t.ops[n] = legality{legal: true}
	}
}

// AddIllegalOp marks ops illegal by name.
func (t *ConversionTarget) AddIllegalOp(names ...string) {
	for _, n := range names {
		t.ops[n] = legality{}
	}
}

// AddDynamicallyLegalOp makes the op named name legal when legal(op) holds.
func (t *ConversionTarget) AddDynamicallyLegalOp(name string, legal func(*ir.Operation) bool) {
	t.ops[name] = legality{dynamic: legal}
}

// AddLegalDialect marks every op of the dialects legal.
func (t *ConversionTarget) AddLegalDialect(names ...string) {
	for _, n := range names {
		t.dialects[n] = legality{legal: true}
	}
}

// AddIllegalDialect marks every op of the dialects illegal.
func (t *ConversionTarget) AddIllegalDialect(names ...string) {
	for _, n := range names {
		t.dialects[n] = legality{}
	}
}

// AddDynamicallyLegalDialect makes the dialect's ops legal when legal(op) holds.
func (t *ConversionTarget) AddDynamicallyLegalDialect(name string, legal func(*ir.Operation) bool) {
	t.dialects[name] = legality{dynamic: legal}
}

// MarkUnknownOpDynamicallyLegal decides the legality of ops the target
// does not otherwise know.
func (t *ConversionTarget) MarkUnknownOpDynamicallyLegal(legal func(*ir.Operation) bool) {
	t.unknown = legal
}

// Legality says whether op is legal, and whether the target knows it at
// all (false for ops it has no entry for).
func (t *ConversionTarget) Legality(op *ir.Operation) (legal, known bool) {
	if l, ok := t.ops[op.Name()]; ok {
		return l.eval(op), true
	}
	if l, ok := t.dialects[ir.DialectNamespace(op.Name())]; ok {
		return l.eval(op), true
	}
	if t.unknown != nil {
		return t.unknown(op), true
	}
	return false, false
}
