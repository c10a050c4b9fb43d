package main

import (
	"io"
	"log/slog"
	"time"

	"github.com/ipuir/ipuir/tools/toolkit"
)

// phaseLog writes one structured line per phase of a run, in the spirit of
// the reference compile log: phase=run elapsed_ms=1834 success=true.
type phaseLog struct{ logger *slog.Logger }

func newPhaseLog(enabled bool, w io.Writer) *phaseLog {
	if !enabled {
		return &phaseLog{}
	}
	return &phaseLog{logger: verboseLogger(w)}
}

// verboseLogger is -v's log: the lines ipu-opt and ipu-translate write
// (toolkit.NewLogger), at level info.
func verboseLogger(w io.Writer) *slog.Logger {
	l, _ := toolkit.NewLogger(w, "info")
	return l
}

// start begins a phase; the returned function ends it with its outcome.
func (l *phaseLog) start(phase string) func(err error) {
	if l.logger == nil {
		return func(error) {}
	}
	begin := time.Now()
	return func(err error) {
		l.logger.Info("ipu-run phase finished", "phase", phase,
			"elapsed_ms", time.Since(begin).Milliseconds(), "success", err == nil)
	}
}
