//go:build linux

package wine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWineBrowserDoctor runs its subtests in order on one prefix: doctor with nothing
// installed, the browser discovery order over planted App Paths entries and install
// directories (wine has no Edge: the browsers are testdata/fakebrowser.c), a browser
// tool launching the one found, and the host pipe's server check and DACL.
func TestWineBrowserDoctor(t *testing.T) {
	x := New(t, 1024, 768)
	fake := filepath.Join(x.dir, "fakebrowser.exe")
	x.BuildC("fakebrowser.c", fake)
	x.RunSteps(t,
		Step{"DoctorNothingInstalled", func(t *testing.T, x *Wine) { testDoctorNothingInstalled(t, x, fake) }},
		Step{"DiscoveryOrder", func(t *testing.T, x *Wine) { testDiscoveryOrder(t, x, fake) }},
		Step{"LaunchFound", func(t *testing.T, x *Wine) { testLaunchFound(t, x, fake) }},
		Step{"HostPipe", func(t *testing.T, x *Wine) { testHostPipe(t, x, fake) }},
	)
}

type doctorReport struct {
	Components []struct {
		Name, Package, Path, Source, Detail string
		Found                               bool
	}
	Checks []struct {
		Name, Detail string
		OK           bool
	}
	Install string
}

// doctor runs w365.exe doctor --json (exit 0, or 7 when something is missing).
func doctor(x *Wine, args ...string) (doctorReport, Result) {
	x.T.Helper()
	r := x.Run(append(args, "doctor", "--json")...)
	var rep doctorReport
	if (r.Code != 0 && r.Code != 7) || json.Unmarshal([]byte(r.Stdout), &rep) != nil {
		x.T.Fatalf("doctor --json: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	return rep, r
}

func (r doctorReport) component(t *testing.T, name string) (c struct {
	Name, Package, Path, Source, Detail string
	Found                               bool
}) {
	t.Helper()
	for _, c := range r.Components {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("doctor lists no %q component: %+v", name, r.Components)
	return
}

// testDoctorNothingInstalled: doctor lists the Windows components only (no Xvfb,
// window manager, D-Bus, AT-SPI, bubblewrap or node), none found; the host check
// passes; wine is detected (ntdll's wine_get_version); the install line is winget's;
// and a browser tool fails with UNAVAILABLE and the same hint.
func testDoctorNothingInstalled(t *testing.T, x *Wine, _ string) {
	rep, r := doctor(x)
	var names []string
	for _, c := range rep.Components {
		names = append(names, c.Name)
	}
	if want := []string{"browser", "tesseract", "python"}; !slices.Equal(names, want) {
		t.Fatalf("doctor components = %v, want %v", names, want)
	}
	b := rep.component(t, "browser")
	if b.Found || !strings.Contains(b.Detail, "no Chromium-family browser found") || !strings.Contains(b.Detail, "App Paths") {
		t.Fatalf("browser component with nothing installed: %+v", b)
	}
	checks := map[string]string{}
	for _, c := range rep.Checks {
		if !c.OK && c.Name != "host" {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
		checks[c.Name] = c.Detail
	}
	for _, linuxOnly := range []string{"display", "bubblewrap namespaces"} {
		if _, ok := checks[linuxOnly]; ok {
			t.Errorf("doctor on Windows runs the Linux check %q", linuxOnly)
		}
	}
	if d := checks["wine"]; !strings.HasPrefix(d, "wine 8") || !strings.Contains(d, "Linux") || !strings.Contains(d, "reporting Windows") {
		t.Errorf("wine check = %q (checks %v), want wine 8 on Linux detected", d, checks)
	}
	if _, ok := checks["host"]; !ok {
		t.Errorf("no host check in %v", checks)
	}
	if _, ok := checks["runtime directory"]; !ok {
		t.Errorf("no runtime directory check in %v", checks)
	}
	for _, id := range []string{"Microsoft.Edge", "UB-Mannheim.TesseractOCR", "Python.Python.3.13"} {
		if !strings.Contains(rep.Install, "winget install -e --id "+id) {
			t.Errorf("install line %q does not install %s", rep.Install, id)
		}
	}
	if r.Code != 7 || !strings.Contains(r.Stderr, "UNAVAILABLE") || !strings.Contains(r.Stderr, "winget install") {
		t.Errorf("doctor with components missing: exit %d, stderr %q", r.Code, r.Stderr)
	}
	nav := x.Run("browser", "navigate", "about:blank")
	if nav.Code != 7 || !strings.Contains(nav.Stderr, "UNAVAILABLE: no Chromium-family browser found") || !strings.Contains(nav.Stderr, "winget install -e --id Microsoft.Edge") {
		t.Fatalf("browser-navigate with no browser: exit %d, stderr %q", nav.Code, nav.Stderr)
	}
	t.Logf("browser-navigate: %s", strings.TrimSpace(nav.Stderr))
}

// testDiscoveryOrder plants browsers one by one, each meant to win over what was
// there, and checks which doctor names: Chromium, then Chrome, then Edge; App Paths
// (HKCU, then HKLM 64-bit, then 32-bit) before the install directories
// (%ProgramFiles%, %ProgramFiles(x86)%, %LOCALAPPDATA%); an App Paths entry naming a
// missing file is passed over; --browser (W365_BROWSER) beats them all.
func testDiscoveryOrder(t *testing.T, x *Wine, fake string) {
	c := x.CDrive()
	local := x.LocalAppData()
	plant := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(fake)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err == nil {
			err = os.WriteFile(p, b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
		return x.WinPath(p)
	}
	appPaths := `\SOFTWARE\Microsoft\Windows\CurrentVersion\App Paths\`
	want := func(step, path, source string) {
		t.Helper()
		b, _ := doctor(x)
		got := b.component(t, "browser")
		if !got.Found || !strings.EqualFold(got.Path, path) || got.Source != source {
			t.Fatalf("%s: doctor's browser = %s from %q (%s), want %s from %q", step, got.Path, got.Source, got.Detail, path, source)
		}
		t.Logf("%s: %s (%s)", step, got.Path, got.Source)
	}
	p := plant(filepath.Join(local, "Chromium", "Application", "chrome.exe"))
	want("Chromium per user", p, "%LOCALAPPDATA%")
	p = plant(filepath.Join(c, "Program Files (x86)", "Google", "Chrome", "Application", "chrome.exe"))
	want("Chrome beats Chromium", p, "%ProgramFiles(x86)%")
	p = plant(filepath.Join(c, "Program Files", "Google", "Chrome", "Application", "chrome.exe"))
	want("%ProgramFiles% before (x86)", p, "%ProgramFiles%")
	p = plant(filepath.Join(c, "apps", "chrome-user", "chrome.exe"))
	x.Reg("add", "HKCU"+appPaths+"chrome.exe", "/ve", "/d", p, "/f")
	want("App Paths before the install directories", p, "App Paths (HKCU)")
	p = plant(filepath.Join(local, "Microsoft", "Edge", "Application", "msedge.exe"))
	want("Edge beats Chrome", p, "%LOCALAPPDATA%")
	// Windows redirects a 32-bit installer's App Paths to WOW6432Node, read second;
	// wine 8 shares the key between the views, so there the 64-bit read finds it.
	p = plant(filepath.Join(c, "apps", "edge32", "msedge.exe"))
	x.Reg("add", "HKLM"+appPaths+"msedge.exe", "/ve", "/d", p, "/f", "/reg:32")
	want("HKLM, written by a 32-bit installer (shared under wine)", p, "App Paths (HKLM)")
	p = plant(filepath.Join(c, "apps", "edge64", "msedge.exe"))
	x.Reg("add", "HKLM"+appPaths+"msedge.exe", "/ve", "/d", p, "/f", "/reg:64")
	want("HKLM's 64-bit view", p, "App Paths (HKLM)")
	x.Reg("add", "HKCU"+appPaths+"msedge.exe", "/ve", "/d", `C:\apps\uninstalled\msedge.exe`, "/f")
	want("an entry naming a missing file is passed over", p, "App Paths (HKLM)")
	p = plant(filepath.Join(c, "apps", "edge-user", "msedge.exe"))
	// Quoted, and REG_EXPAND_SZ with a variable, as installers write them.
	x.Reg("add", "HKCU"+appPaths+"msedge.exe", "/ve", "/t", "REG_EXPAND_SZ", "/d", `"%SystemDrive%\apps\edge-user\msedge.exe"`, "/f")
	want("HKCU before HKLM (quoted, REG_EXPAND_SZ)", p, "App Paths (HKCU)")
	if h := x.Run("doctor"); !strings.Contains(h.Stdout, `found C:\apps\edge-user\msedge.exe (App Paths (HKCU))`) {
		t.Errorf("doctor's table does not say where the browser was found:\n%s", h.Stdout)
	}

	other := plant(filepath.Join(c, "apps", "other", "browser.exe"))
	rep, _ := doctor(x, "--browser", other)
	if b := rep.component(t, "browser"); !b.Found || !strings.EqualFold(b.Path, other) || b.Source != "W365_BROWSER" {
		t.Fatalf("--browser %s: doctor's browser = %+v", other, b)
	}
	rep, _ = doctor(x, "--browser", `C:\apps\nope\browser.exe`)
	if b := rep.component(t, "browser"); b.Found || !strings.Contains(b.Detail, `W365_BROWSER="C:\\apps\\nope\\browser.exe" not found`) {
		t.Fatalf("--browser naming a missing file: doctor's browser = %+v", b)
	}
}

// testLaunchFound: a browser tool starts the browser discovery picked (the HKCU Edge
// of DiscoveryOrder) through the engine's one launch path, handing it the DevTools
// pipe as two inherited handles; the stand-in exits at once, and the tool says so.
func testLaunchFound(t *testing.T, x *Wine, _ string) {
	args := filepath.Join(x.CDrive(), "apps", "edge-user", "msedge.exe.args")
	os.Remove(args)
	r := x.Run("browser", "navigate", "about:blank")
	if r.Code == 0 {
		t.Fatalf("browser-navigate with a browser that exits at start succeeded: %s", r.Stdout)
	}
	t.Logf("browser-navigate: exit %d, %s", r.Code, strings.TrimSpace(r.Stderr))
	b, err := os.ReadFile(args)
	if err != nil {
		t.Fatalf("the discovered msedge.exe was not started (%v); browser-navigate said %q", err, r.Stderr)
	}
	got := string(b)
	t.Logf("msedge.exe ran as: %s", got)
	for _, want := range []string{`edge-user\msedge.exe`, "--remote-debugging-io-pipes=", "--user-data-dir=", "pipes=ok"} {
		if !strings.Contains(got, want) {
			t.Errorf("the browser's command line and handles %q lack %q", got, want)
		}
	}
	// The host that ran the tool answers doctor's host check over its pipe (through
	// hostconn.Dial's server check).
	rep, _ := doctor(x)
	for _, c := range rep.Checks {
		if c.Name == "host" && (!c.OK || !strings.Contains(c.Detail, "running, pid") || !strings.Contains(c.Detail, `pipe:\\.\pipe\w365-S-`)) {
			t.Errorf("host check with the host running: %+v", c)
		}
	}
}

// testHostPipe runs engine/hostconn's Windows tests under wine: Dial's server check
// (GetNamedPipeServerProcessId, the server's token user) and the pipe's DACL read back
// with GetSecurityInfo.
func testHostPipe(t *testing.T, x *Wine, _ string) {
	r := x.GoTest("./engine/hostconn", "-test.run", "^TestPipe", "-test.v")
	t.Logf("engine/hostconn tests under wine:\n%s%s", r.Stdout, r.Stderr)
	if r.Code != 0 {
		t.Fatalf("engine/hostconn TestPipe* under wine: exit %d", r.Code)
	}
	for _, name := range []string{"TestPipeServerCheck", "TestPipeDACL"} {
		if !strings.Contains(r.Stdout, "--- PASS: "+name) {
			t.Errorf("%s did not pass", name)
		}
	}
}
