package ir

// A Fact is a property of the IR that a pass needs of its input or
// establishes for the passes after it: that the module names its target,
// that every matmul carries its plan, that every tensor has a layout. A
// fact is declared once, as a value, in the package that owns what it is
// about (the dialect whose attribute or ops it names), and passes refer
// to it by that value. Passes declare what they need and establish with
// passes.Requirer and passes.Provider, and the pass infrastructure checks pipelines
// against them before anything runs.
type Fact struct {
	// Name is how messages and the pass reference name it, e.g.
	// "tiled.laid-out".
	Name string
	// Doc says what holds, as the end of "requires that ...".
	Doc string
	// Lacking returns an op under root (root itself for a fact about the
	// whole module) that shows the IR does not have the fact yet, or nil
	// when it does: the input may come from a file at any level. env holds
	// the facts the tool states (the target of --target). The op is where
	// the diagnostic points.
	Lacking func(root *Operation, env *Env) *Operation
}
