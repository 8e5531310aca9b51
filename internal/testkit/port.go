package testkit

import (
	"net"
	"testing"
)

// FreePort is a loopback TCP port nothing listened on a moment ago, for a
// process the test starts that takes its port as a setting.
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
