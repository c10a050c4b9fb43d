package toolkit

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Progress shows what a long phase is doing on a terminal: after a phase
// has run for a second, one line on stderr names it with the time it has
// taken, rewritten in place, and erased when the phase ends, so that a
// finished run leaves nothing behind (tools stay quiet on success). When
// stderr is not a terminal it shows nothing.
type Progress struct {
	w       io.Writer
	tool    string
	delay   time.Duration
	mu      sync.Mutex
	phase   string
	detail  string
	start   time.Time
	shown   bool
	stop    chan struct{}
	stopped chan struct{}
}

// NewProgress returns a progress line for tool on w, shown only when w is
// a terminal.
func NewProgress(w io.Writer, tool string) *Progress {
	if !IsTerminal(w) {
		return nil
	}
	return newProgress(w, tool, time.Second)
}

func newProgress(w io.Writer, tool string, delay time.Duration) *Progress {
	return &Progress{w: w, tool: tool, delay: delay}
}

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Phase starts a phase; the returned function ends it. A nil Progress
// does nothing.
func (p *Progress) Phase(name string) (end func()) {
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	p.phase, p.detail, p.start, p.shown = name, "", time.Now(), false
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	stop, stopped := p.stop, p.stopped
	p.mu.Unlock()
	go p.tick(stop, stopped)
	return func() {
		close(stop)
		<-stopped
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.shown {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
	}
}

// Detail names what the current phase is doing now (the pass running).
func (p *Progress) Detail(what string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.detail = what
	p.mu.Unlock()
}

func (p *Progress) tick(stop, stopped chan struct{}) {
	defer close(stopped)
	timer := time.NewTimer(p.delay)
	defer timer.Stop()
	select {
	case <-stop:
		return
	case <-timer.C:
	}
	ticker := time.NewTicker(250 * time.Millisecond)
	defer ticker.Stop()
	for {
		p.mu.Lock()
		line := fmt.Sprintf("%s: %s", p.tool, p.phase)
		if p.detail != "" {
			line += " (" + p.detail + ")"
		}
		fmt.Fprintf(p.w, "\r\x1b[K%s… %.1f s", line, time.Since(p.start).Seconds())
		p.shown = true
		p.mu.Unlock()
		select {
		case <-stop:
			return
		case <-ticker.C:
		}
	}
}
