package toolkit

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/ipuir/ipuir/runtime/atomicfile"
)

// RemoveOutputsOnSignal makes SIGINT, SIGTERM and SIGHUP remove every
// output still being written (atomicfile's temporaries) before the tool
// dies of the signal as it would have without the handler: an interrupted
// compile leaves neither a half-written output nor a temporary beside it.
// A tool that handles a signal itself (ipu-reduce stops its search on
// SIGINT) does not call it.
func RemoveOutputsOnSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-c
		atomicfile.RemovePending()
		signal.Reset(sig)
		if s, ok := sig.(syscall.Signal); ok {
			syscall.Kill(os.Getpid(), s)
		}
		os.Exit(1)
	}()
}
