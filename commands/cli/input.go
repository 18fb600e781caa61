package cli

import (
	"io"
	"os"
	"reflect"
	"slices"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/werr"
)

// longFields are the inputs whose value is naturally long (source code, text to type
// or copy, a script): `-` reads them from stdin and --file PATH from a file.
var longFields = []string{"code", "text", "function", "expression"}

// maxLongValue bounds what stdin or a file may hand a tool (the largest tool limit is
// well below it).
const maxLongValue = 16 << 20

// longField is t's long-valued field, "" when it has none. Only a positional field
// counts: the one a person would otherwise quote on the command line.
func longField(t *tool.Tool) string {
	for _, a := range t.Args {
		if slices.Contains(longFields, a) {
			for _, f := range fields(t) {
				if f.json == a && f.typ.Kind() == reflect.String {
					return a
				}
			}
		}
	}
	return ""
}

// readLongValue fills t's long field from stdin ("-", or nothing given while stdin is
// a pipe) or from --file.
func readLongValue(t *tool.Tool, iostr IO, in map[string]any, file string) error {
	name := longField(t)
	if name == "" {
		return nil
	}
	v, given := in[name].(string)
	switch {
	case file != "" && given:
		return werr.Invalid("%s given both as a value and with --file", name)
	case file == "-" || (given && v == "-"):
		return readInto(in, name, iostr.In, "stdin")
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return werr.Wrap(err, werr.NotFound, "cannot read --file %s: %v", file, err)
		}
		defer f.Close()
		return readInto(in, name, f, file)
	case !given && !iostr.InIsTerminal && iostr.In != nil && stdinHasData(iostr.In):
		return readInto(in, name, iostr.In, "stdin")
	}
	return nil
}

func readInto(in map[string]any, name string, r io.Reader, what string) error {
	if r == nil {
		return werr.Invalid("no stdin to read %s from", name)
	}
	b, err := io.ReadAll(io.LimitReader(r, maxLongValue+1))
	if err != nil {
		return werr.Wrap(err, werr.InvalidArgument, "cannot read %s from %s: %v", name, what, err)
	}
	if len(b) > maxLongValue {
		return werr.Invalid("%s from %s is over %d MB", name, what, maxLongValue>>20)
	}
	in[name] = string(b)
	return nil
}

// stdinHasData says whether r is a pipe or file one may read a value from (not
// /dev/null, which scripts and service managers hand their children).
func stdinHasData(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	m := st.Mode()
	return m&os.ModeNamedPipe != 0 || (m.IsRegular() && st.Size() > 0) || m&os.ModeSocket != 0
}
