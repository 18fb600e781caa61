package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// builtins are the cmd.exe built-ins of the allowlist, implemented by w365 so that a
// command line never reaches cmd.exe's parser (which expands %VAR% and !VAR! and reads
// & | < > ^ ( ) wherever they are, even inside arguments Go quoted for CommandLineToArgvW).
// On Windows the sandbox runs them in a re-executed w365.exe (builtinArgv0) inside the
// run's job object with its restricted token, like any other program. They take the
// switches people use, in cmd.exe's spelling (/B, /S, /Y, /Q, /F, in any case), expand *
// and ? in the last path component themselves (case-insensitively, as cmd.exe does), and
// print cmd.exe's messages; an unknown switch is "Invalid switch", exit code 1.
var builtins = sync.OnceValue(func() map[string]func(args []string, stdout, stderr io.Writer) int {
	return map[string]func(args []string, stdout, stderr io.Writer) int{
		"dir":   builtinDir,
		"type":  builtinType,
		"copy":  builtinCopy,
		"move":  builtinMove,
		"del":   builtinDel,
		"mkdir": builtinMkdir,
	}
})

// builtinArgv0 is the argv[0] with which w365.exe runs a built-in: argv[1] names it.
const builtinArgv0 = "w365-builtin"

// RunBuiltin runs built-in name with args and returns its exit code; false when name is
// not a built-in.
func RunBuiltin(name string, args []string, stdout, stderr io.Writer) (int, bool) {
	f := builtins()[name]
	if f == nil {
		return 0, false
	}
	return f(args, stdout, stderr), true
}

// switches splits args into cmd.exe switches (lower-cased, without the slash; /S/Q gives
// s and q) and operands, refusing the switches not in known.
func switches(args []string, known string, stderr io.Writer) (map[string]bool, []string, bool) {
	sw := map[string]bool{}
	var ops []string
	for _, a := range args {
		if !strings.HasPrefix(a, "/") || len(a) < 2 {
			ops = append(ops, a)
			continue
		}
		for _, s := range strings.Split(a[1:], "/") {
			s = strings.ToLower(s)
			if s == "" || !slices.Contains(strings.Split(known, ","), s) {
				fmt.Fprintf(stderr, "Invalid switch - \"%s\".\n", s)
				return nil, nil, false
			}
			sw[s] = true
		}
	}
	return sw, ops, true
}

// subdirs are the directories among ents of dir, symlinked ones left out (/S does not
// follow them).
func subdirs(dir string, ents []fs.DirEntry) []string {
	var out []string
	for _, e := range ents {
		if e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func hasWildcard(p string) bool { return strings.ContainsAny(filepath.Base(p), "*?") }

// expand returns the paths a cmd.exe operand names: the operand itself, or the entries
// of its directory whose names match its last component (* and ?, case-insensitive),
// sorted. dirs chooses whether directories match too.
func expand(op string, dirs bool) ([]string, error) {
	if !hasWildcard(op) {
		return []string{op}, nil
	}
	dir, pat := filepath.Split(op)
	ents, err := os.ReadDir(filepath.Join(dir, "."))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if ok, _ := filepath.Match(strings.ToLower(pat), strings.ToLower(e.Name())); ok && (dirs || !e.IsDir()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

func builtinDir(args []string, stdout, stderr io.Writer) int {
	sw, ops, ok := switches(args, "b,s,a,-c,c,o,on,l,w,x,q,4,n", stderr)
	if !ok {
		return 1
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	code := 0
	for _, op := range ops {
		dir, pat := op, "*"
		if st, err := os.Stat(op); err != nil || !st.IsDir() {
			dir, pat = filepath.Split(op)
			dir = filepath.Join(dir, ".")
		}
		if n := listDir(dir, pat, sw["b"], sw["s"], stdout); n == 0 {
			fmt.Fprintln(stderr, "File Not Found")
			code = 1
		}
	}
	return code
}

// listDir lists the entries of dir matching pat in cmd.exe's dir format (or bare names
// with /B), recursing with /S, and returns how many it listed.
func listDir(dir, pat string, bare, recurse bool, w io.Writer) int {
	abs, _ := filepath.Abs(dir)
	ents, _ := os.ReadDir(dir)
	var shown []fs.DirEntry
	for _, e := range ents {
		if ok, _ := filepath.Match(strings.ToLower(pat), strings.ToLower(e.Name())); ok {
			shown = append(shown, e)
		}
	}
	if len(shown) > 0 && !bare {
		fmt.Fprintf(w, " Directory of %s\n\n", abs)
	}
	files, dirs, bytes := 0, 0, int64(0)
	for _, e := range shown {
		name := e.Name()
		if bare {
			if recurse {
				name = filepath.Join(abs, name)
			}
			fmt.Fprintln(w, name)
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		stamp := info.ModTime().Format("2006-01-02  15:04")
		if e.IsDir() {
			dirs++
			fmt.Fprintf(w, "%s    <DIR>          %s\n", stamp, name)
		} else {
			files++
			bytes += info.Size()
			fmt.Fprintf(w, "%s    %14d %s\n", stamp, info.Size(), name)
		}
	}
	if len(shown) > 0 && !bare {
		fmt.Fprintf(w, "%16d File(s) %14d bytes\n%16d Dir(s)\n\n", files, bytes, dirs)
	}
	n := len(shown)
	if recurse {
		for _, sub := range subdirs(dir, ents) {
			n += listDir(sub, pat, bare, recurse, w)
		}
	}
	return n
}

func builtinType(args []string, stdout, stderr io.Writer) int {
	_, ops, ok := switches(args, "", stderr)
	if !ok {
		return 1
	}
	var files []string
	for _, op := range ops {
		m, err := expand(op, false)
		if err != nil || len(m) == 0 {
			fmt.Fprintln(stderr, "The system cannot find the file specified.")
			return 1
		}
		files = append(files, m...)
	}
	code := 0
	for _, f := range files {
		if len(files) > 1 {
			fmt.Fprintf(stderr, "\n%s\n\n\n", f)
		}
		if err := catFile(f, stdout); err != nil {
			fmt.Fprintln(stderr, message(err))
			code = 1
		}
	}
	return code
}

func catFile(name string, w io.Writer) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fs.ErrPermission
	}
	_, err = io.Copy(w, f)
	return err
}

// message is cmd.exe's wording of a file error.
func message(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "The system cannot find the file specified."
	case errors.Is(err, fs.ErrPermission):
		return "Access is denied."
	case errors.Is(err, fs.ErrExist):
		return "A file with that name already exists."
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// transfer is copy and move: sources (wildcards expanded) into an existing directory,
// or one source to a new name. A destination left out is the working directory.
func transfer(args []string, stdout, stderr io.Writer, verb string, do func(src, dst string) error) int {
	_, ops, ok := switches(args, "y,-y,b,a,v,z,d", stderr)
	if !ok {
		return 1
	}
	dest := "."
	if len(ops) > 1 {
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	var srcs []string
	for _, op := range ops {
		if strings.Contains(op, "+") {
			fmt.Fprintln(stderr, "Joining files with + is not available; join them with execute_python_code.")
			return 1
		}
		m, err := expand(op, verb == "moved")
		if err != nil || len(m) == 0 {
			fmt.Fprintln(stderr, "The system cannot find the file specified.")
			return 1
		}
		srcs = append(srcs, m...)
	}
	st, err := os.Stat(dest)
	intoDir := err == nil && st.IsDir()
	if !intoDir && len(srcs) > 1 {
		fmt.Fprintln(stderr, "The system cannot find the path specified.")
		return 1
	}
	n, code := 0, 0
	for _, s := range srcs {
		d := dest
		if intoDir {
			d = filepath.Join(dest, filepath.Base(s))
		}
		if same(s, d) {
			fmt.Fprintln(stderr, "The file cannot be copied onto itself.")
			code = 1
			continue
		}
		if err := do(s, d); err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", s, message(err))
			code = 1
			continue
		}
		n++
	}
	fmt.Fprintf(stdout, "%9d file(s) %s.\n", n, verb)
	return code
}

func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func builtinCopy(args []string, stdout, stderr io.Writer) int {
	return transfer(args, stdout, stderr, "copied", copyFile)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if st, err := in.Stat(); err == nil && st.IsDir() {
		return fs.ErrPermission
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func builtinMove(args []string, stdout, stderr io.Writer) int {
	return transfer(args, stdout, stderr, "moved", func(src, dst string) error {
		if err := os.Rename(src, dst); err == nil || !errors.Is(err, fs.ErrExist) {
			return err
		}
		// Windows refuses to rename onto an existing file; move replaces it, as cmd.exe's does.
		if err := os.Remove(dst); err != nil {
			return err
		}
		return os.Rename(src, dst)
	})
}

func builtinDel(args []string, stdout, stderr io.Writer) int {
	sw, ops, ok := switches(args, "p,f,s,q,a", stderr)
	if !ok {
		return 1
	}
	code := 0
	for _, op := range ops {
		dir, pat := filepath.Split(op)
		if st, err := os.Stat(op); err == nil && st.IsDir() {
			dir, pat = op, "*" // del DIR deletes the files in it
		}
		if delIn(filepath.Join(dir, "."), pat, sw["s"], sw["f"], stdout, stderr) == 0 {
			fmt.Fprintf(stderr, "Could Not Find %s\n", op)
			code = 1
		}
	}
	return code
}

// delIn deletes the files of dir that match pat (and of its subdirectories with /S) and
// returns how many matched. A read-only file is deleted only with /F.
func delIn(dir, pat string, recurse, force bool, stdout, stderr io.Writer) int {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if ok, _ := filepath.Match(strings.ToLower(pat), strings.ToLower(e.Name())); !ok {
			continue
		}
		n++
		p := filepath.Join(dir, e.Name())
		if info, err := e.Info(); err == nil && info.Mode().Perm()&0o200 == 0 && !force {
			fmt.Fprintf(stderr, "%s\nAccess is denied.\n", p)
			continue
		} else if err == nil && force {
			_ = os.Chmod(p, info.Mode().Perm()|0o200)
		}
		if err := os.Remove(p); err != nil {
			fmt.Fprintf(stderr, "%s\n%s\n", p, message(err))
			continue
		}
		if recurse {
			abs, _ := filepath.Abs(p)
			fmt.Fprintf(stdout, "Deleted file - %s\n", abs)
		}
	}
	if recurse {
		for _, sub := range subdirs(dir, ents) {
			n += delIn(sub, pat, recurse, force, stdout, stderr)
		}
	}
	return n
}

func builtinMkdir(args []string, stdout, stderr io.Writer) int {
	_, ops, ok := switches(args, "", stderr)
	if !ok {
		return 1
	}
	code := 0
	for _, op := range ops {
		if _, err := os.Lstat(op); err == nil {
			fmt.Fprintf(stderr, "A subdirectory or file %s already exists.\n", op)
			code = 1
			continue
		}
		if err := os.MkdirAll(op, 0o755); err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", op, message(err))
			code = 1
		}
	}
	return code
}
