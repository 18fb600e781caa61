package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands/host"
)

// TestCompareSettings: whether an agent acts as you is always compared, in both directions;
// --trace and --screen only when given; --log-level and --idle-timeout never keep serve from
// joining.
func TestCompareSettings(t *testing.T) {
	defaults := host.Settings{Screen: "1920x1080x24", LogLevel: "INFO", IdleExit: 30 * time.Minute}
	cases := []struct {
		args          []string // the flags given, with the values want has
		want, host    func(*host.Settings)
		refuse, other string
	}{
		{nil, nil, nil, "", ""},
		{[]string{"--agent-acts-as-you"}, func(s *host.Settings) { s.AgentActsAsYou = true }, nil, "agent acts as you", ""},
		{nil, nil, func(s *host.Settings) { s.AgentActsAsYou = true }, "agent acts as you", ""},
		{nil, nil, func(s *host.Settings) { s.Trace = "/t" }, "", ""},
		{[]string{"--trace", "/u"}, func(s *host.Settings) { s.Trace = "/u" }, func(s *host.Settings) { s.Trace = "/t" },
			"--trace: the host's /t, this serve's /u", ""},
		{[]string{"--trace", "/t", "--trace-screenshots"}, func(s *host.Settings) { s.Trace, s.TraceScreenshots = "/t", true },
			func(s *host.Settings) { s.Trace = "/t" }, "this serve's /t with screenshots", ""},
		{[]string{"--screen", "1280x720"}, func(s *host.Settings) { s.Screen = "1280x720x24" }, nil,
			"--screen: the host's 1920x1080x24, this serve's 1280x720x24", ""},
		{nil, func(s *host.Settings) { s.Screen = "1280x720x24" }, nil, "", ""},
		{[]string{"--log-level", "debug", "--idle-timeout", "5m"}, func(s *host.Settings) { s.LogLevel, s.IdleExit = "DEBUG", 5*time.Minute }, nil,
			"", "--log-level: the host's INFO, this serve's DEBUG; --idle-timeout: the host's 30m0s, this serve's 5m0s"},
	}
	for _, c := range cases {
		root := &cobra.Command{Use: "w365"}
		AddServe(root, &Globals{})
		cmd, _, _ := root.Find([]string{"serve"})
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		want, got := defaults, defaults
		for s, f := range map[*host.Settings]func(*host.Settings){&want: c.want, &got: c.host} {
			if f != nil {
				f(s)
			}
		}
		refuse, other := compareSettings(cmd, want, got)
		r, o := strings.Join(refuse, "; "), strings.Join(other, "; ")
		if (c.refuse == "") != (r == "") || !strings.Contains(r, c.refuse) || (c.other == "") != (o == "") || !strings.Contains(o, c.other) {
			t.Errorf("serve %v, %+v, against %+v: refuse %q, other %q; want %q and %q", c.args, want, got, r, o, c.refuse, c.other)
		}
	}
}
