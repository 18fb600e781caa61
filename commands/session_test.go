package commands

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// fakeHost is a host with sessions but no desktops: the session tools need no more.
type fakeHost struct {
	infos []session.Info
	ended []string
}

func (f *fakeHost) Sessions() []session.Info { return f.infos }
func (f *fakeHost) StartSession(context.Context, string, time.Duration) (*session.Session, error) {
	return nil, werr.New(werr.Unavailable, "no desktops here")
}
func (f *fakeHost) Session(_ context.Context, id string) (*session.Session, error) {
	return nil, werr.New(werr.NotFound, "no session %q", id)
}
func (f *fakeHost) EndSession(id string) ([]string, error) {
	if !slices.ContainsFunc(f.infos, func(i session.Info) bool { return i.ID == id }) {
		return nil, werr.New(werr.NotFound, "no session %q", id)
	}
	f.ended = append(f.ended, id)
	return nil, nil
}
func (f *fakeHost) ProtectedPIDs() []int                { return nil }
func (f *fakeHost) PrivateDirs() []string               { return nil }
func (f *fakeHost) LiveViewURL(*session.Session) string { return "" }
func (f *fakeHost) Browser() tool.BrowserConfig         { return tool.BrowserConfig{} }
func (f *fakeHost) HandOver(context.Context, *session.Session, tool.HandOverRequest) (tool.HandOverResult, error) {
	return tool.HandOverResult{}, werr.New(werr.Unavailable, "no people here")
}

// call prepares args as the host would and runs t with env.
func call(t *testing.T, tl *tool.Tool, env *tool.Env, args map[string]any) (any, error) {
	t.Helper()
	in, err := tl.Prepare(args)
	if err != nil {
		t.Fatalf("%s: %v", tl.Name, err)
	}
	return tl.Run(context.Background(), env, in)
}

func TestSessionToolsNeedOnlyTheirHostServices(t *testing.T) {
	started := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	h := &fakeHost{infos: []session.Info{{ID: "default", Display: ":7", HostPID: 42, Started: started, LastUsed: started}}}
	env := &tool.Env{Policy: policy.Default(), Host: h}

	out, err := call(t, ListSessions, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	list := out.(SessionListOut)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != "default" || list.Sessions[0].Display != ":7" {
		t.Errorf("list_sessions = %+v", list)
	}
	if text := list.Text(); !strings.Contains(text, "default") || !strings.Contains(text, ":7") {
		t.Errorf("list_sessions text %q", text)
	}

	if _, err := call(t, EndSession, env, map[string]any{"sessionId": "default"}); err != nil || !slices.Equal(h.ended, []string{"default"}) {
		t.Errorf("end_session: %v, ended %v", err, h.ended)
	}
	if _, err := call(t, CloseBrowserSession, env, map[string]any{"browserSessionId": "s-gone"}); werr.CodeOf(err) != werr.NotFound {
		t.Errorf("close_browser_session of an unknown id: %v", err)
	}
	if _, err := call(t, GetSessionDetails, env, map[string]any{"sessionId": "s-gone"}); werr.CodeOf(err) != werr.NotFound {
		t.Errorf("get_session_details of an unknown id: %v", err)
	}
	// A refusal of the host reaches the caller unchanged, and nothing is left half made.
	if _, err := call(t, CreateBrowserSession, env, nil); werr.CodeOf(err) != werr.Unavailable {
		t.Errorf("create_browser_session without desktops: %v", err)
	}
}
