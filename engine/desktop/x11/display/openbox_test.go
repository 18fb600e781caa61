//go:build linux

package display

import (
	"strings"
	"testing"
)

// The desktop's Openbox configuration keeps the system's bindings but no action that starts
// a program (Execute, Restart, in either quoting) and names no menu file.
func TestOpenboxConfigStartsNothing(t *testing.T) {
	sys := `<openbox_config>
<keyboard><keybind key="W-e"><action name="Execute"><command>xterm</command></action></keybind>
<keybind key="A-Tab"><action name="NextWindow"/></keybind>
<keybind key="W-r"><action name='restart'><command>twm</command></action></keybind></keyboard>
<mouse><context name="Root"><mousebind button="Right" action="Press"><action name="ShowMenu"><menu>root-menu</menu></action></mousebind></context>
<context name="Titlebar"><mousebind button="Left" action="Drag"><action name="Move"/></mousebind></context></mouse>
<menu><file>/var/lib/openbox/debian-menu.xml</file><file>menu.xml</file></menu>
</openbox_config>`
	got := string(openboxConfig([]byte(sys)))
	for _, gone := range []string{"Execute", "xterm", "restart", "twm", "<file>", "debian-menu"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q is left in:\n%s", gone, got)
		}
	}
	for _, kept := range []string{`<action name="NextWindow"/>`, `<action name="Move"/>`, "root-menu"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q was taken out of:\n%s", kept, got)
		}
	}
}
