package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/hostconn"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/prereq"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// Component is one system program w365 relies on (engine/prereq knows this platform's).
type Component = prereq.Component

// Check is one test of the environment beyond a program being installed.
type Check = prereq.Check

// Report is what doctor finds.
type DoctorReport struct {
	Components []Component `json:"components"`
	Checks     []Check     `json:"checks"`
	// Install is the command that installs what is missing ("" when nothing is):
	// apt-get on Linux, winget on Windows.
	Install string `json:"install,omitempty"`
	// Policy is the policy a host this CLI starts runs (--policy / W365_POLICY, or the
	// defaults); `w365 session details` shows the running host's.
	Policy policy.Summary `json:"policy"`
}

// Diagnose runs every check: programs, the runtime directory, the host, and this
// platform's own (prereq.Checks).
func Diagnose(ctx context.Context) DoctorReport {
	r := DoctorReport{Components: prereq.Components()}
	r.Checks = append(r.Checks, runtimeDirCheck(), hostCheck(ctx))
	r.Checks = append(r.Checks, prereq.Checks(ctx, r.Components)...)
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
		r.Install = prereq.InstallLine(pkgs)
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
	c.Detail = dir + " (" + hostconn.PrivacyNote(st) + ")"
	return c
}

func hostCheck(ctx context.Context) Check {
	c := Check{Name: "host"}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	st, err := host.HostStatus(ctx)
	if err != nil {
		// Not running is fine: the next command starts one. A socket whose server is
		// another user's stops every command.
		c.OK, c.Detail = true, "not running (the next command starts one)"
		if werr.CodeOf(err) != werr.Unavailable || errors.Is(err, hostconn.ErrServerRefused) {
			c.OK, c.Detail, c.Fatal = false, werr.As(err).Error(), errors.Is(err, hostconn.ErrServerRefused)
		}
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("running, pid %d, %s, up %s, %d session(s), on %s", st.PID, st.Build.Version, time.Duration(st.UptimeSec)*time.Second, len(st.Sessions), strings.Join(st.Endpoints, ", "))
	return c
}

// agentCheck says where an agent over MCP acts: docs/security.md#confinement.
func agentCheck(pol *policy.Policy) Check {
	first := session.DefaultID(session.AgentPrincipal)
	c := Check{Name: "agents", OK: true, Detail: "each agent over MCP gets a confined virtual session of its own while it is connected (" +
		first + ", then " + session.DefaultID(session.AgentN(2)) + "... when it names none; attach with --session " + first + ")"}
	if pol.AgentActsAsYou {
		c.Detail = "the agent acts as you: an agent over MCP that names no session drives your own desktop (policy agentActsAsYou)"
	}
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
			"missing. Exits 7 when something needed is missing or broken.\n\n" +
			"On Windows the components are the browser (W365_BROWSER, else Edge, Chrome or Chromium from the\n" +
			"registry's App Paths or the install directories), tesseract.exe and python.exe, the checks the\n" +
			"runtime directory, the host's named pipe, the Windows version (and wine, when it runs under\n" +
			"wine) and tesseract's languages, and the install line names winget package ids.",
		Example: "  $ w365 doctor\n  $ w365 doctor --jq .install",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pol, err := policy.Load(g.Policy)
			if err != nil {
				return err
			}
			if g.Browser != "" {
				// The browser engine reads W365_BROWSER; the flag wins over the environment.
				os.Setenv("W365_BROWSER", g.Browser)
			}
			r := Diagnose(cmd.Context())
			r.Policy = pol.Summarize()
			r.Checks = append(r.Checks, agentCheck(pol))
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
		if c.Source != "" && c.Source != "PATH" {
			st += " (" + c.Source + ")"
		}
		if !c.Found {
			st = "MISSING"
			if c.Detail != "" {
				st += ": " + c.Detail
			}
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
