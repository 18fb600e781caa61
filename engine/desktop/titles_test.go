package desktop

import "testing"

func TestTitlesByPIDKeepsTheTopMostTitledWindow(t *testing.T) {
	ws := []Window{{Title: "", PID: 5}, {Title: "Top", PID: 7}, {Title: "Below", PID: 7}, {Title: "Other", PID: 9}, {Title: "No pid"}, {Title: "Named", PID: 5}}
	got := TitlesByPID(ws)
	if len(got) != 3 || got[7] != "Top" || got[9] != "Other" || got[5] != "Named" {
		t.Errorf("TitlesByPID = %v", got)
	}
}
