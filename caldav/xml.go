package caldav

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/cache"
	"github.com/koredyne/schedule/models/locale"
)

// The XML of WebDAV (RFC 4918), CalDAV (RFC 4791) and sync (RFC 6578) that
// the gateway reads and writes itself, for what go-webdav does not answer.

const (
	nsDAV    = "DAV:"
	nsCalDAV = "urn:ietf:params:xml:ns:caldav"
	nsCS     = "http://calendarserver.org/ns/"
	nsApple  = "http://apple.com/ns/ical/"
)

var prefixes = map[string]string{nsDAV: "D", nsCalDAV: "C", nsCS: "CS", nsApple: "A"}

// anyName captures the name of a child element.
type anyName struct {
	XMLName xml.Name
}

type propReq struct {
	Names []anyName `xml:",any"`
}

type propfindReq struct {
	XMLName  xml.Name  `xml:"DAV: propfind"`
	AllProp  *struct{} `xml:"DAV: allprop"`
	PropName *struct{} `xml:"DAV: propname"`
	Prop     *propReq  `xml:"DAV: prop"`
}

// asks reports whether the PROPFIND answers any of these props with a
// value: allprop (or an empty body, RFC 4918 §9.1) or one of them by name.
func (req *propfindReq) asks(names ...xml.Name) bool {
	switch {
	case req.PropName != nil:
		return false
	case req.Prop == nil || req.AllProp != nil:
		return true
	}
	for _, a := range req.Prop.Names {
		if slices.Contains(names, a.XMLName) {
			return true
		}
	}
	return false
}

type timeRange struct {
	Start string `xml:"start,attr"`
	End   string `xml:"end,attr"`
}

type textMatch struct {
	Text            string `xml:",chardata"`
	NegateCondition string `xml:"negate-condition,attr"`
}

type paramFilter struct {
	Name         string     `xml:"name,attr"`
	IsNotDefined *struct{}  `xml:"urn:ietf:params:xml:ns:caldav is-not-defined"`
	TextMatch    *textMatch `xml:"urn:ietf:params:xml:ns:caldav text-match"`
}

type propFilter struct {
	Name         string        `xml:"name,attr"`
	IsNotDefined *struct{}     `xml:"urn:ietf:params:xml:ns:caldav is-not-defined"`
	TimeRange    *timeRange    `xml:"urn:ietf:params:xml:ns:caldav time-range"`
	TextMatch    *textMatch    `xml:"urn:ietf:params:xml:ns:caldav text-match"`
	ParamFilters []paramFilter `xml:"urn:ietf:params:xml:ns:caldav param-filter"`
}

type compFilter struct {
	Name         string       `xml:"name,attr"`
	IsNotDefined *struct{}    `xml:"urn:ietf:params:xml:ns:caldav is-not-defined"`
	TimeRange    *timeRange   `xml:"urn:ietf:params:xml:ns:caldav time-range"`
	PropFilters  []propFilter `xml:"urn:ietf:params:xml:ns:caldav prop-filter"`
	CompFilters  []compFilter `xml:"urn:ietf:params:xml:ns:caldav comp-filter"`
}

type calendarQuery struct {
	Prop     *propReq  `xml:"DAV: prop"`
	AllProp  *struct{} `xml:"DAV: allprop"`
	PropName *struct{} `xml:"DAV: propname"`
	Filter   *struct {
		CompFilter compFilter `xml:"urn:ietf:params:xml:ns:caldav comp-filter"`
	} `xml:"urn:ietf:params:xml:ns:caldav filter"`
}

type multiget struct {
	Prop     *propReq  `xml:"DAV: prop"`
	AllProp  *struct{} `xml:"DAV: allprop"`
	PropName *struct{} `xml:"DAV: propname"`
	Hrefs    []string  `xml:"DAV: href"`
}

type syncCollection struct {
	SyncToken string    `xml:"DAV: sync-token"`
	SyncLevel string    `xml:"DAV: sync-level"`
	Prop      *propReq  `xml:"DAV: prop"`
	AllProp   *struct{} `xml:"DAV: allprop"`
}

// httpError is an error answered with a status and, for WebDAV
// preconditions, a DAV:error body naming the condition.
type httpError struct {
	status    int
	condition xml.Name // zero: a plain text body
	message   string
	// format and args are what message was written from: writeError looks
	// format up in the catalogue of the language the client asks for.
	format string
	args   []any
}

func (e *httpError) Error() string { return e.message }

func fail(status int, format string, args ...any) error {
	return &httpError{status: status, message: fmt.Sprintf(format, args...), format: format, args: args}
}

func precondition(status int, ns, name, format string, args ...any) error {
	return &httpError{status: status, condition: xml.Name{Space: ns, Local: name}, message: fmt.Sprintf(format, args...), format: format, args: args}
}

// writeError answers an error in the language the request's
// Accept-Language asks for, when the catalogues have it; in English
// otherwise.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	l := locale.For(engine.Locale{}, r.Header.Get("Accept-Language"))
	he.message = l.Message(engine.Gym, "BAD_REQUEST", "", he.message, he.format, he.args)
	if he.condition.Local == "" {
		http.Error(w, he.message, he.status)
		return
	}
	w.Header().Set("Content-Type", xmlType)
	w.WriteHeader(he.status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?>`+"\n"+`<D:error xmlns:D="DAV:" %s><%s/><D:responsedescription>%s</D:responsedescription></D:error>`,
		nsAttr(he.condition.Space), qname(he.condition), escape(he.message))
}

// rootName reads the name of the root element of a body, for REPORT.
func rootName(body []byte) (xml.Name, error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := d.Token()
		if err != nil {
			return xml.Name{}, fail(http.StatusBadRequest, "the request body is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name, nil
		}
	}
}

// parseTime reads an RFC 4791 time-range bound: 20261001T000000Z.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse("20060102T150405Z", s)
	if err != nil {
		return time.Time{}, fail(http.StatusBadRequest, "%q is not a UTC date-time such as 20261001T000000Z", s)
	}
	return t, nil
}

// prop is one property of a response: its name and its value as XML.
type prop struct {
	name  xml.Name
	value string
}

// response is one DAV:response of a multistatus.
type response struct {
	href    string
	status  int // non-zero: the resource is gone or forbidden (no props)
	found   []prop
	missing []xml.Name
}

// xmlType is the Content-Type of every XML answer: multistatus and
// DAV:error bodies alike.
const xmlType = "application/xml; charset=utf-8"

// writeMultistatus answers 207 with responses and, for a sync, the new token.
// The body is built whole in a pooled buffer and sent with its length: a
// month of calendar-data is half a megabyte, written once, not chunked.
// It costs the request a unit of work per bytesPerUnit.
func (h *Handler) writeMultistatus(w http.ResponseWriter, r *http.Request, responses []response, syncToken string) {
	b := buffers.Get().(*bytes.Buffer)
	defer release(b)
	multistatus(b, responses, syncToken)
	h.wrote(r.Context(), b.Len())
	sendMultistatus(w, b.Bytes())
}

// sendMultistatus answers 207 with a multistatus body.
func sendMultistatus(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", xmlType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusMultiStatus)
	w.Write(body)
}

// gzipKept compresses a multistatus to be kept and sent again. Compressed
// once and sent many times, it is compressed harder than an answer sent
// once: a month of the gym is 22 KB instead of 33, and longer matches make
// it quicker for every client to inflate.
func gzipKept(plain []byte) []byte {
	out := bytes.NewBuffer(make([]byte, 0, len(plain)/12))
	zw := keptZippers.Get().(*gzip.Writer)
	zw.Reset(out)
	zw.Write(plain)
	zw.Close()
	zw.Reset(io.Discard) // not to hold out
	keptZippers.Put(zw)
	return out.Bytes()
}

// maxKeptPlain is the largest answer kept: a quarter of the whole gym.
// Larger ones (months of a big calendar) are sent once, compressed by the
// server on the way.
const maxKeptPlain = 2 << 20

// keptZippers are the gzip writers of answers that are kept.
var keptZippers = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
	return zw
}}

// writeGzipped answers 207 with a multistatus gzipped already (the
// server's compression passes it on as it is, its Content-Encoding being
// set).
func writeGzipped(w http.ResponseWriter, gzipped []byte) {
	h := w.Header()
	h.Set("Content-Type", xmlType)
	h.Set("Content-Encoding", "gzip")
	cache.VaryEncoding(h)
	h.Set("Content-Length", strconv.Itoa(len(gzipped)))
	w.WriteHeader(http.StatusMultiStatus)
	w.Write(gzipped)
}

// release gives a buffer back to the pool unless it grew past maxPooled.
func release(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		buffers.Put(b)
	}
}

// multistatus writes the body of a 207 answer to b.
func multistatus(b *bytes.Buffer, responses []response, syncToken string) {
	b.Reset()
	size := 256
	for _, r := range responses {
		size += 160 + len(r.href)
		for _, p := range r.found {
			size += 2*len(p.name.Local) + len(p.value) + 8
		}
	}
	b.Grow(size)
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	b.WriteString(`<D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:A="http://apple.com/ns/ical/">`)
	for _, r := range responses {
		b.WriteString("<D:response><D:href>")
		escapeTo(b, r.href)
		b.WriteString("</D:href>")
		if r.status != 0 {
			b.WriteString("<D:status>HTTP/1.1 ")
			b.WriteString(strconv.Itoa(r.status))
			b.WriteByte(' ')
			b.WriteString(http.StatusText(r.status))
			b.WriteString("</D:status>")
		}
		if len(r.found) > 0 {
			b.WriteString("<D:propstat><D:prop>")
			for _, p := range r.found {
				b.WriteByte('<')
				writeName(b, p.name)
				if p.value == "" {
					b.WriteString("/>")
					continue
				}
				b.WriteByte('>')
				b.WriteString(p.value)
				b.WriteString("</")
				writeQName(b, p.name)
				b.WriteByte('>')
			}
			b.WriteString("</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>")
		}
		if len(r.missing) > 0 {
			b.WriteString("<D:propstat><D:prop>")
			for _, n := range r.missing {
				b.WriteByte('<')
				writeName(b, n)
				b.WriteString("/>")
			}
			b.WriteString("</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>")
		}
		b.WriteString("</D:response>")
	}
	if syncToken != "" {
		b.WriteString("<D:sync-token>")
		escapeTo(b, syncToken)
		b.WriteString("</D:sync-token>")
	}
	b.WriteString("</D:multistatus>")
}

// buffers holds the buffers multistatus bodies are built in; one larger
// than maxPooled (a year of a big calendar) is left to the collector.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 4 << 20

// qname writes a name with the gateway's prefix for its namespace, or a
// private one ("X") declared on the element (nsAttr).
func qname(n xml.Name) string {
	if p, ok := prefixes[n.Space]; ok {
		return p + ":" + n.Local
	}
	return "X:" + n.Local
}

func nsAttr(space string) string {
	if _, ok := prefixes[space]; ok {
		return ""
	}
	return ` xmlns:X="` + escape(space) + `"`
}

// writeQName writes qname(n) to b.
func writeQName(b *bytes.Buffer, n xml.Name) {
	p, ok := prefixes[n.Space]
	if !ok {
		p = "X"
	}
	b.WriteString(p)
	b.WriteByte(':')
	b.WriteString(n.Local)
}

// writeName writes qname(n) and nsAttr(n.Space) to b: an element's name as
// it opens.
func writeName(b *bytes.Buffer, n xml.Name) {
	writeQName(b, n)
	if _, ok := prefixes[n.Space]; !ok {
		b.WriteString(` xmlns:X="`)
		escapeTo(b, n.Space)
		b.WriteByte('"')
	}
}

// escape returns s as XML text, as xml.EscapeText writes it: s itself when
// nothing in it needs escaping.
func escape(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	escapeText(&b, s)
	return b.String()
}

// escapeTo writes escape(s) to b.
func escapeTo(b *bytes.Buffer, s string) {
	if plain(s) {
		b.WriteString(s)
		return
	}
	escapeText(b, s)
}

// escapeText is xml.EscapeText for a string, written for calendar data,
// where every line end needs escaping: it copies the runs between escapes
// whole instead of going through a []byte copy of s.
func escapeText(w interface{ WriteString(string) (int, error) }, s string) {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		var esc string
		width := 1
		switch {
		case c == '"':
			esc = "&#34;"
		case c == '\'':
			esc = "&#39;"
		case c == '&':
			esc = "&amp;"
		case c == '<':
			esc = "&lt;"
		case c == '>':
			esc = "&gt;"
		case c == '\t':
			esc = "&#x9;"
		case c == '\n':
			esc = "&#xA;"
		case c == '\r':
			esc = "&#xD;"
		case c < 0x20:
			esc = "\uFFFD"
		case c >= utf8.RuneSelf:
			var r rune
			r, width = utf8.DecodeRuneInString(s[i:])
			if !inCharacterRange(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
			}
		}
		if esc != "" {
			w.WriteString(s[last:i])
			w.WriteString(esc)
			last = i + width
		}
		i += width
	}
	w.WriteString(s[last:])
}

// inCharacterRange reports whether XML allows r (the Char production).
func inCharacterRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// plain reports whether xml.EscapeText leaves s as it is: printable ASCII
// without the five characters XML escapes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x80, c == '"', c == '\'', c == '&', c == '<', c == '>':
			return false
		}
	}
	return true
}
