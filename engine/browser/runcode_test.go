//go:build linux

package browser_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

func TestRunCodeEngine(t *testing.T) {
	testenv.Require(t, "node", "bwrap")
	b, s := launch(t)
	navigate(t, b, s.URL+"/third.html")
	r, err := b.RunCode(tctx(t), "return await page.title()", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Value) != `"Third"` {
		t.Fatalf("title: %s", r.Value)
	}
}

// Without Node, browser_run_code says UNSUPPORTED and how to fix it.
func TestRunCodeWithoutNode(t *testing.T) {
	b, s := launch(t)
	navigate(t, b, s.URL+"/third.html")
	t.Setenv("PATH", t.TempDir())
	_, err := b.RunCode(tctx(t), "return 1", 0)
	mustCode(t, err, werr.Unsupported)
	if !strings.Contains(werr.As(err).Hint, "install Node.js") {
		t.Fatalf("no fix named: %+v", werr.As(err))
	}
}
