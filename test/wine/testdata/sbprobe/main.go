//go:build windows

// Command sbprobe is run by TestWineSandbox inside w365's Windows sandbox (it is put on
// the prefix's PATH and allowed by the test's policy) to report, from the inside, what
// the sandbox's job object and token do to a program:
//
//	sbprobe job             JSON: in a job?, the job's limit flags and limits, privileges held
//	sbprobe spawn N MS      start N children that sleep MS ms; print how many started
//	sbprobe touch MS FILE   sleep MS ms, then create FILE (a canary: alive after MS?)
//	sbprobe orphan MS FILE  start "touch MS FILE" as a child and exit at once
//	sbprobe alloc MB        commit and touch MB MiB; print whether it worked
//	sbprobe breakaway       try CREATE_BREAKAWAY_FROM_JOB; print the outcome
//	sbprobe sleep MS        sleep MS ms
//	sbprobe args ...        JSON: the arguments as the program received them
//	python.exe -c BOOT FILE the probe installed as python.exe: JSON of the code file
//	                        execute_python_code staged, and of its job
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procIsProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

func main() {
	if len(os.Args) < 2 {
		fail("usage: sbprobe job|spawn|touch|orphan|alloc|breakaway|sleep|args ...")
	}
	switch os.Args[1] {
	case "job":
		job()
	case "spawn":
		n, ms := atoi(2), os.Args[3]
		started := 0
		for range n {
			c := exec.Command(self(), "sleep", ms)
			if err := c.Start(); err != nil {
				fmt.Printf("start %d failed: %v\n", started+1, err)
				break
			}
			started++
		}
		fmt.Printf("started=%d\n", started)
	case "touch":
		time.Sleep(time.Duration(atoi(2)) * time.Millisecond)
		if err := os.WriteFile(os.Args[3], []byte("alive"), 0o644); err != nil {
			fail(err.Error())
		}
	case "orphan":
		c := exec.Command(self(), "touch", os.Args[2], os.Args[3])
		if err := c.Start(); err != nil {
			fail(err.Error())
		}
		fmt.Printf("orphan=%d\n", c.Process.Pid)
	case "alloc":
		n := atoi(2) << 20
		addr, err := windows.VirtualAlloc(0, uintptr(n), windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE)
		if err != nil {
			fmt.Printf("alloc=failed %v\n", err)
			return
		}
		b := unsafe.Slice((*byte)(unsafe.Pointer(addr)), n)
		for i := 0; i < n; i += 4096 {
			b[i] = 1
		}
		fmt.Println("alloc=ok")
	case "breakaway":
		c := exec.Command(self(), "sleep", "1")
		c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: 0x01000000} // CREATE_BREAKAWAY_FROM_JOB
		if err := c.Start(); err != nil {
			fmt.Printf("breakaway=refused %v\n", err)
			return
		}
		c.Wait()
		fmt.Println("breakaway=started")
	case "-c":
		code, err := os.ReadFile(os.Args[3])
		if err != nil {
			fail(err.Error())
		}
		json.NewEncoder(os.Stdout).Encode(map[string]any{"code": string(code), "bootsPython": len(os.Args[2]) > 0})
		job()
	case "args":
		json.NewEncoder(os.Stdout).Encode(os.Args[2:])
	case "sleep":
		time.Sleep(time.Duration(atoi(2)) * time.Millisecond)
	default:
		fail("unknown mode " + os.Args[1])
	}
}

func job() {
	var in int32
	r1, _, err := procIsProcessInJob.Call(uintptr(windows.CurrentProcess()), 0, uintptr(unsafe.Pointer(&in)))
	out := map[string]any{"inJob": r1 != 0 && in != 0}
	if r1 == 0 {
		out["isProcessInJobError"] = err.Error()
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if err := windows.QueryInformationJobObject(0, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		out["queryError"] = err.Error()
	} else {
		out["limitFlags"] = info.BasicLimitInformation.LimitFlags
		out["activeProcessLimit"] = info.BasicLimitInformation.ActiveProcessLimit
		out["jobMemoryLimit"] = uint64(info.JobMemoryLimit)
		out["processMemoryLimit"] = uint64(info.ProcessMemoryLimit)
	}
	var tok windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_QUERY, &tok); err == nil {
		var n uint32
		windows.GetTokenInformation(tok, windows.TokenPrivileges, nil, 0, &n)
		buf := make([]byte, n)
		if err := windows.GetTokenInformation(tok, windows.TokenPrivileges, &buf[0], n, &n); err == nil {
			out["privileges"] = (*windows.Tokenprivileges)(unsafe.Pointer(&buf[0])).PrivilegeCount
		}
		tok.Close()
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

func self() string {
	p, err := os.Executable()
	if err != nil {
		fail(err.Error())
	}
	return p
}

func atoi(i int) int {
	if len(os.Args) <= i {
		fail("missing argument")
	}
	n, err := strconv.Atoi(os.Args[i])
	if err != nil {
		fail(err.Error())
	}
	return n
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "sbprobe:", msg)
	os.Exit(2)
}
