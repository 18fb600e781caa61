package repl

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// search is Ctrl+R: an incremental search back through the history, as in bash.
type search struct {
	active bool
	query  string
	// match is the index of the shown entry in the history, -1 for none.
	match int
	// saved is the line to restore when the search is abandoned.
	saved string
}

// find looks for query in the history, newest first, from index from down.
func (m *model) find(from int) int {
	if m.search.query == "" {
		return -1
	}
	for i := min(from, len(m.hist.entries)-1); i >= 0; i-- {
		if strings.Contains(m.hist.entries[i], m.search.query) {
			return i
		}
	}
	return -1
}

// searchKey handles a key during a search; done reports that the key ended it and
// must still be handled as a normal key.
func (m *model) searchKey(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	s := &m.search
	switch k := msg.String(); k {
	case "ctrl+r":
		if s.match > 0 {
			if i := m.find(s.match - 1); i >= 0 {
				s.match = i
			}
		}
		return nil, false
	case "backspace", "ctrl+h":
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
			s.match = m.find(len(m.hist.entries) - 1)
		}
		return nil, false
	case "esc", "ctrl+g", "ctrl+c":
		s.active = false
		m.input.SetValue(s.saved)
		m.input.CursorEnd()
		return nil, false
	}
	if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
		m.searchType(msg.Text)
		return nil, false
	}
	// Any other key takes the match onto the line and then does what it does.
	m.acceptSearch()
	return nil, true
}

func (m *model) searchType(text string) {
	s := &m.search
	s.query += text
	from := len(m.hist.entries) - 1
	if s.match >= 0 {
		from = s.match // a longer query may still match the shown entry
	}
	if i := m.find(from); i >= 0 {
		s.match = i
	} else {
		s.match = m.find(len(m.hist.entries) - 1)
	}
}

func (m *model) startSearch() {
	m.search = search{active: true, match: -1, saved: m.input.Value()}
}

func (m *model) acceptSearch() {
	if m.search.match >= 0 {
		m.input.SetValue(m.hist.entries[m.search.match])
		m.histIdx = m.search.match
	}
	m.input.CursorEnd()
	m.search.active = false
}

func (m *model) searchView() string {
	shown := ""
	label := "(reverse-i-search)"
	if m.search.match >= 0 {
		shown = m.hist.entries[m.search.match]
	} else if m.search.query != "" {
		label = "(failed reverse-i-search)"
	}
	return faintStyle.Render(label+"`") + m.search.query + faintStyle.Render("': ") + clean(shown)
}
