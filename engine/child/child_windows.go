package child

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobs holds the job object of each running child, by pid: Windows does not reuse a
// pid while a handle to the process is open, and watch holds one until it drops the entry.
var jobs = struct {
	sync.Mutex
	m map[int]windows.Handle
}{m: map[int]windows.Handle{}}

// start creates the child suspended, so that it cannot start a process of its own
// before it is in its job (children of a job's member are born in the job), assigns
// it, then lets it run. A failed job set-up leaves the child running outside any job:
// refusing to run the browser because a job could not be made would be worse than a
// browser that may outlive a crash of the host.
func start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	job, proc, jobErr := join(pid, &info, nil)
	if err := resume(pid); err != nil {
		if job != 0 {
			windows.CloseHandle(job) // kills the child, which is in the job
			windows.CloseHandle(proc)
		} else {
			cmd.Process.Kill()
		}
		cmd.Wait()
		return fmt.Errorf("child: cannot resume %s: %w", filepath.Base(cmd.Path), err)
	}
	if jobErr != nil {
		fmt.Fprintf(os.Stderr, "w365: %s (pid %d) runs outside a job object and will not die with w365: %v\n",
			filepath.Base(cmd.Path), pid, jobErr)
		return nil
	}
	jobs.Lock()
	jobs.m[pid] = job
	jobs.Unlock()
	go watch(pid, job, proc)
	return nil
}

// join puts process pid into a new job with the limits of info, after prepare (when not
// nil) has seen the job. It returns the job and a handle to the process (to wait on).
func join(pid int, info *windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION, prepare func(windows.Handle) error) (job, proc windows.Handle, err error) {
	job, err = windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(info)), uint32(unsafe.Sizeof(*info))); err != nil {
		windows.CloseHandle(job)
		return 0, 0, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	if prepare != nil {
		if err := prepare(job); err != nil {
			windows.CloseHandle(job)
			return 0, 0, err
		}
	}
	proc, err = windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return 0, 0, fmt.Errorf("OpenProcess: %w", err)
	}
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		windows.CloseHandle(proc)
		windows.CloseHandle(job)
		return 0, 0, fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return job, proc, nil
}

// StartInJob starts cmd suspended, puts it into a new job object with the limits of info
// (KILL_ON_JOB_CLOSE is added; breakaway stays forbidden unless info allows it), lets
// prepare (when not nil) set the job up further, and only then resumes it: nothing it
// starts runs outside the job. Unlike Start, a job that cannot be set up is an error, and
// the child is killed before it ran. The caller owns the job (and a handle to the
// process, to wait on): terminating or closing the job kills everything still in it.
func StartInJob(cmd *exec.Cmd, info *windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION, prepare func(windows.Handle) error) (job, proc windows.Handle, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	job, proc, err = join(cmd.Process.Pid, info, prepare)
	if err == nil {
		err = resume(cmd.Process.Pid)
		if err != nil {
			err = fmt.Errorf("cannot resume %s: %w", filepath.Base(cmd.Path), err)
			windows.CloseHandle(proc)
			windows.CloseHandle(job)
		}
	}
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, 0, err
	}
	return job, proc, nil
}

// resume starts the threads of a process created suspended (there is one, the main
// thread; Windows has no documented call that resumes a whole process).
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d found", pid)
	}
	return nil
}

// watch closes the child's job once the child has exited, which ends what it left
// behind and releases the job.
func watch(pid int, job, proc windows.Handle) {
	windows.WaitForSingleObject(proc, windows.INFINITE)
	jobs.Lock()
	if jobs.m[pid] == job {
		delete(jobs.m, pid)
		windows.CloseHandle(job)
	}
	jobs.Unlock()
	windows.CloseHandle(proc)
}

func killGroup(cmd *exec.Cmd) error {
	jobs.Lock()
	job, ok := jobs.m[cmd.Process.Pid]
	delete(jobs.m, cmd.Process.Pid)
	jobs.Unlock()
	if !ok {
		// Outside a job (its set-up failed), or already exited and its job closed.
		return cmd.Process.Kill()
	}
	defer windows.CloseHandle(job)
	return windows.TerminateJobObject(job, 1)
}

// closeInheritedOnExec has nothing to do on Windows: a child inherits only the handles
// marked inheritable that its start names.
func closeInheritedOnExec() {}

func selfPath() (string, error) { return os.Executable() }
