package caldav

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
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
}

func (e *httpError) Error() string { return e.message }

func fail(status int, format string, args ...any) error {
	return &httpError{status: status, message: fmt.Sprintf(format, args...)}
}

func precondition(status int, ns, name, format string, args ...any) error {
	return &httpError{status: status, condition: xml.Name{Space: ns, Local: name}, message: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if he.condition.Local == "" {
		http.Error(w, he.message, he.status)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(he.status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?>`+"\n"+`<D:error xmlns:D="DAV:" %s><%s/><D:responsedescription>%s</D:responsedescription></D:error>`,
		nsAttr(he.condition.Space), qname(he.condition), escape(he.message))
}

// rootName reads the name of the root element of a body, for REPORT.
func rootName(body []byte) (xml.Name, error) {
	d := xml.NewDecoder(strings.NewReader(string(body)))
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

// writeMultistatus answers 207 with responses and, for a sync, the new token.
func writeMultistatus(w http.ResponseWriter, responses []response, syncToken string) {
	var b strings.Builder
	b.Grow(1024 * (len(responses) + 1))
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	b.WriteString(`<D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:A="http://apple.com/ns/ical/">`)
	for _, r := range responses {
		b.WriteString("<D:response><D:href>")
		b.WriteString(escape(r.href))
		b.WriteString("</D:href>")
		if r.status != 0 {
			fmt.Fprintf(&b, "<D:status>HTTP/1.1 %d %s</D:status>", r.status, http.StatusText(r.status))
		}
		if len(r.found) > 0 {
			b.WriteString("<D:propstat><D:prop>")
			for _, p := range r.found {
				if p.value == "" {
					fmt.Fprintf(&b, "<%s%s/>", qname(p.name), nsAttr(p.name.Space))
				} else {
					fmt.Fprintf(&b, "<%s%s>%s</%s>", qname(p.name), nsAttr(p.name.Space), p.value, qname(p.name))
				}
			}
			b.WriteString("</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>")
		}
		if len(r.missing) > 0 {
			b.WriteString("<D:propstat><D:prop>")
			for _, n := range r.missing {
				fmt.Fprintf(&b, "<%s%s/>", qname(n), nsAttr(n.Space))
			}
			b.WriteString("</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>")
		}
		b.WriteString("</D:response>")
	}
	if syncToken != "" {
		b.WriteString("<D:sync-token>" + escape(syncToken) + "</D:sync-token>")
	}
	b.WriteString("</D:multistatus>")
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(http.StatusMultiStatus)
	io.WriteString(w, b.String())
}

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

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
