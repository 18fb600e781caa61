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

// TestBoundarySessionPlantsNothingALoadPathLoads: the person's environment names
// directories programs load code from besides PATH's (PYTHONPATH, NODE_PATH, ...), and
// with one inside a workspace root a Python call there wrote a sitecustomize.py that the
// person's next python3 ran, and a module their next node required, both outside the
// sandbox. Judged by effect: neither runs what the session wrote; a call in a folder no
// variable names still runs.
func TestBoundarySessionPlantsNothingALoadPathLoads(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "node")
	h := e2e.New(t)
	home := h.FakeHome()
	pylib, nodelib := filepath.Join(home, "pylib"), filepath.Join(home, "work", "node_lib")
	for _, d := range []string{pylib, nodelib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.SetEnv("PYTHONPATH", pylib)
	h.SetEnv("NODE_PATH", "/nonexistent:"+nodelib)
	canary := t.TempDir()
	py, js := filepath.Join(canary, "sitecustomize-ran"), filepath.Join(canary, "node-module-ran")
	cs := h.MCP()
	_, wrotePy := pyOver(t, cs, fmt.Sprintf("open('sitecustomize.py', 'w').write(%q)\n", "open("+fmt.Sprintf("%q", py)+", 'w').close()\n"), "~/pylib")
	_, wroteJS := pyOver(t, cs, fmt.Sprintf("open('helper.js', 'w').write(%q)\n", "require('fs').writeFileSync("+fmt.Sprintf("%q", js)+", '')\n"), "~/work/node_lib")
	// The person, later, in a shell with the same environment.
	env := append(os.Environ(), "PYTHONPATH="+pylib, "NODE_PATH="+nodelib)
	for _, c := range [][]string{{"python3", "-c", "pass"}, {"node", "-e", "try { require('helper') } catch (e) {}"}} {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Env, cmd.Dir = env, canary
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the person's %s: %v %s", c[0], err, out)
		}
	}
	if _, err := os.Stat(py); err == nil {
		t.Errorf("the person's python3 ran a sitecustomize.py the session wrote in a PYTHONPATH directory (the call succeeded: %v)", wrotePy)
	}
	if _, err := os.Stat(js); err == nil {
		t.Errorf("the person's node ran a module the session wrote in a NODE_PATH directory (the call succeeded: %v)", wroteJS)
	}
	if wrotePy || wroteJS {
		t.Errorf("a call in a load-path directory ran (PYTHONPATH: %v, NODE_PATH: %v)", wrotePy, wroteJS)
	}
	// Everyday use still works: a folder beside them that no variable names.
	if _, ok := pyOver(t, cs, "open('x', 'w').write('x')\n", "~/project"); !ok {
		t.Error("a call in ~/project was refused")
	}
}

// TestHostRunsItselfAgainFromWhatItStartedFrom: the host runs its own executable again
// (the sandbox helper, on a root host as root before it confines; the confinement of the
// session's programs) by the path it was started from. A file put at that path after the
// start, by anyone who may write there, ran in place of the helper, unconfined: the host
// runs again the file it was started from.
func TestHostRunsItselfAgainFromWhatItStartedFrom(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	h.FakeHome()
	// Outside every workspace root, where no session writes: what replaces it is not the
	// session's doing.
	bin, err := os.ReadFile(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	h.Bin = filepath.Join(t.TempDir(), "w365")
	if err := os.WriteFile(h.Bin, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cs := h.MCP()
	if _, ok := pyOver(t, cs, "print(1)\n", ""); !ok {
		t.Fatal("the first call failed")
	}
	// Started from /proc/self/exe, the kernel names the host "exe": it takes its file's name
	// again, for ps, pgrep and a policy's protectedProcesses.
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", h.HostPID())); err != nil || string(b) != "w365\n" {
		t.Errorf("the host's name is %q (%v), want w365", b, err)
	}
	ran := filepath.Join(t.TempDir(), "replacement-ran")
	if err := os.Remove(h.Bin); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.Bin, []byte("#!/bin/sh\ntouch "+ran+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, ok := pyOver(t, cs, "print(6 * 7)\n", "")
	if _, err := os.Stat(ran); err == nil {
		t.Error("the host's next sandboxed call ran the file put at its executable's path after it started")
	}
	if !ok || out.Stdout != "42\n" {
		t.Errorf("the next call: %+v (ok %v)", out, ok)
	}
}

// TestBoundarySessionPlantsNothingNodeFindsFromHome: node looks for a module it finds
// nowhere nearer in the node_modules of every parent of the requiring folder, HOME's
// included, with no variable set: a Python call with ~/node_modules as its working
// directory wrote a module there that the person's node, in ~/project, required (an
// optional dependency, tried and skipped when missing, as many packages do). Judged by
// effect: it does not run; the call is refused.
func TestBoundarySessionPlantsNothingNodeFindsFromHome(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "node")
	h := e2e.New(t)
	home := h.FakeHome()
	project := filepath.Join(home, "project")
	for _, d := range []string{filepath.Join(home, "node_modules"), project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ran := filepath.Join(t.TempDir(), "module-ran")
	cs := h.MCP()
	_, wrote := pyOver(t, cs, fmt.Sprintf("import os\nos.mkdir('optdep')\nopen('optdep/index.js', 'w').write(%q)\n",
		"require('fs').writeFileSync("+fmt.Sprintf("%q", ran)+", '')\n"), "~/node_modules")
	cmd := exec.Command("node", "-e", "try { require('optdep') } catch (e) {}")
	cmd.Env, cmd.Dir = append(os.Environ(), "HOME="+home), project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the person's node: %v %s", err, out)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the person's node in ~/project ran a module the session wrote in ~/node_modules (the call succeeded: %v)", wrote)
	}
	if wrote {
		t.Error("a call in ~/node_modules ran")
	}
}
