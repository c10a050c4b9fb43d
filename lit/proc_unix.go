//go:build unix

package lit

import (
	"os/exec"
	"syscall"
)

// killTreeOnCancel makes a timeout kill the whole command: bash and every
// process of its pipelines, which would otherwise keep the output pipes
// open and the test waiting.
func killTreeOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
