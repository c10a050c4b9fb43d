// Package bsp is the bulk-synchronous structure a tile-asm program must
// have, as rules over its instructions in order: supersteps never go
// back; within a superstep the compute comes first, then a sync, then the
// exchange phases; and a superstep's compute never follows its own sync or
// exchange. The tile-asm verifier and the simulated device both check a
// program with Check, so what the compiler emits is what the device runs,
// and a package whose supersteps were relabelled or whose syncs were
// dropped (which would make the device charge less for the same work) is
// refused by both. It knows nothing of the IR.
package bsp

import "fmt"

// Kind is what a step of the program is.
type Kind uint8

const (
	// Compute is an instruction of a superstep's compute: AMP, vector,
	// reduce, copy.
	Compute Kind = iota + 1
	// Exchange is an exchange phase.
	Exchange
	// Sync is an all-tile synchronisation.
	Sync
)

// Step is one entry of a program: an instruction with its superstep, or a
// sync (whose superstep is not read).
type Step struct {
	Kind      Kind
	Superstep int64
}

// Error is a program that breaks a rule, at its Index-th step.
type Error struct {
	Index int
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// phase is where the program stands within its current superstep.
type phase uint8

const (
	computing phase = iota
	synced
	exchanged
)

// Check verifies steps, a whole program in order.
func Check(steps []Step) error {
	cur := int64(-1)
	at := computing
	bad := func(i int, format string, args ...any) error {
		return &Error{Index: i, Msg: fmt.Sprintf(format, args...)}
	}
	for i, s := range steps {
		if s.Kind == Sync {
			at = synced
			continue
		}
		if s.Kind != Compute && s.Kind != Exchange {
			return bad(i, "step %d is neither an instruction nor a sync", i)
		}
		if s.Superstep < 0 {
			return bad(i, "superstep %d is negative", s.Superstep)
		}
		if s.Superstep < cur {
			return bad(i, "runs in superstep %d after superstep %d: supersteps never go back", s.Superstep, cur)
		}
		switch s.Kind {
		case Compute:
			if s.Superstep == cur && at != computing {
				what := "sync"
				if at == exchanged {
					what = "exchange"
				}
				return bad(i, "computes in superstep %d after that superstep's %s: compute after a sync belongs to a later superstep", s.Superstep, what)
			}
			at = computing
		case Exchange:
			switch {
			case s.Superstep > cur && at != synced:
				return bad(i, "starts superstep %d with an exchange but no sync before it", s.Superstep)
			case s.Superstep == cur && at == computing:
				return bad(i, "exchanges in superstep %d right after its compute: a sync must come between", s.Superstep)
			}
			at = exchanged
		}
		cur = s.Superstep
	}
	return nil
}
