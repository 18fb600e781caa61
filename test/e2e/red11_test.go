//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// TestBoundarySessionPlantsNothingAProgramOnPATHLoads: a directory on PATH was refused as a
// working directory, and so was one holding it, but the rest of the installation it belongs
// to was not: with ~/conda/bin on PATH (as conda's installer puts it), a Python call in
// ~/conda/lib/python3.X/site-packages wrote a .pth file, and the person's next python3 from
// PATH ran its line, outside the sandbox; ~/go/pkg/mod (the sources every go build of the
// person compiles, ~/go/bin on PATH) was open the same way. Judged by effect: the person's
// python3 runs nothing the session wrote.
func TestBoundarySessionPlantsNothingAProgramOnPATHLoads(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	conda := filepath.Join(home, "conda")
	if out, err := exec.Command("python3", "-m", "venv", "--without-pip", conda).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv: %v %s", err, out)
	}
	site, _ := filepath.Glob(filepath.Join(conda, "lib", "python3*", "site-packages"))
	if len(site) != 1 {
		t.Fatalf("no site-packages in %s: %v", conda, site)
	}
	mod := filepath.Join(home, "go", "pkg", "mod", "example.com", "m@v1.0.0")
	for _, d := range []string{filepath.Join(home, "go", "bin"), mod} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.SetEnv("PATH", filepath.Join(conda, "bin")+":"+filepath.Join(home, "go", "bin")+":"+os.Getenv("PATH"))
	ran := filepath.Join(t.TempDir(), "planted-pth-ran")
	cs := h.MCP()
	rel, _ := filepath.Rel(home, site[0])
	_, wrote := pyOver(t, cs, fmt.Sprintf("open('w365.pth', 'w').write(%q)\n", "import os; open("+fmt.Sprintf("%q", ran)+", 'w').close()\n"), "~/"+rel)
	_, wroteMod := pyOver(t, cs, "open('m.go', 'w').write('package m\\n')\n", "~/go/pkg/mod/example.com/m@v1.0.0")
	// The person, later, runs the python3 PATH finds.
	if out, err := exec.Command(filepath.Join(conda, "bin", "python3"), "-c", "pass").CombinedOutput(); err != nil {
		t.Fatalf("the person's python3: %v %s", err, out)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the person's python3 ran a line the session wrote in its site-packages (the call succeeded: %v)", wrote)
	}
	if _, err := os.Stat(filepath.Join(mod, "m.go")); err == nil || wroteMod {
		t.Errorf("the session wrote into ~/go/pkg/mod, which the person's go build compiles (the call succeeded: %v)", wroteMod)
	}
	// Everyday use still works: a project beside them.
	if _, ok := pyOver(t, cs, "open('x', 'w').write('x')\n", "~/project"); !ok {
		t.Error("a call in ~/project was refused")
	}
}

// TestBoundarySessionReplacesNoProgramOfTheHost: the host runs its own executable again
// (the sandbox helper, on a root host as root before it confines; the background host a
// CLI starts; the MCP client's next `serve --mcp`), by its path. Installed where a session
// may write (a release unpacked into ~/tools, named by an MCP client's configuration by
// its absolute path, not found on PATH), a Python call replaced it, and the host's next
// sandboxed call ran the replacement, unconfined. Judged by effect: nothing the session
// wrote runs outside.
func TestBoundarySessionReplacesNoProgramOfTheHost(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	tools := filepath.Join(home, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	h.Bin = filepath.Join(tools, "w365")
	if err := os.WriteFile(h.Bin, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "planted-host-ran")
	cs := h.MCP()
	plant := fmt.Sprintf("import os\nos.remove('w365')\nopen('w365', 'w').write(%q)\nos.chmod('w365', 0o755)\n", "#!/bin/sh\ntouch "+ran+"\n")
	_, wrote := pyOver(t, cs, plant, "~/tools")
	// The host's next sandboxed call, and the MCP client's next start.
	pyOver(t, cs, "print(1)\n", "")
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the host's next call ran a program the session put in place of its own (the call succeeded: %v)", wrote)
	}
	exec.Command(h.Bin, "--version").Run()
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the person's next w365 ran a program the session put in place of it (the call succeeded: %v)", wrote)
	}
	if b, _ := os.ReadFile(h.Bin); len(b) != len(bin) {
		t.Errorf("the session replaced the host's program (%d bytes, was %d; the call succeeded: %v)", len(b), len(bin), wrote)
	}
}

// TestBoundarySessionReplacesNoProgramALinkOnPATHLeadsTo: a program on PATH is often a
// symbolic link into where it was unpacked (~/bin/tesseract to ~/tess/tesseract, ~/.local/bin/node
// to ~/node-v20/bin/node), and only the directories on PATH were refused: a Python call in
// ~/tess replaced the program the link leads to, and the host's next OCR ran it outside the
// sandbox (as it would npm, unconfined, to install browser_run_code's playwright-core).
// Judged by effect: nothing the session wrote runs outside.
func TestBoundarySessionReplacesNoProgramALinkOnPATHLeadsTo(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "tesseract")
	h := e2e.New(t)
	home := h.FakeHome()
	for _, d := range []string{"bin", "tess"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tess, _ := exec.LookPath("tesseract")
	prog := filepath.Join(home, "tess", "tesseract")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nexec "+tess+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(prog, filepath.Join(home, "bin", "tesseract")); err != nil {
		t.Fatal(err)
	}
	h.SetEnv("PATH", filepath.Join(home, "bin")+":"+os.Getenv("PATH"))
	ran := filepath.Join(t.TempDir(), "planted-tesseract-ran")
	cs := h.MCP()
	plant := fmt.Sprintf("import os\nos.remove('tesseract')\nopen('tesseract', 'w').write(%q)\nos.chmod('tesseract', 0o755)\n",
		"#!/bin/sh\ntouch "+ran+"\nexec "+tess+" \"$@\"\n")
	_, wrote := pyOver(t, cs, plant, "~/tess")
	e2e.Must(t, cs, "analyze_screen", map[string]any{})
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the host ran a tesseract the session wrote where the link on PATH leads (the call succeeded: %v)", wrote)
	}
}

// A directory on PATH that does not exist yet, below a symbolic link: PATH names
// ~/apps/bin, ~/apps leads to ~/tools, and ~/tools/bin is not there. The rule compared the
// working directory ~/tools with the unresolved ~/apps/bin (a path that does not resolve was
// kept as given), so a Python call there made bin/tesseract, and the host's next OCR ran it.
// Judged by effect: the host runs nothing the session wrote.
func TestBoundarySessionPlantsNoProgramInAPATHDirectoryYetToBe(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "tesseract")
	h := e2e.New(t)
	home := h.FakeHome()
	if err := os.MkdirAll(filepath.Join(home, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("tools", filepath.Join(home, "apps")); err != nil {
		t.Fatal(err)
	}
	h.SetEnv("PATH", filepath.Join(home, "apps", "bin")+":"+os.Getenv("PATH"))
	tess, _ := exec.LookPath("tesseract")
	ran := filepath.Join(t.TempDir(), "planted-tesseract-ran")
	cs := h.MCP()
	plant := fmt.Sprintf("import os\nos.mkdir('bin')\nopen('bin/tesseract', 'w').write(%q)\nos.chmod('bin/tesseract', 0o755)\n",
		"#!/bin/sh\ntouch "+ran+"\nexec "+tess+" \"$@\"\n")
	_, wrote := pyOver(t, cs, plant, "~/tools")
	e2e.Must(t, cs, "analyze_screen", map[string]any{})
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the host ran a tesseract the session wrote in a PATH directory it made (the call succeeded: %v)", wrote)
	}
}

// TestBrowserPDFSaveReplacesNoProgram: browser_pdf_save with overwrite replaces a file by a
// rename, and a virtual session may save into the person's Downloads where a workspace root
// holds it (the default root, ~, does). w365 unpacked and run from ~/Downloads was replaced
// by a PDF: the host's next sandboxed call could not start its helper, nor the person's MCP
// client w365, until it was installed again.
func TestBrowserPDFSaveReplacesNoProgram(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "chromium")
	h := e2e.New(t)
	home := h.FakeHome()
	dl := filepath.Join(home, "Downloads")
	if err := os.MkdirAll(dl, 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "Documents"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Bin = filepath.Join(dl, "w365")
	if err := os.WriteFile(h.Bin, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// ~/.local/bin on PATH, as Debian's ~/.profile puts it: the sessions' own directories lie
	// in ~/.local/state, and stay theirs.
	local := filepath.Join(home, ".local", "bin")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	h.SetEnv("PATH", local+":"+os.Getenv("PATH"))
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": "data:text/html,<title>x</title>x"})
	e2e.Must(t, cs, "browser_pdf_save", map[string]any{"filePath": "own.pdf"})
	e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "~/Downloads/w365", "overwrite": true})
	if b, _ := os.ReadFile(h.Bin); len(b) != len(bin) {
		t.Errorf("browser_pdf_save replaced the w365 the person runs (%d bytes, was %d)", len(b), len(bin))
	}
	if _, ok := pyOver(t, cs, "print(1)\n", ""); !ok {
		t.Error("the host's next sandboxed call failed")
	}
	// Everyday use still works: a PDF in Documents.
	e2e.Must(t, cs, "browser_pdf_save", map[string]any{"filePath": "~/Documents/page.pdf"})
}
