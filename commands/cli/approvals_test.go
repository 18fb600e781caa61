package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/commands/host"
)

func approvalEvent(id, decision string) host.CallEvent {
	return host.CallEvent{Phase: "approval", Tool: "move_mouse", Time: time.Now(), Args: map[string]any{"x": 1.0},
		Approval: &host.ApprovalEvent{ID: id, Rule: "mouse", Decision: decision, Asked: []string{"person"}, Deadline: time.Now()}}
}

// A person's line answers the oldest waiting approval, or the one it names; other lines are no answer.
func TestParseAnswer(t *testing.T) {
	var p Pending
	if _, ok, err := ParseAnswer("a", &p, host.ByWatch); !ok || err == nil {
		t.Errorf("a with nothing waiting: ok %v err %v", ok, err)
	}
	p.See(approvalEvent("7", host.ApprovalAsked))
	p.See(approvalEvent("9", host.ApprovalAsked))
	for line, want := range map[string]string{
		"a": "7 approve", "d": "7 deny", "s": "7 approve-session", "approve": "7 approve",
		"deny 9": "9 deny", "approve-session #9": "9 approve-session",
	} {
		a, ok, err := ParseAnswer(line, &p, host.ByWatch)
		if !ok || err != nil || a.ID+" "+a.Decision != want || a.Via != host.ByWatch {
			t.Errorf("%q: %+v %v %v, want %s", line, a, ok, err, want)
		}
	}
	for _, line := range []string{"", "x", "approve 7 --for-session", "list-windows"} {
		if _, ok, _ := ParseAnswer(line, &p, host.ByREPL); ok {
			t.Errorf("%q read as an answer", line)
		}
	}
	p.See(approvalEvent("7", host.ApprovalDenied))
	if p.Oldest() != "9" {
		t.Errorf("oldest after #7 was decided: %q", p.Oldest())
	}
}

func TestApprovalLines(t *testing.T) {
	asked := EventLine(approvalEvent("7", host.ApprovalAsked), false)
	if !strings.Contains(asked, `approval #7 move_mouse x=1 waits for a yes (rule "mouse"; asks person; until `) {
		t.Errorf("asked: %s", asked)
	}
	ev := approvalEvent("7", host.ApprovalDenied)
	ev.Approval.By, ev.Approval.ByPrincipal = host.ByREPL, "local"
	if got := EventLine(ev, false); !strings.HasSuffix(got, ` denied #7 move_mouse (rule "mouse") by repl (local)`) {
		t.Errorf("denied: %s", got)
	}
}

// What an agent sends never acts on the terminal of a person who watches: an approval
// request whose argument carries a carriage return, an erase-line sequence, an OSC 52
// clipboard write or a right-to-left override shows each as its escape, so the line the
// person answers is the call's own. Before, only \n was escaped.
func TestWatchLinesShowControlCharactersAsEscapes(t *testing.T) {
	ev := approvalEvent("7", host.ApprovalAsked)
	ev.Tool = "execute_shell_command"
	ev.Args = map[string]any{"command": "rm -rf data\r\x1b[2Kls\x1b]52;c;aGk=\x07 \u202eexe.txt \xff"}
	for _, line := range []string{EventLine(ev, false), EventLine(ev, true)} {
		if strings.ContainsAny(line, "\r\x1b\x07\u202e") {
			t.Errorf("a control character reached the line: %q", line)
		}
		if !strings.Contains(line, `rm -rf data\r\x1b[2Kls`) {
			t.Errorf("the argument is not shown as escapes: %q", line)
		}
	}
	ev.Phase, ev.Approval, ev.Summary = "end", nil, "ok\x1b]0;title\x07"
	if line := EventLine(ev, false); strings.ContainsAny(line, "\r\x1b\x07\u202e") {
		t.Errorf("a control character of the summary reached the line: %q", line)
	}
}
