package target

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrTileMemory is what every refusal for want of tile memory is (errors.Is):
// no matmul plan fits beside what the tiles already hold, or a buffer
// finds no room on its tile. A program refused so may fit cut into
// phases, each with its own weights, which a compile driver can try; a
// refusal for any other reason would be refused again.
var ErrTileMemory = errors.New("the program does not fit tile memory")

// TileMemoryError is an error with the given message that is ErrTileMemory.
func TileMemoryError(format string, args ...any) error {
	return &tileMemoryError{fmt.Sprintf(format, args...)}
}

type tileMemoryError struct{ msg string }

func (e *tileMemoryError) Error() string        { return e.msg }
func (e *tileMemoryError) Is(target error) bool { return target == ErrTileMemory }

// Capacity returns the bytes one tile has in the memory class of the given
// kind.
func (t *Target) Capacity(kind MemoryKind) (int64, error) {
	c, err := t.Class(kind)
	if err != nil {
		return 0, err
	}
	return c.Size(), nil
}

// ClassOverflow is one memory class that a tile's demand does not fit.
type ClassOverflow struct {
	Class    string // the class's user-visible name, e.g. "Ipu21Standard"
	Kind     MemoryKind
	Need     int64 // bytes asked for
	Capacity int64 // bytes the class has
}

// Over returns by how many bytes the demand exceeds the capacity.
func (o ClassOverflow) Over() int64 { return o.Need - o.Capacity }

// MemoryOverflowError reports every memory class a tile's demand overflows,
// in the target's class order. Callers that want the figures use errors.As.
type MemoryOverflowError struct {
	Target    string
	Overflows []ClassOverflow
}

// Is makes a tile's overflow an ErrTileMemory.
func (e *MemoryOverflowError) Is(target error) bool { return target == ErrTileMemory }

func (e *MemoryOverflowError) Error() string {
	parts := make([]string, len(e.Overflows))
	for i, o := range e.Overflows {
		parts[i] = fmt.Sprintf("%s (%v) needs %d bytes but has %d: over by %d",
			o.Class, o.Kind, o.Need, o.Capacity, o.Over())
	}
	return fmt.Sprintf("target %s: tile memory overflow: %s", e.Target, strings.Join(parts, "; "))
}

// Fits checks one tile's memory demand, given as bytes per memory kind,
// against the class capacities. It returns nil when every class fits, a
// *MemoryOverflowError naming each class that overflows and by how much, or
// a plain error for a negative demand or a kind the target does not have.
func (t *Target) Fits(bytesPerClass map[MemoryKind]int64) error {
	kinds := make([]MemoryKind, 0, len(bytesPerClass))
	for k := range bytesPerClass {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds) // deterministic error text
	for _, k := range kinds {
		if need := bytesPerClass[k]; need < 0 {
			return fmt.Errorf("target %s: negative memory demand %d bytes for %v", t.Name, need, k)
		}
		if _, err := t.Class(k); err != nil {
			return err
		}
	}
	var overflows []ClassOverflow
	for _, c := range t.MemoryClasses {
		if need := bytesPerClass[c.Kind]; need > c.Size() {
			overflows = append(overflows, ClassOverflow{Class: c.Name, Kind: c.Kind, Need: need, Capacity: c.Size()})
		}
	}
	if overflows != nil {
		return &MemoryOverflowError{Target: t.Name, Overflows: overflows}
	}
	return nil
}
