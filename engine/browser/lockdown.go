package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/w365/w365/engine/werr"
)

// The browser refuses some URLs itself, whoever asks for them (a tool, a
// browser_run_code script through the proxy, a page, the person in the live
// view): file: (unless Options.AllowFileURLs), chrome:, devtools:,
// chrome-extension:, chrome-untrusted: and view-source:. The rule is Chromium's
// URLBlocklist: as a managed policy it is read only from a system directory
// (/etc/chromium/policies/managed), so it is set per launch as the preference
// that policy maps to ("policy.url_blocklist"), in the profile's Preferences
// before the browser starts. Chromium's navigation throttle then fails every
// such navigation with ERR_BLOCKED_BY_ADMINISTRATOR, browser- or
// renderer-initiated, top level or frame. The same file points downloads at the
// session's download directory without a prompt, for any browser context
// (the host also sets it over DevTools, and the proxy never lets it change).
// docs/security.md, "The browser".

// blockedSchemes are the URL schemes the browser refuses.
var blockedSchemes = []string{"chrome", "devtools", "chrome-extension", "chrome-untrusted", "view-source"}

// blocklist is the URLBlocklist of the browser.
func (b *Browser) blocklist() []any {
	var l []any
	if !b.opts.AllowFileURLs {
		l = append(l, "file://*")
	}
	for _, s := range blockedSchemes {
		l = append(l, s+"://*")
	}
	return l
}

// writeProfilePolicy merges the blocklist and the download directory into the
// profile's Preferences (Chromium keeps every other key it wrote there).
func (b *Browser) writeProfilePolicy() error {
	dir := filepath.Join(b.opts.ProfileDir, "Default")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return werr.Wrap(err, werr.Internal, "cannot create the browser profile")
	}
	path := filepath.Join(dir, "Preferences")
	prefs := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // Chromium's numbers come back as they were
		if dec.Decode(&prefs) != nil || prefs == nil {
			prefs = map[string]any{} // a torn file: Chromium would start afresh too
		}
	case !errors.Is(err, fs.ErrNotExist):
		return werr.Wrap(err, werr.Internal, "cannot read the browser preferences")
	}
	section := func(name string) map[string]any {
		m, ok := prefs[name].(map[string]any)
		if !ok {
			m = map[string]any{}
			prefs[name] = m
		}
		return m
	}
	section("policy")["url_blocklist"] = b.blocklist()
	section("policy")["url_allowlist"] = []any{"chrome://top-chrome"}
	dl := section("download")
	dl["default_directory"] = b.opts.DownloadDir
	dl["prompt_for_download"] = false
	dl["directory_upgrade"] = true
	section("savefile")["default_directory"] = b.opts.DownloadDir
	out, err := json.Marshal(prefs)
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	tmp, err := os.CreateTemp(dir, ".w365-prefs-")
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	_, werr1 := tmp.Write(out)
	if err := errors.Join(werr1, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	return nil
}
