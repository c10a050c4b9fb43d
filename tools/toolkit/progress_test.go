package toolkit

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A phase that outlasts the delay shows a line with what it does, and the
// line is erased when it ends; a short phase shows nothing.
func TestProgressLine(t *testing.T) {
	var w lockedBuffer
	p := newProgress(&w, "ipu-opt", 10*time.Millisecond)
	end := p.Phase("running the pass pipeline")
	p.Detail("plan-gemms")
	time.Sleep(60 * time.Millisecond)
	end()
	out := w.String()
	if !strings.Contains(out, "ipu-opt: running the pass pipeline (plan-gemms)… ") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("progress output %q", out)
	}
	var quiet lockedBuffer
	q := newProgress(&quiet, "ipu-opt", time.Hour)
	q.Phase("parsing")()
	if quiet.String() != "" {
		t.Errorf("a short phase printed %q", quiet.String())
	}
	if NewProgress(&quiet, "x") != nil {
		t.Error("a buffer is not a terminal")
	}
	var none *Progress
	none.Phase("x")()
	none.Detail("y")
}
