package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// What browser_run_code may send through the proxy (cdpmux.go), and how a
// message is read: docs/security.md, "The browser".
//
// A message is decoded strictly (strictJSON): no duplicate keys and no two keys
// of one object equal but for case, anywhere in it, so that no key means one
// thing to the check and another to Chromium, which reads keys case-sensitively
// (Go's encoding/json does not). What is forwarded is the re-encoding of the
// very value that was checked, never the client's bytes.
//
// A method is forwarded only when it is in allowedMethods: what Playwright's
// page, locator, frame and evaluation APIs send on Chromium (from
// playwright-core's server/chromium backend). Methods with a parameter that
// could reach past the page have their parameters checked exactly (paramCheck):
// any key not named there is refused. Everything else is refused with
// BLOCKED_BY_POLICY, naming the method.

// blockedPrefix starts the message of a refusal; RunCode turns a thrown error
// that carries it into a BLOCKED_BY_POLICY error.
const blockedPrefix = "BLOCKED_BY_POLICY: "

// paramCheck checks the parameters of one method.
type paramCheck struct {
	keys  []string                                  // the keys it may carry; nil: any
	check func(b *Browser, p map[string]any) string // why it is refused, or ""
}

var anyParams = paramCheck{}

// allowedMethods is the allowlist, method by method. Browser.* and Target.*
// methods may go to the client's browser-target session; the others only to a
// page, frame or worker session it attached to.
var allowedMethods = sync.OnceValue(func() map[string]paramCheck {
	return map[string]paramCheck{
		// The browser session: connecting, pages, attaching (flat only).
		"Browser.getVersion":           anyParams,
		"Browser.getWindowForTarget":   anyParams,
		"Browser.getWindowBounds":      anyParams,
		"Browser.setWindowBounds":      anyParams,
		"Target.attachToBrowserTarget": {keys: []string{}},
		"Target.getTargetInfo":         anyParams,
		"Target.closeTarget":           anyParams,
		"Target.detachFromTarget":      {keys: []string{"sessionId"}},
		"Target.attachToTarget":        {keys: []string{"targetId", "flatten"}, check: mustFlatten},
		"Target.setAutoAttach":         {keys: []string{"autoAttach", "waitForDebuggerOnStart", "flatten"}, check: mustFlatten},
		"Target.createTarget": {keys: []string{"url", "left", "top", "width", "height", "windowState", "browserContextId",
			"enableBeginFrameControl", "newWindow", "background", "forTab", "hidden", "focus"}, check: navigableURL("url")},

		// Pages and frames.
		"Page.enable":                              anyParams,
		"Page.getFrameTree":                        anyParams,
		"Page.setLifecycleEventsEnabled":           anyParams,
		"Page.addScriptToEvaluateOnNewDocument":    anyParams,
		"Page.removeScriptToEvaluateOnNewDocument": anyParams,
		"Page.createIsolatedWorld":                 anyParams,
		"Page.navigate":                            {keys: []string{"url", "referrer", "transitionType", "frameId", "referrerPolicy"}, check: navigableURL("url")},
		"Page.reload":                              anyParams,
		"Page.getNavigationHistory":                anyParams,
		"Page.navigateToHistoryEntry":              anyParams,
		"Page.close":                               anyParams,
		"Page.bringToFront":                        anyParams,
		"Page.getLayoutMetrics":                    anyParams,
		"Page.captureScreenshot":                   anyParams,
		"Page.printToPDF":                          anyParams,
		"Page.startScreencast":                     anyParams,
		"Page.screencastFrameAck":                  anyParams,
		"Page.stopScreencast":                      anyParams,
		"Page.handleJavaScriptDialog":              anyParams,
		"Page.setInterceptFileChooserDialog":       anyParams,
		"Page.setBypassCSP":                        anyParams,
		"Page.setFontFamilies":                     anyParams,
		"Security.setIgnoreCertificateErrors":      anyParams,
		"Inspector.enable":                         anyParams,
		"Log.enable":                               anyParams,
		"HeapProfiler.collectGarbage":              anyParams,
		"IO.read":                                  anyParams,
		"IO.close":                                 anyParams,

		// Evaluation.
		"Runtime.enable":                  anyParams,
		"Runtime.evaluate":                anyParams,
		"Runtime.callFunctionOn":          anyParams,
		"Runtime.getProperties":           anyParams,
		"Runtime.releaseObject":           anyParams,
		"Runtime.addBinding":              anyParams,
		"Runtime.runIfWaitingForDebugger": anyParams,

		// Elements (locators).
		"DOM.describeNode":           anyParams,
		"DOM.resolveNode":            anyParams,
		"DOM.getBoxModel":            anyParams,
		"DOM.getContentQuads":        anyParams,
		"DOM.getFrameOwner":          anyParams,
		"DOM.scrollIntoViewIfNeeded": anyParams,

		// Input.
		"Input.dispatchKeyEvent":   anyParams,
		"Input.dispatchMouseEvent": anyParams,
		"Input.dispatchTouchEvent": anyParams,
		"Input.insertText":         anyParams,
		"Input.setInterceptDrags":  anyParams,
		"Input.dispatchDragEvent":  {keys: []string{"type", "x", "y", "data", "modifiers"}, check: noDraggedFiles},

		// Emulation (viewport, media, locale, ... of the page).
		"Emulation.setDeviceMetricsOverride":          anyParams,
		"Emulation.setEmulatedMedia":                  anyParams,
		"Emulation.setFocusEmulationEnabled":          anyParams,
		"Emulation.setDefaultBackgroundColorOverride": anyParams,
		"Emulation.setGeolocationOverride":            anyParams,
		"Emulation.setLocaleOverride":                 anyParams,
		"Emulation.setTimezoneOverride":               anyParams,
		"Emulation.setTouchEmulationEnabled":          anyParams,
		"Emulation.setUserAgentOverride":              anyParams,
		"Emulation.setScriptExecutionDisabled":        anyParams,

		// Network events and routes (page.route) of the page; cookie values are
		// taken out of everything that comes back (scrubCookies).
		"Network.enable":                   anyParams,
		"Network.setCacheDisabled":         anyParams,
		"Network.setExtraHTTPHeaders":      anyParams,
		"Network.emulateNetworkConditions": anyParams,
		"Network.getResponseBody":          anyParams,
		"Fetch.enable":                     anyParams,
		"Fetch.disable":                    anyParams,
		"Fetch.failRequest":                anyParams,
		"Fetch.fulfillRequest":             anyParams,
		"Fetch.continueWithAuth":           anyParams,
		"Fetch.continueRequest":            {keys: []string{"requestId", "url", "method", "postData", "headers", "interceptResponse"}, check: httpURL("url")},
	}
})

// answeredMethods are answered as done without reaching the browser:
// Playwright sets them up when it connects, and the host's setting stays (the
// session's download directory); the host's download events reach the code.
var answeredMethods = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"Browser.setDownloadBehavior": true}
})

// refusedWhy explains the refusals an agent is likely to meet.
var refusedWhy = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"Network.getCookies":           "reading cookies: values stay in the browser (browser_get_cookies lists names)",
		"Network.getAllCookies":        "reading cookies: values stay in the browser (browser_get_cookies lists names)",
		"Storage.getCookies":           "reading cookies: values stay in the browser (browser_get_cookies lists names)",
		"DOM.setFileInputFiles":        "setting files from host paths (use browser_file_upload)",
		"Target.sendMessageToTarget":   "a protocol session inside a message (attach with flatten: true)",
		"Target.attachToBrowserTarget": "a second browser session",
		"Target.createBrowserContext":  "new browser contexts (use the page's own context)",
		"Browser.close":                "closing the browser",
		"Page.setDownloadBehavior":     "downloads go to the session's download directory",
	}
})

// refusal is the error text of a refused method.
func refusal(method, why string) string {
	if why == "" {
		why = refusedWhy()[method]
	}
	if why == "" {
		why = "only what Playwright's page, locator and evaluation APIs need is allowed"
	}
	return blockedPrefix + method + " is not allowed in browser_run_code: " + why
}

// checkCall decides on one method call with strictly decoded params (nil
// when absent); it returns the refusal, or "".
func (b *Browser) checkCall(method string, params any, rootSession bool) string {
	pc, ok := allowedMethods()[method]
	if !ok {
		return refusal(method, "")
	}
	if rootSession && !strings.HasPrefix(method, "Browser.") && !strings.HasPrefix(method, "Target.") {
		return refusal(method, "it goes to a page session, not the browser's")
	}
	p, _ := params.(map[string]any)
	if params != nil && p == nil {
		return refusal(method, "params must be an object")
	}
	if pc.keys != nil {
		for k := range p {
			if !slices.Contains(pc.keys, k) {
				return refusal(method, fmt.Sprintf("unknown parameter %q", k))
			}
		}
	}
	if pc.check != nil {
		if why := pc.check(b, p); why != "" {
			return refusal(method, why)
		}
	}
	return ""
}

func mustFlatten(_ *Browser, p map[string]any) string {
	if p["flatten"] != true {
		return "only flat sessions (flatten: true)"
	}
	return ""
}

// navigableURL refuses a URL the policy refuses (checkURL); absent, empty and
// about:blank are the blank page.
func navigableURL(key string) func(*Browser, map[string]any) string {
	return func(b *Browser, p map[string]any) string {
		v, ok := p[key]
		if !ok {
			return ""
		}
		s, isStr := v.(string)
		if !isStr {
			return key + " must be a string"
		}
		if s == "" || s == "about:blank" {
			return ""
		}
		if err := b.checkURL(s); err != nil {
			return err.Error()
		}
		return ""
	}
}

// httpURL allows only an http(s) URL the policy allows (a route that rewrites
// a request's URL).
func httpURL(key string) func(*Browser, map[string]any) string {
	nav := navigableURL(key)
	return func(b *Browser, p map[string]any) string {
		v, ok := p[key]
		if !ok {
			return ""
		}
		s, _ := v.(string)
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return key + " must be an http or https URL"
		}
		return nav(b, p)
	}
}

// noDraggedFiles refuses a drag that carries files (host paths the browser
// would read); the drag data may hold only items and the operations mask.
func noDraggedFiles(_ *Browser, p map[string]any) string {
	d, ok := p["data"]
	if !ok {
		return ""
	}
	m, isObj := d.(map[string]any)
	if !isObj {
		return "data must be an object"
	}
	for k, v := range m {
		switch k {
		case "items", "dragOperationsMask":
		case "files":
			if l, isList := v.([]any); !isList || len(l) > 0 {
				return "dropping files from host paths"
			}
		default:
			return fmt.Sprintf("unknown drag data %q", k)
		}
	}
	return ""
}

// strictJSON decodes one JSON value, refusing duplicate keys and keys equal
// but for case in one object, and anything after the value. Numbers stay
// json.Number, so that re-encoding gives them back unchanged.
func strictJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := strictValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func strictValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			folded := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				if f := strings.ToLower(k); folded[f] {
					return nil, fmt.Errorf("key %q appears twice (keys are case-sensitive: no two may differ only in case)", k)
				} else {
					folded[f] = true
				}
				v, err := strictValue(dec)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return m, nil
		case '[':
			l := []any{}
			for dec.More() {
				v, err := strictValue(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return l, nil
		}
		return nil, errors.New("unexpected delimiter")
	}
	return tok, nil
}
