package pkgemit

import (
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// The origin of an instruction (ipupkg.Origin) is what the user calls the
// op it came from (ir.Context.SourceName): the lowering keeps every op's
// location, so a tile-asm instruction carries its tensor-level op's, and a
// fused location (tiled-prepare's joint QKV matmul) is named after all its
// parts.

// originOf names op's origin from its location and the program's sources.
func originOf(op *ir.Operation, sources *ir.SourceMgr) ipupkg.Origin {
	var o ipupkg.Origin
	if f, ok := ir.FileLineColOf(op.Loc()); ok {
		o.Line, o.Column = f.Line, f.Col
	}
	o.Name = joinNames(ir.SourceNames(op.Loc(), sources))
	if o.Name == "" {
		o.Name = opAndPlace(op, sources)
	}
	return o
}

// opAndPlace names what has no source name: the source op (or, without a
// source, op itself) and its place.
func opAndPlace(op *ir.Operation, sources *ir.SourceMgr) string {
	name := op.Name()
	if n := ir.OpNameAt(op.Loc(), sources); n != "" {
		name = n
	}
	if f, ok := ir.FileLineColOf(op.Loc()); ok {
		name += "@" + strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Col)
	}
	return name
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// sourcesOf is where module's locations find their text: the context's
// (the parser registers what it parses), else text under the file name of
// module's first file location (a module built in memory from text).
func sourcesOf(module *ir.Operation, text []byte) *ir.SourceMgr {
	if s := module.Context().Sources(); s != nil || len(text) == 0 {
		return s
	}
	s := ir.NewSourceMgr()
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if f, ok := ir.FileLineColOf(op.Loc()); ok {
			s.Add(f.File, text)
			return ir.WalkInterrupt
		}
		return ir.WalkAdvance
	})
	return s
}
