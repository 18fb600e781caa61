//go:build windows

package prereq

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/w365/w365/engine/internal/winapi"
	"golang.org/x/sys/windows"
)

// platformComponents are the programs w365 runs on Windows, with their winget ids:
// no virtual desktop, window manager, accessibility bus or bubblewrap (the desktop is
// the user's own, UI Automation is part of Windows, the sandbox is a Job Object).
var platformComponents = []componentSpec{
	{name: "browser", purpose: "browser automation (Edge, Chrome or Chromium)", pkg: "Microsoft.Edge", find: findBrowser},
	{name: "tesseract", purpose: "OCR (analyze-screen; tesseract.exe on PATH)", pkg: "UB-Mannheim.TesseractOCR", candidates: []string{"tesseract"}},
	{name: "python", purpose: "execute-python-code and python in the sandbox", pkg: "Python.Python.3.13", candidates: []string{"python"}},
}

// tesseractLangPkg: the UB Mannheim installer brings English; a missing model comes
// back with a reinstall.
const tesseractLangPkg = "UB-Mannheim.TesseractOCR"

// platformChecks are the system (Windows, or wine), tesseract's languages and
// whether python.exe runs (the Microsoft Store's python.exe alias only opens the
// Store).
func platformChecks(ctx context.Context, found map[string]string) []Check {
	out := []Check{systemCheck()}
	if p, ok := found["tesseract"]; ok {
		out = append(out, tesseractCheck(ctx, p))
	}
	if p, ok := found["python"]; ok {
		out = append(out, pythonCheck(ctx, p))
	}
	return out
}

// InstallLine is one winget install per package (winget takes one package a call),
// joined by "; " for PowerShell.
func InstallLine(pkgs []string) string {
	var cmds []string
	for _, p := range pkgs {
		cmds = append(cmds, "winget install -e --id "+p)
	}
	return strings.Join(cmds, "; ")
}

// systemCheck names the Windows version, and wine's when ntdll exports
// wine_get_version (wine is not Windows: what runs there is the code path).
func systemCheck() Check {
	v := windows.RtlGetVersion()
	c := Check{Name: "system", OK: true, Detail: fmt.Sprintf("Windows %d.%d build %d", v.MajorVersion, v.MinorVersion, v.BuildNumber)}
	if wine, host := winapi.WineVersion(); wine != "" {
		c.Name = "wine"
		c.Detail = fmt.Sprintf("wine %s on %s, reporting %s: wine is not Windows", wine, host, c.Detail)
	}
	return c
}

func pythonCheck(ctx context.Context, path string) Check {
	c := Check{Name: "python runs", Package: "Python.Python.3.13"}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		c.Detail = fmt.Sprintf("%s --version failed (%v): %s (the Microsoft Store alias only opens the Store: install Python, or turn the alias off in Settings > Apps > App execution aliases)", path, err, strings.TrimSpace(string(out)))
		return c
	}
	c.OK, c.Package, c.Detail = true, "", strings.TrimSpace(string(out))
	return c
}
