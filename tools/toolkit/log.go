package toolkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LogLevels are the names --log-level accepts.
var LogLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn,
	"error": slog.LevelError, "off": slog.LevelError + 100}

// NewLogger returns the structured log of a tool: lines written to w in
// the reference log's form,
//
//	2026-09-06T18:28:32.056439Z INFO retained operator-plan finalist finalist=0 estimated_cycles=506622
//
// with values quoted where they hold spaces or quotes, at the level named
// ("debug", "info", "warn", "error" or "off"). Lines are written whole,
// so that passes running in parallel never interleave them.
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	l, ok := LogLevels[strings.ToLower(level)]
	if !ok {
		return nil, fmt.Errorf("--log-level: unknown level '%s' (debug, info, warn, error or off)", level)
	}
	return slog.New(&lineHandler{w: w, level: l, mu: &sync.Mutex{}}), nil
}

// lineHandler writes one line per record.
type lineHandler struct {
	w     io.Writer
	level slog.Level
	mu    *sync.Mutex
	attrs []byte // preformatted attributes of With
	group string
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	buf := make([]byte, 0, 256)
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	buf = t.UTC().AppendFormat(buf, "2006-01-02T15:04:05.000000Z")
	buf = append(buf, ' ')
	buf = append(buf, r.Level.String()...)
	buf = append(buf, ' ')
	buf = append(buf, r.Message...)
	buf = append(buf, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		buf = appendAttr(buf, h.group, a)
		return true
	})
	buf = append(buf, '\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(buf)
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]byte(nil), h.attrs...)
	for _, a := range as {
		c.attrs = appendAttr(c.attrs, h.group, a)
	}
	return &c
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		c.group += "."
	}
	c.group += name
	return &c
}

func appendAttr(buf []byte, group string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return buf
	}
	key := a.Key
	if group != "" {
		key = group + "." + key
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, g := range a.Value.Group() {
			buf = appendAttr(buf, key, g)
		}
		return buf
	}
	buf = append(buf, ' ')
	buf = append(buf, key...)
	buf = append(buf, '=')
	s := a.Value.String()
	if needsQuote(s) {
		return strconv.AppendQuote(buf, s)
	}
	return append(buf, s...)
}

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for _, r := range s {
		if r <= ' ' || r == '"' || r == '=' || r == 0x7f {
			return true
		}
	}
	return false
}
