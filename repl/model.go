package repl

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/w365/w365/commands/cli"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/werr"
)

const promptText = "w365> "

// replHelp follows `help` (without arguments): the keys of the shell itself.
const replHelp = `
In this shell: type commands without "w365" in front. Tab completes, Up/Down recall
history, Ctrl+R searches it, PgUp/PgDown scroll, Ctrl+C cancels a running command or
clears the line. "use SESSION" acts in another session from now on (one line:
--session SESSION), "watch" prints other clients' calls on the session as they happen
("watch off" stops), "approve [ID]", "approve-session [ID]" and "deny [ID]" answer an
approval that waits (the oldest without ID; docs/security.md#approvals), "clear" (or Ctrl+L) empties the screen, "exit", "quit" or Ctrl+D
leave (the host keeps running). Ref commands without --snapshot-id use the session's
last snapshot; Tab completes refs (with role and name), sessions, window titles and tabs.`

var (
	echoStyle   = lipgloss.NewStyle().Bold(true)
	errStyle    = lipgloss.NewStyle().Foreground(lipgloss.Red)
	faintStyle  = lipgloss.NewStyle().Faint(true)
	statusStyle = lipgloss.NewStyle().Reverse(true)
)

// Messages that tea.Cmds send back to Update.
type (
	doneMsg struct {
		seq     int
		out     string
		err     error
		elapsed time.Duration
		image   []byte
	}
	completionMsg struct {
		before string // the text before the cursor the completion was computed for
		c      completion
	}
	historySavedMsg struct{ err error }
	// watchMsg is a call event of the session, from the host's watch stream.
	watchMsg struct{ ev host.CallEvent }
	// answeredMsg is the host's reply to a person's answer to an approval.
	answeredMsg struct {
		a   host.Answer
		err error
	}
)

// model is the REPL's one top-level model. All I/O (running commands, asking the
// host, writing history) happens in tea.Cmds; Update only changes state.
type model struct {
	r    *runner
	hist *history
	// histIdx is the entry shown by Up/Down; len(hist.entries) means the draft.
	histIdx int
	draft   string

	input   textinput.Model
	vp      viewport.Model
	spin    spinner.Model
	lines   []string // the scrollback, rendered
	cands   []candidate
	width   int
	height  int
	running bool
	cmdLine string
	cancel  context.CancelFunc
	seq     int

	// status line
	session   string
	display   string
	statusErr string
	connected bool
	lastTime  time.Duration
	histErr   string

	search search

	// Other clients' calls on the session that have started and not ended, for the
	// queue notice; watching prints every one of their events.
	others      map[uint64]host.CallEvent
	watching    bool
	startedAt   time.Time
	queuedShown bool
	// pending are the session's approvals that wait for an answer (approve, deny).
	pending cli.Pending
}

func newModel(r *runner, h *history) *model {
	in := textinput.New()
	in.Prompt = promptText
	st := in.Styles()
	st.Focused.Prompt = st.Focused.Prompt.Bold(true)
	in.SetStyles(st)
	in.Focus()
	vp := viewport.New()
	vp.SoftWrap = true
	// The arrows belong to the history; the scrollback scrolls with PgUp/PgDown.
	vp.KeyMap.Up.SetEnabled(false)
	vp.KeyMap.Down.SetEnabled(false)
	vp.KeyMap.Left.SetEnabled(false)
	vp.KeyMap.Right.SetEnabled(false)
	vp.KeyMap.HalfPageUp.SetEnabled(false)
	vp.KeyMap.HalfPageDown.SetEnabled(false)
	m := &model{
		r:       r,
		hist:    h,
		histIdx: len(h.entries),
		input:   in,
		vp:      vp,
		spin:    spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		session: r.opts.Globals.Session,
		width:   80,
		height:  24,
		others:  map[uint64]host.CallEvent{},
	}
	m.lines = []string{faintStyle.Render(fmt.Sprintf("w365 shell on session %q. Type help for commands, Tab to complete, exit to leave.", m.session))}
	m.layout()
	return m
}

func (m *model) Init() tea.Cmd {
	return tea.Batch(textinput.Blink, m.detailsCmd())
}

func (m *model) detailsCmd() tea.Cmd {
	r, session := m.r, m.session
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return r.fetchDetails(ctx, session)
	}
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil

	case tea.KeyPressMsg:
		return m.key(msg)

	case tea.PasteMsg:
		if m.search.active {
			m.searchType(msg.Content)
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd

	case spinner.TickMsg:
		if !m.running {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd

	case doneMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.running, m.cancel, m.lastTime = false, nil, msg.elapsed
		if out := strings.TrimRight(msg.out, "\n"); out != "" {
			m.appendLines(clean(out))
		}
		if msg.err != nil {
			m.appendLines(errStyle.Render(clean(errorLine(msg.err))))
		}
		// A command may have started the session (or the host): refresh the status.
		return m, tea.Batch(m.detailsCmd(), m.previewCmd(msg.image))

	case detailsMsg:
		if msg.session != m.session {
			return m, nil
		}
		m.connected = true
		m.statusErr, m.display = "", msg.display
		if msg.err != nil {
			if werr.CodeOf(msg.err) == werr.NotFound {
				// The session starts with its first command.
				m.display = "not started"
			} else {
				m.statusErr = werr.As(msg.err).Error()
				m.connected = false
			}
		}
		return m, nil

	case completionMsg:
		if runesBefore(m.input) != msg.before {
			return m, nil // the line changed while we were completing
		}
		m.applyCompletion(msg.c)
		return m, nil

	case watchMsg:
		m.watchEvent(msg.ev)
		return m, nil

	case answeredMsg:
		if msg.err != nil {
			m.appendLines(errStyle.Render(clean(errorLine(msg.err))))
		} else {
			m.appendLines(faintStyle.Render(clean("#" + msg.a.ID + ": " + msg.a.Decision)))
		}
		return m, nil

	case historySavedMsg:
		if msg.err != nil {
			m.histErr = "history not saved: " + msg.err.Error()
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

func (m *model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := msg.String()
	if k != "tab" {
		m.setCands(nil)
	}
	if m.search.active {
		if cmd, done := m.searchKey(msg); !done {
			return m, cmd
		}
	}
	switch k {
	case "ctrl+r":
		m.startSearch()
		return m, nil
	case "ctrl+c":
		switch {
		case m.running:
			m.cancel()
			m.appendLines(faintStyle.Render("^C (cancelling " + m.cmdLine + ")"))
		case m.input.Value() != "":
			m.input.Reset()
			m.histIdx = len(m.hist.entries)
		default:
			return m, tea.Quit
		}
		return m, nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return m, tea.Quit
		}
	case "enter":
		return m, m.submit()
	case "tab":
		return m, m.completeCmd()
	case "up", "ctrl+p":
		m.recall(-1)
		return m, nil
	case "down", "ctrl+n":
		m.recall(+1)
		return m, nil
	case "pgup", "pgdown", "shift+up", "shift+down":
		switch k {
		case "pgup":
			m.vp.PageUp()
		case "pgdown":
			m.vp.PageDown()
		case "shift+up":
			m.vp.ScrollUp(1)
		case "shift+down":
			m.vp.ScrollDown(1)
		}
		return m, nil
	case "ctrl+l":
		m.clear()
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// recall moves through the history; past the newest entry is the line being typed.
func (m *model) recall(dir int) {
	n := len(m.hist.entries)
	next := m.histIdx + dir
	if next < 0 || next > n {
		return
	}
	if m.histIdx == n {
		m.draft = m.input.Value()
	}
	m.histIdx = next
	if next == n {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.hist.entries[next])
	}
	m.input.CursorEnd()
}

// submit runs the line in a tea.Cmd, or handles the shell's own words.
func (m *model) submit() tea.Cmd {
	if a, ok, err := cli.ParseAnswer(m.input.Value(), &m.pending, host.ByREPL); ok {
		// An answer to an approval, even while a line runs (it may be the one waiting).
		m.appendLines(echoStyle.Render(promptText + clean(m.input.Value())))
		m.input.Reset()
		if err != nil {
			m.appendLines(errStyle.Render(clean(errorLine(err))))
			return nil
		}
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return answeredMsg{a, host.Approve(ctx, a)}
		}
	}
	if m.running {
		m.appendLines(faintStyle.Render("(" + m.cmdLine + " is still running; Ctrl+C cancels it)"))
		return nil
	}
	line := m.input.Value()
	m.input.Reset()
	m.draft = ""
	m.appendLines(echoStyle.Render(promptText + clean(line)))
	var cmds []tea.Cmd
	words, err := splitWords(line)
	if m.hist.add(line) {
		saved := m.hist.entries[len(m.hist.entries)-1]
		if err != nil || m.r.mayCarrySecrets(words) {
			m.hist.keepOut(saved)
		} else {
			h, snap := m.hist, m.hist.forFile()
			cmds = append(cmds, func() tea.Msg { return historySavedMsg{h.save(saved, snap)} })
		}
	}
	m.histIdx = len(m.hist.entries)

	if err != nil {
		m.appendLines(errStyle.Render(errorLine(werr.New(werr.InvalidArgument, "%v", err))))
		return tea.Batch(cmds...)
	}
	if len(words) > 0 && words[0] == "w365" {
		words = words[1:]
	}
	if len(words) == 0 {
		return tea.Batch(cmds...)
	}
	switch words[0] {
	case "exit", "quit":
		if len(words) == 1 {
			return tea.Sequence(tea.Batch(cmds...), tea.Quit)
		}
	case "clear":
		if len(words) == 1 {
			m.clear()
			return tea.Batch(cmds...)
		}
	case "watch":
		switch {
		case len(words) == 1 || (len(words) == 2 && words[1] == "on"):
			m.watching = true
			m.appendLines(faintStyle.Render("watching the calls of other clients on session " + m.session + " (watch off stops)"))
			return tea.Batch(cmds...)
		case len(words) == 2 && words[1] == "off":
			m.watching = false
			m.appendLines(faintStyle.Render("no longer watching"))
			return tea.Batch(cmds...)
		}
	case "use":
		switch len(words) {
		case 1:
			m.appendLines("session " + m.session)
			return tea.Batch(cmds...)
		case 2:
			if words[1] == "" {
				break
			}
			m.session, m.display, m.statusErr, m.connected = words[1], "", "", false
			m.others = map[uint64]host.CallEvent{}
			m.pending.Reset()
			m.r.use(words[1])
			m.appendLines(faintStyle.Render("now acting in session " + clean(words[1])))
			return tea.Batch(append(cmds, m.detailsCmd())...)
		}
		m.appendLines(errStyle.Render(errorLine(werr.New(werr.InvalidArgument, "usage: use SESSION"))))
		return tea.Batch(cmds...)
	}

	m.seq++
	seq, r := m.seq, m.r
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel, m.cmdLine = true, cancel, ansi.Truncate(clean(strings.Join(words, " ")), 40, "…")
	m.startedAt, m.queuedShown = time.Now(), false
	r.progress.Store(nil)
	m.checkQueued()
	helpOnly := len(words) == 1 && words[0] == "help"
	run := func() tea.Msg {
		defer cancel()
		start := time.Now()
		r.mem.takeImage() // an image of an earlier line is not this line's
		out, err := r.run(ctx, words)
		if helpOnly && err == nil {
			out = strings.TrimRight(out, "\n") + "\n" + replHelp
		}
		return doneMsg{seq: seq, out: out, err: err, elapsed: time.Since(start), image: r.mem.takeImage()}
	}
	cmds = append(cmds, run, m.spin.Tick)
	return tea.Batch(cmds...)
}

// completeCmd computes completions off the update loop: building the tree is cheap
// but not free, and keys keep flowing meanwhile.
func (m *model) completeCmd() tea.Cmd {
	before := runesBefore(m.input)
	r := m.r
	return func() tea.Msg {
		if partial, ok := strings.CutPrefix(before, "use "); ok && !strings.ContainsAny(partial, " '\"") {
			return completionMsg{before: before, c: completeValues("use ", partial, r.complete("session", r.currentSession()))}
		}
		return completionMsg{before: before, c: complete(r.newCompletionRoot, before)}
	}
}

func (m *model) applyCompletion(c completion) {
	before := runesBefore(m.input)
	after := string([]rune(m.input.Value())[m.input.Position():])
	if c.line != before {
		m.input.SetValue(c.line + after)
		m.input.SetCursor(len([]rune(c.line)))
	}
	m.setCands(c.cands)
}

func runesBefore(in textinput.Model) string {
	return string([]rune(in.Value())[:in.Position()])
}

func (m *model) setCands(c []candidate) {
	if len(c) == 0 && len(m.cands) == 0 {
		return
	}
	m.cands = c
	m.layout()
}

func (m *model) clear() {
	m.lines = nil
	m.vp.SetContentLines(nil)
}

func (m *model) appendLines(s string) {
	m.lines = append(m.lines, strings.Split(s, "\n")...)
	if over := len(m.lines) - scrollbackLimit; over > 0 {
		m.lines = slices.Delete(m.lines, 0, over)
	}
	m.vp.SetContentLines(m.lines)
	m.vp.GotoBottom()
}

// scrollbackLimit bounds the lines the scrollback keeps, oldest dropped first.
const scrollbackLimit = 10000

// clean makes text from commands and hosts safe to put on the screen: control
// characters (escape sequences, carriage returns) would move the cursor under the
// renderer's feet, and tabs have no width it can measure.
func clean(s string) string {
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
			col = 0
		case r == '\t':
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			// dropped: it would act on the terminal or reorder the line
		default:
			b.WriteRune(r)
			col += lipgloss.Width(string(r))
		}
	}
	return b.String()
}

// candRows renders the choices of an ambiguous completion in columns.
func (m *model) candRows() []string {
	if len(m.cands) == 0 {
		return nil
	}
	w := 0
	for _, c := range m.cands {
		w = max(w, lipgloss.Width(c.Value))
	}
	w += 2
	perRow := max(1, m.width/w)
	const maxRows = 6
	var rows []string
	var row strings.Builder
	for i, c := range m.cands {
		if len(rows) == maxRows {
			rows[maxRows-1] = faintStyle.Render(fmt.Sprintf("… and %d more", len(m.cands)-i+perRow))
			break
		}
		row.WriteString(c.Value + strings.Repeat(" ", w-lipgloss.Width(c.Value)))
		if (i+1)%perRow == 0 || i == len(m.cands)-1 {
			rows = append(rows, strings.TrimRight(row.String(), " "))
			row.Reset()
		}
	}
	if len(m.cands) <= perRow*2 && len(m.cands) <= 8 {
		// Few choices: one per line with its description.
		rows = rows[:0]
		for _, c := range m.cands {
			line := c.Value + strings.Repeat(" ", w-lipgloss.Width(c.Value))
			if c.Desc != "" {
				line += faintStyle.Render(c.Desc)
			}
			rows = append(rows, line)
		}
	}
	return rows
}

func (m *model) layout() {
	m.input.SetWidth(max(10, m.width-len(promptText)-1))
	m.vp.SetWidth(m.width)
	m.vp.SetHeight(max(1, m.height-2-len(m.candRows())))
	m.vp.GotoBottom()
}

func (m *model) status() string {
	var parts []string
	parts = append(parts, "session "+m.session)
	switch {
	case m.statusErr != "":
		parts = append(parts, "host: "+m.statusErr)
	case !m.connected:
		parts = append(parts, "connecting…")
	default:
		parts = append(parts, "display "+m.display)
	}
	if m.running {
		run := m.spin.View() + " running " + m.cmdLine
		if d := time.Since(m.startedAt); d >= time.Second {
			run += fmt.Sprintf(" %.0fs", d.Seconds())
		}
		if b, ok := m.blocker(); ok {
			run += " · waiting behind " + b.Tool + " of " + b.Frontend
		} else if p := m.r.progress.Load(); p != nil && p.WaitsForApproval() {
			run += " · waiting for approval (approve, deny)"
		} else if p := m.r.progress.Load(); p != nil && p.Queued() {
			// The host says so, about a call the watch did not show (before it began).
			run += " · queued behind another call"
		}
		parts = append(parts, run)
	} else if m.lastTime > 0 {
		parts = append(parts, "last "+m.lastTime.Round(time.Millisecond).String())
	}
	if m.histErr != "" {
		parts = append(parts, m.histErr)
	}
	s := " " + strings.Join(parts, " · ")
	if w := lipgloss.Width(s); w < m.width {
		s += strings.Repeat(" ", m.width-w)
	}
	return statusStyle.Render(ansi.Truncate(s, m.width, "…"))
}

func (m *model) View() tea.View {
	var b strings.Builder
	b.WriteString(m.vp.View())
	b.WriteString("\n")
	for _, r := range m.candRows() {
		// One screen line each, or the layout's arithmetic is off.
		b.WriteString(ansi.Truncate(r, m.width, "…") + "\n")
	}
	if m.search.active {
		b.WriteString(ansi.Truncate(m.searchView(), m.width, "…"))
	} else {
		b.WriteString(m.input.View())
	}
	b.WriteString("\n")
	b.WriteString(m.status())
	v := tea.NewView(b.String())
	v.AltScreen = true
	v.WindowTitle = "w365 · " + m.session
	return v
}

// watchEvent keeps track of other clients' calls on the session and, when watching,
// prints them.
func (m *model) watchEvent(ev host.CallEvent) {
	if ev.Session != m.session {
		return
	}
	if ev.Phase == "approval" && ev.Approval != nil {
		// Approvals show whoever's call waits (this shell's own included): the person here answers them.
		m.pending.See(ev)
		line := clean(cli.EventLine(ev, true))
		if ev.Approval.Decision == host.ApprovalAsked {
			m.appendLines(echoStyle.Render(line))
			m.appendLines(faintStyle.Render(fmt.Sprintf("  answer: approve %s | approve-session %s | deny %s", ev.Approval.ID, ev.Approval.ID, ev.Approval.ID)))
		} else {
			m.appendLines(faintStyle.Render(line))
		}
		return
	}
	if ev.Client == m.r.clientID {
		return
	}
	if ev.Phase == "start" {
		m.others[ev.ID] = ev
	} else {
		delete(m.others, ev.ID)
	}
	// What a person did, or an agent asks of one (a hand-over), shows whether watching or not.
	if m.watching || ev.Phase == "person" {
		m.appendLines(faintStyle.Render(clean(cli.EventLine(ev, true))))
	}
	m.checkQueued()
}

// blocker is another client's call that started before the running line and has not
// ended: calls of one session run one at a time, so the line waits behind it.
func (m *model) blocker() (host.CallEvent, bool) {
	if !m.running {
		return host.CallEvent{}, false
	}
	var first host.CallEvent
	found := false
	for _, ev := range m.others {
		if ev.Time.Before(m.startedAt) && (!found || ev.Time.Before(first.Time)) {
			first, found = ev, true
		}
	}
	return first, found
}

// checkQueued says once per line that it waits behind another client's call.
func (m *model) checkQueued() {
	if m.queuedShown {
		return
	}
	if b, ok := m.blocker(); ok {
		m.queuedShown = true
		m.appendLines(faintStyle.Render(fmt.Sprintf("(waiting behind a call of another client: %s from %s, running for %s)",
			b.Tool, b.Frontend, time.Since(b.Time).Round(100*time.Millisecond))))
	}
}

// previewCmd shows a saved image at the top right of the screen in terminals that can
// show images; kitty's stays above the text until the next preview replaces it.
func (m *model) previewCmd(img []byte) tea.Cmd {
	proto := m.r.preview
	if img == nil || proto == "" {
		return nil
	}
	seq := cli.Preview(img, proto)
	if seq == nil {
		return nil
	}
	clear := ""
	if proto == "kitty" {
		clear = "\x1b_Ga=d,q=2\x1b\\"
	}
	return tea.Raw(clear + "\x1b7" + fmt.Sprintf("\x1b[2;%dH", max(1, m.width-42)) + string(seq) + "\x1b8")
}
