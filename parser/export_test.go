package parser

import "github.com/ipuir/ipuir/ir"

// ParseSourceStringNoCache parses without the text cache, for tests that
// check the cache changes nothing.
func ParseSourceStringNoCache(ctx *ir.Context, src []byte, cfg Config) (*ir.Operation, error) {
	return parseSource(ctx, src, cfg, true)
}
