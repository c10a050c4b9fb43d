package parser

import (
	"encoding/binary"
	"fmt"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
)

// The file metadata section,
//
//	{-# dialect_resources: { builtin: { blob1: "0x04000000..." } },
//	    external_resources: { ... } #-}
//
// is our own nested-dictionary syntax and appears once per file, so
// participle reads it (its tokens come from the hand-written lexer; a hex
// blob is one String token however long). Entries of dialect_resources are
// recorded in the context (ir.Context.SetResource) as written, so they
// print back unchanged; builtin blobs are checked as MLIR checks them.

type fileMetadata struct {
	Entries []*metadataEntry `parser:"( @@ ( ',' @@ )* )?"`
}

type metadataEntry struct {
	Pos    lexer.Position
	Key    string           `parser:"@Ident ':'"`
	Groups []*resourceGroup `parser:"'{' ( @@ ( ',' @@ )* )? '}'"`
}

type resourceGroup struct {
	Pos     lexer.Position
	Name    string           `parser:"@Ident ':'"`
	Entries []*resourceEntry `parser:"'{' ( @@ ( ',' @@ )* )? '}'"`
}

type resourceEntry struct {
	Pos   lexer.Position
	Key   string         `parser:"( @Ident | @String ) ':'"`
	Value *resourceValue `parser:"@@"`
}

type resourceValue struct {
	Pos  lexer.Position
	Text string `parser:"@(String | Ident | Int | Float)"`
}

var metadataGrammar = participle.MustBuild[fileMetadata](
	participle.Lexer(tokenDefinition{}),
)

func (p *parser) parseFileMetadata() error {
	p.Next() // {-#
	toks, err := p.collectUntil(FileMetadataEnd, 0, "")
	if err != nil {
		return err
	}
	md, err := metadataGrammar.ParseFromLexer(toks)
	if err != nil {
		return p.participleError(err)
	}
	p.Next() // #-}
	for _, e := range md.Entries {
		switch e.Key {
		case "dialect_resources":
			for _, g := range e.Groups {
				if err := p.recordResources(g); err != nil {
					return err
				}
			}
		case "external_resources":
			for _, g := range e.Groups {
				handle := p.external[g.Name]
				if handle == nil {
					p.ctx.Emit(&ir.Diagnostic{Severity: ir.SeverityWarning, Loc: p.locAt(g.Pos.Line, g.Pos.Column),
						Message: "ignoring unknown external resources for '" + g.Name + "'"})
					continue
				}
				for _, entry := range g.Entries {
					if err := handle(&ResourceEntry{Key: unquoteKey(entry.Key), p: p, e: entry}); err != nil {
						if _, located := err.(*ir.Diagnostic); located {
							return err
						}
						return p.locErr(entry.Pos.Line, entry.Pos.Column, err.Error())
					}
				}
			}
		default:
			return p.locErr(e.Pos.Line, e.Pos.Column, "unknown key '"+e.Key+"' in file metadata dictionary")
		}
	}
	return nil
}

// ResourceHandler takes the entries of one group of a file's
// external_resources (Config.ExternalResources), as MLIR's resource
// parsers do: mlir-opt's --run-reproducer reads the mlir_reproducer group
// this way. An error it returns fails the parse; one that is not a
// diagnostic (from ResourceEntry's methods) is placed at the entry's key.
type ResourceHandler func(e *ResourceEntry) error

// ResourceEntry is one `key: value` entry of an external resource group.
type ResourceEntry struct {
	Key string
	p   *parser
	e   *resourceEntry
}

// String returns the value, which must be a string.
func (r *ResourceEntry) String() (string, error) {
	v := r.e.Value
	if v.Text == "" || v.Text[0] != '"' {
		return "", r.p.locErr(v.Pos.Line, v.Pos.Column, "expected string value for key '"+r.Key+"'")
	}
	return decodeString([]byte(v.Text)), nil
}

// Bool returns the value, which must be true or false.
func (r *ResourceEntry) Bool() (bool, error) {
	v := r.e.Value
	switch v.Text {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, r.p.locErr(v.Pos.Line, v.Pos.Column, "expected 'true' or 'false' value for key '"+r.Key+"'")
}

// Errorf makes an error at the entry's key.
func (r *ResourceEntry) Errorf(format string, args ...any) error {
	return r.p.locErr(r.e.Pos.Line, r.e.Pos.Column, fmt.Sprintf(format, args...))
}

func unquoteKey(key string) string {
	if key != "" && key[0] == '"' {
		return decodeString([]byte(key))
	}
	return key
}

func (p *parser) recordResources(g *resourceGroup) error {
	if p.ctx.Dialect(g.Name) == nil {
		return p.locErr(g.Pos.Line, g.Pos.Column, "dialect '"+g.Name+"' is unknown")
	}
	for _, e := range g.Entries {
		key := unquoteKey(e.Key)
		if g.Name == "builtin" {
			if err := p.checkBlob(key, e.Value); err != nil {
				return err
			}
		}
		p.ctx.SetResource(ir.Resource{Dialect: g.Name, Key: key, Value: e.Value.Text})
	}
	return nil
}

// checkBlob checks a builtin resource: a hex string whose first four bytes
// are a power-of-two alignment.
func (p *parser) checkBlob(key string, v *resourceValue) error {
	fail := func(suffix string) error {
		return p.locErr(v.Pos.Line, v.Pos.Column, "expected hex string blob for key '"+key+"'"+suffix)
	}
	if v.Text == "" || v.Text[0] != '"' {
		return fail("")
	}
	data, ok := p.hexBytes(Token{Start: v.Pos.Offset, End: v.Pos.Offset + len(v.Text)})
	if !ok {
		return fail("")
	}
	if len(data) < 4 {
		return fail(" to encode alignment in first 4 bytes")
	}
	if align := binary.LittleEndian.Uint32(data); align&(align-1) != 0 {
		return p.locErr(v.Pos.Line, v.Pos.Column, "expected hex string blob for key '"+key+
			"' to encode alignment in first 4 bytes, but got non-power-of-2 value: "+itoa(int64(align)))
	}
	return nil
}

func itoa(v int64) string {
	var b [20]byte
	i := len(b)
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
