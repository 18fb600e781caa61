package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/itchyny/gojq"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/werr"
)

// The one human renderer of the CLI and the REPL. A result that is a list (one field,
// a slice of records) is a table: aligned columns under a header on a terminal,
// tab-separated rows with neither header nor truncation in a pipe, as gh does. A result
// with a human form of its own (Texter: a click's confirmation, a URL, a snapshot's
// outline) prints that. Anything else is its fields, one per line: "key: value" on a
// terminal, "key<TAB>value" in a pipe; nested records use dotted keys.

// cellMax is the widest a table cell gets on a terminal; pipes get everything.
const cellMax = 60

// Human writes v for a person (terminal) or a script (pipe).
func Human(w io.Writer, v any, terminal bool) { humanAs(w, v, "", terminal) }

// humanAs is Human with the host's text of v (host.Outcome.Text; "" for the local one).
// On a terminal what a page, a window or a program put in v (a title, clipboard text, an
// error) is shown with its control characters as escapes (terminalText).
func humanAs(w io.Writer, v any, text string, terminal bool) {
	if terminal {
		var b strings.Builder
		humanText(sized{&b, termWidth(w)}, v, text, true)
		io.WriteString(w, terminalText(b.String()))
		return
	}
	humanText(w, v, text, false)
}

// humanText is humanAs before the terminal's escapes.
func humanText(w io.Writer, v any, text string, terminal bool) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return
	}
	if rows, name, ok := listOf(rv); ok {
		table(w, rows, name, terminal)
		return
	}
	if s := cmp.Or(text, tool.HumanText(v)); hasText(v) {
		if s != "" {
			fmt.Fprintln(w, s)
		}
		return
	}
	if rv.Kind() != reflect.Struct {
		b, _ := json.Marshal(rv.Interface())
		fmt.Fprintln(w, string(b))
		return
	}
	var kv [][2]string
	fieldsOf(rv, "", func(k string, f reflect.Value) { kv = append(kv, [2]string{k, cell(f, terminal)}) })
	if !terminal {
		for _, p := range kv {
			fmt.Fprintf(w, "%s\t%s\n", p[0], p[1])
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, p := range kv {
		fmt.Fprintf(tw, "%s:\t%s\n", p[0], p[1])
	}
	tw.Flush()
}

func hasText(v any) bool {
	_, ok := v.(tool.Texter)
	if !ok {
		rv := reflect.ValueOf(v)
		for rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv = rv.Elem()
		}
		if rv.IsValid() {
			_, ok = rv.Interface().(tool.Texter)
		}
	}
	return ok
}

// listOf reports whether rv is a record holding nothing but one list of records.
func listOf(rv reflect.Value) (reflect.Value, string, bool) {
	if rv.Kind() != reflect.Struct {
		return reflect.Value{}, "", false
	}
	var list reflect.Value
	var name string
	n := 0
	fieldsOf(rv, "", func(k string, f reflect.Value) {
		n++
		list, name = f, k
	})
	// fieldsOf skips an empty omitempty slice; count the declared fields too.
	if n == 0 && rv.NumField() == 1 {
		list, name, n = rv.Field(0), tool.JSONName(rv.Type().Field(0)), 1
	}
	if n != 1 || list.Kind() != reflect.Slice {
		return reflect.Value{}, "", false
	}
	et := list.Type().Elem()
	for et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	return list, name, et.Kind() == reflect.Struct && !strings.Contains(name, ".")
}

func table(w io.Writer, rows reflect.Value, name string, terminal bool) {
	if rows.Len() == 0 {
		if terminal {
			fmt.Fprintln(w, "no "+strings.ReplaceAll(flagName(name), "-", " "))
		}
		return
	}
	// Columns: every field of the records, minus those empty in every row.
	var cols []string
	seen := map[string]bool{}
	cells := make([]map[string]string, rows.Len())
	for i := range rows.Len() {
		r := rows.Index(i)
		for r.Kind() == reflect.Pointer {
			r = r.Elem()
		}
		cells[i] = map[string]string{}
		fieldsOf(r, "", func(k string, f reflect.Value) {
			if terminal && f.Kind() == reflect.Map {
				// A map (a session's environment) is no column: --json shows it.
				return
			}
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
			cells[i][k] = cell(f, terminal)
		})
	}
	if !terminal {
		for _, row := range cells {
			vals := make([]string, len(cols))
			for j, c := range cols {
				// A tab or newline inside a value would split the row.
				vals[j] = strings.NewReplacer("\t", " ", "\n", " ").Replace(row[c])
			}
			fmt.Fprintln(w, strings.Join(vals, "\t"))
		}
		return
	}
	head := make([]string, len(cols))
	for j, c := range cols {
		head[j] = strings.ToUpper(strings.NewReplacer("-", " ", ".", " ").Replace(flagName(c)))
	}
	body := make([][]string, len(cells))
	for i, row := range cells {
		body[i] = make([]string, len(cols))
		for j, c := range cols {
			body[i][j] = strings.NewReplacer("\t", " ", "\n", " ").Replace(row[c])
		}
	}
	fitTable(w, head, body, termWidth(w))
}

// tableGap is the space between a table's columns; minWrap is the narrowest last
// column that wraps rather than being cut.
const (
	tableGap = 2
	minWrap  = 16
)

// fitTable prints an aligned table in width columns (0: no limit): each column as
// wide as its widest cell up to cellMax; when that is too wide, the widest columns
// give way first, down to their header's width, the first column last. Cells cut short end in "…", except
// in the last column, which wraps onto continuation lines: its text (a detail, a
// message) is what a reader needs whole. --json has every cell whole.
func fitTable(w io.Writer, head []string, body [][]string, width int) {
	n := len(head)
	ws := make([]int, n)
	for j := range n {
		ws[j] = runeLen(head[j])
		for _, r := range body {
			ws[j] = max(ws[j], min(runeLen(r[j]), cellMax))
		}
	}
	if width > 0 {
		total := func() int {
			t := tableGap * (n - 1)
			for _, x := range ws {
				t += x
			}
			return t
		}
		// The first column (what the rows are: an id, a name) gives way last, after the
		// other columns' headers are cut (when those columns at their headers' width still
		// do not fit).
		shrink := func(from int, cutHeads bool) bool {
			widest := -1
			for j := from; j < n; j++ {
				floor := max(runeLen(head[j]), 4)
				if cutHeads {
					floor = 4
				}
				if ws[j] > floor && (widest < 0 || ws[j] > ws[widest]) {
					widest = j
				}
			}
			if widest >= 0 {
				ws[widest]--
			}
			return widest >= 0
		}
		for total() > width && (shrink(1, false) || shrink(1, true) || shrink(0, false) || shrink(0, true)) {
		}
	}
	line := func(vals []string) {
		var b strings.Builder
		for j, v := range vals {
			if j == n-1 {
				b.WriteString(v)
				break
			}
			b.WriteString(v + strings.Repeat(" ", ws[j]-runeLen(v)+tableGap))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	heads := make([]string, n)
	for j := range n {
		heads[j] = truncate(head[j], ws[j])
	}
	line(heads)
	for _, r := range body {
		vals := make([]string, n)
		for j := range n - 1 {
			vals[j] = truncate(r[j], ws[j])
		}
		last := []string{truncate(r[n-1], ws[n-1])}
		if ws[n-1] >= minWrap {
			last = wrap(r[n-1], ws[n-1])
		}
		vals[n-1] = last[0]
		line(vals)
		for _, more := range last[1:] {
			cont := make([]string, n)
			cont[n-1] = more
			line(cont)
		}
	}
}

// wrap breaks s into lines of at most n runes, at spaces where it can.
func wrap(s string, n int) []string {
	if n <= 0 || runeLen(s) <= n {
		return []string{s}
	}
	var out []string
	r := []rune(s)
	for len(r) > n {
		cut := n
		for i := n; i > n/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimRight(string(r[:cut]), " "))
		r = []rune(strings.TrimLeft(string(r[cut:]), " "))
	}
	return append(out, string(r))
}

func runeLen(s string) int { return len([]rune(s)) }

// sized is a buffer filled for a terminal of cols columns.
type sized struct {
	io.Writer
	cols int
}

// termWidth is the width of the terminal w writes to: $COLUMNS when set, else the
// terminal's own; 0 when unknown (no limit).
func termWidth(w io.Writer) int {
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if s, ok := w.(sized); ok {
		return s.cols
	}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(f.Fd()); err == nil {
			return cols
		}
	}
	return 0
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// fieldsOf calls fn for each field of a record that JSON would show (embedded records
// flattened, nested records as dotted keys), in declaration order.
func fieldsOf(rv reflect.Value, prefix string, fn func(key string, f reflect.Value)) {
	t := rv.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		f := rv.Field(i)
		if sf.Anonymous {
			for f.Kind() == reflect.Pointer {
				if f.IsNil() {
					break
				}
				f = f.Elem()
			}
			if f.Kind() == reflect.Struct && strings.Split(sf.Tag.Get("json"), ",")[0] == "" {
				fieldsOf(f, prefix, fn)
				continue
			}
		}
		name := tool.JSONName(sf)
		if name == "" {
			continue
		}
		if f.IsZero() && (strings.Contains(sf.Tag.Get("json"), "omitempty") || f.Kind() == reflect.Pointer) {
			continue
		}
		for f.Kind() == reflect.Pointer {
			f = f.Elem()
		}
		if f.Kind() == reflect.Struct && f.Type() != reflect.TypeFor[time.Time]() {
			fieldsOf(f, prefix+name+".", fn)
			continue
		}
		fn(prefix+name, f)
	}
}

// cell is one value as text: scalars plain, times in the reader's form, the rest JSON.
func cell(f reflect.Value, terminal bool) string {
	switch f.Kind() {
	case reflect.String:
		return f.String()
	case reflect.Bool:
		return strconv.FormatBool(f.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(f.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(f.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(f.Float(), 'f', -1, 64)
	}
	if tm, ok := f.Interface().(time.Time); ok {
		if terminal {
			// Today's times need no date.
			if y, m, d := tm.Local().Date(); time.Now().Year() == y && time.Now().Month() == m && time.Now().Day() == d {
				return tm.Local().Format("15:04:05")
			}
			return tm.Local().Format("2006-01-02 15:04:05")
		}
		return tm.Format(time.RFC3339)
	}
	b, _ := json.Marshal(f.Interface())
	return string(b)
}

// PrintJSON writes v as JSON (indented on a terminal) or, with --jq, what the
// expression makes of it: strings raw, anything else as JSON, one per line. On a
// terminal every line shows its control characters and bidirectional overrides as
// escapes (terminalText; in JSON text those are JSON's own escapes), as every other
// result does: a raw string a page or a program made (--jq .stdout) cannot drive the
// terminal. Into a pipe or a file the bytes pass as they are.
func PrintJSON(iostr IO, g *Globals, v any) error {
	show := func(s string) string { return s }
	if iostr.OutIsTerminal {
		show = terminalText
	}
	if g.JQ == "" {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		if iostr.OutIsTerminal {
			enc.SetIndent("", "  ")
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := io.WriteString(iostr.Out, show(b.String()))
		return err
	}
	q, err := gojq.Parse(g.JQ)
	if err != nil {
		return werr.Invalid("--jq: %v", err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return werr.Invalid("--jq: %v", err)
	}
	// gojq works on plain JSON values.
	b, err := json.Marshal(v)
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot encode the result")
	}
	var data any
	json.Unmarshal(b, &data)
	iter := code.Run(data)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := r.(error); ok {
			if h, ok := err.(*gojq.HaltError); ok && h.Value() == nil {
				return nil
			}
			return werr.Invalid("--jq: %v", err)
		}
		if s, ok := r.(string); ok {
			fmt.Fprintln(iostr.Out, show(s))
			continue
		}
		out, err := gojq.Marshal(r)
		if err != nil {
			return werr.Invalid("--jq: %v", err)
		}
		fmt.Fprintln(iostr.Out, show(string(out)))
	}
}
