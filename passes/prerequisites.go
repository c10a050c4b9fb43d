package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// Requirer is implemented by a pass that needs facts of its input, and
// Provider by one that establishes facts for the passes after it; a pass
// declares only what it has. Pipelines are checked against them before
// anything runs, as Go's compiler checks its pass order: the parser
// refuses a pipeline in which a pass comes before the pass that
// establishes what it needs, and the pass manager refuses to start a
// pipeline in which a pass needs a fact that neither the input nor an
// earlier pass provides, naming the passes that would.
type Requirer interface{ Requires() []*ir.Fact }

// Provider: see Requirer.
type Provider interface{ Provides() []*ir.Fact }

func requiresOf(p Pass) []*ir.Fact {
	if q, ok := p.(Requirer); ok {
		return q.Requires()
	}
	return nil
}

func providesOf(p Pass) []*ir.Fact {
	if q, ok := p.(Provider); ok {
		return q.Provides()
	}
	return nil
}

// checkOrder refuses a pipeline in which a pass needs a fact that only a
// later pass establishes.
func (pm *OpPassManager) checkOrder() error {
	all := pm.allPasses()
	for i, p := range all {
		for _, f := range requiresOf(p) {
			if slices.ContainsFunc(all[:i], func(q Pass) bool { return slices.Contains(providesOf(q), f) }) {
				continue
			}
			if k := slices.IndexFunc(all[i+1:], func(q Pass) bool { return slices.Contains(providesOf(q), f) }); k >= 0 {
				return fmt.Errorf("pass '%s' requires that %s, which '%s' establishes only after it in the pipeline",
					p.Name(), f.Doc, all[i+1+k].Name())
			}
		}
	}
	return nil
}

// checkInput refuses to start a pipeline in which a pass needs a fact
// that neither root (with env) nor an earlier pass provides, with a
// diagnostic at the op that lacks it. providers names, per fact, the
// registered passes that establish it.
func (pm *OpPassManager) checkInput(root *ir.Operation, env *ir.Env, providers map[*ir.Fact][]string) *ir.Diagnostic {
	established := map[*ir.Fact]bool{}
	for _, p := range pm.allPasses() {
		for _, f := range requiresOf(p) {
			if established[f] {
				continue
			}
			at := f.Lacking(root, env)
			if at == nil {
				established[f] = true // the input has it
				continue
			}
			if names := providers[f]; len(names) > 0 {
				return at.EmitError("pass '%s' requires that %s, which the input does not have and no pass before it establishes: run %s first",
					p.Name(), f.Doc, strings.Join(names, " or "))
			}
			return at.EmitError("pass '%s' requires that %s, which the input does not have", p.Name(), f.Doc)
		}
		for _, f := range providesOf(p) {
			established[f] = true
		}
	}
	return nil
}

// providers lists, per fact, the registered passes that establish it.
func (r *Registry) providers() map[*ir.Fact][]string {
	out := map[*ir.Fact][]string{}
	for _, info := range r.Passes() {
		for _, f := range providesOf(info.newDefault()) {
			out[f] = append(out[f], info.Name)
		}
	}
	return out
}

// FactInfo is a fact as the pass reference lists it.
type FactInfo struct{ Name, Doc string }

// Requires and Provides are the facts the pass declares.
func (info *PassInfo) Requires() []FactInfo { return factInfos(requiresOf(info.newDefault())) }

// Provides: see Requires.
func (info *PassInfo) Provides() []FactInfo { return factInfos(providesOf(info.newDefault())) }

func factInfos(fs []*ir.Fact) []FactInfo {
	out := make([]FactInfo, len(fs))
	for i, f := range fs {
		out[i] = FactInfo{f.Name, f.Doc}
	}
	return out
}
