package host

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Settings are what serve's flags set for a whole host, as opposed to one connection (its
// ServeOptions and session). A serve --mcp that finds a host running reads that host's
// settings in the hello reply and joins it only where they agree with its own
// (docs/sessions.md, "The host").
type Settings struct {
	// AgentActsAsYou is the policy's agentActsAsYou, --agent-acts-as-you included.
	AgentActsAsYou   bool   `json:"agentActsAsYou"`
	Trace            string `json:"trace,omitempty"`
	TraceScreenshots bool   `json:"traceScreenshots,omitempty"`
	// Screen is the embedded virtual desktops' size, WxHxDEPTH.
	Screen      string        `json:"screen"`
	Virtual     bool          `json:"virtual,omitempty"`
	Headless    bool          `json:"headless,omitempty"`
	CDPEndpoint string        `json:"cdpEndpoint,omitempty"`
	LogLevel    string        `json:"logLevel"`
	IdleExit    time.Duration `json:"idleExit"`
}

// ScreenString is the form Settings.Screen takes: WxHxDEPTH.
func ScreenString(w, h, depth int) string { return fmt.Sprintf("%dx%dx%d", w, h, depth) }

// Settings are the host's own.
func (h *Host) Settings() Settings {
	s := Settings{
		AgentActsAsYou: h.policy.AgentActsAsYou,
		Screen:         ScreenString(h.opts.Sessions.Screen.Width, h.opts.Sessions.Screen.Height, h.opts.Sessions.Screen.Depth),
		Virtual:        h.opts.Sessions.Virtual,
		Headless:       h.opts.Browser.Headless,
		CDPEndpoint:    h.opts.Browser.CDPEndpoint,
		IdleExit:       h.opts.IdleExit,
	}
	if t := h.opts.Trace; t != nil {
		s.Trace, s.TraceScreenshots = t.Dir, t.Screenshots
	}
	// The lowest level the host's log records.
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		if h.log.Enabled(context.Background(), l) {
			s.LogLevel = l.String()
			break
		}
	}
	return s
}
