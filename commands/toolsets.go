// Package commands defines every w365 tool exactly once, each a named value in the
// file of its toolset (desktop.go, screen.go, ...). The cobra CLI, the REPL and the
// MCP server are all derived from these values (commands/cli, commands/host).
package commands

import (
	"slices"
	"strings"

	"github.com/w365/w365/commands/tool"
)

// toolsets is every toolset, in the order help and docs list them, with its tools.
// A new tool goes into the list of its toolset, in the toolset's file.
var toolsets = []struct {
	tool.Toolset
	tools []*tool.Tool
}{
	{tool.Toolset{Name: "desktop", Description: "Mouse, keyboard, clipboard and timed waits on the session's desktop", Default: true}, desktopTools},
	{tool.Toolset{Name: "screen", Description: "Screenshots, zoomed regions, the screen size and OCR of the whole screen", Default: true}, screenTools},
	{tool.Toolset{Name: "windows", Description: "List, focus, move, resize and close top-level windows", Default: true}, windowsTools},
	{tool.Toolset{Name: "process", Description: "List, start and stop processes; facts about the machine", Default: true}, processTools},
	{tool.Toolset{Name: "exec", Description: "Allowed shell commands and Python code in the sandbox", Default: true}, execTools},
	{tool.Toolset{Name: "browser", Description: "Browser automation by URL and CSS selector: pages, tabs, cookies, dialogs, console, network, PDF", Default: true}, browserTools},
	{tool.Toolset{Name: "snapshot", Description: "The page's accessibility snapshot and the tools that act on its refs", Default: true}, snapshotTools},
	{tool.Toolset{Name: "a11y", Description: "The desktop accessibility tree and element search", Default: true}, a11yTools},
	{tool.Toolset{Name: "session", Description: "Sessions: isolated virtual desktops and browser sessions", Default: true}, sessionTools},
}

// registry is every tool sorted by MCP name. It is filled in init, not in its
// declaration, because browser_execute_batch looks tools up in it.
var registry []*tool.Tool

func init() {
	for _, ts := range toolsets {
		for _, t := range ts.tools {
			t.Toolset = ts.Name
			registry = append(registry, t)
		}
	}
	slices.SortFunc(registry, func(a, b *tool.Tool) int { return strings.Compare(a.Name, b.Name) })
}

// All returns every tool, sorted by MCP name.
func All() []*tool.Tool { return slices.Clone(registry) }

// Lookup finds a tool by its MCP name or a legacy name.
func Lookup(name string) *tool.Tool {
	for _, t := range registry {
		if t.Name == name || slices.Contains(t.Legacy, name) {
			return t
		}
	}
	return nil
}

// FindToolset returns the toolset of that name, or nil.
func FindToolset(name string) *tool.Toolset {
	for _, ts := range toolsets {
		if ts.Name == name {
			return &ts.Toolset
		}
	}
	return nil
}

// ToolsetNames lists the toolsets' names, in display order.
func ToolsetNames() []string { return toolsetNames(func(tool.Toolset) bool { return true }) }

// DefaultToolsetNames lists the toolsets a server exposes when none are named.
func DefaultToolsetNames() []string {
	return toolsetNames(func(ts tool.Toolset) bool { return ts.Default })
}

func toolsetNames(keep func(tool.Toolset) bool) []string {
	var names []string
	for _, ts := range toolsets {
		if keep(ts.Toolset) {
			names = append(names, ts.Name)
		}
	}
	return names
}
