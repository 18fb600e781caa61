// Package cli is the cobra front-end of the tool definitions: one command per tool,
// with flags and positional arguments from its input struct, human or JSON output,
// exit codes by error class, and the commands that are not tools (serve, doctor,
// version). The REPL runs the same tree for each line it reads.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// IO is where a command tree reads and writes; the REPL swaps in its own.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	// OutIsTerminal controls human formatting and whether raw image bytes may go to Out.
	OutIsTerminal bool
	// InIsTerminal says that In is a person typing, never a script's input: a missing
	// code or text is then not read from it.
	InIsTerminal bool
	// Preview is the inline image protocol of the terminal Out is ("kitty", "iterm2",
	// "sixel"; "" for none): saved images are also shown there.
	Preview string
}

// Globals are the root flags shared by every command.
type Globals struct {
	Session string
	JSON    bool
	// JQ filters the JSON result through a jq expression (implies JSON).
	JQ string
	// outIsTerminal is the IO's, for commands that print without one.
	outIsTerminal bool
	Virtual       bool
	Policy        string
	// Browser settings for a host this starts.
	Browser     string
	CDPEndpoint string
	Headless    bool
}

// RootDeps lets the REPL and tests supply the caller and extra commands.
type RootDeps struct {
	IO IO
	// Caller runs tools; nil means a Client of the host built from the global flags.
	Caller func(g *Globals) host.Caller
	// Extra adds commands that are not tools (serve, repl, doctor, version).
	Extra func(root *cobra.Command, g *Globals)
	// Complete, when set, supplies live values for completion (the REPL's): kind is
	// "session", "ref", "window" or "tab"; session is the line's session.
	Complete func(kind, session string) []cobra.Completion
	// Args, when set, is the command line about to run: only the command it names gets
	// its flags, which keeps one-shot calls fast. Nil gives every command its flags
	// (completion, docs).
	Args []string
}

// NewRoot builds the whole command tree from the registry. Build a fresh one for each
// REPL line: flag values otherwise leak from one line to the next.
func NewRoot(d RootDeps) (*cobra.Command, *Globals) {
	// Before any command runs, what the process inherited stays out of what it starts.
	child.CloseInheritedOnExec()
	g := &Globals{outIsTerminal: d.IO.OutIsTerminal}
	root := &cobra.Command{
		Use:   "w365",
		Short: "Operate a computer from the shell, a REPL or an MCP agent",
		Long: "w365 drives a desktop (mouse, keyboard, screenshots, OCR, windows, processes, clipboard),\n" +
			"a sandboxed shell and Python, a browser and accessibility trees. Every tool is a command here,\n" +
			"a command in the REPL (w365 with no arguments) and an MCP tool (w365 serve --mcp).",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetIn(d.IO.In)
	root.SetOut(d.IO.Out)
	root.SetErr(d.IO.Err)
	pf := root.PersistentFlags()
	pf.StringVar(&g.Session, "session", envOr("W365_SESSION", "default"), "session to act in (env W365_SESSION)")
	pf.BoolVar(&g.JSON, "json", false, "print the structured result as JSON")
	pf.StringVar(&g.JQ, "jq", "", "filter the JSON result with a jq expression (implies --json; strings print raw, on a terminal with control characters as escapes)")
	pf.BoolVar(&g.Virtual, "virtual", false, "use an embedded virtual desktop even when DISPLAY is set (for a host this starts)")
	pf.StringVar(&g.Policy, "policy", os.Getenv("W365_POLICY"), "policy file for a host this starts (env W365_POLICY)")
	pf.StringVar(&g.Browser, "browser", os.Getenv("W365_BROWSER"), "browser executable for a host this starts (env W365_BROWSER; default: Edge, Chrome, then Chromium)")
	pf.StringVar(&g.CDPEndpoint, "cdp-endpoint", os.Getenv("W365_CDP_ENDPOINT"), "attach the default session to a running browser (ws:// or http:// DevTools URL) instead of launching one")
	pf.BoolVar(&g.Headless, "headless", false, "launch browsers without a window (for a host this starts)")
	root.RegisterFlagCompletionFunc("session", liveValues(d.Complete, "session", g))

	caller := d.Caller
	if caller == nil {
		caller = func(g *Globals) host.Caller { return &host.Client{Opts: ClientOptionsFor(g)} }
	}
	var c host.Caller
	getCaller := func() host.Caller {
		if c == nil {
			c = caller(g)
		}
		return c
	}
	root.AddGroup(&cobra.Group{ID: "tools", Title: "Tools:"}, &cobra.Group{ID: "other", Title: "Other commands:"})
	lazy := map[*cobra.Command]func(){}
	keep, narrow := toolsFor(pf, d.Args)
	for _, t := range commands.All() {
		if !keep(t) {
			continue
		}
		cmd, flags := addToolCommand(root, t, g, d.IO, getCaller, d.Complete)
		lazy[cmd] = flags
	}
	if narrow {
		// A tool call or --version: the commands that are no tools, and cobra's
		// completion command, take no part in it.
		root.CompletionOptions.DisableDefaultCmd = true
	} else {
		AddHostCommands(root, g, d.IO)
		AddHelpTopics(root, d.Args == nil)
		if d.Extra != nil {
			d.Extra(root, g)
		}
	}
	root.SetFlagErrorFunc(flagError)
	root.InitDefaultHelpCmd()
	strictHelp(root)
	if len(d.Args) > 0 && d.Args[0] == "completion" {
		// Made now (Execute would make it later) so that a wrong shell name is refused.
		root.InitDefaultCompletionCmd()
	}
	strictGroups(root)
	if d.Args == nil {
		for _, flags := range lazy {
			flags()
		}
		return root, g
	}
	args := d.Args
	if len(args) > 0 && (args[0] == "help" || strings.HasPrefix(args[0], "__complete")) {
		args = args[1:]
	}
	if c, _, err := root.Find(args); err == nil && lazy[c] != nil {
		lazy[c]()
	}
	return root, g
}

// toolsFor says which tools get a command for the command line args (RootDeps.Args): a
// one-shot call builds only the commands under the top-level name it gives (all of
// "browser" for a browser tool), and `w365 --version` none. Anything else (no args, help,
// completion, a mistyped name that needs "Did you mean", a command that is not a tool)
// gets them all. narrow says the line is a tool call or --version, which needs no other
// command. pf are the root's flags, to step over their values.
func toolsFor(pf *pflag.FlagSet, args []string) (keep func(*tool.Tool) bool, narrow bool) {
	all := func(*tool.Tool) bool { return true }
	first, version := "", false
	for i := 0; i < len(args) && first == ""; i++ {
		a := args[i]
		switch {
		case a == "--help" || a == "-h":
			return all, false
		case a == "--version" || a == "-v":
			version = true
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			if f := pf.Lookup(a[2:]); f != nil && f.NoOptDefVal == "" {
				i++ // the flag's value
			}
		case !strings.HasPrefix(a, "-"):
			first = a
		}
	}
	if first == "" && version {
		return func(*tool.Tool) bool { return false }, true
	}
	top := func(t *tool.Tool) bool {
		return t.Path[0] == first || len(t.Path) == 1 && slices.Contains(t.Aliases, first)
	}
	if first != "" && slices.ContainsFunc(commands.All(), top) && !slices.Contains(args, "--help") && !slices.Contains(args, "-h") {
		return top, true
	}
	return all, false
}

// ClientOptionsFor turns the global flags into host client options: the session, and
// the arguments of a host the client may have to start.
func ClientOptionsFor(g *Globals) host.ClientOptions {
	o := host.ClientOptions{Session: g.Session}
	if g.Session == session.DefaultName && os.Getenv("W365_SESSION") == "" && !g.Virtual {
		// No session named: the call must not land silently on another display than the
		// user's (none where the platform has one desktop per login).
		o.Display = session.UserDisplay()
	}
	if g.Virtual {
		o.HostArgs = append(o.HostArgs, "--virtual")
	}
	if g.Policy != "" {
		o.HostArgs = append(o.HostArgs, "--policy", g.Policy)
		// A running host must run this very policy: the hello carries its digest.
		if pol, err := policy.Load(g.Policy); err != nil {
			o.Err = err
		} else if err := host.CheckApprovals(pol); err != nil {
			o.Err = err
		} else {
			o.Policy = pol.Digest()
		}
	}
	if g.Browser != "" {
		o.HostArgs = append(o.HostArgs, "--browser", g.Browser)
	}
	if g.CDPEndpoint != "" {
		o.HostArgs = append(o.HostArgs, "--cdp-endpoint", g.CDPEndpoint)
	}
	if g.Headless {
		o.HostArgs = append(o.HostArgs, "--headless")
	}
	return o
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// parent finds or creates the group commands along path.
func parent(root *cobra.Command, path []string) *cobra.Command {
	cur := root
	for _, name := range path {
		var next *cobra.Command
		for _, c := range cur.Commands() {
			if c.Name() == name {
				next = c
			}
		}
		if next == nil {
			next = &cobra.Command{Use: name, Short: groupShort[name]}
			if cur == root {
				next.GroupID = "tools"
			}
			cur.AddCommand(next)
		}
		cur = next
	}
	return cur
}

var groupShort = map[string]string{
	"browser": "Browser automation: pages, CSS selectors, snapshots and refs, tabs, cookies",
	"session": "Sessions: isolated desktops with their own browser",
}

// flagName turns a JSON name into a flag name: clickCount -> click-count.
func flagName(json string) string {
	var b strings.Builder
	for i, r := range json {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

type fieldInfo struct {
	json, flag string
	typ        reflect.Type
}

// fields lists the input fields by reflection alone: building the tree for a one-shot
// call must not build every tool's schema.
func fields(t *tool.Tool) []fieldInfo {
	var out []fieldInfo
	tool.EachField(t.InputType(), func(f reflect.StructField) {
		if name := tool.JSONName(f); name != "" {
			out = append(out, fieldInfo{json: name, flag: flagName(name), typ: f.Type})
		}
	})
	return out
}

// addToolCommand adds t's command and returns it with the function that declares its
// flags (called only for the command about to run, see RootDeps.Args).
func addToolCommand(root *cobra.Command, t *tool.Tool, g *Globals, iostr IO, caller func() host.Caller, live func(kind, session string) []cobra.Completion) (*cobra.Command, func()) {
	leaf := t.Path[len(t.Path)-1]
	use := leaf
	for _, a := range t.Args {
		use += " [" + a + "]"
	}
	cmd := &cobra.Command{
		Use:         use,
		Aliases:     t.Aliases,
		Short:       t.Summary,
		Long:        t.Help() + "\n\nMCP tool: " + t.Name,
		Example:     t.Example,
		Annotations: map[string]string{"tool": t.Name},
		Args:        positionalArgs(t),
	}
	cmd.ValidArgsFunction = func(c *cobra.Command, args []string, partial string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= len(t.Args) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return liveValues(live, valueKind(t, t.Args[len(args)]), g)(c, args, partial)
	}
	if len(t.Path) == 1 {
		cmd.GroupID = "tools"
	}
	var output, file string
	flags := func() {
		fs := cmd.Flags()
		for _, f := range fields(t) {
			addFlag(fs, t, f)
			if vals := t.Enum(f.json); vals != nil {
				cmd.RegisterFlagCompletionFunc(f.flag, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
			} else if kind := valueKind(t, f.json); kind != "" {
				cmd.RegisterFlagCompletionFunc(f.flag, liveValues(live, kind, g))
			}
		}
		if reflect.PointerTo(t.OutputType()).Implements(reflect.TypeFor[tool.ImageOutput]()) {
			fs.StringVarP(&output, "output", "o", "", "file to write the image to; - for stdout (default: a timestamped file in the current directory)")
		}
		if f := longField(t); f != "" {
			fs.StringVar(&file, "file", "", "read "+f+" from FILE (- for stdin)")
		}
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		in, err := collectArgs(cmd, t, fields(t), args)
		if err != nil {
			return err
		}
		if err := readLongValue(t, iostr, in, file); err != nil {
			return err
		}
		// Validate here too, so usage mistakes never start or reach a host.
		if _, err := t.Prepare(cloneArgs(in)); err != nil {
			return err
		}
		o, err := caller().Call(cmd.Context(), t, in)
		if err != nil {
			return err
		}
		return render(iostr, g, t, o, output)
	}
	parent(root, t.Path[:len(t.Path)-1]).AddCommand(cmd)
	return cmd, flags
}

func cloneArgs(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// positionalArgs checks the count of positional values, with messages that say what
// to type instead.
func positionalArgs(t *tool.Tool) cobra.PositionalArgs {
	fs := fields(t)
	return func(cmd *cobra.Command, args []string) error {
		if len(t.Args) == 0 {
			if len(args) == 0 {
				return nil
			}
			var flags []string
			for _, f := range fs {
				flags = append(flags, "--"+f.flag)
			}
			e := werr.Invalid("%s takes no positional arguments, got %q", cmd.CommandPath(), args[0])
			if len(flags) == 0 {
				return e.WithHint("%s takes no values at all", cmd.CommandPath())
			}
			return e.WithHint("give values as flags (%s), e.g. %s %s %s", strings.Join(flags, ", "), cmd.CommandPath(), flags[0], args[0])
		}
		last := t.Args[len(t.Args)-1]
		for _, f := range fs {
			if f.json == last && f.typ.Kind() == reflect.Slice {
				return nil
			}
		}
		if len(args) <= len(t.Args) {
			return nil
		}
		names := strings.Join(t.Args, " ")
		e := werr.Invalid("%s takes at most %d positional argument(s) (%s), got %d", cmd.CommandPath(), len(t.Args), names, len(args))
		for _, f := range fs {
			if f.json == last && f.typ.Kind() == reflect.String {
				return e.WithHint("quote a value with spaces: %s '%s'", cmd.CommandPath(), strings.Join(args[len(t.Args)-1:], " "))
			}
		}
		return e.WithHint("%s --help shows its arguments", cmd.CommandPath())
	}
}

// addFlag declares the flag for one input field, with its default and allowed values in the help.
func addFlag(fs *pflag.FlagSet, t *tool.Tool, f fieldInfo) {
	in := t.InputSchema()
	p := in.Properties[f.json]
	usage := p.Description
	if vals := t.Enum(f.json); vals != nil {
		usage += " (" + strings.Join(vals, "|") + ")"
	}
	if p.Minimum != nil || p.Maximum != nil {
		usage += " [" + fmtNum(p.Minimum) + ".." + fmtNum(p.Maximum) + "]"
	}
	if slices.Contains(in.Required, f.json) && !slices.Contains(t.Args, f.json) {
		usage += " (required)"
	}
	var def string
	if len(p.Default) > 0 {
		json.Unmarshal(p.Default, &def) // strings
		if def == "" {
			def = string(p.Default)
		}
	}
	typ := f.typ
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Bool:
		b, _ := strconv.ParseBool(def)
		fs.Bool(f.flag, b, usage)
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		n, _ := strconv.ParseInt(def, 10, 64)
		fs.Int64(f.flag, n, usage)
	case reflect.Float64, reflect.Float32:
		n, _ := strconv.ParseFloat(def, 64)
		fs.Float64(f.flag, n, usage)
	case reflect.String:
		fs.String(f.flag, def, usage)
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.String {
			fs.StringArray(f.flag, nil, usage+" (repeat the flag for several)")
			break
		}
		fallthrough
	default:
		fs.String(f.flag, "", usage+" (JSON)")
	}
}

func fmtNum(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

// collectArgs builds the tool's argument object from changed flags and positionals.
func collectArgs(cmd *cobra.Command, t *tool.Tool, fields []fieldInfo, args []string) (map[string]any, error) {
	in := map[string]any{}
	byJSON := map[string]fieldInfo{}
	for _, f := range fields {
		byJSON[f.json] = f
	}
	for _, f := range fields {
		fl := cmd.Flags().Lookup(f.flag)
		if fl == nil || !fl.Changed {
			continue
		}
		v, err := flagValue(cmd.Flags(), f)
		if err != nil {
			return nil, err
		}
		in[f.json] = v
	}
	for i, a := range args {
		name := t.Args[min(i, len(t.Args)-1)]
		f := byJSON[name]
		if cmd.Flags().Changed(f.flag) {
			return nil, werr.Invalid("%s given both as an argument and as --%s", name, f.flag)
		}
		if f.typ.Kind() == reflect.Slice {
			list, _ := in[name].([]any)
			in[name] = append(list, a)
			continue
		}
		v, err := parseScalar(f, a)
		if err != nil {
			return nil, err
		}
		in[name] = v
	}
	return in, nil
}

func flagValue(fs *pflag.FlagSet, f fieldInfo) (any, error) {
	typ := f.typ
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Bool:
		return fs.GetBool(f.flag)
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		return fs.GetInt64(f.flag)
	case reflect.Float64, reflect.Float32:
		return fs.GetFloat64(f.flag)
	case reflect.String:
		return fs.GetString(f.flag)
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.String {
			vals, err := fs.GetStringArray(f.flag)
			out := make([]any, len(vals))
			for i, v := range vals {
				out[i] = v
			}
			return out, err
		}
	}
	s, _ := fs.GetString(f.flag)
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, werr.Invalid("--%s takes JSON: %v", f.flag, err)
	}
	return v, nil
}

func parseScalar(f fieldInfo, s string) (any, error) {
	typ := f.typ
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, werr.Invalid("%s must be an integer, got %q", f.json, s)
		}
		return n, nil
	case reflect.Float64, reflect.Float32:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, werr.Invalid("%s must be a number, got %q", f.json, s)
		}
		return n, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, werr.Invalid("%s must be true or false, got %q", f.json, s)
		}
		return b, nil
	case reflect.String:
		return s, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, werr.Invalid("%s takes JSON: %v", f.json, err)
	}
	return v, nil
}

// render prints an outcome: images to files, then JSON or the human form. exec and py
// pass their child's output and status on (see execResult).
func render(iostr IO, g *Globals, t *tool.Tool, o *host.Outcome, output string) error {
	var paths []string
	for i, img := range o.Images {
		p, err := writeImage(iostr, t, img, output, i)
		if err != nil {
			return err
		}
		if p != "" {
			paths = append(paths, p)
		}
	}
	if output == "-" {
		return nil
	}
	ex, isExec := o.Out.(*commands.ExecOut)
	if g.JSON || g.JQ != "" {
		var v any = json.RawMessage(o.JSON)
		if len(paths) > 0 {
			var m map[string]any
			if json.Unmarshal(o.JSON, &m) == nil {
				m["path"] = paths[0]
				v = m
			}
		}
		if err := PrintJSON(iostr, g, v); err != nil {
			return err
		}
		if isExec {
			return execStatus(ex)
		}
		return nil
	}
	if isExec {
		return execResult(iostr, ex)
	}
	for _, p := range paths {
		fmt.Fprintln(iostr.Out, p)
	}
	if iostr.OutIsTerminal && iostr.Preview != "" {
		for _, img := range o.Images {
			if seq := Preview(img.Data, iostr.Preview); seq != nil {
				iostr.Out.Write(seq)
				fmt.Fprintln(iostr.Out)
			}
		}
	}
	humanAs(iostr.Out, o.Out, o.Text, iostr.OutIsTerminal)
	return nil
}

// execResult writes the child's stdout and stderr to ours and ends with its status,
// so that w365 exec works in pipelines and in `&&` chains: byte for byte into a pipe or a
// file, with control characters shown as escapes on a terminal (terminalText).
func execResult(iostr IO, o *commands.ExecOut) error {
	if o.Result == nil {
		return nil
	}
	out, errs := o.Stdout, o.Stderr
	if iostr.OutIsTerminal {
		out = terminalText(out)
	}
	if isTerminal(iostr.Err) {
		errs = terminalText(errs)
	}
	io.WriteString(iostr.Out, out)
	io.WriteString(iostr.Err, errs)
	return execStatus(o)
}

// execStatus is the child's exit status as ours: 124 when it timed out (as timeout(1)
// does), with a note when output was cut.
func execStatus(o *commands.ExecOut) error {
	if o.Result == nil {
		return nil
	}
	var notes []string
	if o.StdoutTruncated || o.StderrTruncated {
		notes = append(notes, "output truncated at 32 KB")
	}
	code := o.ExitCode
	if o.TimedOut {
		code = ExitTimedOut
		notes = append(notes, "the command timed out and was killed")
	}
	if code == 0 && len(notes) == 0 {
		return nil
	}
	if code < 0 || code > 255 {
		code = 1
	}
	return &ExitStatus{Code: code, Note: strings.Join(notes, "; ")}
}

func writeImage(iostr IO, t *tool.Tool, img tool.Image, output string, i int) (string, error) {
	ext := ".png"
	if img.MIMEType == "image/jpeg" {
		ext = ".jpg"
	}
	switch {
	case output == "-":
		if iostr.OutIsTerminal {
			return "", werr.Invalid("refusing to write image bytes to a terminal; use -o FILE or redirect stdout")
		}
		_, err := iostr.Out.Write(img.Data)
		return "", err
	case output == "":
		output = fmt.Sprintf("w365-%s-%s%s", strings.ReplaceAll(t.Name, "_", "-"), time.Now().Format("20060102-150405.000"), ext)
	case i > 0:
		output = strings.TrimSuffix(output, ext) + "-" + strconv.Itoa(i) + ext
	}
	if err := writeFile(output, img.Data, 0o644); err != nil {
		return "", err
	}
	return output, nil
}

// writeFile writes data as the file path, replacing a file there: the directory is the one
// the person named (followed), but the name in it is never followed: a symbolic link, FIFO
// or device there (a session may have left one in a workspace) is refused, never written
// through nor replaced (safefs).
func writeFile(path string, data []byte, perm os.FileMode) error {
	d, err := safefs.Open(filepath.Dir(path))
	if err != nil {
		return werr.Wrap(err, werr.InvalidArgument, "cannot write %s: %v", path, err)
	}
	defer d.Close()
	switch k, err := d.Kind(filepath.Base(path)); {
	case err != nil:
		return err
	case k == safefs.Symlink:
		return werr.New(werr.BlockedByPolicy, "%s is a symbolic link: it is not written through", path).
			WithHint("remove it or name another file; -o - writes to stdout")
	case k == safefs.Other:
		return werr.Invalid("%s is not a regular file", path).WithHint("-o - writes to stdout")
	}
	if err := d.WriteFile(filepath.Base(path), data, perm, true); err != nil {
		return werr.Wrap(err, werr.InvalidArgument, "cannot write %s: %v", path, err)
	}
	return nil
}

// valueKind names the live thing an input field holds, for completion ("" for none).
func valueKind(t *tool.Tool, field string) string {
	switch {
	case field == "ref":
		return "ref"
	case field == "sessionId" || field == "browserSessionId":
		return "session"
	case field == "title" && t.Toolset == "windows":
		return "window"
	case field == "tabIndex":
		return "tab"
	}
	return ""
}

// liveValues completes a kind of value from live (nothing, and no files, without one).
func liveValues(live func(kind, session string) []cobra.Completion, kind string, g *Globals) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if live == nil || kind == "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return live(kind, g.Session), cobra.ShellCompDirectiveNoFileComp
	}
}
