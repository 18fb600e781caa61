package browser

import (
	"context"
	"io"
	"math"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/w365/w365/engine/werr"
)

// ScreenshotOptions tune Screenshot. The default is a PNG of the viewport.
type ScreenshotOptions struct {
	FullPage bool
	Element  *Element
	Area     *Rect  // instead of Element: a box of the viewport (an out-of-process frame's element)
	Format   string // png (default) or jpeg
	Quality  int    // jpeg quality 1-100 (default 80)
}

// Rect is a box in the viewport, CSS pixels.
type Rect struct{ X, Y, W, H float64 }

// Screenshot captures the active tab: the viewport, the full page, or one
// element (scrolled into view). It returns the encoded image.
func (b *Browser) Screenshot(ctx context.Context, so ScreenshotOptions) ([]byte, error) {
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	return o.screenshot(so)
}

func (o *op) screenshot(so ScreenshotOptions) ([]byte, error) {
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	switch strings.ToLower(so.Format) {
	case "", "png":
	case "jpeg", "jpg":
		p.Format = page.CaptureScreenshotFormatJpeg
		q := int64(so.Quality)
		if q == 0 {
			q = 80
		}
		if q < 1 || q > 100 {
			return nil, werr.Invalid("quality must be 1-100")
		}
		p.Quality = &q
	default:
		return nil, werr.Invalid("type must be png or jpeg")
	}
	if (so.Element != nil || so.Area != nil) && so.FullPage {
		return nil, werr.Invalid("give fullPage or an element, not both")
	}
	area := so.Area
	if so.Element != nil {
		if err := so.Element.validate(); err != nil {
			return nil, err
		}
		_, st, err := o.actionable(*so.Element, needStable)
		if err != nil {
			return nil, err
		}
		area = &Rect{X: st.X - st.W/2, Y: st.Y - st.H/2, W: st.W, H: st.H}
	}
	if area != nil {
		var scroll struct{ X, Y float64 }
		if err := o.evalValue(`({X: scrollX, Y: scrollY})`, &scroll); err != nil {
			return nil, err
		}
		p.Clip = &page.Viewport{X: area.X + scroll.X, Y: area.Y + scroll.Y, Width: math.Max(1, area.W), Height: math.Max(1, area.H), Scale: 1}
		// An out-of-process frame's element was scrolled into view: a capture beyond the
		// viewport lays the page out again, and the frame came back blank (white) in 1 of
		// 20 runs under load.
		p.CaptureBeyondViewport = new(so.Area == nil)
	}
	if so.FullPage {
		m, err := cdp.Call(o.ctx, o.t.t, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, o.err(err)
		}
		if m.CSSContentSize != nil {
			p.Clip = &page.Viewport{X: 0, Y: 0, Width: math.Ceil(m.CSSContentSize.Width), Height: math.Min(math.Ceil(m.CSSContentSize.Height), 16384), Scale: 1}
			p.CaptureBeyondViewport = new(true)
		}
	}
	var data []byte
	err := o.do(func(ctx context.Context) error {
		r, err := cdp.Call(ctx, o.t.t, page.CaptureScreenshot, p)
		data = r.Data
		return err
	})
	if err != nil {
		return nil, err
	}
	return data, nil
}

// PageState holds the fields PageState was asked for, and only those.
// Screenshot is PNG bytes; front-ends send it as image content, never as JSON.
type PageState struct {
	URL          string    `json:"url,omitempty"`
	Title        string    `json:"title,omitempty"`
	DOM          string    `json:"dom,omitempty"`
	DOMTruncated bool      `json:"domTruncated,omitempty"`
	Tabs         []TabInfo `json:"tabs,omitempty"`
	Screenshot   []byte    `json:"-"`
}

// PageStateFields are the names PageState accepts.
var PageStateFields = []string{"url", "title", "dom", "screenshot", "tabs"}

// PageState fetches the requested fields (url, title, dom, screenshot, tabs)
// of the active tab in one call.
func (b *Browser) PageState(ctx context.Context, fields []string) (*PageState, error) {
	if len(fields) == 0 {
		return nil, werr.Invalid("fields must not be empty").WithDetail("allowed", PageStateFields)
	}
	want := map[string]bool{}
	for _, f := range fields {
		f = strings.ToLower(strings.TrimSpace(f))
		ok := false
		for _, a := range PageStateFields {
			ok = ok || a == f
		}
		if !ok {
			return nil, werr.Invalid("unknown field %q", f).WithDetail("allowed", PageStateFields)
		}
		want[f] = true
	}
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	st := &PageState{}
	func() {
		defer func() {
			if err != nil {
				o.end()
			}
		}()
		if want["url"] {
			b.mu.Lock()
			st.URL = o.t.url
			b.mu.Unlock()
		}
		if want["title"] {
			if err = o.evalValue("document.title", &st.Title); err != nil {
				return
			}
		}
		if want["dom"] {
			var r *TextResult
			if r, err = o.pageString(`((document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\n' : '') + (document.documentElement ? document.documentElement.outerHTML : ''))`); err != nil {
				return
			}
			st.DOM, st.DOMTruncated = r.Text, r.Truncated
		}
		if want["screenshot"] {
			if st.Screenshot, err = o.screenshot(ScreenshotOptions{}); err != nil {
				return
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	o.end()
	if want["tabs"] {
		if st.Tabs, err = b.ListTabs(ctx); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// PDFResult reports a saved PDF.
type PDFResult struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

// maxPDF bounds one PDF browser_pdf_save writes (docs/security.md, "What the host reads from
// a session"); a variable so that a test can reach it with a small page.
var maxPDF int64 = 256 << 20

// pdfChunk is how much of the PDF one IO.read asks for: its answer, in base64, stays far
// below maxFrame.
const pdfChunk = 1 << 20

// PDFSave prints the active tab to a PDF file: see openOutput for where it may go. The
// directory is opened before printing and the file written in that very directory. The
// browser hands the PDF over as a stream read a chunk at a time straight into the file, so
// that no DevTools message is larger than pdfChunk; a PDF longer than maxPDF is refused with
// RESOURCE_EXHAUSTED and what was written of it removed.
func (b *Browser) PDFSave(ctx context.Context, path string, overwrite bool) (*PDFResult, error) {
	out, err := b.openOutput(path, overwrite)
	if err != nil {
		return nil, err
	}
	defer out.dir.Close()
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	var stream cdpio.StreamHandle
	err = o.do(func(ctx context.Context) error {
		r, err := cdp.Call(ctx, o.t.t, page.PrintToPDF, page.PrintToPDFParams{PrintBackground: new(true), TransferMode: page.PrintToPDFTransferModeReturnAsStream})
		stream = r.Stream
		return err
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(o.ctx), 5*time.Second)
		defer cancel()
		_, _ = cdp.Call(ctx, o.t.t, cdpio.Close, cdpio.CloseParams{Handle: stream})
	}()
	var n int64
	err = out.dir.WriteFrom(out.name, 0o644, overwrite, func(w io.Writer) error {
		for {
			r, err := cdp.Call(o.ctx, o.t.t, cdpio.Read, cdpio.ReadParams{Handle: stream, Size: pdfChunk})
			if err != nil {
				return o.err(err)
			}
			if len(r.Data) > 0 && !r.Base64encoded {
				return werr.New(werr.Internal, "the browser's PDF stream is not base64")
			}
			if n += int64(len(r.Data)); n > maxPDF {
				return werr.New(werr.ResourceExhausted, "the PDF is longer than %d MiB, more than browser_pdf_save writes", maxPDF>>20).
					WithHint("print a shorter page, or one with smaller images")
			}
			if _, err := w.Write(r.Data); err != nil {
				return err
			}
			if r.EOF {
				return nil
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return &PDFResult{Path: out.path, Bytes: int(n)}, nil
}

// Redacted replaces every cookie value in output.
const Redacted = "[redacted]"

// Cookie is a cookie as reported: its value is always Redacted, and its size
// (which gives away the length of the value) is left out.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"` // seconds since the epoch; -1 for a session cookie
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	Session  bool    `json:"session"`
	SameSite string  `json:"sameSite,omitempty"`
}

// GetCookies returns the cookies of the active page, or of urls, with their
// values redacted.
func (b *Browser) GetCookies(ctx context.Context, urls []string) ([]Cookie, error) {
	for _, u := range urls {
		if err := b.checkURL(u); err != nil {
			return nil, err
		}
	}
	o, err := b.begin(ctx, true)
	if err != nil {
		return nil, err
	}
	defer o.end()
	res, err := cdp.Call(o.ctx, o.t.t, network.GetCookies, network.GetCookiesParams{URLs: urls})
	if err != nil {
		return nil, o.err(err)
	}
	out := make([]Cookie, 0, len(res.Cookies))
	for _, c := range res.Cookies {
		out = append(out, Cookie{Name: c.Name, Value: Redacted, Domain: c.Domain, Path: c.Path, Expires: c.Expires,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, Session: c.Session, SameSite: string(c.SameSite)})
	}
	return out, nil
}

// CookieInput is a cookie to set. Without URL and Domain it is set for the
// active page's URL. Expires is seconds since the epoch (0: session cookie; a
// past time deletes the cookie).
type CookieInput struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	URL      string  `json:"url,omitempty"`
	Domain   string  `json:"domain,omitempty"`
	Path     string  `json:"path,omitempty"`
	Secure   bool    `json:"secure,omitempty"`
	HTTPOnly bool    `json:"httpOnly,omitempty"`
	SameSite string  `json:"sameSite,omitempty"`
	Expires  float64 `json:"expires,omitempty"`
}

// SetCookies adds or overwrites cookies (never clears others) and returns how
// many were set. Values are never logged or echoed.
func (b *Browser) SetCookies(ctx context.Context, cookies []CookieInput) (int, error) {
	if len(cookies) == 0 {
		return 0, werr.Invalid("cookies must not be empty")
	}
	o, err := b.begin(ctx, true)
	if err != nil {
		return 0, err
	}
	defer o.end()
	b.mu.Lock()
	pageURL := o.t.url
	b.mu.Unlock()
	params := make([]*network.CookieParam, 0, len(cookies))
	for i, c := range cookies {
		if c.Name == "" {
			return 0, werr.Invalid("cookie %d has no name", i)
		}
		p := &network.CookieParam{Name: c.Name, Value: c.Value, URL: c.URL, Domain: c.Domain, Path: c.Path,
			Secure: c.Secure, HTTPOnly: c.HTTPOnly, Expires: cdp.TimeSinceEpoch(c.Expires)}
		if c.URL != "" {
			if err := b.checkURL(c.URL); err != nil {
				return 0, err
			}
		}
		if p.URL == "" && p.Domain == "" {
			if !strings.HasPrefix(pageURL, "http://") && !strings.HasPrefix(pageURL, "https://") {
				return 0, werr.Invalid("cookie %q needs a domain or url: the active page (%s) is not a web page", c.Name, truncUTF8(pageURL, 100))
			}
			p.URL = pageURL
		}
		if p.Path == "" && p.Domain != "" {
			p.Path = "/"
		}
		switch strings.ToLower(c.SameSite) {
		case "":
		case "strict":
			p.SameSite = network.CookieSameSiteStrict
		case "lax":
			p.SameSite = network.CookieSameSiteLax
		case "none":
			p.SameSite = network.CookieSameSiteNone
		default:
			return 0, werr.Invalid("sameSite must be Strict, Lax or None")
		}
		params = append(params, p)
	}
	if _, err := cdp.Call(o.ctx, o.t.t, network.SetCookies, network.SetCookiesParams{Cookies: params}); err != nil {
		we := o.err(err)
		if werr.CodeOf(we) == werr.Internal {
			return 0, werr.Invalid("the browser refused the cookies (check name, domain, path and sameSite/secure)")
		}
		return 0, we
	}
	return len(params), nil
}
