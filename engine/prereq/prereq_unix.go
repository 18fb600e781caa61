//go:build !windows

package prereq

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/sandbox"
)

// platformComponents are the programs w365 runs on Linux, with their Debian packages.
// (The clipboard is spoken natively over X11: no xclip.)
var platformComponents = []componentSpec{
	{name: "Xvfb", purpose: "embedded virtual desktop", pkg: "xvfb", candidates: []string{"Xvfb"}},
	{name: "window manager", purpose: "moving, focusing and closing windows", pkg: "openbox", candidates: []string{"openbox"}},
	{name: "D-Bus", purpose: "session bus for accessibility", pkg: "dbus-daemon", candidates: []string{"dbus-daemon"}},
	{name: "AT-SPI", purpose: "accessibility bus and trees", pkg: "at-spi2-core", candidates: []string{"/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher"}},
	{name: "browser", purpose: "browser automation", pkg: "chromium", find: findBrowser},
	{name: "tesseract", purpose: "OCR (analyze-screen)", pkg: "tesseract-ocr", candidates: []string{"tesseract"}},
	{name: "bubblewrap", purpose: "sandbox for exec and py", pkg: "bubblewrap", candidates: []string{"bwrap"}},
	{name: "python3", purpose: "execute-python-code", pkg: "python3", candidates: []string{"python3"}},
	{name: "node", purpose: "browser run-code (Node.js 20+; playwright-core is fetched with npm on first use)", pkg: "nodejs npm", candidates: []string{"node"}},
}

// tesseractLangPkg is the package of tesseract's English model.
const tesseractLangPkg = "tesseract-ocr-eng"

// platformChecks are the display, tesseract's languages, bubblewrap's namespaces and the
// cgroups that limit calls and sessions (a warning when none is writable).
func platformChecks(ctx context.Context, found map[string]string) []Check {
	out := []Check{displayCheck()}
	if p, ok := found["tesseract"]; ok {
		out = append(out, tesseractCheck(ctx, p))
	}
	if p, ok := found["bubblewrap"]; ok {
		out = append(out, bwrapCheck(ctx, p))
		ok, detail := sandbox.CgroupsCheck()
		out = append(out, Check{Name: "resource limits", OK: ok, Detail: detail})
	}
	return out
}

// InstallLine is the apt-get command that installs pkgs.
func InstallLine(pkgs []string) string {
	sudo := "sudo "
	if os.Geteuid() == 0 {
		sudo = ""
	}
	return sudo + "apt-get install -y --no-install-recommends " + strings.Join(pkgs, " ")
}

func displayCheck() Check {
	c := Check{Name: "display", OK: true}
	d := os.Getenv("DISPLAY")
	if d == "" {
		c.Detail = "DISPLAY not set: every session gets its own virtual desktop (Xvfb)"
		return c
	}
	// ":N" and ":N.S" are the local socket /tmp/.X11-unix/XN.
	if rest, ok := strings.CutPrefix(d, ":"); ok {
		n, _, _ := strings.Cut(rest, ".")
		conn, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+n, time.Second)
		if err != nil {
			c.OK, c.Detail = false, fmt.Sprintf("DISPLAY=%s but its X server does not answer: %v (unset DISPLAY or use --virtual)", d, err)
			return c
		}
		conn.Close()
	}
	c.Detail = "DISPLAY=" + d + ": the default session uses it (--virtual for a virtual desktop)"
	return c
}

// bwrapCheck runs what the sandbox needs: new user, PID, network and mount namespaces.
func bwrapCheck(ctx context.Context, path string) Check {
	c := Check{Name: "bubblewrap namespaces"}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--unshare-all", "--die-with-parent", "--", "true")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil && sandbox.Problem(path, false) != "" {
		c.Detail = fmt.Sprintf("bwrap cannot create namespaces here: %s (%s)", strings.TrimSpace(string(out)), sandbox.Problem(path, false))
		return c
	}
	if err != nil {
		c.Detail = fmt.Sprintf("bwrap cannot create namespaces here: %s (unprivileged user namespaces may be off: sysctl kernel.unprivileged_userns_clone=1, or an AppArmor restriction; in a container allow them or run privileged)", strings.TrimSpace(string(out)))
		return c
	}
	if why := sandbox.Problem(path, policy.Default().AllowNetwork); why != "" {
		c.Detail = "cannot confine sessions: " + why
		return c
	}
	c.OK, c.Detail = true, "user, PID, network and mount namespaces, seccomp and the Landlock scope work"
	return c
}
