// Command bench measures w365 side by side with the tools a user would otherwise
// use, in one run on one virtual desktop, and prints ratios. Run it with `make bench`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	bin    = flag.String("bin", "bin/w365", "w365 binary")
	before = flag.String("before", "", "a w365 binary of the code before a change, measured beside -bin for the session rows")
	n      = flag.Int("n", 100, "samples per measurement")
	only   = flag.Bool("sessions-only", false, "measure only the session rows")
	cold   = flag.Bool("cold-only", false, "measure only the cold path rows (host, desktop and browser start)")
	cliOne = flag.Bool("cli-only", false, "measure only the one-shot CLI rows (get-cursor-position, --version, package init)")
	// wireOnly skips the timings: the MCP wire sizes need no quiet machine.
	wireOnly = flag.Bool("wire-only", false, "measure only the MCP wire bytes")
	// browserOnly measures only the named browser sections, on a machine too busy for a whole run.
	browserOnly = flag.String("browser-only", "", "measure only these browser sections (comma-separated: nav, runcode, form, snapshots)")
)

type stats struct{ p50, p95 time.Duration }

func measure(n int, f func() error) stats { return measureEach(n, f)[0] }

// measureEach runs the fs in turn, n rounds, and gives each its stats: interleaved, the
// figures of two commands compared see the same load on a shared machine.
func measureEach(n int, fs ...func() error) []stats {
	ds := make([][]time.Duration, len(fs))
	for i := 0; i < n; i++ {
		for j, f := range fs {
			t0 := time.Now()
			if err := f(); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
			ds[j] = append(ds[j], time.Since(t0))
		}
	}
	out := make([]stats, len(fs))
	for j, d := range ds {
		sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
		out[j] = stats{d[len(d)/2], d[len(d)*95/100]}
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func row(name string, ours, theirs stats, theirName string) {
	fmt.Printf("%-44s %10s %10s   %-28s %10s   ratio %.2fx\n", name, ms(ours.p50), ms(ours.p95), theirName, ms(theirs.p50),
		float64(ours.p50)/float64(theirs.p50))
}

func run(env []string, name string, args ...string) func() error {
	return func() error {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %v: %v %s", name, args, err, stderr.String())
		}
		return nil
	}
}

func main() {
	flag.Parse()
	abs, _ := filepath.Abs(*bin)
	*bin = abs
	rt, _ := os.MkdirTemp("", "w365-bench-")
	os.Chmod(rt, 0o700)
	defer os.RemoveAll(rt)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "W365_") {
			env = append(env, kv)
		}
	}
	if *only {
		benchSessions(env)
		return
	}
	if *cold {
		benchCold(env)
		return
	}
	base := env
	env = append(slices.Clip(env), "W365_RUNTIME_DIR="+rt)

	// One host on an embedded virtual desktop; the peers run on the same display.
	if err := run(env, *bin, "--virtual", "get-screen-size")(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer stopHost(rt)
	if *wireOnly {
		benchWire(env)
		return
	}
	if *browserOnly != "" {
		benchBrowser(env, rt)
		return
	}
	disp, xauth, err := sessionDesktop(env)
	if err != nil {
		fmt.Fprintln(os.Stderr, "session list:", err)
		os.Exit(1)
	}
	// A virtual desktop admits only holders of its X cookie: the peers get it too.
	xenv := append(append([]string{}, env...), "DISPLAY="+disp, "XAUTHORITY="+xauth)
	fmt.Printf("w365 bench: %d samples each, display %s, %s\n\n", *n, disp, time.Now().Format(time.RFC3339))
	fmt.Printf("%-44s %10s %10s   %-28s %10s\n", "measurement", "w365 p50", "p95", "peer", "peer p50")

	// 1. One-shot CLI against xdotool.
	cli := measureEach(*n, run(env, *bin, "get-cursor-position"), run(xenv, "xdotool", "getmouselocation"))
	row("CLI one-shot get-cursor-position", cli[0], cli[1], "xdotool getmouselocation")
	ver := measureEach(*n, run(env, *bin, "--version"), run(env, "xdotool", "--version"))
	row("CLI w365 --version (aim: <= 5 ms)", ver[0], ver[1], "xdotool --version")
	fmt.Printf("%-44s %10s   (GODEBUG=inittrace=1: every package's init, summed)\n", "CLI package initialisation", initTime(env))
	if *cliOne {
		return
	}

	// 2. Warm MCP calls over stdio (serve --mcp relays to the host).
	cs := connect(env)
	defer cs.Close()
	call := func(name string, args map[string]any) func() error {
		return func() error {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
			if err == nil && res.IsError {
				err = fmt.Errorf("%s: %v", name, res.Content)
			}
			return err
		}
	}
	warm := measure(*n*5, call("get_cursor_position", nil))
	fmt.Printf("%-44s %10s %10s   (aim: p50 <= 1 ms)\n", "warm MCP call get_cursor_position", ms(warm.p50), ms(warm.p95))

	// 3. Full-screen screenshot against ImageMagick import and scrot.
	shot := measure(*n/2, call("take_screenshot", nil))
	imp := measure(*n/2, run(xenv, "import", "-window", "root", filepath.Join(rt, "import.png")))
	scr := measure(*n/2, run(xenv, "scrot", "-o", filepath.Join(rt, "scrot.png")))
	row("warm MCP take_screenshot (1920x1080 PNG)", shot, imp, "import -window root")
	row("", shot, scr, "scrot")
	cliShot := measure(*n/4, run(env, *bin, "take-screenshot", "-o", filepath.Join(rt, "cli.png")))
	row("CLI one-shot take-screenshot", cliShot, imp, "import -window root")

	// 4. Input (issue 3): warm MCP calls against xdotool doing the same.
	click := measure(*n, call("click", map[string]any{"x": 900, "y": 700}))
	xclick := measure(*n, run(xenv, "xdotool", "mousemove", "900", "700", "click", "1"))
	row("warm MCP click", click, xclick, "xdotool mousemove+click")
	keys := measure(*n, call("press_keys", map[string]any{"keys": []string{"shift", "a"}}))
	xkeys := measure(*n, run(xenv, "xdotool", "key", "shift+a"))
	row("warm MCP press_keys shift+a", keys, xkeys, "xdotool key shift+a")
	text := strings.Repeat("abcdefghij", 10)
	typ := measure(*n/4, call("type_text", map[string]any{"text": text}))
	xtyp := measure(*n/4, run(xenv, "xdotool", "type", "--delay", "0", text))
	row("warm MCP type_text (100 chars)", typ, xtyp, "xdotool type --delay 0")

	// 5. Host idle RSS.
	time.Sleep(2 * time.Second)
	fmt.Printf("\n%-44s %10s   (aim: <= 30 MB)\n", "host idle RSS", rss(hostPID(rt)))
	benchWire(env)
	benchSessions(env)
	benchCold(base)
	benchBrowser(env, rt)
}

// benchSessions measures a confined session's start and a sandboxed call in it, each beside
// the same with -before (aim: the start within 1.5x of before's), on hosts of their own.
func benchSessions(env []string) {
	type res struct{ start, call stats }
	measureBin := func(b string) res {
		rt, _ := os.MkdirTemp("", "w365-bench-s-")
		os.Chmod(rt, 0o700)
		defer os.RemoveAll(rt)
		defer stopHost(rt)
		e := append(append([]string(nil), env...), "W365_RUNTIME_DIR="+rt)
		cs := connectBin(b, e)
		defer cs.Close()
		call := func(name string, args map[string]any) (map[string]any, error) {
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
			if err == nil && r.IsError {
				err = fmt.Errorf("%s: %v", name, r.Content)
			}
			if err != nil {
				return nil, err
			}
			m, _ := r.StructuredContent.(map[string]any)
			return m, nil
		}
		start := measure(max(*n/10, 5), func() error {
			m, err := call("mcp_W365ComputerUse_StartSession", nil)
			if err == nil {
				id, _ := m["sessionId"].(string)
				_, err = call("mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": id})
			}
			return err
		})
		m, err := call("mcp_W365ComputerUse_StartSession", nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		id, _ := m["sessionId"].(string)
		sh := measure(max(*n/4, 5), func() error {
			_, err := call("execute_shell_command", map[string]any{"command": "ls", "sessionId": id})
			return err
		})
		return res{start, sh}
	}
	ours := measureBin(*bin)
	fmt.Println()
	if *before == "" {
		fmt.Printf("%-44s %10s %10s   (-before BIN for the side by side)\n", "session start + end (confined)", ms(ours.start.p50), ms(ours.start.p95))
		fmt.Printf("%-44s %10s %10s\n", "warm MCP execute_shell_command ls", ms(ours.call.p50), ms(ours.call.p95))
		return
	}
	was := measureBin(*before)
	row("session start + end (aim: ratio <= 1.5x)", ours.start, was.start, "before: session start + end")
	row("warm MCP execute_shell_command ls", ours.call, was.call, "before: the same call")
}

func connect(env []string) *mcp.ClientSession { return connectBin(*bin, env) }

func connectBin(b string, env []string) *mcp.ClientSession {
	cmd := exec.Command(b, "serve", "--mcp")
	cmd.Env = env
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	return cs
}

// initTime is the median over 20 runs of `w365 --version` of the init time of all its
// packages as GODEBUG=inittrace=1 reports it ("init PKG @T ms, C ms clock, ...").
func initTime(env []string) string {
	var sums []float64
	for i := 0; i < 20; i++ {
		cmd := exec.Command(*bin, "--version")
		cmd.Env = append(append([]string{}, env...), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return "?"
		}
		var sum float64
		for _, l := range strings.Split(stderr.String(), "\n") {
			if f := strings.Fields(l); len(f) > 6 && f[0] == "init" && f[6] == "clock," {
				c, _ := strconv.ParseFloat(f[4], 64)
				sum += c
			}
		}
		sums = append(sums, sum)
	}
	sort.Float64s(sums)
	return fmt.Sprintf("%.2f ms", sums[len(sums)/2])
}

func hostPID(rt string) int {
	b, _ := os.ReadFile(filepath.Join(rt, "host.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

func rss(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return fmt.Sprintf("%.1f MB", float64(kb)/1024)
		}
	}
	return "?"
}

func stopHost(rt string) {
	if pid := hostPID(rt); pid > 0 {
		syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 200 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// sessionDesktop is the bench session's display and X cookie file.
func sessionDesktop(env []string) (display, xauthority string, err error) {
	cmd := exec.Command(*bin, "--json", "session", "list")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", "", err
	}
	var sl struct {
		Sessions []struct {
			Display string
			Env     map[string]string
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &sl); err != nil {
		return "", "", err
	}
	if len(sl.Sessions) == 0 {
		return "", "", fmt.Errorf("no session")
	}
	return sl.Sessions[0].Display, sl.Sessions[0].Env["XAUTHORITY"], nil
}
