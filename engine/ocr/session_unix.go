//go:build unix

package ocr

import (
	"os/exec"
	"syscall"
)

// ownSession starts a reader in a session of its own. Linux shares the CPU between
// sessions first (autogroup, on by default) and only then between the threads of one: in
// the caller's session the readers and the caller split one session's share, on a busy
// machine a third of a core each beside two other busy sessions. In sessions of their own
// each reader has a session's share, as any program started from a terminal has
// (docs/development.md, OCR time under load).
func ownSession(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
