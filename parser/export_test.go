package parser

import "github.com/ipuir/ipuir/ir"

// ParseSourceStringNoCache parses without the text cache, for tests that
// check the cache changes nothing.
func ParseSourceStringNoCache(ctx *ir.Context, src []byte, cfg Config) (*ir.Operation, error) {
	return parseSource(ctx, src, cfg, true)
}

// CacheSizes parses src and reports how many entries each text cache
// ends with.
func CacheSizes(ctx *ir.Context, src []byte) (types, funcs, attrs, dicts int, err error) {
	st := newState()
	_, err = parseSourceWith(ctx, src, Config{Filename: "t.mlir"}, st)
	c := &st.cache
	return len(c.types), len(c.funcs), len(c.attrs), len(c.dicts), err
}

const GateWindow, GatePause = gateWindow, gatePause
