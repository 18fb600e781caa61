package child

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// gone says whether pid has ended: no such process, or a zombie nobody reaped yet
// (an orphan waits for a PID 1 that may never reap it in a container).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) == 0 || fields[0] == "Z" || fields[0] == "X"
}

func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if gone(pid) {
			return
		}
	}
	t.Fatalf("%s (pid %d) is still alive", what, pid)
}

// TestKillGroupKillsChildAndGrandchild: the child leads a group of its own, and
// KillGroup ends what it started as well.
func TestKillGroupKillsChildAndGrandchild(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", line, err)
	}
	if pgid, err := syscall.Getpgid(cmd.Process.Pid); err != nil || pgid != cmd.Process.Pid {
		t.Fatalf("child pgid %d (%v), want its own group %d", pgid, err, cmd.Process.Pid)
	}
	if gone(grandchild) {
		t.Fatal("the grandchild is not running")
	}
	if err := KillGroup(cmd); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want SIGKILL", err)
	}
	waitGone(t, grandchild, "the grandchild")
}

// startFromExitingThread starts a long sleep with start, called from a goroutine that
// locks its OS thread and returns without unlocking it, so that Go ends the thread; it
// returns once the thread is gone.
func startFromExitingThread(t *testing.T, start func(*exec.Cmd) error) *exec.Cmd {
	t.Helper()
	type res struct {
		tid int
		err error
	}
	// Go never ends the main thread: a goroutine that exits locked to it wedges it
	// instead. Then the attempt proves nothing, and the next one runs elsewhere.
	for range 2 {
		cmd := exec.Command("sleep", "30")
		ch := make(chan res, 1)
		go func() {
			runtime.LockOSThread()
			ch <- res{unix.Gettid(), start(cmd)}
		}()
		r := <-ch
		if r.err != nil {
			t.Fatal(r.err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		if r.tid == os.Getpid() {
			continue
		}
		task := "/proc/self/task/" + strconv.Itoa(r.tid)
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(task); errors.Is(err, os.ErrNotExist) {
				return cmd
			}
			if time.Now().After(deadline) {
				t.Fatalf("thread %d did not exit", r.tid)
			}
		}
	}
	t.Fatal("every attempt ran on the main thread")
	return nil
}

// TestChildOutlivesTheStartingThread is the trap Start exists for: Pdeathsig fires
// when the thread that forked the child exits. A child forked directly from a thread
// that then ends is killed (the control); one started through Start is not.
func TestChildOutlivesTheStartingThread(t *testing.T) {
	direct := startFromExitingThread(t, func(c *exec.Cmd) error {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return c.Start()
	})
	waitGone(t, direct.Process.Pid, "the child forked from the ended thread (control)")

	cmd := startFromExitingThread(t, Start)
	time.Sleep(200 * time.Millisecond)
	if gone(cmd.Process.Pid) {
		t.Fatal("the child started through Start died with the thread that called Start")
	}
}

// TestChildDiesWithHost: a host (this test binary, re-executed) starts a child and is
// killed; the kernel kills the child.
func TestChildDiesWithHost(t *testing.T) {
	if os.Getenv("W365_CHILD_TEST_HOST") == "1" {
		cmd := exec.Command("sleep", "30")
		if err := Start(cmd); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
		select {}
	}
	host := exec.Command(os.Args[0], "-test.run=^TestChildDiesWithHost$")
	host.Env = append(os.Environ(), "W365_CHILD_TEST_HOST=1")
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("host: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("child pid %q: %v", line, err)
	}
	if gone(pid) {
		t.Fatal("the host's child is not running")
	}
	host.Process.Kill()
	host.Wait()
	waitGone(t, pid, "the child of the killed host")
}
