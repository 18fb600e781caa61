package ocr

import "os/exec"

// ownSession is nothing on Windows, which shares the CPU between threads, not sessions
// (see session_unix.go).
func ownSession(*exec.Cmd) {}
