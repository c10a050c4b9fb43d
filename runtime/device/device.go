// Package device is how a runner drives a machine that runs application
// packages: open it, attach, initialise, load a package, and run it in a
// host-exchange session that writes the input streams, invokes the
// program and reads the outputs and checkpoints. The simulated device
// (runtime/sim) is its first implementation; a real device is another.
//
// Ownership of a device is a lock file (Acquire): one runner at a time,
// others wait or, asked not to, fail at once; the kernel releases the lock
// when its holder exits, however it exits.
package device

import "github.com/ipuir/ipuir/runtime/ipupkg"

// Device is one machine.
type Device interface {
	// Name says which device it is ("sim:ipu21").
	Name() string
	// Attach takes the device for this runner (after Acquire).
	Attach() error
	// Initialize resets it to a known state.
	Initialize() error
	// Load validates the package against the device and loads every tile's
	// image and initial data, then synchronises all tiles once.
	Load(pkg *ipupkg.Package) error
	// Session opens a host-exchange session on the loaded package.
	Session() (Session, error)
	// Close releases the device.
	Close() error
}

// Session is one host-exchange session: inputs in, a call, outputs out.
type Session interface {
	// Write fills input stream index with its tensor: elements little
	// endian, row major, the stream's element type and shape.
	Write(index int, data []byte) error
	// Run invokes the program (the reference log's streaming host-exchange
	// call "run").
	Run() error
	// Read returns output stream index, as Write takes inputs.
	Read(index int) ([]byte, error)
	// Checkpoint returns checkpoint i's tensor as Read does.
	Checkpoint(i int) ([]byte, error)
	// Cycles is the last run's count.
	Cycles() *Cycles
}

// Cycles is a run's cycle count and where it went.
type Cycles struct {
	Total      int64
	Supersteps []SuperstepCycles
	// Ops gives, per instruction of the program, the cycles of its
	// busiest tile.
	Ops []OpCycles
	// Streamed is the loads of weights from the chip's streaming memory
	// (stream-in instructions).
	Streamed StreamedLoads
	// ChipLinks is what a program spanning chips exchanged between them.
	ChipLinks ChipLinks
}

// ChipLinks sums a run's exchange phases that crossed the chips of a
// program spanning several: how many, the bytes that crossed, the cycles
// the phases lasted beyond the tiles' own exchange waiting for the links,
// and what their syncs across every chip cost beyond the chip's own.
type ChipLinks struct {
	Phases     int   `json:"phases"`
	Bytes      int64 `json:"bytes"`
	Waited     int64 `json:"waited"`
	SyncCycles int64 `json:"syncCycles"`
}

// StreamedLoads sums a run's loads from streaming memory: how many, their
// bytes, the cycles the program waited for them, and the cycles of
// loading that IO tiles hid behind compute (Waited plus Hidden is every
// load's transfer, with the IO tiles' hand-overs in Waited).
type StreamedLoads struct {
	Loads  int   `json:"loads"`
	Bytes  int64 `json:"bytes"`
	Waited int64 `json:"waited"`
	Hidden int64 `json:"hidden"`
}

// SuperstepCycles is one superstep: the busiest tile's compute, the
// sync, and the exchange phase's horizon.
type SuperstepCycles struct {
	Superstep               int64
	Compute, Sync, Exchange int64
	// Busy is how the tiles share the superstep's work: each tile's
	// compute cycles plus the words it sends or receives in the
	// superstep's exchange (the busier direction).
	Busy TileLoad
}

// OpCycles is one instruction's cost.
type OpCycles struct {
	Instruction int
	Op          string
	Superstep   int64
	// Cycles is the busiest tile's: its compute, or for an exchange the
	// phase's cycles.
	Cycles int64
	// Busy is how the tiles share the instruction: compute cycles per
	// tile, or for an exchange the words each tile sends or receives
	// (the busier direction).
	Busy TileLoad
}

// TileLoad says which tile was busiest and how evenly the others were.
type TileLoad struct {
	// Tile is the busiest tile (the lowest-numbered of equals), -1 when
	// no tile had any work.
	Tile int
	// Load is its load; AtMax counts the tiles with that load (Tile
	// among them) and Working those with any.
	Load           int64
	AtMax, Working int
}

// LoadOf summarises per-tile loads.
func LoadOf(load []int64) TileLoad {
	l := TileLoad{Tile: -1}
	for t, v := range load {
		switch {
		case v <= 0:
			continue
		case v > l.Load:
			l.Tile, l.Load, l.AtMax = t, v, 1
		case v == l.Load:
			l.AtMax++
		}
		l.Working++
	}
	return l
}
