package commands

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/sandbox"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/sysinfo"
	"github.com/w365/w365/engine/werr"
)

// processTools are the tools of the process toolset, in the order help lists them.
var processTools = []*tool.Tool{
	ListProcesses,
	KillProcess,
	LaunchApplication,
	GetSystemInfo,
}

// ProcessesIn is list_processes's input.
type ProcessesIn struct {
	MaxCount int `json:"maxCount,omitempty" w365:"min=1,max=10000,default=200"`
}

// ProcessesOut lists processes.
type ProcessesOut struct {
	Processes []proc.Process `json:"processes"`
}

func (o ProcessesOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%7s %10s %12s %-20s %s\n", "PID", "RSS(KB)", "START", "NAME", "WINDOW")
	for _, p := range o.Processes {
		fmt.Fprintf(&b, "%7d %10d %12d %-20s %s\n", p.PID, p.MemoryBytes/1024, p.StartTimeTicks, p.Name, p.WindowTitle)
	}
	return strings.TrimRight(b.String(), "\n")
}

// KillIn is kill_process's input.
type KillIn struct {
	PID       int    `json:"pid" w365:"min=1"`
	StartTime uint64 `json:"startTime" jsonschema:"startTimeTicks from list_processes"`
	Force     bool   `json:"force,omitempty" jsonschema:"kill at once instead of asking it to end" w365:"default=false"`
}

// LaunchIn is launch_application's input.
type LaunchIn struct {
	Path string   `json:"path" jsonschema:"an application: its program's path, desktop file ID or name" w365:"minLength=1"`
	Args []string `json:"args,omitempty" jsonschema:"existing files or http(s) URLs"`
}

// LaunchOut says what started, and whether its accessibility tree is there.
type LaunchOut struct {
	Path string `json:"path"`
	PID  int    `json:"pid"`
	// Registered says that the application exposes an accessibility tree
	// (get_accessibility_tree and find_ui_element can read it); RegistrationNote says why
	// not otherwise, or names the window of the running instance that a single-instance
	// application handed the request to (handedOver), Registered then being that instance's.
	Registered       bool   `json:"registered"`
	RegistrationNote string `json:"registrationNote,omitempty"`
}

// ListProcesses is the tool list_processes (w365 list-processes).
var ListProcesses = tool.Define(tool.Tool{
	Name: "list_processes", Legacy: []string{"mcp_desktop_list_processes"}, Aliases: []string{"ps"},
	Summary: "List processes with pid, name, memory, window title and start time",
	Long: "Processes of this session, those with a window first, then largest memory first, at most\n" +
		"maxCount (default 200): its desktop's (display server, bus, window manager), its browser, the\n" +
		"programs it launched, with their descendants (on the person's own display also the\n" +
		"programs started on that display), never a program started elsewhere; the whole\n" +
		"machine's when the policy's processScope is \"machine\". On Windows the session's display is its\n" +
		"Windows session, and processes this user cannot open are left out. Pass an entry's\n" +
		"startTimeTicks to kill_process as startTime, so a reused pid is never killed.",
	Example:     "  $ w365 list-processes --max-count 20\n  $ w365 ps --json",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in ProcessesIn) (ProcessesOut, error) {
	var titles map[int]string
	if wm, err := windowsOf(env); err == nil {
		if ws, err := wm.List(ctx); err == nil {
			titles = desktop.TitlesByPID(ws)
		}
	}
	ps, err := proc.List(ctx, in.MaxCount, titles, processScope(env))
	if ps == nil {
		ps = []proc.Process{}
	}
	return ProcessesOut{ps}, err
})

// KillProcess is the tool kill_process (w365 kill-process).
var KillProcess = tool.Define(tool.Tool{
	Name: "kill_process", Legacy: []string{"mcp_desktop_kill_process"}, Aliases: []string{"kill"},
	Summary: "End a process by pid and start time; system processes are protected",
	Long: "Acts on the processes list_processes shows: any other is refused with BLOCKED_BY_POLICY.\n" +
		"Refuses with STALE_PROCESS when the start time no longer matches (the pid was reused) and\n" +
		"with PROTECTED_PROCESS for PID 1, kernel threads, the session's display server, bus and window\n" +
		"manager, the w365 host, and on Windows its system processes (csrss, lsass, services, explorer...).\n" +
		"Without force it sends SIGTERM (on Windows WM_CLOSE to the process's windows) and reports\n" +
		"whether the process exited; with force it sends SIGKILL (TerminateProcess).",
	Example:     "  $ w365 kill-process 4242 918273\n  $ w365 kill-process --pid 4242 --start-time 918273 --force",
	Args:        []string{"pid", "startTime"},
	Annotations: tool.Destructive,
}, func(ctx context.Context, env *tool.Env, in KillIn) (proc.KillResult, error) {
	if !processScope(env).Contains(in.PID) {
		return proc.KillResult{PID: in.PID}, werr.New(werr.BlockedByPolicy, "process %d is not one of this session's", in.PID).
			WithHint("list_processes shows the session's processes; the policy's processScope \"machine\" widens it")
	}
	return proc.Kill(ctx, in.PID, in.StartTime, in.Force, protection(env).Protected)
})

// LaunchApplication is the tool launch_application (w365 launch-application).
var LaunchApplication = tool.Define(tool.Tool{
	Name: "launch_application", Legacy: []string{"mcp_desktop_launch_application"}, Aliases: []string{"launch"},
	Summary: "Start a GUI application that a desktop entry declares, with files or URLs",
	Long: "Starts an application on the session's display: on Linux one that a desktop entry of the\n" +
		"system declares ($XDG_DATA_DIRS/applications, ~/.local/share/applications), named by its\n" +
		"program's path, its desktop file ID or name (mousepad), or the reference's names (notepad: a\n" +
		"text editor, calc: a calculator, mspaint), plus the policy's launchApplications. Its arguments\n" +
		"are what a file manager passes: existing files and directories under the workspace roots,\n" +
		"Documents, Downloads or Desktop (not hidden ones), and http(s) URLs, placed where the entry's\n" +
		"%f/%F/%u/%U says (the policy's launchArguments \"any\" allows more). Nothing else starts: a\n" +
		"refusal is BLOCKED_BY_POLICY naming what can be launched (terminal emulators are refused\n" +
		"unless the policy names them); an entry that runs in a terminal is UNSUPPORTED.\n" +
		"No shell; an environment of display, bus, locale, HOME, PATH and XDG base directories only. On Windows the\n" +
		"executables of Program Files and notepad, mspaint, calc... of System32 (shells, interpreters\n" +
		"and wrappers refused). The program belongs to the session and ends with it.\n" +
		"It returns once the application has registered with the accessibility bus (registered) and\n" +
		"shown a window, or says why not (registrationNote): it exited, it showed a window (not a\n" +
		"splash screen) for 2 s without registering (no accessibility support: read it with\n" +
		"analyze_screen), or it was idle (no CPU time used) after 10 s; while it works (a loaded\n" +
		"machine) it is waited for up to 45 s, and the note says how long. A running single-instance application (mousepad, gedit)\n" +
		"takes the request: the new process exits (status 0), and the note names the window shown\n" +
		"or retitled within 3 s, its handle and process (registered: whether that one has a tree).\n" +
		"Use execute_shell_command for CLI programs.",
	Example:     "  $ w365 launch-application /usr/bin/mousepad --args ~/Documents/notes.txt\n  $ w365 launch notepad\n  $ w365 launch chromium --args https://example.com",
	Args:        []string{"path", "args"},
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in LaunchIn) (LaunchOut, error) {
	group, err := LaunchedOf(env.Session)
	if err != nil {
		return LaunchOut{}, err
	}
	roots := slices.Clone(env.Policy.WorkspaceRoots)
	for _, d := range personDirs(env) {
		roots = append(roots, d)
	}
	o := proc.LaunchOptions{Env: env.Session.Desktop.Environ(nil),
		Apps: env.Policy.LaunchApplications, AnyArguments: env.Policy.LaunchArguments == policy.LaunchArgumentsAny,
		Roots: roots, Private: env.Host.PrivateDirs(),
		Dirs: env.Policy.LaunchDirs, Allow: env.Policy.LaunchPrograms, Group: group}
	if env.Session.Desktop.Virtual() {
		// A virtual session's applications run in its confinement, with the network the
		// policy gives its shell (docs/security.md#confinement): they see the session's HOME,
		// the workspaces that hold no HOME, and the files they were given.
		home := env.Session.HomeDir()
		o.Roots = append(o.Roots, filepath.Join(home, "Documents"), filepath.Join(home, "Downloads"), filepath.Join(home, "Desktop"))
		o.NoNetwork = !env.Policy.AllowNetwork
		shown := confinedWorkspaces(env.Policy.WorkspaceRoots)
		r, err := runnerOf(env)
		if err != nil {
			return LaunchOut{}, err
		}
		o.Confine = func(c *exec.Cmd) (func(), func(), error) {
			dirs, files := argPaths(c.Args[1:], o.Roots)
			return r.Confine(c, sandbox.ConfineOptions{ShareNet: env.Policy.AllowNetwork, WorkDirs: append(slices.Clone(shown), dirs...), Files: files,
				SessionPIDs: true})
		}
	}
	before := windowTitles(ctx, env)
	exit := make(chan int, 1)
	o.Exit = exit
	pid, path, err := proc.Launch(ctx, in.Path, in.Args, o)
	if err != nil {
		return LaunchOut{Path: path, PID: pid}, err
	}
	r := registrar(ctx, env)
	reg := proc.WaitRegistered(ctx, pid, r)
	out := LaunchOut{Path: path, PID: pid, Registered: reg.Registered, RegistrationNote: reg.Reason}
	if reg.Exited && before != nil {
		handedOver(ctx, env, exit, before, path, r, &out)
	}
	return out, nil
})

// handoffWait is how long launch_application waits, once the launched process exited
// before it registered, for its exit status and then for the window of a running
// instance it may have handed its request to.
const handoffWait = 3 * time.Second

// windowTitles are the titles of the session's windows by handle, nil when they cannot
// be listed.
func windowTitles(ctx context.Context, env *tool.Env) map[uint32]string {
	wm, err := windowsOf(env)
	if err != nil {
		return nil
	}
	ws, err := wm.List(ctx)
	if err != nil {
		return nil
	}
	titles := make(map[uint32]string, len(ws))
	for _, w := range ws {
		titles[w.Handle] = w.Title
	}
	return titles
}

// handedOver fills out when the launched process, gone before it registered, exited with
// status 0 and, within handoffWait, a window that was not in before appeared (or else one
// changed its title): a single-instance application (a GApplication: mousepad, gedit,
// gnome-text-editor...) hands its request to the instance already running over the session
// bus and exits, and that instance shows it, in a new window or a new tab of its own
// (docs/accessibility.md#the-bus-starts-with-the-desktop). Only a window of a process of
// the same program (path) counts: a browser's tab or a clock retitles its window at any
// time. A process that exited with an error, or after which no such window changed, stays
// reported as exited.
func handedOver(ctx context.Context, env *tool.Env, exit <-chan int, before map[uint32]string, path string, r proc.Registrar, out *LaunchOut) {
	select {
	case code := <-exit:
		if code != 0 {
			out.RegistrationNote = fmt.Sprintf("the process exited with status %d before it registered with the accessibility bus", code)
			return
		}
	case <-time.After(handoffWait):
		return
	case <-ctx.Done():
		return
	}
	wm, err := windowsOf(env)
	if err != nil {
		return
	}
	for deadline := time.Now().Add(handoffWait); ; {
		ws, _ := wm.List(ctx)
		// shown: a window of the program's that is new or retitled; started: failing that,
		// a new window of another program, which the launcher started and left running
		// (nedit-nc starts NEdit's server).
		var shown, started *desktop.Window
		for i, w := range ws {
			title, had := before[w.Handle]
			switch {
			case w.Splash || had && title == w.Title:
			case !sameProgram(w.ProcessName, path):
				if !had && started == nil {
					started = &ws[i]
				}
			case !had:
				shown = &ws[i]
			case shown == nil:
				shown = &ws[i]
			}
		}
		if w := cmp.Or(shown, started); w != nil {
			if pids, err := r.Applications(ctx); err == nil && w.PID != 0 {
				out.Registered = slices.Contains(pids, w.PID)
			}
			owner := ""
			if w.PID != 0 {
				owner = fmt.Sprintf(", pid %d", w.PID)
			}
			if shown != nil {
				out.RegistrationNote = fmt.Sprintf("the process exited at once with status 0: it handed the request to the running instance of the application, which showed the window %q (handle %d%s)", w.Title, w.Handle, owner)
			} else {
				out.RegistrationNote = fmt.Sprintf("the process exited at once with status 0, leaving %s running, which showed the window %q (handle %d%s)", w.ProcessName, w.Title, w.Handle, owner)
			}
			return
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// sameProgram says whether a process named name (as windows list it) runs the program at
// path: its file name, without ".exe", in any case; Linux cuts a process's name to 15 bytes.
func sameProgram(name, path string) bool {
	norm := func(s string) string { return strings.ToLower(strings.TrimSuffix(s, ".exe")) }
	n, base := norm(name), norm(filepath.Base(path))
	return n != "" && (n == base || len(n) == 15 && strings.HasPrefix(base, n))
}

// registrar watches the session's accessibility bus and windows for launch_application.
func registrar(ctx context.Context, env *tool.Env) proc.Registrar {
	var r proc.Registrar
	if a, err := a11yOf(ctx, env); err == nil {
		r.Applications = a.Applications
	} else {
		r.Applications = func(context.Context) ([]int, error) { return nil, err }
	}
	if w, err := windowsOf(env); err == nil {
		r.Windows = func(ctx context.Context) ([]int, error) {
			ws, err := w.List(ctx)
			var pids []int
			for _, w := range ws {
				// A splash screen shows before the application loads its toolkit's
				// accessibility (LibreOffice's, for 4 s at its first start).
				if !w.Splash {
					pids = append(pids, w.PID)
				}
			}
			return pids, err
		}
	}
	return r
}

// confinedWorkspaces are the workspace roots a confined application is shown (as a shell
// call's cwd: credentials hidden, every .git read-only): those that hold no HOME, since a
// root of ~ or above would show the person's whole home (docs/security.md#confinement).
func confinedWorkspaces(roots []string) []string {
	home, _ := os.UserHomeDir()
	var out []string
	for _, r := range roots {
		if r, ok := expandRoot(r, home); ok && !holdsHome(r, home) {
			out = append(out, r)
		}
	}
	return out
}

// personDirs are the person's Documents, Downloads and Desktop (browser.UserDirs, by XDG
// name) that a session's tools take files from and save files in for it: all of them on the
// person's own display, where the session acts as the person; in a virtual session only
// those that lie in a workspace root of the policy below no dot-directory, where its shell
// and Python reach them too. Outside the workspace the person's folders are the person's:
// a restrictive workspaceRoots keeps them from the session (docs/security.md#boundaries).
func personDirs(env *tool.Env) map[string]string {
	dirs := browser.UserDirs()
	if !env.Session.Desktop.Virtual() {
		return dirs
	}
	home, _ := os.UserHomeDir()
	inWorkspace := func(d string) bool {
		rd, err := filepath.EvalSymlinks(d)
		if err != nil {
			return false
		}
		return slices.ContainsFunc(env.Policy.WorkspaceRoots, func(r string) bool {
			r, ok := expandRoot(r, home)
			if !ok {
				return false
			}
			rr, err := filepath.EvalSymlinks(r)
			if err != nil {
				return false
			}
			rel, below := browser.Within(rd, rr)
			return rd == rr || below && !browser.HasDotPart(rel)
		})
	}
	out := map[string]string{}
	for name, d := range dirs {
		if inWorkspace(d) {
			out[name] = d
		}
	}
	return out
}

// argPaths are what a confined application is shown of the (checked) arguments of its
// command line that name files or directories under roots: the directory of each, as a
// workspace is shown, or the file alone where that directory holds a HOME (a file in ~ must
// not show the whole home).
func argPaths(args, roots []string) (dirs, files []string) {
	home, _ := os.UserHomeDir()
	for _, a := range args {
		if !filepath.IsAbs(a) || !slices.ContainsFunc(roots, func(r string) bool {
			r, ok := expandRoot(r, home)
			_, below := browser.Within(a, r)
			return ok && below
		}) {
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			continue
		}
		dir := filepath.Dir(a)
		if st.IsDir() {
			dir = a
		}
		if holdsHome(dir, home) {
			files = append(files, a)
			continue
		}
		dirs = append(dirs, dir)
	}
	return dirs, files
}

// expandRoot is a policy root as an absolute, clean path (~ and ~/x under home); ok is
// false for a root that names none.
func expandRoot(r, home string) (string, bool) {
	if r == "~" || strings.HasPrefix(r, "~/") {
		if home == "" {
			return "", false
		}
		r = filepath.Join(home, r[1:])
	}
	return filepath.Clean(r), filepath.IsAbs(r)
}

// holdsHome says whether dir is the person's HOME or one of its parents.
func holdsHome(dir, home string) bool {
	if home == "" {
		return false
	}
	_, below := browser.Within(home, dir)
	return below || filepath.Clean(home) == filepath.Clean(dir)
}

// LaunchedOf is the group of processes the session started with launch_application,
// ended with the session.
func LaunchedOf(s *session.Session) (*proc.Group, error) {
	return session.Use(s, "launched", func(*session.Session) (*proc.Group, error) { return &proc.Group{}, nil })
}

// GetSystemInfo is the tool get_system_info (w365 get-system-info).
var GetSystemInfo = tool.Define(tool.Tool{
	Name: "get_system_info", Legacy: []string{"mcp_desktop_get_system_info"}, Aliases: []string{"sysinfo"},
	Summary:     "Read OS, CPU, memory, disk and display facts",
	Long:        "Facts about the machine and the session's screen.",
	Example:     "  $ w365 get-system-info\n  $ w365 sysinfo --json",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, _ None) (sysinfo.Info, error) {
	w, h := 0, 0
	if s, err := screenOf(env); err == nil {
		w, h, _ = s.Size()
	}
	return sysinfo.Get(ctx, w, h)
})

// processScope is what the process tools act on: the session's processes, or the machine's
// when the policy says so.
func processScope(env *tool.Env) proc.Scope {
	if env.Policy.ProcessScope == policy.ProcessScopeMachine {
		return proc.Scope{All: true}
	}
	roots := env.Session.Desktop.PIDs()
	if group, err := LaunchedOf(env.Session); err == nil {
		for _, r := range group.Roots() {
			roots = append(roots, r.PID)
		}
	}
	// The browser is found by its tree, not by its display: confined, it names the desktop
	// by another display number (sandbox.Confine).
	if _, tree, ok := browserProcesses(env); ok {
		roots = append(roots, tree.Roots...)
	}
	// A virtual desktop's processes are the ones the host started (its programs, the
	// launched applications, the browser) and their descendants, known by PID: a program
	// named by its DISPLAY variable alone may be anyone's (the person's, one left from an
	// earlier holder of the display number). On the person's own display the programs of
	// the person's desktop are the session's, and only their DISPLAY tells them.
	if env.Session.Desktop.Virtual() {
		return proc.Scope{Roots: roots}
	}
	return proc.Scope{Roots: roots, Display: env.Session.Desktop.Name()}
}
