//go:build !unix

package lit

import "os/exec"

// killTreeOnCancel relies on exec's default cancellation where process
// groups are not available.
func killTreeOnCancel(cmd *exec.Cmd) {}
