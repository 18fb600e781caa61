//go:build linux

package atspi

import "testing"

// The rule of nameByLabels on boxes laid out as toolkits lay forms out: a label left of its
// field on the row, a label above its field, a label too far away, a field between a label
// and the next field, one label for two fields, and a field that has a name of its own.
func TestFieldsAreNamedByTheirLabels(t *testing.T) {
	label := func(name string, x, y, w, h int) *raw {
		return &raw{role: roleLabel, name: name, x: x, y: y, w: w, h: h, hasBox: true}
	}
	field := func(name string, x, y, w, h int) *raw {
		return &raw{role: roleEntry, name: name, x: x, y: y, w: w, h: h, hasBox: true}
	}
	var (
		nick, nickF   = label("Nick name:", 772, 363, 109, 17), field("", 885, 359, 262, 25)
		user, userF   = label("User name:", 772, 444, 109, 17), field("", 885, 440, 262, 25)
		above, aboveF = label("Comment", 20, 500, 80, 17), field("", 20, 520, 300, 25)
		far, farF     = label("Far away", 20, 600, 60, 17), field("", 400, 596, 200, 25)
		both, first   = label("Range:", 20, 700, 60, 17), field("", 84, 696, 60, 25)
		second        = field("", 150, 696, 60, 25)
		own, ownF     = label("Path:", 20, 800, 60, 17), field("Location", 84, 796, 200, 25)
	)
	nameByLabels([]*raw{nick, nickF, user, userF, above, aboveF, far, farF, both, first, second, own, ownF})
	for _, c := range []struct {
		what string
		f    *raw
		want string
	}{
		{"a label on its row", nickF, "Nick name:"},
		{"the next row's label", userF, "User name:"},
		{"a label above", aboveF, "Comment"},
		{"a label 320 px left", farF, ""},
		{"the field next to the label", first, "Range:"},
		{"a field behind another", second, ""},
		{"a field with a name", ownF, "Location"},
	} {
		if c.f.name != c.want {
			t.Errorf("%s: named %q, want %q", c.what, c.f.name, c.want)
		}
	}
}
