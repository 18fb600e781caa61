//go:build windows

package win32

import "fmt"

// Virtual-key codes used by name.
const (
	vkBack     = 0x08
	vkTab      = 0x09
	vkReturn   = 0x0D
	vkShift    = 0x10
	vkControl  = 0x11
	vkMenu     = 0x12
	vkPause    = 0x13
	vkCapital  = 0x14
	vkEscape   = 0x1B
	vkSpace    = 0x20
	vkPrior    = 0x21
	vkNext     = 0x22
	vkEnd      = 0x23
	vkHome     = 0x24
	vkLeft     = 0x25
	vkUp       = 0x26
	vkRight    = 0x27
	vkDown     = 0x28
	vkSnapshot = 0x2C
	vkInsert   = 0x2D
	vkDelete   = 0x2E
	vkLWin     = 0x5B
	vkRWin     = 0x5C
	vkApps     = 0x5D
	vkDivide   = 0x6F
	vkF1       = 0x70
	vkNumLock  = 0x90
	vkScroll   = 0x91
	vkLShift   = 0xA0
	vkRShift   = 0xA1
	vkLControl = 0xA2
	vkRControl = 0xA3
	vkLMenu    = 0xA4
	vkRMenu    = 0xA5
)

// keyNames maps the named keys PressKeys accepts (lower case; the same names as on
// Linux) to virtual keys. Single characters go through VkKeyScanW, which knows the
// keyboard layout.
var keyNames = func() map[string]uint16 {
	m := map[string]uint16{
		"ctrl": vkControl, "control": vkControl, "lctrl": vkLControl, "rctrl": vkRControl,
		"leftctrl": vkLControl, "rightctrl": vkRControl,
		"shift": vkShift, "lshift": vkLShift, "rshift": vkRShift, "leftshift": vkLShift, "rightshift": vkRShift,
		"alt": vkMenu, "lalt": vkLMenu, "ralt": vkRMenu, "leftalt": vkLMenu, "rightalt": vkRMenu,
		"option": vkMenu, "altgr": vkRMenu,
		"meta": vkLWin, "win": vkLWin, "windows": vkLWin, "super": vkLWin, "cmd": vkLWin, "command": vkLWin,
		"lwin": vkLWin, "rwin": vkRWin,
		"enter": vkReturn, "return": vkReturn, "tab": vkTab, "escape": vkEscape, "esc": vkEscape,
		"backspace": vkBack, "delete": vkDelete, "del": vkDelete, "insert": vkInsert, "ins": vkInsert,
		"space": vkSpace, "home": vkHome, "end": vkEnd,
		"pageup": vkPrior, "pgup": vkPrior, "pagedown": vkNext, "pgdn": vkNext,
		"left": vkLeft, "right": vkRight, "up": vkUp, "down": vkDown,
		"arrowleft": vkLeft, "arrowright": vkRight, "arrowup": vkUp, "arrowdown": vkDown,
		"capslock": vkCapital, "numlock": vkNumLock, "scrolllock": vkScroll, "pause": vkPause,
		"printscreen": vkSnapshot, "prtsc": vkSnapshot, "menu": vkApps, "apps": vkApps,
	}
	for i := range 24 {
		m[fmt.Sprintf("f%d", i+1)] = uint16(vkF1 + i)
	}
	return m
}()
