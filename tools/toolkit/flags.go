package toolkit

import (
	"errors"

	"github.com/spf13/pflag"
)

// ParseFlags parses args into fs, as LLVM's tools treat their command
// lines: --help prints the usage and exits 0, a bad flag (fs has said why)
// exits 2. ok is false when the tool should exit with code.
func ParseFlags(fs *pflag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}
