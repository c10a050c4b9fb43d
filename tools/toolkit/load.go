package toolkit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"unicode/utf8"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/runtime/atomicfile"
)

// ErrReported marks a failure whose diagnostics were already printed.
var ErrReported = errors.New("failure already reported")

// Loader parses and verifies IR the way every tool does.
type Loader struct {
	// Setup registers the tool's dialects on a fresh context.
	Setup func(ctx *ir.Context) error
	// AllowUnregistered lets ops, types and attributes of unknown
	// dialects through (--allow-unregistered-dialect).
	AllowUnregistered bool
	// Sequential keeps the contexts' verifier on one goroutine
	// (--mlir-disable-threading).
	Sequential bool
	// Env states the facts of a parsed module that verifiers and passes
	// may need (the target, from its ipu.target attribute); nil states
	// none.
	Env func(module *ir.Operation) (*ir.Env, error)
}

// NewContext returns a fresh context with the tool's dialects.
func (l *Loader) NewContext() (*ir.Context, error) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = l.AllowUnregistered
	ctx.DisableMultithreading = l.Sequential
	if l.Setup != nil {
		if err := l.Setup(ctx); err != nil {
			return nil, fmt.Errorf("BUG: registering dialects: %w", err)
		}
	}
	return ctx, nil
}

// MaxInputBytes is the largest text input a tool reads (a regular file,
// a pipe or standard input): beyond it, an input is refused rather than
// read forever (/dev/zero behind a pipe).
const MaxInputBytes = 4 << 30

// ReadInput reads the file called name, or standard input for "-". It
// returns the name diagnostics use for it ("<stdin>" for standard input).
// A named input must be a regular file or a pipe (atomicfile.Open: a
// device is refused), and no input may hold more than MaxInputBytes.
func ReadInput(name string, stdin io.Reader) (file string, src []byte, err error) {
	if name == "-" || name == "" {
		src, err = readAll(io.LimitReader(stdin, MaxInputBytes+1))
		if err == nil && len(src) > MaxInputBytes {
			err = fmt.Errorf("standard input holds more than %d bytes", int64(MaxInputBytes))
		}
		return "<stdin>", src, err
	}
	src, err = atomicfile.ReadFile(name, MaxInputBytes)
	return name, src, err
}

// Binary reports whether src is not text: in its first 64 KiB it holds a
// NUL byte or is not UTF-8 (a package, or a model with weights, passed
// where IR text is expected).
func Binary(src []byte) bool {
	head := src[:min(len(src), 64<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	// A multi-byte rune cut at the window's end is not an error.
	for cut := 1; cut < utf8.UTFMax && len(head) < len(src) && cut < len(head); cut++ {
		if utf8.Valid(head[:len(head)-cut]) {
			return false
		}
	}
	return true
}

// MaybeBinary reports whether src may be binary: Binary, or a control
// character other than tab, line feed, vertical tab, form feed and
// carriage return in its first 64 KiB (a small protobuf message is UTF-8
// without a NUL, but its field tags are such bytes). IR text with a
// stray one is still text, and its parser says where.
func MaybeBinary(src []byte) bool {
	head := src[:min(len(src), 64<<10)]
	return Binary(src) || bytes.ContainsFunc(head, func(r rune) bool { return r < 0x20 && (r < '\t' || r > '\r') || r == 0x7f })
}

// readAll reads r to its end into one exactly sized buffer: of the size a
// regular file says it has, or else gathered in blocks and joined once,
// so that a large piped input takes twice its size at the peak, not the
// two and a half of growing one slice.
func readAll(r io.Reader) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil && fi.Size() >= pos {
				buf := make([]byte, 0, fi.Size()-pos+1)
				for {
					n, err := f.Read(buf[len(buf):cap(buf)])
					buf = buf[:len(buf)+n]
					if err == io.EOF {
						return buf, nil
					}
					if err != nil {
						return buf, err
					}
					if len(buf) == cap(buf) {
						// The file grew: read the rest as from a pipe.
						rest, err := readBlocks(f)
						return append(buf, rest...), err
					}
				}
			}
		}
	}
	return readBlocks(r)
}

// readBlocks reads r in blocks of growing size, then joins them.
func readBlocks(r io.Reader) ([]byte, error) {
	var blocks [][]byte
	total, size := 0, 64<<10
	var err error
	for err == nil {
		b := make([]byte, size)
		n := 0
		for n < len(b) && err == nil {
			var m int
			m, err = r.Read(b[n:])
			n += m
		}
		blocks = append(blocks, b[:n])
		total += n
		size = min(size*2, 16<<20)
	}
	if err == io.EOF {
		err = nil
	}
	out := make([]byte, 0, total)
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out, err
}

// InputError describes a failure to read an input as LLVM tools do:
// "could not open input file 'x': no such file or directory".
func InputError(name string, err error) error {
	var pe *os.PathError
	var oe *atomicfile.OpenError
	switch {
	case errors.As(err, &oe):
		err = oe.Err
	case errors.As(err, &pe):
		err = pe.Err
	}
	return fmt.Errorf("could not open input file '%s': %v", name, err)
}

// Chunk is a piece of source to parse: a whole file, or one part of a
// --split-input-file input.
type Chunk struct {
	File   string // the file name locations use
	Source []byte
	// FirstLine is the 1-based line of the chunk's first line in the file,
	// and FirstColumn how many bytes of that line come before the chunk.
	FirstLine, FirstColumn int
	// Sources holds the file's text for rendering diagnostics.
	Sources *ir.SourceMgr
	// ExternalResources takes groups of the chunk's external_resources
	// (parser.Config.ExternalResources).
	ExternalResources map[string]parser.ResourceHandler
}

// Parse parses c into ctx, states its environment and verifies it there.
// Failures are *ir.Diagnostic values (or errors that become one).
func (l *Loader) Parse(ctx *ir.Context, c Chunk) (*ir.Operation, *ir.Env, error) {
	first := c.FirstLine
	if first < 1 {
		first = 1
	}
	// c.Sources already holds the whole file (the parser would add the
	// chunk again, padded: a copy of every chunk of a large input). It is
	// also where reports find the SSA names the user wrote.
	if c.Sources != nil {
		ctx.SetSources(c.Sources)
	}
	module, err := parser.ParseSourceString(ctx, c.Source, parser.Config{
		Filename: c.File, LineOffset: first - 1, ColumnOffset: c.FirstColumn,
		ExternalResources: c.ExternalResources,
	})
	if err != nil {
		return nil, nil, err
	}
	collectAfterParse(len(c.Source))
	env, err := l.EnvOf(module)
	if err != nil {
		return nil, nil, err
	}
	if d := ir.VerifyIn(module, env); d != nil {
		return nil, nil, d
	}
	return module, env, nil
}

// collectAfterParse runs the garbage collector once a large input is
// parsed. Parsing allocates the module and little else, so the collector's
// goal, twice the heap it last saw, is far above what is left; the
// verifier's and the printer's scratch would pile on top of the parser's
// until the next collection, which may never come. One collection here
// keeps the peak near the module's size: on a 30 MB file it is 20 MB
// lower, for 60 ms. Small inputs skip it.
func collectAfterParse(sourceBytes int) {
	if sourceBytes >= 8<<20 {
		runtime.GC()
	}
}

// EnvOf states module's environment with the tool's Env hook.
func (l *Loader) EnvOf(module *ir.Operation) (*ir.Env, error) {
	if l.Env == nil {
		return nil, nil
	}
	return l.Env(module)
}

// Program is a loaded, verified module.
type Program struct {
	Ctx     *ir.Context
	Module  *ir.Operation
	Env     *ir.Env
	File    string
	Source  []byte
	Sources *ir.SourceMgr
}

// Load reads, parses and verifies the file called name ("-" for stdin)
// as one module. Diagnostics are printed to stderr with their source
// lines and ErrReported is returned; a file that cannot be read is an
// InputError.
func (l *Loader) Load(name string, stdin io.Reader, stderr io.Writer) (*Program, error) {
	file, src, err := ReadInput(name, stdin)
	if err != nil {
		return nil, InputError(name, err)
	}
	return l.LoadSource(file, src, stderr)
}

// LoadSource parses and verifies src, the text of file, as Load does (a
// module kept inside another file: an application package's source).
func (l *Loader) LoadSource(file string, src []byte, stderr io.Writer) (*Program, error) {
	ctx, err := l.NewContext()
	if err != nil {
		return nil, err
	}
	p := &Program{Ctx: ctx, File: file, Source: src, Sources: ir.NewSourceMgr()}
	p.Sources.Add(file, src)
	p.Module, p.Env, err = l.Parse(ctx, Chunk{File: file, Source: src, FirstLine: 1, Sources: p.Sources})
	if err != nil {
		return nil, p.Report(err, stderr)
	}
	return p, nil
}

// Report prints err as a diagnostic with its source line, and returns
// ErrReported; errors that are not diagnostics are returned as they are.
func (p *Program) Report(err error, stderr io.Writer) error {
	var d *ir.Diagnostic
	if errors.As(err, &d) {
		fmt.Fprint(stderr, p.Sources.Render(d))
		return ErrReported
	}
	return err
}
