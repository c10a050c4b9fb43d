package optmain

import "io"

// PhaseTimer times the driver's own phases of one chunk for --mlir-timing.
// mlir-opt's report puts `Parser` (which includes verification, as
// mlir-opt verifies while parsing), then the pass pipeline, then `Output`
// at the top level; the driver cannot build that report itself without
// depending on the pass manager, so an extension that owns the timing flag
// supplies the timer and finds it again in Input.Timing to add the
// pipeline's timers to the same tree.
type PhaseTimer interface {
	// StartPhase starts a top-level timer called name; the returned
	// function stops it.
	StartPhase(name string) (stop func())
	// Report writes the execution time report of the chunk.
	Report(w io.Writer) error
}

// TimingExtension is implemented by an extension that may time chunks.
type TimingExtension interface {
	// ChunkTimer returns a fresh timer for one chunk, started now, or nil
	// when timing is off. mlir-opt-19 reports each chunk of a split input
	// on its own, so each gets its own timer.
	ChunkTimer() PhaseTimer
}

// chunkTimer asks the extensions for a chunk's timer: the first one given.
func (t *Tool) chunkTimer() PhaseTimer {
	for _, e := range t.Extensions {
		if te, ok := e.(TimingExtension); ok {
			if pt := te.ChunkTimer(); pt != nil {
				return pt
			}
		}
	}
	return nil
}

// startPhase starts a phase timer when timing is on.
func startPhase(pt PhaseTimer, name string) (stop func()) {
	if pt == nil {
		return func() {}
	}
	return pt.StartPhase(name)
}
