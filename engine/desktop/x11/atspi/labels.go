//go:build linux

package atspi

import (
	"context"
	"slices"
	"strings"
)

// nameByLabels names each field of nodes that has no name (an Edit, Spinner, ComboBox or
// Slider) by the label a person reads it by, as UI Automation names a field by its
// LabeledBy label: the label on its row that ends just left of it, or failing that the
// label right above it, aligned with its left edge. Toolkits leave the link out wherever a
// program lays a label beside a field without saying that it is the field's (HexChat's
// Network List read `Edit "" = "nobody"` four times, under four labels), and an agent then
// had to pair labels and fields by their boxes. A label names one field, the nearest, and
// no other field may stand between them. Only nodes with a box take part. The rule, with
// the distances, is in docs/accessibility.md#field-names.
func nameByLabels(nodes []*raw) {
	fields, labels := formParts(slices.DeleteFunc(slices.Clone(nodes), func(n *raw) bool { return !n.hasBox || n.w <= 0 || n.h <= 0 }))
	type pair struct {
		f, l *raw
		cost int
	}
	var pairs []pair
	for _, f := range fields {
		if f.name != "" {
			continue
		}
		for _, l := range labels {
			if c, ok := labelCost(f, l); ok && !fieldBetween(fields, f, l) {
				pairs = append(pairs, pair{f, l, c})
			}
		}
	}
	// The nearest pairs first; each field and each label is used once.
	slices.SortStableFunc(pairs, func(a, b pair) int { return a.cost - b.cost })
	used := map[*raw]bool{}
	for _, p := range pairs {
		if used[p.f] || used[p.l] {
			continue
		}
		used[p.f], used[p.l] = true, true
		p.f.name = strings.TrimSpace(p.l.name)
	}
}

// formParts are the fields of nodes and their labels that have a name.
func formParts(nodes []*raw) (fields, labels []*raw) {
	for _, n := range nodes {
		switch {
		case labelRole(n.role) && strings.TrimSpace(n.name) != "":
			labels = append(labels, n)
		case fieldRole(n.uia()):
			fields = append(fields, n)
		}
	}
	return fields, labels
}

// labelRole: a label or static text (UIA's Text), not a document's text.
func labelRole(role uint32) bool {
	return role == roleLabel || role == roleStatic || role == roleCaption
}

// fieldRole: the UIA roles of fields a label names.
func fieldRole(uia string) bool {
	switch uia {
	case "Edit", "Spinner", "ComboBox", "Slider":
		return true
	}
	return false
}

// labelCost says whether l labels f by place, and how near it is: on f's row (l's middle
// within f's height) ending at most max(2 field heights, 40 px) left of f's left edge, the
// gap being the cost; or above f (its bottom at most one field height over f's top), its
// left edge within one field height of f's, after every label on a row.
func labelCost(f, l *raw) (int, bool) {
	mid := l.y + l.h/2
	if mid >= f.y && mid <= f.y+f.h {
		gap := f.x - (l.x + l.w)
		if gap >= -2 && gap <= max(2*f.h, 40) {
			return max(gap, 0), true
		}
		return 0, false
	}
	gap := f.y - (l.y + l.h)
	if gap >= -2 && gap <= f.h && abs(l.x-f.x) <= f.h && l.w > 0 {
		return 10000 + max(gap, 0), true
	}
	return 0, false
}

// fieldBetween says whether another field stands between l and f: on their row, between
// l's right edge and f's left one; above f, between l's bottom and f's top where their
// columns overlap.
func fieldBetween(fields []*raw, f, l *raw) bool {
	mid := l.y + l.h/2
	row := mid >= f.y && mid <= f.y+f.h
	for _, g := range fields {
		if g == f {
			continue
		}
		if row {
			if mid >= g.y && mid <= g.y+g.h && g.x >= l.x+l.w-2 && g.x+g.w <= f.x+2 {
				return true
			}
			continue
		}
		if g.y >= l.y+l.h-2 && g.y+g.h <= f.y+2 && g.x < f.x+f.w && g.x+g.w > f.x {
			return true
		}
	}
	return false
}

// labelFields names the fields of a walk made without boxes by their labels (nameByLabels),
// reading the boxes of the fields and of the labels first; a window with no
// unnamed field costs nothing more.
func (w *walker) labelFields(ctx context.Context, res *walkResult) error {
	fields, labels := formParts(res.nodes)
	if len(labels) == 0 || !slices.ContainsFunc(fields, func(f *raw) bool { return f.name == "" }) {
		return nil
	}
	both := append(fields, labels...)
	if _, err := w.details(ctx, both, false); err != nil {
		return err
	}
	nameByLabels(both)
	return nil
}
