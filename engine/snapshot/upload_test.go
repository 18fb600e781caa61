package snapshot_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

func TestStageLimits(t *testing.T) {
	st := snapshot.NewStore()
	b64 := func(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, n)) }
	many := make([]snapshot.UploadFile, 21)
	for i := range many {
		many[i] = snapshot.UploadFile{Name: "f", Data: "AA=="}
	}
	for name, files := range map[string][]snapshot.UploadFile{
		"none":      nil,
		"21 files":  many,
		"base64":    {{Name: "a", Data: "not base64!"}},
		"11 MiB":    {{Name: "a", Data: b64(11 << 20)}},
		"51 MiB":    {{Name: "a", Data: b64(10 << 20)}, {Name: "b", Data: b64(10 << 20)}, {Name: "c", Data: b64(10 << 20)}, {Name: "d", Data: b64(10 << 20)}, {Name: "e", Data: b64(10 << 20)}, {Name: "f", Data: b64(1 << 20)}},
		"long name": {{Name: strings.Repeat("n", 4097), Data: "AA=="}},
		"long mime": {{Name: "a", Data: "AA==", MIMEType: strings.Repeat("m", 1025)}},
		"no name":   {{Data: "AA=="}},
	} {
		if _, err := st.Stage(files); werr.CodeOf(err) != werr.InvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}
	paths, err := st.Stage([]snapshot.UploadFile{{Name: "../../etc/x.txt", Data: "aGk="}, {Name: "x.txt", Data: ""}, {Name: strings.Repeat("é", 300), Data: "AA=="}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, os.TempDir()) {
			t.Errorf("staged outside the temp dir: %s", p)
		}
	}
	if filepath.Base(paths[0]) != "x.txt" || filepath.Base(paths[1]) != "x.txt" || paths[0] == paths[1] {
		t.Errorf("names: %q", paths)
	}
	if b, _ := os.ReadFile(paths[0]); string(b) != "hi" {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(filepath.Dir(filepath.Dir(paths[0]))); fi.Mode().Perm() != 0o700 {
		t.Errorf("staging dir mode %v", fi.Mode())
	}
	st.Close()
	if _, err := os.Stat(paths[0]); !os.IsNotExist(err) {
		t.Errorf("staged files outlive the store: %v", err)
	}
}
