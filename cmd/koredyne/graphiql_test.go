//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestGraphiQLOffline opens GraphiQL in headless Chromium that can reach
// 127.0.0.1 and nothing else (every other host name fails to resolve), as
// on an air-gapped install. With the query from the page's URL in the
// editor, it runs it without a token (refused), types the Authorization
// header into GraphiQL's headers editor, refetches the schema (the
// introspection reaches the server) and runs the query again: the answer
// holds the demo business. The page breaks no rule of its policy.
func TestGraphiQLOffline(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("headless Chromium is required under CI: %v", err)
		}
		t.Skipf("headless Chromium unavailable: %v", err)
	}
	s := startDemo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	page := devtools(ctx, t, bin)

	// Record what the policy blocks, from before the page's first script.
	page.call("Page.enable", nil)
	page.call("Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `window.__blocked = [];
document.addEventListener('securitypolicyviolation', e => window.__blocked.push(e.violatedDirective + ' ' + e.blockedURI));`})
	const op = "query Desk { business { slug } }"
	page.call("Page.navigate", map[string]any{"url": s.url + "/?query=" + url.QueryEscape(op)})

	page.wait(`!!document.querySelector('.graphiql-execute-button')`, "GraphiQL to render")
	if got := page.eval(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()`); got != op {
		t.Errorf("the query editor holds %q, want the URL's %q", got, op)
	}
	page.eval(`document.querySelector('.graphiql-execute-button').click(), true`)
	page.wait(`(document.querySelector('.result-window') || {}).textContent.includes('UNAUTHENTICATED')`,
		"the query without a token to be refused")

	// Type the header into the headers editor, as the README tells.
	page.eval(`[...document.querySelectorAll('button')].find(b => b.textContent.trim() === 'Headers').click(), true`)
	page.wait(`!!document.querySelector('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror')`, "the headers editor")
	page.eval(`document.querySelector('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').CodeMirror.focus(), true`)
	header := `{"Authorization": "Bearer ` + bootstrapToken + `"}`
	page.call("Input.insertText", map[string]any{"text": header})
	page.wait(`localStorage.getItem('graphiql:headers') === `+jsString(header), "the header to be kept")

	page.eval(`document.querySelector('[aria-label="Re-fetch GraphQL schema"]').click(), true`)
	page.wait(`!document.querySelector('.graphiql-spinner')`, "the schema")
	page.eval(`document.querySelector('.graphiql-execute-button').click(), true`)
	page.wait(`/"slug":\s*"demo"/.test(document.querySelector('.result-window').textContent)`, "the demo business in the answer")

	// The introspection reached the server with the token.
	_, metrics := hit(t, "GET", s.url+"/metrics", "")
	if !regexp.MustCompile(`koredyne_graphql_requests_total\{operation="IntrospectionQuery",outcome="ok"\} [1-9]`).MatchString(metrics) {
		t.Errorf("no successful IntrospectionQuery in the metrics:\n%s", grepLines(metrics, "requests_total"))
	}
	// A dialog (Radix, which may add style elements) opens within the
	// policy too.
	page.eval(`document.querySelector('[aria-label="Open settings dialog"]').click(), true`)
	page.wait(`!!document.querySelector('[role="dialog"]')`, "the settings dialog")
	if got := page.eval(`window.__blocked.join('\n')`); got != "" {
		t.Errorf("the page's policy blocked:\n%s", got)
	}
	// and the recorder sees what the policy blocks.
	page.eval(`document.body.appendChild(Object.assign(document.createElement('img'), {src: 'https://cdn.jsdelivr.net/x.png'})), true`)
	page.wait(`window.__blocked.some(b => b.includes('cdn.jsdelivr.net'))`, "the policy to block an image from a CDN")
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cdp is one page of a headless Chromium, driven over the DevTools
// protocol's websocket.
type cdp struct {
	t    *testing.T
	ctx  context.Context
	conn *websocket.Conn
	id   int
}

// devtools starts Chromium with a fresh profile, no network beyond
// 127.0.0.1, and remote debugging on a port of its choosing, and connects
// to its page. Chromium and its helpers are killed at the end of the test,
// by their process group and only it.
func devtools(ctx context.Context, t *testing.T, bin string) *cdp {
	t.Helper()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=127.0.0.1",
		"about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, ws, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
				found <- ws
			}
		}
	}()
	var browser string
	select {
	case browser = <-found:
	case <-ctx.Done():
		t.Fatal("Chromium did not open its DevTools port")
	}
	u, _ := url.Parse(browser)
	var targets []struct{ Type, WebSocketDebuggerURL string }
	for range 50 {
		resp, err := http.Get("http://" + u.Host + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		if len(targets) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			conn, _, err := websocket.Dial(ctx, tg.WebSocketDebuggerURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			conn.SetReadLimit(64 << 20)
			t.Cleanup(func() { conn.CloseNow() })
			return &cdp{t: t, ctx: ctx, conn: conn}
		}
	}
	t.Fatalf("Chromium shows no page: %+v", targets)
	return nil
}

// call sends a DevTools command and returns its result, skipping events.
func (c *cdp) call(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	c.id++
	msg, _ := json.Marshal(map[string]any{"id": c.id, "method": method, "params": params})
	if err := c.conn.Write(c.ctx, websocket.MessageText, msg); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	for {
		_, b, err := c.conn.Read(c.ctx)
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		var reply struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if json.Unmarshal(b, &reply) != nil || reply.ID != c.id {
			continue
		}
		if reply.Error != nil {
			c.t.Fatalf("%s: %s", method, reply.Error.Message)
		}
		return reply.Result
	}
}

// eval evaluates a JavaScript expression in the page and returns its value
// as text ("" for an exception, which is reported).
func (c *cdp) eval(expr string) string {
	c.t.Helper()
	var r struct {
		Result struct {
			Value any
		}
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	json.Unmarshal(c.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
	if r.ExceptionDetails != nil {
		c.t.Errorf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
		return ""
	}
	if s, ok := r.Result.Value.(string); ok {
		return s
	}
	return fmt.Sprint(r.Result.Value)
}

// wait polls a JavaScript condition until it holds, failing the test with
// what the page shows when it never does.
func (c *cdp) wait(cond, what string) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r struct{ Result struct{ Value any } }
		json.Unmarshal(c.call("Runtime.evaluate", map[string]any{"expression": "(() => { try { return !!(" + cond + ") } catch (e) { return false } })()", "returnByValue": true}), &r)
		if r.Result.Value == true {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("waited in vain for %s (%s); the page shows:\n%s", what, cond,
				c.eval(`document.body.innerText.slice(0, 2000)`))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
