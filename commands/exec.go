package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/sandbox"
	"github.com/w365/w365/engine/session"
)

// execTools are the tools of the exec toolset, in the order help lists them.
var execTools = []*tool.Tool{
	ExecuteShellCommand,
	ExecutePythonCode,
}

// runnerOf is the session's sandbox runner, with its scratch working directory.
func runnerOf(env *tool.Env) (*sandbox.Runner, error) {
	return session.Use(env.Session, "sandbox", func(s *session.Session) (*sandbox.Runner, error) {
		r := sandbox.NewRunner(env.Policy, s.Desktop.Environ(nil), env.Host.PrivateDirs()...)
		r.SetSessionDirs(s.HomeDir(), s.TmpDir())
		return r, nil
	})
}

// ShellIn is execute_shell_command's input.
type ShellIn struct {
	Command   string `json:"command" w365:"minLength=1"` // described by ExecuteShellCommand
	Cwd       string `json:"cwd,omitempty" jsonschema:"writable; default: session scratch"`
	TimeoutMs int    `json:"timeoutMs,omitempty" w365:"min=1,max=120000,default=30000"`
}

// PythonIn is execute_python_code's input.
type PythonIn struct {
	Code      string `json:"code" jsonschema:"Python 3; print results" w365:"minLength=1,maxLength=262144"`
	Cwd       string `json:"cwd,omitempty" jsonschema:"writable; default: session scratch"`
	TimeoutMs int    `json:"timeoutMs,omitempty" w365:"min=1,max=120000,default=30000"`
}

// ExecOut is the shared result of both tools.
type ExecOut struct {
	*sandbox.Result
}

func (o ExecOut) Text() string {
	var b strings.Builder
	b.WriteString(o.Stdout)
	if o.Stderr != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(o.Stderr)
	}
	s := strings.TrimRight(b.String(), "\n")
	status := fmt.Sprintf("[exit %d]", o.ExitCode)
	if o.TimedOut {
		status = "[timed out]"
	}
	if o.StdoutTruncated || o.StderrTruncated {
		status += " [output truncated at 32 KB]"
	}
	if s == "" {
		return status
	}
	return s + "\n" + status
}

// ExecuteShellCommand is the tool execute_shell_command (w365 execute-shell-command).
var ExecuteShellCommand = tool.Define(tool.Tool{
	Name: "execute_shell_command", Legacy: []string{"mcp_desktop_execute_shell_command"}, Aliases: []string{"exec", "sh"},
	Spellings: map[string]string{"timeoutMS": "timeoutMs"}, // V2's, once (TOOLS.md appendix B.4)
	Summary:   "Run one allowed command in the sandbox (no shell, " + sandbox.Isolation + ")",
	Long: "Runs a single command made of literal words, without a shell: pipes, ;, &, redirections,\n" +
		"substitutions and variables are refused (BLOCKED_BY_POLICY, with the way forward). Relative\n" +
		"wildcards (*.go) are expanded inside the working directory as bash would (on Windows the\n" +
		"program expands them itself).\n" +
		"The program must be on the allowlist; flags that would run arbitrary code (python -c, node -e,\n" +
		"git -c, npm exec, ...) are refused. " + sandbox.Confinement + " stdout and stderr are\n" +
		"each cut at 32 KB. A non-zero exit is a result (success false), not an error.",
	Example: "  $ w365 execute-shell-command 'git log --oneline -5' --cwd ~/project\n  $ w365 exec 'ls -la'",
	Describe: func() map[string]string {
		return map[string]string{"command": "first word: an allowed program (" +
			sandbox.AllowedPrograms(policy.Default()) + "); no pipes, redirections or variables"}
	},
	Args: []string{"command"}, Annotations: tool.Destructive,
}, func(ctx context.Context, env *tool.Env, in ShellIn) (ExecOut, error) {
	r, err := runnerOf(env)
	if err != nil {
		return ExecOut{}, err
	}
	res, err := r.Shell(ctx, in.Command, in.Cwd, in.TimeoutMs)
	return ExecOut{res}, err
})

// ExecutePythonCode is the tool execute_python_code (w365 execute-python-code).
var ExecutePythonCode = tool.Define(tool.Tool{
	Name: "execute_python_code", Legacy: []string{"mcp_desktop_execute_python_code"}, Aliases: []string{"python", "py"},
	Summary: "Run Python in the sandbox (512 MB, " + sandbox.Isolation + ")",
	Long: "Runs Python 3 code in the same sandbox as execute_shell_command, with 512 MB of memory. Use it\n" +
		"for computation, text processing and writing files (open/write in the cwd or /tmp).\n" +
		"stdout and stderr are each cut at 32 KB.",
	Example: "  $ w365 execute-python-code 'print(sum(range(10)))'\n  $ w365 py \"$(cat script.py)\" --timeout-ms 60000",
	Args:    []string{"code"}, Annotations: tool.Destructive,
}, func(ctx context.Context, env *tool.Env, in PythonIn) (ExecOut, error) {
	r, err := runnerOf(env)
	if err != nil {
		return ExecOut{}, err
	}
	res, err := r.Python(ctx, in.Code, in.Cwd, in.TimeoutMs)
	return ExecOut{res}, err
})
