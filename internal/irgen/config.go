package irgen

// Config shapes one generated file.
type Config struct {
	// Off lists features not to generate. Where every alternative of a
	// choice is off, the generator falls back to the first (the plainest),
	// so switching off basics such as TypeSignless does not make output
	// impossible.
	Off map[Feature]bool
	// MaxDepth bounds the nesting of regions.
	MaxDepth int
	// MaxOpsPerBlock bounds the ops of one block, terminator excluded.
	MaxOpsPerBlock int
	// MaxTopLevelOps bounds the ops of the top-level module.
	MaxTopLevelOps int
}

// DefaultConfig generates every feature, in files of a few dozen ops.
func DefaultConfig() Config {
	return Config{MaxDepth: 3, MaxOpsPerBlock: 4, MaxTopLevelOps: 6}
}

// Without returns a copy of c with the given features off.
func (c Config) Without(fs ...Feature) Config {
	off := make(map[Feature]bool, len(c.Off)+len(fs))
	for f, v := range c.Off {
		off[f] = v
	}
	for _, f := range fs {
		off[f] = true
	}
	c.Off = off
	return c
}

// Enabled reports whether f may be generated.
func (c Config) Enabled(f Feature) bool { return !c.Off[f] }
