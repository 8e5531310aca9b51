//go:build unix

package gate

import (
	"errors"
	"os/exec"
	"syscall"
)

// errGone: the process group no longer exists.
var errGone = errors.New("process group gone")

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return errGone
		}
		return err
	}
	return nil
}

func terminateGroup(cmd *exec.Cmd) error { return signalGroup(cmd, syscall.SIGTERM) }
func killGroup(cmd *exec.Cmd) error      { return signalGroup(cmd, syscall.SIGKILL) }
