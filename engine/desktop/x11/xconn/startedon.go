//go:build linux

package xconn

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// StartedOn says whether process pid was started with DISPLAY=display.
func StartedOn(pid int, display string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	found := false
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("DISPLAY=")); ok {
			found = SameDisplay(string(v), display)
		}
	}
	return found
}

// SameDisplay says whether two X display names name one display: a default screen number
// is no difference (":7" is ":7.0").
func SameDisplay(a, b string) bool {
	trim := func(s string) string {
		if i := strings.LastIndexByte(s, '.'); i > strings.LastIndexByte(s, ':') && s[i+1:] == "0" {
			return s[:i]
		}
		return s
	}
	return trim(a) == trim(b)
}
