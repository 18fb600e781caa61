package a11y

import (
	"sort"
	"strconv"
	"strings"
)

// controlTypes are the UI Automation control types (UIA_ButtonControlTypeId = 50000 ...
// UIA_AppBarControlTypeId = 50040 in UIAutomationClient.h), by id. These are the role
// names every platform reports: the reference is a Windows product.
var controlTypes = map[int32]string{
	50000: "Button", 50001: "Calendar", 50002: "CheckBox", 50003: "ComboBox", 50004: "Edit",
	50005: "Hyperlink", 50006: "Image", 50007: "ListItem", 50008: "List", 50009: "Menu",
	50010: "MenuBar", 50011: "MenuItem", 50012: "ProgressBar", 50013: "RadioButton",
	50014: "ScrollBar", 50015: "Slider", 50016: "Spinner", 50017: "StatusBar", 50018: "Tab",
	50019: "TabItem", 50020: "Text", 50021: "ToolBar", 50022: "ToolTip", 50023: "Tree",
	50024: "TreeItem", 50025: "Custom", 50026: "Group", 50027: "Thumb", 50028: "DataGrid",
	50029: "DataItem", 50030: "Document", 50031: "SplitButton", 50032: "Window", 50033: "Pane",
	50034: "Header", 50035: "HeaderItem", 50036: "Table", 50037: "TitleBar", 50038: "Separator",
	50039: "SemanticZoom", 50040: "AppBar",
}

// controlTypeName is the name of a UIA control type id; ids this table does not know
// (newer Windows releases) are Custom, with the id kept in the native name.
func controlTypeName(id int32) (role, native string) {
	if n, ok := controlTypes[id]; ok {
		return n, n
	}
	return "Custom", "ControlType " + strconv.Itoa(int(id))
}

// aliases are the names people use for UIA control types.
var aliases = map[string]string{
	"textbox": "Edit", "textfield": "Edit", "textinput": "Edit", "input": "Edit",
	"textarea": "Edit", "editbox": "Edit", "searchbox": "Edit",
	"label": "Text", "statictext": "Text",
	"link": "Hyperlink", "anchor": "Hyperlink",
	"checkbox": "CheckBox", "check": "CheckBox", "toggle": "CheckBox",
	"radio": "RadioButton", "radiobutton": "RadioButton",
	"dropdown": "ComboBox", "select": "ComboBox", "combo": "ComboBox", "combobox": "ComboBox",
	"tablist": "Tab", "tabs": "Tab", "tabcontrol": "Tab", "tabitem": "TabItem",
	"menuitem": "MenuItem", "menubar": "MenuBar", "listitem": "ListItem",
	"listbox": "List", "treeitem": "TreeItem", "treeview": "Tree",
	"picture": "Image", "img": "Image", "toolbar": "ToolBar", "statusbar": "StatusBar",
	"scrollbar": "ScrollBar", "progressbar": "ProgressBar", "progress": "ProgressBar",
	"grid": "Table", "datagrid": "Table", "cell": "DataItem", "row": "DataItem",
	"dataitem": "DataItem", "headeritem": "HeaderItem", "columnheader": "HeaderItem",
	"panel": "Pane", "dialog": "Window", "frame": "Window", "spinbutton": "Spinner",
	"spinner": "Spinner", "titlebar": "TitleBar", "tooltip": "ToolTip", "group": "Group",
}

// uiaNames is every UIA control-type name, by normalised name.
var uiaNames = func() map[string]string {
	m := map[string]string{}
	for _, v := range controlTypes {
		m[normRole(v)] = v
	}
	return m
}()

// roleSeparators are dropped from role names before they are compared. Built once: a
// Replacer allocates its tables, and normRole runs for every role at start-up.
var roleSeparators = strings.NewReplacer(" ", "", "_", "", "-", "")

func normRole(s string) string {
	return roleSeparators.Replace(strings.ToLower(strings.TrimSpace(s)))
}

// uiaRoleOf resolves a role query to a UIA control-type name: the names themselves
// (any case and spacing), then the aliases. ok is false when neither matches.
func uiaRoleOf(q string) (name string, ok bool) {
	n := normRole(q)
	if v, ok := uiaNames[n]; ok {
		return v, true
	}
	v, ok := aliases[n]
	return v, ok
}

// KnownRoles lists the UIA control-type names a role query accepts (aliases, and on
// Linux the native AT-SPI names, are accepted too).
func KnownRoles() []string {
	var out []string
	for _, v := range uiaNames {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
