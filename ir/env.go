package ir

// Env holds facts about a compilation that no op holds but that some
// verifiers and passes need: the machine compiled for, above all. A tool
// states them explicitly (ipu-opt reads the module's ipu.target once and
// puts the target in the Env it verifies and runs passes with), so that no
// verifier reaches outside its op for them, and the same IR can be checked
// against another machine without editing it.
//
// An Env is immutable; With returns a new one. The nil *Env is the empty
// environment. Keys are typed and compared by identity:
//
//	var TargetKey = ir.NewEnvKey[*Target]("target")
//	env = TargetKey.With(env, t)
//	t, ok := TargetKey.Get(env)
type Env struct {
	key    any
	value  any
	parent *Env
}

// EnvKey names one kind of fact, of type T.
type EnvKey[T any] struct{ name string }

// NewEnvKey makes a key; name is for messages.
func NewEnvKey[T any](name string) *EnvKey[T] { return &EnvKey[T]{name: name} }

// Name is the key's name.
func (k *EnvKey[T]) Name() string { return k.name }

// With returns env with the fact k = v added (replacing an earlier one).
func (k *EnvKey[T]) With(env *Env, v T) *Env { return &Env{key: k, value: v, parent: env} }

// Get returns the fact k of env, if it is there.
func (k *EnvKey[T]) Get(env *Env) (T, bool) {
	for e := env; e != nil; e = e.parent {
		if e.key == k {
			return e.value.(T), true
		}
	}
	var zero T
	return zero, false
}
