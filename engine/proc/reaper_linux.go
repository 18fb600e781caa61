package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/child"
)

// An application launched without a confinement (on the person's own display) runs under
// a reaper: this executable, started with reaperEnv, made a child subreaper
// (PR_SET_CHILD_SUBREAPER), that starts the application and reaps whatever it leaves. A
// process the application starts stays below the reaper whatever it does (a new session
// with setsid, a double fork that orphans it): an orphan is reparented to the reaper, not
// to PID 1. When the session ends (Group.Close sends SIGTERM), or the host dies (its
// parent-death signal), the reaper ends every process below it: SIGTERM, then SIGKILL
// after reaperGrace. A confined application needs none: its PID namespace ends with it.
const reaperEnv = "W365_REAPER"

// reaperGrace is how long the reaper's processes have to exit on SIGTERM; it is shorter
// than the two seconds Group.Close waits for the reaper itself.
const reaperGrace = 1500 * time.Millisecond

func init() {
	if os.Getenv(reaperEnv) == "1" {
		os.Exit(runReaper())
	}
}

// startApp starts c: under a reaper when reap is set (and then root is the reaper's pid,
// the one the session's Group holds), else as it is. app is the application's own pid.
func startApp(c *exec.Cmd, reap bool) (app, root int, err error) {
	hasEnv := len(c.Env) > 0
	if !reap {
		err := child.Start(c)
		if err != nil {
			return 0, 0, err
		}
		awaitImage(c.Process.Pid, hasEnv)
		return c.Process.Pid, c.Process.Pid, nil
	}
	self, err := child.Self()
	if err != nil {
		return 0, 0, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, 0, err
	}
	defer r.Close()
	c.Args = append([]string{"w365", c.Path}, c.Args[1:]...)
	c.Path = self
	c.Env = append(c.Env, reaperEnv+"=1")
	c.ExtraFiles = []*os.File{w}
	err = child.Start(c)
	w.Close()
	if err != nil {
		return 0, 0, err
	}
	// The reaper reports the application's pid, or why it could not start it, and closes.
	r.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, 4096)
	n, _ := r.Read(b)
	line := strings.TrimSpace(string(b[:n]))
	if pid, err := strconv.Atoi(line); err == nil && pid > 0 {
		awaitImage(pid, hasEnv)
		return pid, c.Process.Pid, nil
	}
	c.Process.Kill()
	if line == "" {
		line = "the reaper reported nothing"
	}
	return 0, 0, errors.New(strings.TrimPrefix(line, "!"))
}

// execWait bounds awaitImage: an exec that has closed its descriptors has its image loaded
// within milliseconds, even on a loaded machine.
const execWait = 2 * time.Second

// awaitImage returns once process pid's exec has written its new command line and
// environment (its environment when hasEnv, else its command line, which holds argv[0]
// at least), or pid has ended, or after execWait. A start returns as soon as the kernel
// closes the exec's close-on-exec descriptors, before it writes them, and until then
// /proc/PID/environ and cmdline read empty: the session's process scope
// (xconn.StartedOn) would not find the DISPLAY the application was started with, and a
// test reading its environment found none (190 of 2000 starts of sleep, read at once).
func awaitImage(pid int, hasEnv bool) {
	name := "/proc/" + strconv.Itoa(pid) + "/cmdline"
	if hasEnv {
		name = "/proc/" + strconv.Itoa(pid) + "/environ"
	}
	for end := time.Now().Add(execWait); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if b, err := os.ReadFile(name); err != nil || len(b) > 0 {
			return
		}
		// A zombie reads empty too.
		if st, err := readStat(pid); err != nil || st.state == 'Z' || st.state == 'X' {
			return
		}
	}
}

// runReaper is the reaper's whole life (see reaperEnv): os.Args[1:] is the application's
// argv, descriptor 3 the pipe its pid is reported on.
func runReaper() int {
	report := os.NewFile(3, "report")
	fail := func(err error) int {
		fmt.Fprintf(report, "!%v\n", err)
		return 127
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("cannot become a child subreaper: %w", err))
	}
	// The host's death ends the application too, after a chance to end what it started.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0); err != nil || os.Getppid() == 1 {
		return fail(errors.New("the host is gone"))
	}
	if len(os.Args) < 2 {
		return fail(errors.New("no application to start"))
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, unix.SIGTERM, unix.SIGINT, unix.SIGHUP)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			env = append(env, kv)
		}
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fail(err)
	}
	p, err := os.StartProcess(os.Args[1], os.Args[1:], &os.ProcAttr{Env: env, Files: []*os.File{null, null, null}})
	null.Close()
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(report, "%d\n", p.Pid)
	report.Close()
	empty := make(chan struct{})
	status := 0 // the application's own, which the reaper exits with (Launch's Exit)
	go func() {
		// Reap every process that ends below the reaper, the application's own included,
		// until none is left.
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, unix.ECHILD) {
				close(empty)
				return
			}
			if pid == p.Pid && ws.Signaled() {
				status = 128 + int(ws.Signal())
			} else if pid == p.Pid {
				status = ws.ExitStatus()
			}
		}
	}()
	select {
	case <-empty:
		return status
	case <-stop:
	}
	signalBelow(unix.SIGTERM)
	select {
	case <-empty:
		return 0
	case <-time.After(reaperGrace):
	}
	// What ignored SIGTERM, and what it forked meanwhile, until nothing is left.
	for i := 0; i < 50 && signalBelow(unix.SIGKILL) > 0; i++ {
		select {
		case <-empty:
			return 0
		case <-time.After(10 * time.Millisecond):
		}
	}
	return 0
}

// signalBelow sends sig to every process below this one and says how many there were.
func signalBelow(sig syscall.Signal) int {
	self := os.Getpid()
	parent := parents()
	n := 0
	for p := range parent {
		for q, depth := parent[p], 0; q > 1 && depth < 512; q, depth = parent[q], depth+1 {
			if q == self {
				unix.Kill(p, sig)
				n++
				break
			}
		}
	}
	return n
}
