package toolkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
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
	// Env states the facts of a parsed module that verifiers and passes
	// may need (the target, from its ipu.target attribute); nil states
	// none.
	Env func(module *ir.Operation) (*ir.Env, error)
}

// NewContext returns a fresh context with the tool's dialects.
func (l *Loader) NewContext() (*ir.Context, error) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = l.AllowUnregistered
	if l.Setup != nil {
		if err := l.Setup(ctx); err != nil {
			return nil, fmt.Errorf("BUG: registering dialects: %w", err)
		}
	}
	return ctx, nil
}

// ReadInput reads the file called name, or standard input for "-". It
// returns the name diagnostics use for it ("<stdin>" for standard input).
func ReadInput(name string, stdin io.Reader) (file string, src []byte, err error) {
	if name == "-" || name == "" {
		src, err = io.ReadAll(bufio.NewReader(stdin))
		return "<stdin>", src, err
	}
	src, err = os.ReadFile(name)
	return name, src, err
}

// InputError describes a failure to read an input as LLVM tools do:
// "could not open input file 'x': no such file or directory".
func InputError(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
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
}

// Parse parses c into ctx, states its environment and verifies it there.
// Failures are *ir.Diagnostic values (or errors that become one).
func (l *Loader) Parse(ctx *ir.Context, c Chunk) (*ir.Operation, *ir.Env, error) {
	first := c.FirstLine
	if first < 1 {
		first = 1
	}
	// c.Sources already holds the whole file (the parser would add the
	// chunk again, padded: a copy of every chunk of a large input).
	module, err := parser.ParseSourceString(ctx, c.Source, parser.Config{
		Filename: c.File, LineOffset: first - 1, ColumnOffset: c.FirstColumn,
	})
	if err != nil {
		return nil, nil, err
	}
	env, err := l.EnvOf(module)
	if err != nil {
		return nil, nil, err
	}
	if d := ir.VerifyIn(module, env); d != nil {
		return nil, nil, d
	}
	return module, env, nil
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
