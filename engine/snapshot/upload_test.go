package snapshot_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

func TestInlineLimits(t *testing.T) {
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
		if _, _, err := snapshot.Inline(files); werr.CodeOf(err) != werr.InvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}
	files, n, err := snapshot.Inline([]snapshot.UploadFile{{Name: "../../etc/x.txt", Data: "aGk="}, {Name: "..", Data: "", MIMEType: "text/csv"}})
	if err != nil || n != 2 {
		t.Fatal(n, err)
	}
	if files[0].Name != "x.txt" || files[0].MIMEType != "application/octet-stream" || files[1].Name != "file" || files[1].MIMEType != "text/csv" {
		t.Errorf("files: %+v", files)
	}
}
