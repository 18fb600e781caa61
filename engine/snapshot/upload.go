package snapshot

import (
	"encoding/base64"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// Upload limits (Playwright Workspaces' browser_file_upload).
const (
	MaxUploadFiles     = 20
	MaxUploadFileBytes = 10 << 20
	MaxUploadBytes     = 50 << 20
	MaxUploadName      = 4096
	MaxUploadMIME      = 1024
)

// UploadFile is one inline file.
type UploadFile struct {
	Name     string `json:"name"`
	Data     string `json:"data" jsonschema:"base64"`
	MIMEType string `json:"mimeType,omitempty"`
}

// Inline checks inline files against the limits and returns them as the page
// will get them: the last path element of the name (never empty, never a dot
// name), the MIME type (default application/octet-stream), the data as sent;
// and their decoded size together. Nothing touches the disk.
func Inline(files []UploadFile) ([]browser.InlineFile, int, error) {
	if len(files) < 1 || len(files) > MaxUploadFiles {
		return nil, 0, werr.Invalid("give 1 to %d files (got %d)", MaxUploadFiles, len(files))
	}
	out := make([]browser.InlineFile, len(files))
	total := 0
	for i, f := range files {
		if f.Name == "" || utf8.RuneCountInString(f.Name) > MaxUploadName {
			return nil, 0, werr.Invalid("files[%d].name must have 1 to %d characters", i, MaxUploadName)
		}
		if utf8.RuneCountInString(f.MIMEType) > MaxUploadMIME {
			return nil, 0, werr.Invalid("files[%d].mimeType is longer than %d characters", i, MaxUploadMIME)
		}
		data := strings.TrimSpace(f.Data)
		if base64.StdEncoding.DecodedLen(len(data)) > MaxUploadFileBytes+3 {
			return nil, 0, werr.Invalid("files[%d] is larger than 10 MiB", i)
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, 0, werr.Invalid("files[%d].data is not valid base64", i)
		}
		if len(b) > MaxUploadFileBytes {
			return nil, 0, werr.Invalid("files[%d] is larger than 10 MiB (%d bytes)", i, len(b))
		}
		if total += len(b); total > MaxUploadBytes {
			return nil, 0, werr.Invalid("the files are larger than 50 MiB together")
		}
		name := path.Base(strings.ReplaceAll(f.Name, "\\", "/"))
		if name == "." || name == ".." || name == "/" || name == "" {
			name = "file"
		}
		mime := strings.TrimSpace(f.MIMEType)
		if mime == "" {
			mime = "application/octet-stream"
		}
		out[i] = browser.InlineFile{Name: name, MIMEType: mime, Data: data}
	}
	return out, total, nil
}
