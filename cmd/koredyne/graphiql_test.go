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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/koredyne/schedule/models/modelstest/need"
)

// TestGraphiQLOffline opens GraphiQL in headless Chromium that can reach
// 127.0.0.1 and nothing else (every other host name fails to resolve), as
// on an air-gapped install. A first visit finds the README's example query
// in the editor, moved to this week, and Docs unable to fetch the schema
// (introspection needs a token); the query without a token is refused.
// Typing the Authorization header into GraphiQL's headers editor, as the
// README tells, is enough: the schema is fetched again with it (nobody
// presses re-fetch), Docs shows it, and the example query answers with the
// week's sessions. Opened again with a query in its URL, the page holds that
// query and fetches the schema with the kept header at once. The page breaks
// no rule of its policy.
func TestGraphiQLOffline(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		need.Missing(t, "chromium", "apt-get install chromium")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example := firstGraphQLBlock(t, string(readme))
	s := startDemo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	page := devtools(ctx, t, bin)

	// Record what the policy blocks, from before the page's first script.
	page.call("Page.enable", nil)
	page.call("Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `window.__blocked = [];
document.addEventListener('securitypolicyviolation', e => window.__blocked.push(e.violatedDirective + ' ' + e.blockedURI));`})
	page.call("Page.navigate", map[string]any{"url": s.url + "/"})

	page.wait(`!!document.querySelector('.graphiql-execute-button')`, "GraphiQL to render")
	today, err := time.Parse(time.DateOnly, page.eval(`(d => [d.getFullYear(), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('-'))(new Date())`))
	if err != nil {
		t.Fatalf("the browser's date: %v", err)
	}
	want, from := movedToTheWeekOf(t, example, today)
	if got := page.eval(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()`); got != want {
		t.Errorf("the query editor holds\n%s\nwant the README's first query in the week of %s (from %s)\n%s", got, today.Format(time.DateOnly), from, want)
	}
	page.eval(`document.querySelector('[aria-label="Show Documentation Explorer"]').click(), true`)
	page.wait(`(document.querySelector('.graphiql-doc-explorer-error') || {}).textContent === 'Error fetching schema'`,
		"Docs to say it cannot fetch the schema without a token")
	page.eval(`document.querySelector('.graphiql-execute-button').click(), true`)
	page.wait(`(document.querySelector('.result-window') || {}).textContent.includes('UNAUTHENTICATED')`,
		"the query without a token to be refused")

	// Type the header into the headers editor, as the README tells, and
	// nothing else: no re-fetch button.
	introspections := func() int {
		_, metrics := hit(t, "GET", s.url+"/metrics", "")
		m := regexp.MustCompile(`koredyne_graphql_requests_total\{operation="IntrospectionQuery",outcome="ok"\} (\d+)`).FindStringSubmatch(metrics)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if n := introspections(); n != 0 {
		t.Errorf("%d introspections succeeded before the token was given", n)
	}
	page.eval(`[...document.querySelectorAll('button')].find(b => b.textContent.trim() === 'Headers').click(), true`)
	page.wait(`!!document.querySelector('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror')`, "the headers editor")
	page.eval(`document.querySelector('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').CodeMirror.focus(), true`)
	header := `{"Authorization": "Bearer ` + bootstrapToken + `"}`
	page.call("Input.insertText", map[string]any{"text": header})
	page.wait(`localStorage.getItem('graphiql:headers') === `+jsString(header), "the header to be kept")
	page.wait(`!document.querySelector('.graphiql-doc-explorer-error') && [...document.querySelectorAll('.graphiql-doc-explorer-root-type')].some(e => e.textContent === 'query')`,
		"Docs to show the schema once the header is typed")
	if n := introspections(); n != 1 {
		t.Errorf("%d introspections succeeded after the header was typed, want 1", n)
	}
	page.eval(`document.querySelector('.graphiql-execute-button').click(), true`)
	page.wait(`/"sessions":\s*\[\s*\{\s*"id":\s*"s\//.test(document.querySelector('.result-window').textContent)`, "the week's sessions in the answer")
	var answer struct {
		Data struct {
			Business struct{ Name string }
			Days     []struct{ Date string }
		}
		Errors []any
	}
	if err := json.Unmarshal([]byte(page.eval(`document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()`)), &answer); err != nil {
		t.Fatalf("the answer: %v", err)
	}
	if len(answer.Errors) != 0 || answer.Data.Business.Name == "" || len(answer.Data.Days) != 7 || answer.Data.Days[0].Date != from {
		t.Errorf("the example query answered %+v, want the business and the 7 days from %s", answer, from)
	}

	// A URL's query wins over the example, and the kept header fetches the
	// schema as the page opens.
	const op = "query Desk { business { slug } }"
	page.call("Page.navigate", map[string]any{"url": s.url + "/?query=" + url.QueryEscape(op)})
	page.wait(`!!document.querySelector('.graphiql-execute-button')`, "GraphiQL to render again")
	if got := page.eval(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()`); got != op {
		t.Errorf("the query editor holds %q, want the URL's %q", got, op)
	}
	if !strings.Contains(page.eval(`document.querySelector('[aria-label="Hide Documentation Explorer"], [aria-label="Show Documentation Explorer"]').getAttribute('aria-label')`), "Hide") {
		page.eval(`document.querySelector('[aria-label="Show Documentation Explorer"]').click(), true`)
	}
	page.wait(`[...document.querySelectorAll('.graphiql-doc-explorer-root-type')].some(e => e.textContent === 'query')`,
		"Docs to show the schema fetched with the kept header")
	page.eval(`document.querySelector('.graphiql-execute-button').click(), true`)
	page.wait(`/"slug":\s*"demo"/.test(document.querySelector('.result-window').textContent)`, "the demo business in the answer")

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

// firstGraphQLBlock is the first fenced graphql block of a markdown text.
func firstGraphQLBlock(t *testing.T, md string) string {
	t.Helper()
	_, rest, ok := strings.Cut(md, "```graphql\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("the README has no graphql block")
	}
	return block
}

// movedToTheWeekOf moves every date of query by the whole number of weeks
// that brings its first date into the 7 days ending with today, and
// returns the query and that first date.
func movedToTheWeekOf(t *testing.T, query string, today time.Time) (string, string) {
	t.Helper()
	date := regexp.MustCompile(`\d{4}-\d\d-\d\d`)
	first, err := time.Parse(time.DateOnly, date.FindString(query))
	if err != nil {
		t.Fatalf("the query's first date: %v", err)
	}
	days := int(today.Sub(first).Hours() / 24)
	weeks := days / 7
	if days < 0 && days%7 != 0 {
		weeks--
	}
	moved := date.ReplaceAllStringFunc(query, func(d string) string {
		at, _ := time.Parse(time.DateOnly, d)
		return at.AddDate(0, 0, 7*weeks).Format(time.DateOnly)
	})
	return moved, first.AddDate(0, 0, 7*weeks).Format(time.DateOnly)
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
