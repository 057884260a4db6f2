// Package graphiql serves GraphiQL from the binary: the page, and the
// scripts and styles it loads (GraphiQL, React and React DOM, pinned and
// embedded; see assets/README.md), so that it works without internet.
//
// The editor opens with the README's first query (example.graphql, its
// dates moved to the browser's current week) when the browser has no tabs
// of its own yet.
//
// An asset's URL holds the start of its content's SHA-256
// (/graphiql/<hash>/<name>), so it is cached for a year and a new build
// with a changed asset is fetched anew. The page loads nothing from another
// origin and runs no inline script, so its policy (Policy) can be 'self'.
package graphiql

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/koredyne/schedule/models/cache"
)

// Prefix is where the assets are served; the server mounts Assets on it.
const Prefix = "/graphiql/"

// Policy is the content security policy of the page: scripts, styles and
// requests (HTTP and websocket) to this server only, no inline script.
// Inline styles stay allowed: GraphiQL's dialogs (Radix) add style
// elements when they open (cmd/koredyne's TestGraphiQLOffline sees it).
// GraphiQL's fonts and icons are data: URLs inside its stylesheet.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed assets
var files embed.FS

// example is the query a new visitor finds in the editor: the first query
// of the README's tour, byte for byte (TestExampleIsTheREADMEs). boot.js
// moves its dates by whole weeks to the current week.
//
//go:embed example.graphql
var example string

// asset is one embedded file, as served.
type asset struct {
	name        string
	url         string // Prefix + hash + "/" + name
	integrity   string // subresource integrity, sha256-<base64>
	contentType string
	body        []byte
	gzipped     func() []byte // computed on first use
}

// served are the files the page loads, in the order it loads them.
var served = []string{"page.css", "graphiql.min.css", "react.production.min.js", "react-dom.production.min.js", "graphiql.min.js", "boot.js"}

var assets = func() map[string]*asset {
	m := make(map[string]*asset, len(served))
	for _, name := range served {
		body, err := fs.ReadFile(files, "assets/"+name)
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		a := &asset{
			name:        name,
			url:         Prefix + hex.EncodeToString(sum[:8]) + "/" + name,
			integrity:   "sha256-" + base64.StdEncoding.EncodeToString(sum[:]),
			contentType: mime.TypeByExtension(path.Ext(name)),
			body:        body,
		}
		a.gzipped = sync.OnceValue(func() []byte {
			var b bytes.Buffer
			z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			z.Write(a.body)
			z.Close()
			return b.Bytes()
		})
		if strings.HasSuffix(name, ".js") {
			a.contentType = "text/javascript; charset=utf-8"
		}
		m[a.url] = a
	}
	return m
}()

// byName finds an asset by its file name.
func byName(name string) *asset {
	for _, a := range assets {
		if a.name == name {
			return a
		}
	}
	panic("graphiql: no asset " + name)
}

var page = template.Must(template.New("graphiql").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
{{range .Styles}}<link rel="stylesheet" href="{{.URL}}" integrity="{{.Integrity}}">
{{end -}}
</head>
<body>
<div id="graphiql" data-endpoint="{{.Endpoint}}" data-storage-prefix="{{.StoragePrefix}}" data-default-query="{{.DefaultQuery}}"><div class="loading">Loading…</div></div>
{{range .Scripts}}<script src="{{.URL}}" integrity="{{.Integrity}}"></script>
{{end -}}
</body>
</html>
`))

type link struct {
	URL       template.URL
	Integrity string
}

// Handler serves GraphiQL's page, titled title, sending its operations to
// endpoint (a path on this server, or an absolute URL). The page's policy
// is the caller's to set (Policy).
func Handler(title, endpoint string) http.Handler {
	data := struct {
		Title, Endpoint, StoragePrefix, DefaultQuery string
		Styles, Scripts                              []link
	}{Title: title, Endpoint: endpoint, DefaultQuery: example}
	for _, name := range served {
		a := byName(name)
		l := link{URL: template.URL(a.url), Integrity: a.integrity}
		if strings.HasSuffix(name, ".css") {
			data.Styles = append(data.Styles, l)
		} else {
			data.Scripts = append(data.Scripts, l)
		}
	}
	var b bytes.Buffer
	if err := page.Execute(&b, data); err != nil {
		panic(err)
	}
	body := b.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(body)
	})
}

// Assets serves the embedded files under Prefix, each at its hashed URL
// only, cached for a year, gzipped when the client takes it. Any other path
// is 404, so an old page asking for a replaced file fails plainly rather
// than mixing versions.
var Assets http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	cache.VaryEncoding(h)
	body, etag := a.body, `"`+a.integrity+`"`
	if acceptsGzip(r) {
		body, etag = a.gzipped(), `"`+a.integrity+`-gzip"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
})

// acceptsGzip reports whether the request's Accept-Encoding names gzip
// without refusing it (q=0).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
