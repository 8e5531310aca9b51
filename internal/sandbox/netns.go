package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// listenIn opens a TCP listener on addr inside the network namespace of
// process pid. The socket belongs to that namespace for good, so this
// process serves connections made inside the run without any route from
// the run to the host's network. The namespace switch happens on a thread
// locked for it; if switching back fails the thread is dropped (a locked
// goroutine's thread ends with it).
func listenIn(pid int, addr string) (net.Listener, error) {
	type result struct {
		l   net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		l, restored, err := listenInLocked(pid, addr)
		if restored {
			runtime.UnlockOSThread()
		}
		done <- result{l, err}
	}()
	r := <-done
	return r.l, r.err
}

func listenInLocked(pid int, addr string) (net.Listener, bool, error) {
	self, err := os.Open(fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), unix.Gettid()))
	if err != nil {
		return nil, true, err
	}
	defer func() { _ = self.Close() }()
	target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return nil, true, err
	}
	defer func() { _ = target.Close() }()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("entering the network namespace of %d: %w", pid, err)
	}
	l, lerr := net.Listen("tcp", addr)
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		if l != nil {
			l.Close()
		}
		return nil, false, errors.Join(lerr, fmt.Errorf("returning to this process's network namespace: %w", err))
	}
	return l, true, lerr
}
