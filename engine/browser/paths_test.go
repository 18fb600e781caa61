//go:build linux

package browser

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A download's suggested name comes from the page: a control character, a bidirectional
// override, a zero-width or a line separator in it would make a listing show another name,
// or two lines; each becomes "_", and white space at either end goes (fixName).
func TestDownloadNamesAreReadAsTheyAre(t *testing.T) {
	dir := t.TempDir()
	b := &Browser{opts: Options{DownloadDir: dir}}
	for i, c := range []struct{ suggested, want string }{
		{"report\n.txt", "report_.txt"},
		{"invoice\u202Efdp.exe", "invoice_fdp.exe"},
		{"a\u0085b\u007fc\u200bd\u2028e.txt", "a_b_c_d_e.txt"},
		{" spaced.txt\t", "spaced.txt"},
		{"\x00.bashrc", "_.bashrc"},
		{"plain é.txt", "plain é.txt"},
	} {
		id := "guid-" + string(rune('a'+i))
		if err := os.WriteFile(filepath.Join(dir, id), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		got := b.finishDownload(&Download{ID: id, SuggestedName: c.suggested})
		if filepath.Base(got) != c.want {
			t.Errorf("a download suggested as %q was saved as %q, want %q", c.suggested, filepath.Base(got), c.want)
		}
		if _, err := os.Stat(got); errors.Is(err, fs.ErrNotExist) || strings.ContainsAny(got, "\n\x00") {
			t.Errorf("%q: %v", got, err)
		}
	}
}
