//go:build windows

package win32

import (
	"flag"
	"os/exec"
	"strings"
	"testing"

	"github.com/w365/w365/engine/desktop/desktoptest"
	"github.com/w365/w365/test/testenv"
)

// The conformance suite moves the cursor, clicks, scrolls, presses keys and replaces the
// clipboard of the desktop it runs on: it runs only when asked to, on a desktop made for
// the test (test/wine runs it under wine, TestWineConformance).
var (
	conformance = flag.Bool("conformance", false, "run the desktop conformance suite on this desktop, which it drives")
	unsupported = flag.String("unsupported", "", "capabilities this Windows lacks, comma-separated (accessibility: wine 8 has no UI Automation client)")
)

// TestConformance runs the desktop contract's suite against the interactive desktop,
// with wine's or Windows' notepad as the test window.
func TestConformance(t *testing.T) {
	if !*conformance {
		testenv.Missing(t, "-conformance (the suite drives this desktop's mouse, keyboard and clipboard; test/wine passes it under wine)")
	}
	opts := []desktoptest.Option{desktoptest.WithWindow(func(t *testing.T) (string, int) {
		c := exec.Command("notepad.exe")
		if err := c.Start(); err != nil {
			t.Fatalf("start notepad: %v", err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return "Untitled - Notepad", c.Process.Pid
	})}
	for _, k := range strings.Split(*unsupported, ",") {
		if k = strings.TrimSpace(k); k != "" {
			opts = append(opts, desktoptest.Unsupported(desktoptest.Capability(k)))
		}
	}
	desktoptest.Run(t, Desktop{}, opts...)
}
