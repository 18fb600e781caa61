//go:build linux

package atspi

import (
	"testing"

	"github.com/w365/w365/engine/desktop"
)

func TestRoleTables(t *testing.T) {
	if len(nativeNames) != roleSwitch+1 {
		t.Fatalf("nativeNames has %d entries, want %d", len(nativeNames), roleSwitch+1)
	}
	for num, name := range map[uint32]string{
		rolePushButton: "push button", roleCheckBox: "check box", roleEntry: "entry",
		roleLink: "link", roleDocumentWeb: "document web", roleStatic: "static",
		roleFrame: "frame", roleHeading: "heading", roleTreeItem: "tree item",
	} {
		if got := nativeName(num); got != name {
			t.Errorf("nativeName(%d) = %q, want %q", num, got, name)
		}
	}
	for _, c := range []struct {
		role     uint32
		editable bool
		want     string
	}{
		{rolePushButton, false, "Button"}, {roleToggleButton, false, "Button"},
		{roleEntry, false, "Edit"}, {roleText, true, "Edit"}, {roleText, false, "Text"},
		{roleLabel, false, "Text"}, {roleLink, false, "Hyperlink"}, {rolePageTab, false, "TabItem"},
		{rolePageTabList, false, "Tab"}, {roleFrame, false, "Window"}, {roleFiller, false, "Pane"},
		{roleDocumentWeb, false, "Document"}, {roleTableCell, false, "DataItem"},
		{roleCheckMenuItem, false, "MenuItem"}, {roleListBox, false, "List"}, {9999, false, "Custom"},
	} {
		if got := uiaRole(c.role, c.editable); got != c.want {
			t.Errorf("uiaRole(%d, %v) = %q, want %q", c.role, c.editable, got, c.want)
		}
	}
}

func TestParseRole(t *testing.T) {
	for _, c := range []struct {
		q      string
		role   uint32
		uia    string
		expect bool
	}{
		{"Button", rolePushButton, "Button", true},
		{"button", roleToggleButton, "Button", true},
		{"TextBox", roleEntry, "Edit", true},
		{"textbox", roleText, "Edit", true},
		{"Label", roleLabel, "Text", true},
		{"Link", roleLink, "Hyperlink", true},
		{"push button", rolePushButton, "Button", true},
		{"push button", roleToggleButton, "Button", false}, // native names are exact
		{"PUSH_BUTTON", rolePushButton, "Button", true},
		{"heading", roleHeading, "Text", true},
		{"heading", roleLabel, "Text", false},
		{"document web", roleDocumentWeb, "Document", true},
		{"CheckBox", roleCheckBox, "CheckBox", true},
		{"Window", roleFrame, "Window", true},
	} {
		f, ok := parseRole(c.q)
		if !ok {
			t.Errorf("parseRole(%q) rejected", c.q)
			continue
		}
		if got := f.match(c.role, c.uia); got != c.expect {
			t.Errorf("parseRole(%q).match(%d, %s) = %v, want %v", c.q, c.role, c.uia, got, c.expect)
		}
	}
	if _, ok := parseRole("Sprocket"); ok {
		t.Error("unknown role accepted")
	}
	if f, ok := parseRole(" "); !ok || f != nil {
		t.Error("empty role must mean any role")
	}
}

// Every AT-SPI role maps to a UI Automation control type a role query accepts.
func TestRolesAreControlTypes(t *testing.T) {
	for role, name := range uiaByRole {
		if got, ok := desktop.UIARole(name); !ok || got != name {
			t.Errorf("AT-SPI role %d maps to %q, which is no UIA control type", role, name)
		}
	}
}
