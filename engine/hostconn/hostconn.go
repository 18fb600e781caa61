// Package hostconn is how the w365 host and its clients on one machine reach each other:
// the per-user runtime directory that hides the host's socket, the socket itself (AF_UNIX
// on Unix, a named pipe on Windows), who may connect to it, the lock that makes concurrent
// clients start one host, and starting, probing and ending that background host process.
// The host's protocol over the connection is commands/host's; this package only makes,
// guards and opens the connection, with one portable API over per-OS files.
package hostconn

import "errors"

// ErrServerRefused is the cause of a dial refused because the socket's server is not
// to be trusted (on Windows, a pipe served by another user's process). Retrying or
// starting a host cannot help.
var ErrServerRefused = errors.New("the host socket's server is not this user's")
