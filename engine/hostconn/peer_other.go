//go:build !linux

package hostconn

import "net"

// PeerRefused serves every peer: outside Linux the socket is guarded by its private runtime
// directory alone (macOS's LOCAL_PEERCRED and Windows' AF_UNIX give no namespace to check).
func PeerRefused(net.Conn) string { return "" }
