package policy

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/w365/w365/engine/werr"
)

// The approvals of a policy: rules naming the calls that wait for a person's yes
// before they run (docs/security.md, "Approvals"). A rule matches a call when every
// kind of criterion it gives holds; within one kind, one entry suffices.

// ApprovalRule is one entry of the policy's approvals list.
type ApprovalRule struct {
	// Name is what the person and the trace are shown; without one, the rule's
	// criteria in words.
	Name string `json:"name,omitempty"`
	// Tools are MCP names, older names or CLI aliases of the tools the rule covers.
	Tools []string `json:"tools,omitempty"`
	// Annotations are tool hints: "destructive", "openWorld", "notReadOnly".
	Annotations []string `json:"annotations,omitempty"`
	// Toolsets are the toolsets whose tools the rule covers.
	Toolsets []string `json:"toolsets,omitempty"`
	// Arguments match the string value of a named argument.
	Arguments []ArgumentPattern `json:"arguments,omitempty"`
}

// ArgumentPattern matches a call whose argument Name has a value that Glob (the whole
// value, case-insensitive; * is any run of characters, ? one) or Regexp (RE2, anywhere
// in the value unless anchored) matches. A list value matches when one element does.
type ArgumentPattern struct {
	Name   string `json:"name"`
	Glob   string `json:"glob,omitempty"`
	Regexp string `json:"regexp,omitempty"`
	re     *regexp.Regexp
}

// The annotation names a rule may give.
const (
	AnnotationDestructive = "destructive"
	AnnotationOpenWorld   = "openWorld"
	AnnotationNotReadOnly = "notReadOnly"
)

var annotationNames = []string{AnnotationDestructive, AnnotationOpenWorld, AnnotationNotReadOnly}

// ApprovalCall is what rules are matched against: a tool call before it runs.
type ApprovalCall struct {
	// Names are the tool's MCP name, its older names and its CLI aliases.
	Names    []string
	Toolset  string
	ReadOnly bool
	// Destructive and OpenWorld are the tool's hints as MCP reads them.
	Destructive bool
	OpenWorld   bool
	Args        map[string]any
}

// ApprovalFor is the first rule that asks for approval of one of calls (a call and the
// calls it makes, such as a batch's actions); nil when none does.
func (p *Policy) ApprovalFor(calls ...ApprovalCall) *ApprovalRule {
	for i := range p.Approvals {
		if slices.ContainsFunc(calls, p.Approvals[i].matches) {
			return &p.Approvals[i]
		}
	}
	return nil
}

// Label is the rule as people read it: its name, or its criteria.
func (r *ApprovalRule) Label() string {
	if r.Name != "" {
		return r.Name
	}
	var parts []string
	if len(r.Tools) > 0 {
		parts = append(parts, "tool "+strings.Join(r.Tools, "|"))
	}
	if len(r.Annotations) > 0 {
		parts = append(parts, strings.Join(r.Annotations, "|"))
	}
	if len(r.Toolsets) > 0 {
		parts = append(parts, "toolset "+strings.Join(r.Toolsets, "|"))
	}
	var args []string
	for _, a := range r.Arguments {
		pat := a.Glob
		if a.Regexp != "" {
			pat = "/" + a.Regexp + "/"
		}
		args = append(args, a.Name+" ~ "+pat)
	}
	if len(args) > 0 {
		parts = append(parts, strings.Join(args, " | "))
	}
	return strings.Join(parts, ", ")
}

func (r *ApprovalRule) matches(c ApprovalCall) bool {
	if len(r.Tools) > 0 && !slices.ContainsFunc(c.Names, func(n string) bool { return slices.Contains(r.Tools, n) }) {
		return false
	}
	if len(r.Toolsets) > 0 && !slices.Contains(r.Toolsets, c.Toolset) {
		return false
	}
	if len(r.Annotations) > 0 && !slices.ContainsFunc(r.Annotations, func(a string) bool {
		switch a {
		case AnnotationDestructive:
			return c.Destructive
		case AnnotationOpenWorld:
			return c.OpenWorld
		}
		return !c.ReadOnly
	}) {
		return false
	}
	if len(r.Arguments) > 0 && !slices.ContainsFunc(r.Arguments, func(a ArgumentPattern) bool { return a.matches(c.Args[a.Name]) }) {
		return false
	}
	return true
}

func (a *ArgumentPattern) matches(v any) bool {
	switch x := v.(type) {
	case string:
		return a.re.MatchString(x)
	case []any:
		return slices.ContainsFunc(x, a.matches)
	case nil, map[string]any:
		return false
	}
	b, _ := json.Marshal(v)
	return a.re.Match(b)
}

// globRegexp is the regular expression of a glob: the whole value, any case, * any
// run of characters (slashes included: a URL's path is part of what it names), ? one.
func globRegexp(g string) string {
	var b strings.Builder
	b.WriteString(`(?is)^`)
	for _, r := range g {
		switch r {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`$`)
	return b.String()
}

// checkApprovals validates the approvals part of a policy read from path (raw holds
// the file's keys): exact key names in every rule, at least one criterion per rule,
// known annotations, compilable patterns, unique names and a sane timeout.
func (p *Policy) checkApprovals(path string, raw map[string]json.RawMessage) error {
	bad := func(i int, format string, args ...any) error {
		return werr.Invalid("policy file %s: approvals[%d]: %s", path, i, fmt.Sprintf(format, args...)).
			WithHint("docs/security.md#approvals describes a rule")
	}
	if b, ok := raw["approvals"]; ok {
		var rules []map[string]json.RawMessage
		json.Unmarshal(b, &rules)
		for i, r := range rules {
			if err := exactKeys(r, reflect.TypeFor[ApprovalRule]()); err != nil {
				return bad(i, "%v", err)
			}
			var args []map[string]json.RawMessage
			json.Unmarshal(r["arguments"], &args)
			for _, a := range args {
				if err := exactKeys(a, reflect.TypeFor[ArgumentPattern]()); err != nil {
					return bad(i, "arguments: %v", err)
				}
			}
		}
	}
	names := map[string]bool{}
	for i := range p.Approvals {
		r := &p.Approvals[i]
		if len(r.Tools)+len(r.Annotations)+len(r.Toolsets)+len(r.Arguments) == 0 {
			return bad(i, "a rule names tools, annotations, toolsets or arguments; this one names none (it would ask for every call)")
		}
		for _, a := range r.Annotations {
			if !slices.Contains(annotationNames, a) {
				return bad(i, "unknown annotation %q; known: %s", a, strings.Join(annotationNames, ", "))
			}
		}
		for j := range r.Arguments {
			a := &r.Arguments[j]
			if a.Name == "" {
				return bad(i, "arguments[%d] names no argument", j)
			}
			if (a.Glob == "") == (a.Regexp == "") {
				return bad(i, "arguments[%d] (%s) gives one of glob and regexp", j, a.Name)
			}
			expr := a.Regexp
			if a.Glob != "" {
				expr = globRegexp(a.Glob)
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return bad(i, "arguments[%d] (%s): %v", j, a.Name, err)
			}
			a.re = re
		}
		if l := r.Label(); names[l] {
			return bad(i, "another rule is named %q too", l)
		} else {
			names[l] = true
		}
	}
	if p.ApprovalTimeoutSeconds < 1 || p.ApprovalTimeoutSeconds > 3600 {
		return werr.Invalid("policy file %s: approvalTimeoutSeconds is %d; it must be 1..3600", path, p.ApprovalTimeoutSeconds)
	}
	return nil
}

// exactKeys refuses a key of obj that is no JSON name of a field of t, case included
// (encoding/json would match it case-insensitively).
func exactKeys(obj map[string]json.RawMessage, t reflect.Type) error {
	var known []string
	for _, f := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" && f.IsExported() {
			known = append(known, name)
		}
	}
	for k := range obj {
		if !slices.Contains(known, k) {
			return fmt.Errorf("unknown key %q; known: %s", k, strings.Join(known, ", "))
		}
	}
	return nil
}
