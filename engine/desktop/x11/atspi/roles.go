//go:build linux

package atspi

import "github.com/w365/w365/engine/desktop"

// AT-SPI role numbers (AtspiRole in atspi-constants.h). Role names changed across
// at-spi2 versions ("push button" became "button"), the numbers did not.
const (
	roleInvalid              = 0
	roleAcceleratorLabel     = 1
	roleAlert                = 2
	roleAnimation            = 3
	roleArrow                = 4
	roleCalendar             = 5
	roleCanvas               = 6
	roleCheckBox             = 7
	roleCheckMenuItem        = 8
	roleColorChooser         = 9
	roleColumnHeader         = 10
	roleComboBox             = 11
	roleDateEditor           = 12
	roleDesktopIcon          = 13
	roleDesktopFrame         = 14
	roleDial                 = 15
	roleDialog               = 16
	roleDirectoryPane        = 17
	roleDrawingArea          = 18
	roleFileChooser          = 19
	roleFiller               = 20
	roleFocusTraversable     = 21
	roleFontChooser          = 22
	roleFrame                = 23
	roleGlassPane            = 24
	roleHTMLContainer        = 25
	roleIcon                 = 26
	roleImage                = 27
	roleInternalFrame        = 28
	roleLabel                = 29
	roleLayeredPane          = 30
	roleList                 = 31
	roleListItem             = 32
	roleMenu                 = 33
	roleMenuBar              = 34
	roleMenuItem             = 35
	roleOptionPane           = 36
	rolePageTab              = 37
	rolePageTabList          = 38
	rolePanel                = 39
	rolePasswordText         = 40
	rolePopupMenu            = 41
	roleProgressBar          = 42
	rolePushButton           = 43
	roleRadioButton          = 44
	roleRadioMenuItem        = 45
	roleRootPane             = 46
	roleRowHeader            = 47
	roleScrollBar            = 48
	roleScrollPane           = 49
	roleSeparator            = 50
	roleSlider               = 51
	roleSpinButton           = 52
	roleSplitPane            = 53
	roleStatusBar            = 54
	roleTable                = 55
	roleTableCell            = 56
	roleTableColumnHeader    = 57
	roleTableRowHeader       = 58
	roleTearoffMenuItem      = 59
	roleTerminal             = 60
	roleText                 = 61
	roleToggleButton         = 62
	roleToolBar              = 63
	roleToolTip              = 64
	roleTree                 = 65
	roleTreeTable            = 66
	roleUnknown              = 67
	roleViewport             = 68
	roleWindow               = 69
	roleExtended             = 70
	roleHeader               = 71
	roleFooter               = 72
	roleParagraph            = 73
	roleRuler                = 74
	roleApplication          = 75
	roleAutocomplete         = 76
	roleEditbar              = 77
	roleEmbedded             = 78
	roleEntry                = 79
	roleChart                = 80
	roleCaption              = 81
	roleDocumentFrame        = 82
	roleHeading              = 83
	rolePage                 = 84
	roleSection              = 85
	roleRedundantObject      = 86
	roleForm                 = 87
	roleLink                 = 88
	roleInputMethodWindow    = 89
	roleTableRow             = 90
	roleTreeItem             = 91
	roleDocumentSpreadsheet  = 92
	roleDocumentPresentation = 93
	roleDocumentText         = 94
	roleDocumentWeb          = 95
	roleDocumentEmail        = 96
	roleComment              = 97
	roleListBox              = 98
	roleGrouping             = 99
	roleImageMap             = 100
	roleNotification         = 101
	roleInfoBar              = 102
	roleLevelBar             = 103
	roleTitleBar             = 104
	roleBlockQuote           = 105
	roleAudio                = 106
	roleVideo                = 107
	roleDefinition           = 108
	roleArticle              = 109
	roleLandmark             = 110
	roleLog                  = 111
	roleMarquee              = 112
	roleMath                 = 113
	roleRating               = 114
	roleTimer                = 115
	roleStatic               = 116
	roleMathFraction         = 117
	roleMathRoot             = 118
	roleSubscript            = 119
	roleSuperscript          = 120
	roleDescriptionList      = 121
	roleDescriptionTerm      = 122
	roleDescriptionValue     = 123
	roleFootnote             = 124
	roleContentDeletion      = 125
	roleContentInsertion     = 126
	roleMark                 = 127
	roleSuggestion           = 128
	rolePushButtonMenu       = 129
	roleSwitch               = 130
)

// nativeNames are the at-spi2-core 2.46 role names (atspi_role_get_name), indexed by number.
var nativeNames = [...]string{
	"invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
	"check box", "check menu item", "color chooser", "column header", "combo box",
	"date editor", "desktop icon", "desktop frame", "dial", "dialog", "directory pane",
	"drawing area", "file chooser", "filler", "focus traversable", "font chooser", "frame",
	"glass pane", "html container", "icon", "image", "internal frame", "label",
	"layered pane", "list", "list item", "menu", "menu bar", "menu item", "option pane",
	"page tab", "page tab list", "panel", "password text", "popup menu", "progress bar",
	"push button", "radio button", "radio menu item", "root pane", "row header",
	"scroll bar", "scroll pane", "separator", "slider", "spin button", "split pane",
	"status bar", "table", "table cell", "table column header", "table row header",
	"tearoff menu item", "terminal", "text", "toggle button", "tool bar", "tool tip",
	"tree", "tree table", "unknown", "viewport", "window", "extended", "header", "footer",
	"paragraph", "ruler", "application", "autocomplete", "editbar", "embedded", "entry",
	"chart", "caption", "document frame", "heading", "page", "section", "redundant object",
	"form", "link", "input method window", "table row", "tree item", "document spreadsheet",
	"document presentation", "document text", "document web", "document email", "comment",
	"list box", "grouping", "image map", "notification", "info bar", "level bar",
	"title bar", "block quote", "audio", "video", "definition", "article", "landmark",
	"log", "marquee", "math", "rating", "timer", "static", "math fraction", "math root",
	"subscript", "superscript", "description list", "description term",
	"description value", "footnote", "content deletion", "content insertion", "mark",
	"suggestion", "push button menu", "switch",
}

// newerNativeNames are names later at-spi2 releases use for the same numbers.
var newerNativeNames = map[string]uint32{
	"button":      rolePushButton,
	"button menu": rolePushButtonMenu,
}

// nativeName returns the AT-SPI role name of a role number.
func nativeName(role uint32) string {
	if int(role) < len(nativeNames) {
		return nativeNames[role]
	}
	return "unknown"
}

// uiaByRole maps AT-SPI role numbers to UI Automation control-type names.
var uiaByRole = map[uint32]string{
	roleAcceleratorLabel: "Text", roleAlert: "Window", roleAnimation: "Image",
	roleArrow: "Image", roleCalendar: "Calendar", roleCanvas: "Image",
	roleCheckBox: "CheckBox", roleCheckMenuItem: "MenuItem", roleColorChooser: "Window",
	roleColumnHeader: "HeaderItem", roleComboBox: "ComboBox", roleDateEditor: "Group",
	roleDesktopIcon: "Image", roleDesktopFrame: "Pane", roleDial: "Slider",
	roleDialog: "Window", roleDirectoryPane: "Pane", roleDrawingArea: "Image",
	roleFileChooser: "Window", roleFiller: "Pane", roleFocusTraversable: "Custom",
	roleFontChooser: "Window", roleFrame: "Window", roleGlassPane: "Pane",
	roleHTMLContainer: "Document", roleIcon: "Image", roleImage: "Image",
	roleInternalFrame: "Pane", roleLabel: "Text", roleLayeredPane: "Pane",
	roleList: "List", roleListItem: "ListItem", roleMenu: "Menu", roleMenuBar: "MenuBar",
	roleMenuItem: "MenuItem", roleOptionPane: "Pane", rolePageTab: "TabItem",
	rolePageTabList: "Tab", rolePanel: "Pane", rolePasswordText: "Edit",
	rolePopupMenu: "Menu", roleProgressBar: "ProgressBar", rolePushButton: "Button",
	roleRadioButton: "RadioButton", roleRadioMenuItem: "MenuItem", roleRootPane: "Pane",
	roleRowHeader: "HeaderItem", roleScrollBar: "ScrollBar", roleScrollPane: "Pane",
	roleSeparator: "Separator", roleSlider: "Slider", roleSpinButton: "Spinner",
	roleSplitPane: "Pane", roleStatusBar: "StatusBar", roleTable: "Table",
	roleTableCell: "DataItem", roleTableColumnHeader: "HeaderItem",
	roleTableRowHeader: "HeaderItem", roleTearoffMenuItem: "MenuItem",
	roleTerminal: "Document", roleText: "Text", roleToggleButton: "Button",
	roleToolBar: "ToolBar", roleToolTip: "ToolTip", roleTree: "Tree", roleTreeTable: "Tree",
	roleUnknown: "Custom", roleViewport: "Pane", roleWindow: "Window", roleExtended: "Custom",
	roleHeader: "Header", roleFooter: "Group", roleParagraph: "Text", roleRuler: "Pane",
	roleApplication: "Pane", roleAutocomplete: "Edit", roleEditbar: "Edit",
	roleEmbedded: "Pane", roleEntry: "Edit", roleChart: "Image", roleCaption: "Text",
	roleDocumentFrame: "Document", roleHeading: "Text", rolePage: "Document",
	roleSection: "Group", roleRedundantObject: "Custom", roleForm: "Group",
	roleLink: "Hyperlink", roleInputMethodWindow: "Window", roleTableRow: "DataItem",
	roleTreeItem: "TreeItem", roleDocumentSpreadsheet: "Document",
	roleDocumentPresentation: "Document", roleDocumentText: "Document",
	roleDocumentWeb: "Document", roleDocumentEmail: "Document", roleComment: "Group",
	roleListBox: "List", roleGrouping: "Group", roleImageMap: "Image",
	roleNotification: "Group", roleInfoBar: "Group", roleLevelBar: "ProgressBar",
	roleTitleBar: "TitleBar", roleBlockQuote: "Group", roleAudio: "Group",
	roleVideo: "Group", roleDefinition: "Group", roleArticle: "Group",
	roleLandmark: "Group", roleLog: "Group", roleMarquee: "Group", roleMath: "Group",
	roleRating: "Slider", roleTimer: "Group", roleStatic: "Text", roleMathFraction: "Text",
	roleMathRoot: "Text", roleSubscript: "Text", roleSuperscript: "Text",
	roleDescriptionList: "List", roleDescriptionTerm: "ListItem",
	roleDescriptionValue: "Text", roleFootnote: "Group", roleContentDeletion: "Group",
	roleContentInsertion: "Group", roleMark: "Group", roleSuggestion: "Group",
	rolePushButtonMenu: "Button", roleSwitch: "CheckBox",
}

// uiaRole maps a role number (and, for plain text, whether it is editable) to a UI
// Automation control-type name.
func uiaRole(role uint32, editable bool) string {
	if role == roleText && editable {
		return "Edit"
	}
	if r, ok := uiaByRole[role]; ok {
		return r
	}
	return "Custom"
}

// roleFilter is a resolved role query: a UIA name, or a set of native role numbers.
type roleFilter struct {
	uia    string
	native map[uint32]bool
}

func (f *roleFilter) match(role uint32, uia string) bool {
	if f == nil {
		return true
	}
	if f.uia != "" {
		return uia == f.uia
	}
	return f.native[role]
}

// parseRole resolves a role query: UIA names first, then aliases, then native AT-SPI
// names (any spelling: "push button", "push_button", "PUSH_BUTTON", "button").
// ok is false when nothing matches.
func parseRole(q string) (*roleFilter, bool) {
	n := desktop.NormRole(q)
	if n == "" {
		return nil, true
	}
	if v, ok := desktop.UIARole(q); ok {
		return &roleFilter{uia: v}, true
	}
	set := map[uint32]bool{}
	for i, name := range nativeNames {
		if desktop.NormRole(name) == n {
			set[uint32(i)] = true
		}
	}
	for name, r := range newerNativeNames {
		if desktop.NormRole(name) == n {
			set[r] = true
		}
	}
	if len(set) == 0 {
		return nil, false
	}
	return &roleFilter{native: set}, true
}
