package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands/host"

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

// components lists what w365 uses; each entry's first existing candidate counts.
var components = []struct {
	name, purpose, pkg string
	candidates         []string
}{
	{"Xvfb", "embedded virtual desktop", "xvfb", []string{"Xvfb"}},
	{"window manager", "moving, focusing and closing windows", "openbox", []string{"openbox"}},
	{"D-Bus", "session bus for accessibility", "dbus-daemon", []string{"dbus-daemon"}},
	{"AT-SPI", "accessibility bus and trees", "at-spi2-core", []string{"/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher"}},
	{"browser", "browser automation", "chromium", []string{os.Getenv("W365_BROWSER"), "microsoft-edge", "google-chrome", "chromium", "chromium-browser"}},
	{"tesseract", "OCR (analyze_screen)", "tesseract-ocr", []string{"tesseract"}},
	{"bubblewrap", "sandbox for shell and Python", "bubblewrap", []string{"bwrap"}},
	{"python3", "execute_python_code", "python3", []string{"python3"}},
	{"node", "browser_run_code (Node.js 20+; playwright-core is fetched with npm on first use)", "nodejs npm", []string{"node"}},
	{"xclip", "clipboard images and ownership", "xclip", []string{"xclip"}},
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

// AddDoctor adds `w365 doctor`.
func AddDoctor(root *cobra.Command, g *Globals) {
	root.AddCommand(&cobra.Command{
		Use:     "doctor",
		GroupID: "other",
		Short:   "List the system components w365 uses, found or missing, with their packages",
		Long:    "List each system component (virtual desktop, window manager, D-Bus/AT-SPI, browser, OCR, sandbox)\nas found or missing, with the Debian/Ubuntu package that provides it. Exits 7 when something is missing.",
		Example: "  $ w365 doctor\n  $ w365 doctor --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			comps := Doctor()
			missing := 0
			for _, c := range comps {
				if !c.Found {
					missing++
				}
			}
			if g.JSON {
				json.NewEncoder(cmd.OutOrStdout()).Encode(comps)
			} else {
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "COMPONENT\tSTATUS\tUSED FOR\tPACKAGE")
				for _, c := range comps {
					status := "found " + c.Path
					if !c.Found {
						status = "MISSING"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, status, c.For, c.Package)
				}
				tw.Flush()
			}
			if missing > 0 {
				return werr.New(werr.Unavailable, "%d component(s) missing", missing).WithHint("sudo apt-get install the packages listed")
			}
			return nil
		},
	})
	root.AddCommand(&cobra.Command{
		Use:     "version",
		GroupID: "other",
		Short:   "Print the w365 version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), host.Version())
		},
	})
}
