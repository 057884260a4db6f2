package caldav

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/emersion/go-ical"
	webcaldav "github.com/emersion/go-webdav/caldav"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
)

func dav(local string) xml.Name   { return xml.Name{Space: nsDAV, Local: local} }
func cal(local string) xml.Name   { return xml.Name{Space: nsCalDAV, Local: local} }
func cs(local string) xml.Name    { return xml.Name{Space: nsCS, Local: local} }
func apple(local string) xml.Name { return xml.Name{Space: nsApple, Local: local} }
func hrefXML(p string) string     { return "<D:href>" + escape(p) + "</D:href>" }

// collected is a calendar's listing at one revision: its events in the
// window, and the digest of their names and ETags that is its ctag and sync
// token.
type collected struct {
	events  []*event // by date, as the feed writes them
	byStart []*event // by start, then name, as a listing is answered; read only
	token   string
	saved   atomic.Bool // the items behind token are stored (remember)
}

// items is what a sync from the listing's token compares with: each
// event's ETag by name.
func (col *collected) items() map[string]string {
	items := make(map[string]string, len(col.events))
	for _, e := range col.events {
		items[e.name] = e.etag
	}
	return items
}

// collect returns the listings of calendars, each made once per renderer
// and window; those not made yet are made in one pass over the window.
func (h *Handler) collect(rd *renderer, cals ...calendar) []*collected {
	from, to := h.window(rd)
	out := make([]*collected, len(cals))
	var missing []int
	rd.mu.Lock()
	for i, c := range cals {
		if col, ok := rd.listings[c.id+"@"+from.String()]; ok {
			out[i] = col
		} else {
			missing = append(missing, i)
		}
	}
	rd.mu.Unlock()
	if len(missing) == 0 {
		return out
	}
	// Each session goes to the listings that keep it, found by its room
	// and staff: a home of a thousand calendars is one pass, not a
	// thousand tests of each session.
	var all []int
	byStaff, byRoom := map[int64][]int{}, map[int64][]int{}
	for j, i := range missing {
		switch c := cals[i]; {
		case c.staff != 0:
			byStaff[c.staff] = append(byStaff[c.staff], j)
		case c.room != 0:
			byRoom[c.room] = append(byRoom[c.room], j)
		default:
			all = append(all, j)
		}
	}
	events := make([][]*event, len(missing))
	last := make([]int, len(missing)) // the session a listing last took, counted from 1
	n := 0
	rd.walk(from, to, func(s *engine.Session) {
		n++
		var e *event
		take := func(js []int) {
			for _, j := range js {
				if last[j] == n {
					continue // a staff member named twice
				}
				if e == nil {
					e = rd.event(s)
				}
				events[j], last[j] = append(events[j], e), n
			}
		}
		take(all)
		take(byRoom[s.RoomID])
		for _, p := range s.StaffIDs {
			take(byStaff[p])
		}
	})
	for j, i := range missing {
		events[j] = rd.withTimeOffs(cals[i], events[j], from.At(0, rd.loc), to.At(0, rd.loc))
		col := newCollected(cals[i], events[j])
		out[i] = keepFirst(rd.kept, rd.listings, cals[i].id+"@"+from.String(), col, int64(len(col.events))*16+128)
	}
	return out
}

func newCollected(c calendar, events []*event) *collected {
	names := make([]string, len(events))
	etags := make(map[string]string, len(events))
	for i, e := range events {
		names[i] = e.name
		etags[e.name] = e.etag
	}
	sort.Strings(names)
	sum := sha256.New()
	io.WriteString(sum, c.id)
	for _, n := range names {
		io.WriteString(sum, "\x00"+n+"\x00"+etags[n])
	}
	byStart := slices.Clone(events)
	sortEvents(byStart)
	return &collected{events: events, byStart: byStart, token: "urn:koredyne:sync:" + hex.EncodeToString(sum.Sum(nil)[:16])}
}

// remember stores the items behind a sync token handed out, so that a sync
// from it later can say exactly what changed; once for a listing (the
// store keeps a token's items once, whoever stores them).
func (h *Handler) remember(r *http.Request, user models.CalendarUser, c calendar, col *collected) error {
	if col.saved.Load() {
		return nil
	}
	if err := h.Backend.SaveSync(r.Context(), user.BusinessID, c.id, col.token, col.items()); err != nil {
		return err
	}
	col.saved.Store(true)
	return nil
}

// readPropfind reads a PROPFIND's body (empty: allprop, RFC 4918 §9.1)
// and whether it asks for the members too (Depth: 1).
func readPropfind(r *http.Request) (req *propfindReq, depth1 bool, err error) {
	if err := checkDepth(r); err != nil {
		return nil, false, err
	}
	req = &propfindReq{}
	body := bodyOf(r)
	if len(bytes.TrimSpace(body)) > 0 {
		if err := xml.Unmarshal(body, req); err != nil {
			return nil, false, fail(http.StatusBadRequest, "the request body is not well-formed XML: %v", err)
		}
	}
	return req, r.Header.Get("Depth") == "1", nil
}

// propfindRoot answers PROPFIND on the root, where discovery starts (RFC
// 6764 §6): a collection naming the signed-in login's principal
// (current-user-principal, RFC 5397); Depth 1 adds that principal, the one
// member of the root this login may see. Only Depth 1 needs the schedule.
func (h *Handler) propfindRoot(w http.ResponseWriter, r *http.Request, user models.CalendarUser) error {
	req, depth1, err := readPropfind(r)
	if err != nil {
		return err
	}
	principal := principalPath(user)
	have := map[xml.Name]func() string{
		dav("resourcetype"):           func() string { return "<D:collection/>" },
		dav("current-user-principal"): func() string { return hrefXML(principal) },
	}
	out := []response{answer(Path, lazily(have), []xml.Name{dav("resourcetype"), dav("current-user-principal")}, req, nil)}
	if depth1 {
		rd, err := h.renderer(r.Context(), user.BusinessID, user.Revision)
		if err != nil {
			return err
		}
		out = append(out, h.principalResponse(rd, user, req))
	}
	h.writeMultistatus(w, r, out, "")
	return nil
}

// propfind answers PROPFIND on the principal, the home, a calendar or an
// event.
func (h *Handler) propfind(w http.ResponseWriter, r *http.Request, rd *renderer, user models.CalendarUser, t target, c calendar) error {
	req, depth1, err := readPropfind(r)
	if err != nil {
		return err
	}
	var out []response
	switch t.kind {
	case kindPrincipal:
		out = append(out, h.principalResponse(rd, user, req))
		if depth1 {
			out = append(out, h.homeResponse(rd, user, req))
		}
	case kindHome:
		out = append(out, h.homeResponse(rd, user, req))
		if depth1 {
			cals := calendars(rd.sn, user)
			if req.asks(dav("sync-token"), cs("getctag")) {
				h.collect(rd, cals...) // every calendar's listing in one pass
			}
			for _, c := range cals {
				resp, err := h.calendarResponse(r, rd, user, c, req)
				if err != nil {
					return err
				}
				out = append(out, resp)
			}
		}
	case kindCalendar:
		resp, err := h.calendarResponse(r, rd, user, c, req)
		if err != nil {
			return err
		}
		out = append(out, resp)
		if depth1 {
			for _, e := range h.collect(rd, c)[0].byStart {
				out = append(out, objectResponse(rd, calendarPath(user, c.id), e, req.Prop, req.AllProp != nil || req.Prop == nil, req.PropName != nil, nil))
			}
		}
	case kindObject:
		e, ok := rd.find(c, t.object)
		if !ok {
			return fail(http.StatusNotFound, "no such event")
		}
		out = append(out, objectResponse(rd, calendarPath(user, c.id), e, req.Prop, req.AllProp != nil || req.Prop == nil, req.PropName != nil, nil))
	}
	h.writeMultistatus(w, r, out, "")
	return nil
}

// answer builds a response from the props a resource has: all of them for
// allprop (except those only asked for by name), names only for propname.
// have gives a prop's value, computed only when it is answered.
func answer(href string, have func(xml.Name) (string, bool), order []xml.Name, req *propfindReq, onlyNamed map[xml.Name]bool) response {
	resp := response{href: href}
	switch {
	case req.PropName != nil:
		resp.found = make([]prop, 0, len(order))
		for _, n := range order {
			resp.found = append(resp.found, prop{name: n})
		}
	case req.Prop == nil || req.AllProp != nil:
		resp.found = make([]prop, 0, len(order))
		for _, n := range order {
			if !onlyNamed[n] {
				v, _ := have(n)
				resp.found = append(resp.found, prop{name: n, value: v})
			}
		}
	default:
		for _, a := range req.Prop.Names {
			if v, ok := have(a.XMLName); ok {
				if resp.found == nil {
					resp.found = make([]prop, 0, len(req.Prop.Names))
				}
				resp.found = append(resp.found, prop{name: a.XMLName, value: v})
			} else {
				resp.missing = append(resp.missing, a.XMLName)
			}
		}
	}
	return resp
}

// lazily answers answer's question from a map of props to functions that
// compute their values.
func lazily(have map[xml.Name]func() string) func(xml.Name) (string, bool) {
	return func(n xml.Name) (string, bool) {
		f, ok := have[n]
		if !ok {
			return "", false
		}
		return f(), true
	}
}

const readOnlyPrivileges = "<D:privilege><D:read/></D:privilege><D:privilege><D:read-current-user-privilege-set/></D:privilege>"

// principalResponse answers for a login's principal (RFC 3744 §2, RFC
// 4791 §6.2): where its calendars are, and what a calendar app shows of
// the account, as Radicale's principals do. Its name is the staff
// member's the login is tied to, else the business's. Its
// calendar-user-address-set is empty: logins are names, not addresses
// (RFC 6638 §2.4.1 allows none), and the gateway schedules no one. No
// report is answered on it, so its supported-report-set (RFC 3253 §3.1.5)
// is empty too, which tells a client not to try the principal searches.
func (h *Handler) principalResponse(rd *renderer, user models.CalendarUser, req *propfindReq) response {
	principal := principalPath(user)
	have := map[xml.Name]func() string{
		dav("resourcetype"):               func() string { return "<D:collection/><D:principal/>" },
		dav("displayname"):                func() string { return escape(principalName(rd, user)) },
		dav("principal-URL"):              func() string { return hrefXML(principal) },
		dav("current-user-principal"):     func() string { return hrefXML(principal) },
		cal("calendar-home-set"):          func() string { return hrefXML(homePath(user)) },
		cal("calendar-user-address-set"):  func() string { return "" },
		dav("supported-report-set"):       func() string { return "" },
		dav("current-user-privilege-set"): func() string { return readOnlyPrivileges },
	}
	order := []xml.Name{dav("resourcetype"), dav("displayname"), dav("principal-URL"), dav("current-user-principal"),
		cal("calendar-home-set"), cal("calendar-user-address-set"), dav("supported-report-set"), dav("current-user-privilege-set")}
	return answer(principal, lazily(have), order, req, nil)
}

// principalName is a login's name: the staff member's it is tied to, else
// the business's.
func principalName(rd *renderer, user models.CalendarUser) string {
	if user.StaffID != 0 {
		for _, p := range rd.sn.State.Staff {
			if p.ID == user.StaffID {
				return p.Name
			}
		}
	}
	return rd.sn.State.Business.Name
}

func (h *Handler) homeResponse(rd *renderer, user models.CalendarUser, req *propfindReq) response {
	principal := principalPath(user)
	have := map[xml.Name]func() string{
		dav("resourcetype"):               func() string { return "<D:collection/>" },
		dav("displayname"):                func() string { return escape(rd.sn.State.Business.Name) },
		dav("current-user-principal"):     func() string { return hrefXML(principal) },
		dav("owner"):                      func() string { return hrefXML(principal) },
		dav("current-user-privilege-set"): func() string { return readOnlyPrivileges },
	}
	order := []xml.Name{dav("resourcetype"), dav("displayname"), dav("current-user-principal"), dav("owner"), dav("current-user-privilege-set")}
	return answer(homePath(user), lazily(have), order, req, nil)
}

func (h *Handler) calendarResponse(r *http.Request, rd *renderer, user models.CalendarUser, c calendar, req *propfindReq) (response, error) {
	principal := principalPath(user)
	var col *collected
	listing := func() *collected {
		if col == nil {
			col = h.collect(rd, c)[0]
		}
		return col
	}
	var saveErr error
	token := func() string {
		col := listing()
		if err := h.remember(r, user, c, col); err != nil {
			saveErr = err
		}
		return escape(col.token)
	}
	have := map[xml.Name]func() string{
		dav("resourcetype"):               func() string { return "<D:collection/><C:calendar/>" },
		dav("displayname"):                func() string { return escape(c.name) },
		dav("current-user-principal"):     func() string { return hrefXML(principal) },
		dav("owner"):                      func() string { return hrefXML(principal) },
		dav("current-user-privilege-set"): func() string { return readOnlyPrivileges },
		dav("supported-report-set"): func() string {
			return "<D:supported-report><D:report><C:calendar-query/></D:report></D:supported-report>" +
				"<D:supported-report><D:report><C:calendar-multiget/></D:report></D:supported-report>" +
				"<D:supported-report><D:report><D:sync-collection/></D:report></D:supported-report>"
		},
		dav("sync-token"): token,
		cs("getctag"):     token,
		cal("calendar-description"): func() string {
			return escape("Computed sessions of " + rd.sn.State.Business.Name + ", read-only")
		},
		cal("supported-calendar-component-set"): func() string { return `<C:comp name="VEVENT"/>` },
		cal("supported-calendar-data"):          func() string { return `<C:calendar-data content-type="text/calendar" version="2.0"/>` },
		cal("calendar-timezone"): func() string {
			return escape(objectStart + icalendar.VTimezone(rd.loc, h.Backend.Now(), h.Backend.Now().Add(366*24*time.Hour)).Serialize(serial) + "END:VCALENDAR\r\n")
		},
		cal("max-resource-size"): func() string { return strconv.Itoa(MaxBody) },
		apple("calendar-color"):  func() string { return c.color },
	}
	order := []xml.Name{dav("resourcetype"), dav("displayname"), dav("current-user-principal"), dav("owner"),
		dav("current-user-privilege-set"), dav("supported-report-set"), dav("sync-token"), cs("getctag"),
		cal("calendar-description"), cal("supported-calendar-component-set"), cal("supported-calendar-data"),
		cal("calendar-timezone"), cal("max-resource-size"), apple("calendar-color")}
	resp := answer(calendarPath(user, c.id), lazily(have), order, req, map[xml.Name]bool{cal("calendar-timezone"): true})
	return resp, saveErr
}

// objectResponse answers for one event; calendar-data is given when asked
// for by name, expanded when x is not nil.
func objectResponse(rd *renderer, base string, e *event, p *propReq, all, names bool, x *expansion) response {
	have := func(n xml.Name) (string, bool) {
		switch n {
		case propGetETag:
			return e.etagXML(), true
		case propContentType:
			return "text/calendar; charset=utf-8; component=vevent", true
		case propContentLength:
			return strconv.Itoa(rd.object(e).size()), true
		case propLastModified:
			return e.modified.UTC().Format(http.TimeFormat), true
		case propResourceType:
			return "", true
		case propCalendarData:
			return x.calendarData(rd, e), true
		}
		return "", false
	}
	req := propfindReq{Prop: p}
	if names {
		req.PropName = &struct{}{}
	} else if all {
		req.AllProp, req.Prop = &struct{}{}, nil
	}
	return answer(base+e.name, have, objectOrder, &req, nil)
}

// The props of an event, and the order allprop lists them in
// (calendar-data only when asked for by name).
var (
	propGetETag       = dav("getetag")
	propContentType   = dav("getcontenttype")
	propContentLength = dav("getcontentlength")
	propLastModified  = dav("getlastmodified")
	propResourceType  = dav("resourcetype")
	propCalendarData  = cal("calendar-data")
	objectOrder       = []xml.Name{propGetETag, propContentType, propContentLength, propLastModified, propResourceType}
)

// report answers REPORT on a calendar: calendar-query, calendar-multiget
// and sync-collection.
func (h *Handler) report(w http.ResponseWriter, r *http.Request, rd *renderer, user models.CalendarUser, c calendar) error {
	body := bodyOf(r)
	name, err := rootName(body)
	if err != nil {
		return err
	}
	base := calendarPath(user, c.id)
	switch name {
	case cal("calendar-query"):
		// The answer to a client that takes gzip is kept, compressed: the
		// same query of the same calendar at the same revision (a calendar
		// app opening a month, or many phones opening the same one) is
		// answered from it without compressing half a megabyte again.
		var key string
		if cache.AcceptsGzip(r) && len(body) <= maxAnswerKey {
			from, _ := h.window(rd)
			key = c.id + "\x00" + base + "\x00" + from.String() + "\x00" + string(body)
			if a, ok := rd.answer(key); ok {
				if a.work > 0 {
					h.work(r.Context(), a.work)
				}
				writeGzipped(w, a.gzipped)
				return nil
			}
		}
		var q calendarQuery
		if err := xml.Unmarshal(body, &q); err != nil {
			return fail(http.StatusBadRequest, "the calendar-query is not well-formed: %v", err)
		}
		x, err := expandOf(body)
		if err != nil {
			return err
		}
		events, work, err := h.query(r.Context(), rd, c, &q)
		if err != nil {
			return err
		}
		out := make([]response, 0, len(events))
		for _, e := range events {
			if x == nil || x.overlaps(e) {
				out = append(out, objectResponse(rd, base, e, q.Prop, q.AllProp != nil, q.PropName != nil, x))
			}
		}
		if key == "" {
			h.writeMultistatus(w, r, out, "")
			return nil
		}
		b := buffers.Get().(*bytes.Buffer)
		defer release(b)
		multistatus(b, out, "")
		h.wrote(r.Context(), b.Len())
		if b.Len() > maxKeptPlain {
			sendMultistatus(w, b.Bytes())
			return nil
		}
		gzipped := gzipKept(b.Bytes())
		rd.keepAnswer(key, &keptAnswer{gzipped: gzipped, work: work + float64(b.Len())/bytesPerUnit})
		writeGzipped(w, gzipped)
		return nil
	case cal("calendar-multiget"):
		var m multiget
		if err := xml.Unmarshal(body, &m); err != nil {
			return fail(http.StatusBadRequest, "the calendar-multiget is not well-formed: %v", err)
		}
		x, err := expandOf(body)
		if err != nil {
			return err
		}
		out := make([]response, 0, len(m.Hrefs))
		for _, href := range m.Hrefs {
			p := href
			if u, err := url.Parse(strings.TrimSpace(href)); err == nil {
				p = u.Path
			}
			e, ok := rd.find(c, path.Base(p))
			if !ok || path.Dir(path.Clean(p))+"/" != base {
				out = append(out, response{href: strings.TrimSpace(href), status: http.StatusNotFound})
				continue
			}
			out = append(out, objectResponse(rd, base, e, m.Prop, m.AllProp != nil, m.PropName != nil, x))
		}
		h.writeMultistatus(w, r, out, "")
		return nil
	case dav("sync-collection"):
		var s syncCollection
		if err := xml.Unmarshal(body, &s); err != nil {
			return fail(http.StatusBadRequest, "the sync-collection is not well-formed: %v", err)
		}
		return h.sync(w, r, rd, user, c, &s)
	}
	return precondition(http.StatusForbidden, nsDAV, "supported-report", "the %s report is not supported here", name.Local)
}

// sync answers sync-collection (RFC 6578): everything for an empty token,
// the hrefs that changed or vanished since a known one, 403
// valid-sync-token for one that is unknown or expired.
func (h *Handler) sync(w http.ResponseWriter, r *http.Request, rd *renderer, user models.CalendarUser, c calendar, s *syncCollection) error {
	if lvl := strings.TrimSpace(s.SyncLevel); lvl != "" && lvl != "1" {
		return precondition(http.StatusForbidden, nsDAV, "sync-traversal-supported", "only sync-level 1 is supported")
	}
	base := calendarPath(user, c.id)
	col := h.collect(rd, c)[0]
	var before map[string]string
	if token := strings.TrimSpace(s.SyncToken); token != "" {
		items, ok, err := h.Backend.LoadSync(r.Context(), user.BusinessID, c.id, token)
		if err != nil {
			return err
		}
		if !ok {
			return precondition(http.StatusForbidden, nsDAV, "valid-sync-token", "this sync token is unknown or has expired: sync afresh")
		}
		before = items
	}
	if err := h.remember(r, user, c, col); err != nil {
		return err
	}
	var out []response
	for _, e := range col.byStart {
		if before[e.name] != e.etag {
			out = append(out, objectResponse(rd, base, e, s.Prop, s.AllProp != nil || s.Prop == nil, false, nil))
		}
	}
	now := col.items()
	gone := make([]string, 0)
	for name := range before {
		if _, ok := now[name]; !ok {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		out = append(out, response{href: base + name, status: http.StatusNotFound})
	}
	h.writeMultistatus(w, r, out, col.token)
	return nil
}

// query answers a calendar-query: the comp filter's time range is computed
// for whatever range is asked (at most MaxQueryDays long); other filters are
// left to go-webdav's matcher.
// It returns the units of work it told the Observer of.
func (h *Handler) query(ctx context.Context, rd *renderer, c calendar, q *calendarQuery) ([]*event, float64, error) {
	if q.Filter == nil || q.Filter.CompFilter.Name != "VCALENDAR" {
		return nil, 0, precondition(http.StatusForbidden, nsCalDAV, "valid-filter", "a calendar-query filters on VCALENDAR")
	}
	top := q.Filter.CompFilter
	if top.IsNotDefined != nil {
		return nil, 0, nil
	}
	if len(top.CompFilters) == 0 {
		return h.collect(rd, c)[0].byStart, 0, nil
	}
	var out []*event
	var work float64
	seen := map[string]bool{}
	for _, f := range top.CompFilters {
		if f.Name != "VEVENT" || f.IsNotDefined != nil {
			continue // only events are published
		}
		events, units, err := h.timeRange(ctx, rd, c, f.TimeRange)
		work += units
		if err != nil {
			return nil, 0, err
		}
		if len(f.PropFilters) > 0 || len(f.CompFilters) > 0 {
			if events, err = matchFilters(rd, events, f); err != nil {
				return nil, 0, err
			}
		}
		if len(top.CompFilters) == 1 {
			out = events // nothing to merge
			break
		}
		for _, e := range events {
			if !seen[e.name] {
				seen[e.name] = true
				out = append(out, e)
			}
		}
	}
	sortEvents(out)
	return out, work, nil
}

// timeRange renders the events of a calendar in a time range. A missing
// bound is open (RFC 4791 §9.9): it reaches the listing window's bound, or,
// for a range wholly outside the window, as far as the window reaches on
// that side (DAVx5 asks for "from 90 days ago" with no end, and must get
// every event the window lists). A range the client chose costs a unit of
// the rate limit per three months; the listing window (the server's
// choice, as every sync client asks for it) costs nothing more. It
// returns the units it told the Observer of.
func (h *Handler) timeRange(ctx context.Context, rd *renderer, c calendar, tr *timeRange) ([]*event, float64, error) {
	wfrom, wto := h.window(rd)
	start, end := wfrom.At(0, rd.loc), wto.At(0, rd.loc)
	if tr != nil {
		var err error
		if tr.Start != "" {
			if start, err = parseTime(tr.Start); err != nil {
				return nil, 0, err
			}
		}
		if tr.End != "" {
			if end, err = parseTime(tr.End); err != nil {
				return nil, 0, err
			}
		}
		switch {
		case tr.End == "" && !start.Before(end):
			end = start.Add(time.Duration(7*h.Ahead) * 24 * time.Hour)
		case tr.Start == "" && !start.Before(end):
			start = end.Add(-time.Duration(7*h.Back) * 24 * time.Hour)
		}
		// An open range longer than a query may be is cut on the client's
		// side, so it still holds the whole window (shorter than a query).
		if most := MaxQueryDays * 24 * time.Hour; end.Sub(start) > most {
			switch {
			case tr.End == "":
				start = end.Add(-most)
			case tr.Start == "":
				end = start.Add(most)
			}
		}
	}
	switch {
	case !end.After(start):
		return nil, 0, fail(http.StatusBadRequest, "the time range ends (%s) before it starts (%s)", end.Format(time.RFC3339), start.Format(time.RFC3339))
	case end.Sub(start) > MaxQueryDays*24*time.Hour:
		return nil, 0, fail(http.StatusBadRequest, "ask for at most %d days at a time", MaxQueryDays)
	case start.Year() < 1 || end.Year() > 9999:
		return nil, 0, fail(http.StatusBadRequest, "the time range is outside the years 1 to 9999")
	}
	var units float64
	if tr != nil && (tr.Start != "" || tr.End != "") {
		units = end.Sub(start).Hours() / 24 / 92
		h.work(ctx, units)
	}
	return rd.withTimeOffs(c, rd.inRange(start, end, c.keep), start, end), units, nil
}

// matchFilters applies prop and nested comp filters with go-webdav's
// matcher (RFC 4791 §9.7) to the parsed events.
func matchFilters(rd *renderer, events []*event, f compFilter) ([]*event, error) {
	filter := webcaldav.CompFilter{Name: "VCALENDAR", Comps: []webcaldav.CompFilter{toWebdav(f)}}
	filter.Comps[0].Start, filter.Comps[0].End = time.Time{}, time.Time{} // the range is already applied
	var out []*event
	for _, e := range events {
		data, err := ical.NewDecoder(strings.NewReader(rd.object(e).text())).Decode()
		if err != nil {
			return nil, err
		}
		ok, err := webcaldav.Match(filter, &webcaldav.CalendarObject{Data: data})
		if err != nil {
			return nil, fail(http.StatusBadRequest, "the filter cannot be applied: %v", err)
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func toWebdav(f compFilter) webcaldav.CompFilter {
	out := webcaldav.CompFilter{Name: f.Name, IsNotDefined: f.IsNotDefined != nil}
	if f.TimeRange != nil {
		out.Start, _ = parseTimeOrZero(f.TimeRange.Start)
		out.End, _ = parseTimeOrZero(f.TimeRange.End)
	}
	for _, p := range f.PropFilters {
		pf := webcaldav.PropFilter{Name: p.Name, IsNotDefined: p.IsNotDefined != nil}
		if p.TextMatch != nil {
			pf.TextMatch = &webcaldav.TextMatch{Text: p.TextMatch.Text, NegateCondition: p.TextMatch.NegateCondition == "yes"}
		}
		if p.TimeRange != nil {
			pf.Start, _ = parseTimeOrZero(p.TimeRange.Start)
			pf.End, _ = parseTimeOrZero(p.TimeRange.End)
		}
		for _, pp := range p.ParamFilters {
			wpp := webcaldav.ParamFilter{Name: pp.Name, IsNotDefined: pp.IsNotDefined != nil}
			if pp.TextMatch != nil {
				wpp.TextMatch = &webcaldav.TextMatch{Text: pp.TextMatch.Text, NegateCondition: pp.TextMatch.NegateCondition == "yes"}
			}
			pf.ParamFilter = append(pf.ParamFilter, wpp)
		}
		out.Props = append(out.Props, pf)
	}
	for _, c := range f.CompFilters {
		out.Comps = append(out.Comps, toWebdav(c))
	}
	return out
}

func parseTimeOrZero(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return parseTime(s)
}
