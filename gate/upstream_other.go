//go:build !unix

package gate

import (
	"errors"
	"os"
	"os/exec"
)

// errGone: the process no longer exists.
var errGone = errors.New("process gone")

// setProcessGroup: without process groups only the server process itself
// is stopped.
func setProcessGroup(*exec.Cmd) {}

func stopProcess(cmd *exec.Cmd) error {
	if err := cmd.Process.Kill(); err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			return errGone
		}
		return err
	}
	return nil
}

func terminateGroup(cmd *exec.Cmd) error { return stopProcess(cmd) }
func killGroup(cmd *exec.Cmd) error      { return stopProcess(cmd) }
