package hostconn

import (
	"net"
	"testing"
)

// serveEach listens at path and hands every connection to handle in the background, until
// the test ends; it returns the listener's endpoint.
func serveEach(t *testing.T, path string, handle func(net.Conn)) string {
	t.Helper()
	ln, endpoint, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			handle(c)
		}
	}()
	return endpoint
}
