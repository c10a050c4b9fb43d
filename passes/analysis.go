package passes

import (
	"reflect"
	"time"

	"github.com/ipuir/ipuir/ir"
)

// AnalysisManager caches analyses of one op across the passes of a
// pipeline: a pass asks for an analysis with GetAnalysis, and later passes
// on the same op reuse it unless a pass in between changed the IR. After
// each pass the cache is dropped, unless the pass declared with
// PreserveAll that it changed nothing analyses depend on.
type AnalysisManager struct {
	op       *ir.Operation
	cache    map[reflect.Type]any
	preserve bool
	// timing of analysis computations, as "(A) Name" under the pass
	times timeAcc
	node  *timerNode
	tm    *Timing
}

func newAnalysisManager(op *ir.Operation) *AnalysisManager {
	return &AnalysisManager{op: op, cache: map[reflect.Type]any{}}
}

// Op is the op the analyses describe.
func (am *AnalysisManager) Op() *ir.Operation { return am.op }

// PreserveAll keeps every cached analysis after the current pass.
func (am *AnalysisManager) PreserveAll() { am.preserve = true }

// Invalidate drops every cached analysis.
func (am *AnalysisManager) Invalidate() { clear(am.cache) }

// afterPass drops the cache unless the pass preserved it.
func (am *AnalysisManager) afterPass() {
	if !am.preserve {
		am.Invalidate()
	}
	am.preserve = false
}

// GetAnalysis returns the cached analysis of type T for am's op, computing
// it with compute on first use. The type T names the analysis.
func GetAnalysis[T any](am *AnalysisManager, compute func(op *ir.Operation) T) T {
	key := reflect.TypeFor[T]()
	if v, ok := am.cache[key]; ok {
		return v.(T)
	}
	start := time.Now()
	v := compute(am.op)
	if am.tm != nil && am.node != nil {
		name := key.String()
		for key.Kind() == reflect.Pointer {
			key = key.Elem()
		}
		if key.Name() != "" {
			name = key.Name()
		}
		am.times.add(am.tm.child(am.node, "(A) "+name), time.Since(start))
	}
	am.cache[reflect.TypeFor[T]()] = v
	return v
}
