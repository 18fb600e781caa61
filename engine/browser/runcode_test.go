//go:build linux

package browser_test

import (
	"testing"

	"github.com/w365/w365/engine/display/displaytest"
)

func TestRunCodeEngine(t *testing.T) {
	displaytest.Require(t, "node", "bwrap")
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
