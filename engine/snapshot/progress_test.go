//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
)

// TestProgressShowsHowFar: a progress bar and a meter show their value, as a slider does,
// so that an agent can tell when an upload is done with no text beside the bar: a native
// progress as a percentage of its maximum, none while it is indeterminate. Before, each
// read only its role and name.
func TestProgressShowsHowFar(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	navigate(t, b, same+"/progress.html")
	r := take(t, snapshot.NewStore(), b, snapshot.Options{})
	for _, want := range []string{`progressbar "Upload" [ref=e1]: 50%`, `progressbar "Waiting" [ref=e2]` + "\n", `meter "Strength" [ref=e3]: 3`, `progressbar "Export" [ref=e4]: 70`} {
		if !strings.Contains(r.Text+"\n", want) {
			t.Errorf("no %q in:\n%s", want, r.Text)
		}
	}
}
