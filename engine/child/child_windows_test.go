package child

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// The test binary is its own child: W365_CHILD_TEST selects what it does instead of
// running the tests (Windows has no sleep or sh to lean on).
const roleEnv = "W365_CHILD_TEST"

func init() {
	switch os.Getenv(roleEnv) {
	case "":
		return
	case "sleep":
	case "parent", "parent-exit":
		// A plain start: the grandchild is born in the job of its parent.
		c := self("sleep")
		if err := c.Start(); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(c.Process.Pid) + "\n")
		if os.Getenv(roleEnv) == "parent-exit" {
			os.Exit(0)
		}
	case "host":
		c := self("sleep")
		if err := Start(c); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(c.Process.Pid) + "\n")
	}
	time.Sleep(30 * time.Second)
	os.Exit(0)
}

func self(role string) *exec.Cmd {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), roleEnv+"="+role)
	return c
}

// readPID starts c with start and returns the pid c prints.
func readPID(t *testing.T, c *exec.Cmd, start func(*exec.Cmd) error) int {
	t.Helper()
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := start(c); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no pid from %s: %v", c.Env[len(c.Env)-1], err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("pid %q: %v", line, err)
	}
	return pid
}

// waitGone fails the test unless process pid ends within 5 s.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // no such process any more
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, 5000); err != nil || ev != windows.WAIT_OBJECT_0 {
		windows.TerminateProcess(h, 1)
		t.Fatalf("%s (pid %d) is still alive (%v)", what, pid, err)
	}
}

func TestKillGroupKillsChildAndGrandchild(t *testing.T) {
	c := self("parent")
	grandchild := readPID(t, c, Start)
	if err := KillGroup(c); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err == nil {
		t.Error("the child exited normally, want killed")
	}
	waitGone(t, grandchild, "the grandchild")
}

// TestJobEndsWithChild: what a child leaves behind dies when it exits.
func TestJobEndsWithChild(t *testing.T) {
	c := self("parent-exit")
	grandchild := readPID(t, c, Start)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, grandchild, "the grandchild of an exited child")
}

func TestChildDiesWithHost(t *testing.T) {
	host := self("host")
	pid := readPID(t, host, (*exec.Cmd).Start)
	host.Process.Kill()
	host.Wait()
	waitGone(t, pid, "the child of the killed host")
}
