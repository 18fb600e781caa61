package repl

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// historyLimit bounds both the in-memory list and the file.
const historyLimit = 1000

// HistoryPath is $XDG_STATE_HOME/w365/history, or ~/.local/state/w365/history.
func HistoryPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "w365", "history")
}

// history is the list of entered lines, oldest first, kept in a file one line each.
// Lines are appended as they are entered, so a crash loses nothing; the file is
// rewritten only when it has grown past the limit.
type history struct {
	path    string
	entries []string
	// private are lines kept in memory only, never written to the file (keepOut).
	private map[string]bool

	mu sync.Mutex // serialises file writes, which run in tea.Cmds
}

// loadHistory reads path; a missing or unreadable file is an empty history.
func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		h.add(sc.Text())
	}
	return h
}

// add records line in memory and reports whether it was new (not empty, not a
// repeat of the previous line).
func (h *history) add(line string) bool {
	line = strings.TrimSpace(strings.ReplaceAll(line, "\n", " "))
	if line == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == line) {
		return false
	}
	h.entries = append(h.entries, line)
	if len(h.entries) > historyLimit {
		h.entries = append([]string(nil), h.entries[len(h.entries)-historyLimit:]...)
	}
	return true
}

// keepOut keeps line, added last, out of the file: it may carry what the records hide
// (a password typed with type-text, the clipboard's text), which Up still recalls.
func (h *history) keepOut(line string) {
	if h.private == nil {
		h.private = map[string]bool{}
	}
	h.private[strings.TrimSpace(strings.ReplaceAll(line, "\n", " "))] = true
}

// forFile is the in-memory list without the lines kept out of the file.
func (h *history) forFile() []string {
	return slices.DeleteFunc(slices.Clone(h.entries), func(l string) bool { return h.private[l] })
}

// save appends line to the file, compacting the file to the newest entries when
// it has grown well past the limit. snapshot is the in-memory list at the time.
func (h *history) save(line string, snapshot []string) error {
	if h.path == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	if st, err := os.Stat(h.path); err == nil && st.Size() > 0 {
		if n := countLines(h.path); n >= historyLimit+historyLimit/10 {
			tmp := h.path + ".tmp"
			if err := os.WriteFile(tmp, []byte(strings.Join(snapshot, "\n")+"\n"), 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, h.path)
		}
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}
