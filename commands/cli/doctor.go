package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// Component is one system program w365 relies on.
type Component struct {
	Name    string `json:"name"`
	For     string `json:"for"`
	Package string `json:"package"`
	Found   bool   `json:"found"`
	Path    string `json:"path,omitempty"`
}

// Check is one test of the environment beyond a program being installed.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Package, when set, is what fixes a failed check.
	Package string `json:"package,omitempty"`
	// Fatal says a failure stops w365 from working (the others are warnings).
	Fatal bool `json:"fatal"`
}

// Report is what doctor finds.
type DoctorReport struct {
	Components []Component `json:"components"`
	Checks     []Check     `json:"checks"`
	// Install is the command that installs what is missing ("" when nothing is).
	Install string `json:"install,omitempty"`
	// Policy is the policy a host this CLI starts runs (--policy / W365_POLICY, or the
	// defaults); `w365 session details` shows the running host's.
	Policy policy.Summary `json:"policy"`
}

// components lists the programs w365 runs; each entry's first existing candidate
// counts. (The clipboard is spoken natively over X11: no xclip.)
var components = []struct {
	name, purpose, pkg string
	candidates         []string
}{
	{"Xvfb", "embedded virtual desktop", "xvfb", []string{"Xvfb"}},
	{"window manager", "moving, focusing and closing windows", "openbox", []string{"openbox"}},
	{"D-Bus", "session bus for accessibility", "dbus-daemon", []string{"dbus-daemon"}},
	{"AT-SPI", "accessibility bus and trees", "at-spi2-core", []string{"/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher"}},
	{"browser", "browser automation", "chromium", []string{os.Getenv("W365_BROWSER"), "microsoft-edge", "google-chrome", "chromium", "chromium-browser"}},
	{"tesseract", "OCR (analyze-screen)", "tesseract-ocr", []string{"tesseract"}},
	{"bubblewrap", "sandbox for exec and py", "bubblewrap", []string{"bwrap"}},
	{"python3", "execute-python-code", "python3", []string{"python3"}},
	{"node", "browser run-code (Node.js 20+; playwright-core is fetched with npm on first use)", "nodejs npm", []string{"node"}},
}

// Doctor checks each component.
func Doctor() []Component {
	var out []Component
	for _, c := range components {
		comp := Component{Name: c.name, For: c.purpose, Package: c.pkg}
		for _, cand := range c.candidates {
			if cand == "" {
				continue
			}
			if p, err := exec.LookPath(cand); err == nil {
				comp.Found, comp.Path = true, p
				break
			}
		}
		out = append(out, comp)
	}
	return out
}

// Diagnose runs every check: programs, the runtime directory, the host, the display,
// tesseract's languages and whether bubblewrap can make its namespaces here.
func Diagnose(ctx context.Context) DoctorReport {
	r := DoctorReport{Components: Doctor()}
	found := map[string]string{}
	for _, c := range r.Components {
		if c.Found {
			found[c.Name] = c.Path
		}
	}
	r.Checks = append(r.Checks, runtimeDirCheck(), hostCheck(ctx), displayCheck())
	if p, ok := found["tesseract"]; ok {
		r.Checks = append(r.Checks, tesseractCheck(ctx, p))
	}
	if p, ok := found["bubblewrap"]; ok {
		r.Checks = append(r.Checks, bwrapCheck(ctx, p))
	}
	var pkgs []string
	for _, c := range r.Components {
		if !c.Found {
			pkgs = append(pkgs, c.Package)
		}
	}
	for _, c := range r.Checks {
		if !c.OK && c.Package != "" {
			pkgs = append(pkgs, c.Package)
		}
	}
	if len(pkgs) > 0 {
		sudo := "sudo "
		if os.Geteuid() == 0 {
			sudo = ""
		}
		r.Install = sudo + "apt-get install -y --no-install-recommends " + strings.Join(pkgs, " ")
	}
	return r
}

func runtimeDirCheck() Check {
	c := Check{Name: "runtime directory", Fatal: true}
	dir, err := host.RuntimeDir()
	if err != nil {
		c.Detail = werr.As(err).Message
		return c
	}
	st, err := os.Stat(dir)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s (mode %04o, private)", dir, st.Mode().Perm())
	return c
}

func hostCheck(ctx context.Context) Check {
	c := Check{Name: "host"}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	st, err := host.HostStatus(ctx)
	if err != nil {
		// Not running is fine: the next command starts one.
		c.OK, c.Detail = true, "not running (the next command starts one)"
		if werr.CodeOf(err) != werr.Unavailable {
			c.OK, c.Detail = false, werr.As(err).Error()
		}
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("running, pid %d, %s, up %s, %d session(s)", st.PID, st.Build.Version, time.Duration(st.UptimeSec)*time.Second, len(st.Sessions))
	return c
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

func tesseractCheck(ctx context.Context, path string) Check {
	c := Check{Name: "tesseract languages", Package: "tesseract-ocr-eng"}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--list-langs").CombinedOutput()
	if err != nil {
		c.Detail = "tesseract --list-langs failed: " + strings.TrimSpace(string(out))
		return c
	}
	var langs []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.Contains(l, " ") && !strings.HasSuffix(l, ":") {
			langs = append(langs, l)
		}
	}
	c.Detail = "installed: " + strings.Join(langs, ", ")
	for _, l := range langs {
		if l == "eng" {
			c.OK = true
			c.Package = ""
			return c
		}
	}
	c.Detail += " (analyze-screen needs eng)"
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
	if err != nil {
		c.Detail = fmt.Sprintf("bwrap cannot create namespaces here: %s (unprivileged user namespaces may be off: sysctl kernel.unprivileged_userns_clone=1, or an AppArmor restriction; in a container allow them or run privileged)", strings.TrimSpace(string(out)))
		return c
	}
	c.OK, c.Detail = true, "user, PID, network and mount namespaces work"
	return c
}

// AddDoctor adds `w365 doctor` and `w365 version`.
func AddDoctor(root *cobra.Command, g *Globals) {
	root.AddCommand(&cobra.Command{
		Use:     "doctor",
		GroupID: "other",
		Short:   "Check what w365 needs: programs, runtime directory, host, display, OCR languages, sandbox",
		Long: "List each system component (virtual desktop, window manager, D-Bus/AT-SPI, browser, OCR,\n" +
			"sandbox, Python) as found or missing with the Debian/Ubuntu package that provides it, then\n" +
			"check the runtime directory and its mode, the host, the display, tesseract's languages and\n" +
			"whether bubblewrap can create its namespaces, and show the policy in force (--policy or the\n" +
			"defaults: its digest and the keys it changes). Ends with the apt-get line that installs what is\n" +
			"missing. Exits 7 when something needed is missing or broken.",
		Example: "  $ w365 doctor\n  $ w365 doctor --jq .install",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pol, err := policy.Load(g.Policy)
			if err != nil {
				return err
			}
			r := Diagnose(cmd.Context())
			r.Policy = pol.Summarize()
			iostr := IO{Out: cmd.OutOrStdout(), OutIsTerminal: g.outIsTerminal}
			if g.JSON || g.JQ != "" {
				if err := PrintJSON(iostr, g, r); err != nil {
					return err
				}
			} else {
				printDoctor(iostr, r)
			}
			bad := 0
			for _, c := range r.Components {
				if !c.Found {
					bad++
				}
			}
			for _, c := range r.Checks {
				if !c.OK && (c.Fatal || c.Package != "") {
					bad++
				}
			}
			if bad > 0 {
				e := werr.New(werr.Unavailable, "%d problem(s) found", bad)
				if r.Install != "" {
					return e.WithHint("%s", r.Install)
				}
				return e
			}
			return nil
		},
	})
	root.AddCommand(&cobra.Command{
		Use:     "version",
		GroupID: "other",
		Short:   "Print the w365 version, commit, build date and Go version",
		Example: "  $ w365 version\n  $ w365 version --jq .commit",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := host.BuildInfo()
			if g.JSON || g.JQ != "" {
				return PrintJSON(IO{Out: cmd.OutOrStdout(), OutIsTerminal: g.outIsTerminal}, g, b)
			}
			commit, date := b.Commit, b.Date
			if commit == "" {
				commit = "unknown"
			}
			if date == "" {
				date = "unknown"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "w365 %s\ncommit: %s\nbuilt:  %s\ngo:     %s %s/%s\n", b.Version, commit, date, b.Go, b.OS, b.Arch)
			return nil
		},
	})
}

func printDoctor(iostr IO, r DoctorReport) {
	type comp struct {
		Component string `json:"component"`
		Status    string `json:"status"`
		UsedFor   string `json:"usedFor"`
		Package   string `json:"package"`
	}
	type check struct {
		Check  string `json:"check"`
		Status string `json:"status"`
		Detail string `json:"detail"`
	}
	var comps struct {
		Components []comp `json:"components"`
	}
	for _, c := range r.Components {
		st := "found " + c.Path
		if !c.Found {
			st = "MISSING"
		}
		comps.Components = append(comps.Components, comp{c.Name, st, c.For, c.Package})
	}
	var checks struct {
		Checks []check `json:"checks"`
	}
	for _, c := range r.Checks {
		st := "ok"
		if !c.OK {
			st = "FAIL"
			if !c.Fatal && c.Package == "" {
				st = "warn"
			}
		}
		checks.Checks = append(checks.Checks, check{c.Name, st, c.Detail})
	}
	Human(iostr.Out, &comps, iostr.OutIsTerminal)
	if iostr.OutIsTerminal {
		fmt.Fprintln(iostr.Out)
	}
	Human(iostr.Out, &checks, iostr.OutIsTerminal)
	changed := "none"
	if len(r.Policy.Changed) > 0 {
		changed = strings.Join(r.Policy.Changed, ", ")
	}
	if iostr.OutIsTerminal {
		fmt.Fprintf(iostr.Out, "\npolicy %s (digest %s); changed from the defaults: %s\n", r.Policy.Source, r.Policy.Digest, changed)
	} else {
		fmt.Fprintf(iostr.Out, "policy\t%s\t%s\t%s\n", r.Policy.Source, r.Policy.Digest, changed)
	}
	if r.Install != "" {
		if iostr.OutIsTerminal {
			fmt.Fprintln(iostr.Out, "\nTo install what is missing:\n  "+r.Install)
		} else {
			fmt.Fprintln(iostr.Out, "install\t"+r.Install)
		}
	}
}

// versionLine is what --version prints after "w365 version ".
func versionLine() string {
	b := host.BuildInfo()
	s := b.Version
	if b.Commit != "" {
		s += " (" + shortCommit(b.Commit)
		if b.Date != "" {
			s += ", " + b.Date
		}
		s += ")"
	}
	return s + " " + b.Go
}
