package graph_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/models"
)

// idCase names, in one mutation, one place an id goes ("input.roomId":
// see schemaInfo.idSlots) with $bad there and every other value valid in
// alpha. kind is what the id names, to find one of beta's.
type idCase struct {
	slot, kind, doc string
}

// idCases cover every place a mutation's arguments hold an id;
// TestUnknownIDs fails for one the schema has and this list does not.
var idCases = []idCase{
	{"bookRoom input.clientId", "client", `bookRoom(input: {roomId: $myRoom, clientId: $bad, date: "2027-02-06", start: "03:00", end: "04:00"}, dryRun: $dry) { revision }`},
	{"bookRoom input.roomId", "room", `bookRoom(input: {roomId: $bad, date: "2027-02-06", start: "03:00", end: "04:00"}, dryRun: $dry) { revision }`},
	{"bookSession clientId", "client", `bookSession(sessionId: $mySession, clientId: $bad, dryRun: $dry) { revision }`},
	{"bookSession oneOffId", "oneOff", `bookSession(oneOffId: $bad, clientId: $myClient, dryRun: $dry) { revision }`},
	{"bookSession ref.classId", "class", `bookSession(ref: {date: $refDate, classTimeId: $refClassTime, classId: $bad}, clientId: $myClient, dryRun: $dry) { revision }`},
	{"bookSession ref.classTimeId", "classTime", `bookSession(ref: {date: $refDate, classTimeId: $bad, classId: $refClass}, clientId: $myClient, dryRun: $dry) { revision }`},
	{"bookSession sessionId", "session", `bookSession(sessionId: $bad, clientId: $myClient, dryRun: $dry) { revision }`},
	{"cancelBooking id", "booking", `cancelBooking(id: $bad, dryRun: $dry) { revision }`},
	{"cancelOneOff id", "oneOff", `cancelOneOff(id: $bad, dryRun: $dry) { revision }`},
	{"cancelRoomBooking id", "roomBooking", `cancelRoomBooking(id: $bad, dryRun: $dry) { revision }`},
	{"cancelSession ref.classId", "class", `cancelSession(ref: {date: $refDate, classTimeId: $refClassTime, classId: $bad}, dryRun: $dry) { revision }`},
	{"cancelSession ref.classTimeId", "classTime", `cancelSession(ref: {date: $refDate, classTimeId: $bad, classId: $refClass}, dryRun: $dry) { revision }`},
	{"cancelSession sessionId", "session", `cancelSession(sessionId: $bad, dryRun: $dry) { revision }`},
	{"changeSession change.classId", "class", `changeSession(sessionId: $mySession, change: {classId: $bad}, dryRun: $dry) { revision }`},
	{"changeSession change.roomId", "room", `changeSession(sessionId: $mySession, change: {roomId: $bad}, dryRun: $dry) { revision }`},
	{"changeSession change.staffIds", "staff", `changeSession(sessionId: $mySession, change: {staffIds: [$myStaff, $bad]}, dryRun: $dry) { revision }`},
	{"changeSession ref.classId", "class", `changeSession(ref: {date: $refDate, classTimeId: $refClassTime, classId: $bad}, change: {note: "x"}, dryRun: $dry) { revision }`},
	{"changeSession ref.classTimeId", "classTime", `changeSession(ref: {date: $refDate, classTimeId: $bad, classId: $refClass}, change: {note: "x"}, dryRun: $dry) { revision }`},
	{"changeSession sessionId", "session", `changeSession(sessionId: $bad, change: {note: "x"}, dryRun: $dry) { revision }`},
	{"createAppPassword input.staffId", "staff", `createAppPassword(input: {login: "ids-new", role: STAFF, staffId: $bad}, dryRun: $dry) { revision }`},
	{"createCapacityRule input.roomId", "room", `createCapacityRule(input: {roomId: $bad, weekdays: [MONDAY], start: "06:00", end: "07:00", units: 1}, dryRun: $dry) { revision }`},
	{"createClass input.activityId", "activity", `createClass(input: {activityId: $bad, staffIds: [$myStaff]}, dryRun: $dry) { revision }`},
	{"createClass input.staffIds", "staff", `createClass(input: {activityId: $myActivity, staffIds: [$myStaff, $bad]}, dryRun: $dry) { revision }`},
	{"createClassTime input.roomId", "room", `createClassTime(input: {roomId: $bad, weekday: SATURDAY, start: "06:00", end: "07:00"}, dryRun: $dry) { revision }`},
	{"createClosure input.roomIds", "room", `createClosure(input: {from: "2027-02-01", to: "2027-02-02", roomIds: [$myRoom, $bad]}, dryRun: $dry) { revision }`},
	{"createOneOff input.class.activityId", "activity", `createOneOff(input: {class: {activityId: $bad, staffIds: [$myStaff]}, roomId: $myRoom, date: "2027-02-06", start: "10:00", end: "11:00"}, dryRun: $dry) { revision }`},
	{"createOneOff input.class.staffIds", "staff", `createOneOff(input: {class: {activityId: $myActivity, staffIds: [$bad]}, roomId: $myRoom, date: "2027-02-06", start: "10:00", end: "11:00"}, dryRun: $dry) { revision }`},
	{"createOneOff input.classId", "class", `createOneOff(input: {classId: $bad, roomId: $myRoom, date: "2027-02-06", start: "10:00", end: "11:00"}, dryRun: $dry) { revision }`},
	{"createOneOff input.clientIds", "client", `createOneOff(input: {classId: $myClass, roomId: $myRoom, date: "2027-02-06", start: "10:00", end: "11:00", clientIds: [$myClient, $bad]}, dryRun: $dry) { revision }`},
	{"createOneOff input.roomId", "room", `createOneOff(input: {classId: $myClass, roomId: $bad, date: "2027-02-06", start: "10:00", end: "11:00"}, dryRun: $dry) { revision }`},
	{"createPlan input.seriesId", "series", `createPlan(input: {seriesId: $bad, price: "10"}, dryRun: $dry) { revision }`},
	{"createSeries input.entries.class.activityId", "activity", `createSeries(input: {name: "Borrowed", anchorDate: "2027-02-01", entries: [{week: 1, classTimeId: $myClassTime, class: {activityId: $bad, staffIds: [$myStaff]}}]}, dryRun: $dry) { revision }`},
	{"createSeries input.entries.class.staffIds", "staff", `createSeries(input: {name: "Borrowed", anchorDate: "2027-02-01", entries: [{week: 1, classTimeId: $myClassTime, class: {activityId: $myActivity, staffIds: [$bad]}}]}, dryRun: $dry) { revision }`},
	{"createSeries input.entries.classId", "class", `createSeries(input: {name: "Borrowed", anchorDate: "2027-02-01", entries: [{week: 1, classTimeId: $myClassTime, classId: $bad}]}, dryRun: $dry) { revision }`},
	{"createSeries input.entries.classTime.roomId", "room", `createSeries(input: {name: "Borrowed", anchorDate: "2027-02-01", entries: [{week: 1, classTime: {roomId: $bad, weekday: SATURDAY, start: "06:00", end: "07:00"}, classId: $myClass}]}, dryRun: $dry) { revision }`},
	{"createSeries input.entries.classTimeId", "classTime", `createSeries(input: {name: "Borrowed", anchorDate: "2027-02-01", entries: [{week: 1, classTimeId: $bad, classId: $myClass}]}, dryRun: $dry) { revision }`},
	{"createSeries input.plans.id", "plan", `createSeries(input: {name: "Borrowed", anchorDate: "2027-02-01", plans: [{id: $bad, price: "1"}]}, dryRun: $dry) { revision }`},
	{"createMembership input.clientId", "client", `createMembership(input: {clientId: $bad, seriesId: $mySeries, startDate: "2027-01-04"}, dryRun: $dry) { revision }`},
	{"createMembership input.planId", "plan", `createMembership(input: {clientId: $myClient, seriesId: $mySeries, planId: $bad, startDate: "2027-01-04"}, dryRun: $dry) { revision }`},
	{"createMembership input.seriesId", "series", `createMembership(input: {clientId: $myClient, seriesId: $bad, startDate: "2027-01-04"}, dryRun: $dry) { revision }`},
	{"createToken input.clientId", "client", `createToken(input: {role: CLIENT, clientId: $bad}, dryRun: $dry) { revision }`},
	{"createToken input.staffId", "staff", `createToken(input: {role: STAFF, staffId: $bad}, dryRun: $dry) { revision }`},
	{"deleteActivity id", "activity", `deleteActivity(id: $bad, dryRun: $dry) { revision }`},
	{"deleteCapacityRule id", "capacityRule", `deleteCapacityRule(id: $bad, dryRun: $dry) { revision }`},
	{"deleteClass id", "class", `deleteClass(id: $bad, dryRun: $dry) { revision }`},
	{"deleteClassTime id", "classTime", `deleteClassTime(id: $bad, dryRun: $dry) { revision }`},
	{"deleteClient id", "client", `deleteClient(id: $bad, dryRun: $dry) { revision }`},
	{"deleteClosure id", "closure", `deleteClosure(id: $bad, dryRun: $dry) { revision }`},
	{"deleteOneOff id", "oneOff", `deleteOneOff(id: $bad, dryRun: $dry) { revision }`},
	{"deletePlan id", "plan", `deletePlan(id: $bad, dryRun: $dry) { revision }`},
	{"deleteRoom id", "room", `deleteRoom(id: $bad, dryRun: $dry) { revision }`},
	{"deleteSeries id", "series", `deleteSeries(id: $bad, dryRun: $dry) { revision }`},
	{"deleteStaff id", "staff", `deleteStaff(id: $bad, dryRun: $dry) { revision }`},
	{"deleteMembership id", "subscription", `deleteMembership(id: $bad, dryRun: $dry) { revision }`},
	{"markAttendance id", "booking", `markAttendance(id: $bad, status: ATTENDED, dryRun: $dry) { revision }`},
	{"replaceSeriesFrom id", "series", `replaceSeriesFrom(id: $bad, date: "2027-01-04", dryRun: $dry) { revision }`},
	{"restoreSession ref.classId", "class", `restoreSession(ref: {date: $refDate, classTimeId: $refClassTime, classId: $bad}, dryRun: $dry) { revision }`},
	{"restoreSession ref.classTimeId", "classTime", `restoreSession(ref: {date: $refDate, classTimeId: $bad, classId: $refClass}, dryRun: $dry) { revision }`},
	{"restoreSession sessionId", "session", `restoreSession(sessionId: $bad, dryRun: $dry) { revision }`},
	{"revokeAppPassword id", "appPassword", `revokeAppPassword(id: $bad, dryRun: $dry) { revision }`},
	{"revokeToken id", "token", `revokeToken(id: $bad, dryRun: $dry) { revision }`},
	{"rotateFeedToken calendar.roomId", "room", `rotateFeedToken(calendar: {roomId: $bad}, dryRun: $dry) { revision }`},
	{"rotateFeedToken calendar.staffId", "staff", `rotateFeedToken(calendar: {staffId: $bad}, dryRun: $dry) { revision }`},
	{"updateActivity id", "activity", `updateActivity(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateCapacityRule id", "capacityRule", `updateCapacityRule(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateCapacityRule input.roomId", "room", `updateCapacityRule(id: $myRule, input: {roomId: $bad}, dryRun: $dry) { revision }`},
	{"updateClass id", "class", `updateClass(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateClass input.activityId", "activity", `updateClass(id: $myClass, input: {activityId: $bad}, dryRun: $dry) { revision }`},
	{"updateClass input.staffIds", "staff", `updateClass(id: $myClass, input: {staffIds: [$bad]}, dryRun: $dry) { revision }`},
	{"updateClassTime id", "classTime", `updateClassTime(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateClassTime input.roomId", "room", `updateClassTime(id: $myClassTime, input: {roomId: $bad}, dryRun: $dry) { revision }`},
	{"updateClient id", "client", `updateClient(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateOneOff id", "oneOff", `updateOneOff(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateOneOff input.class.activityId", "activity", `updateOneOff(id: $myOneOff, input: {class: {activityId: $bad, staffIds: [$myStaff]}}, dryRun: $dry) { revision }`},
	{"updateOneOff input.class.staffIds", "staff", `updateOneOff(id: $myOneOff, input: {class: {activityId: $myActivity, staffIds: [$bad]}}, dryRun: $dry) { revision }`},
	{"updateOneOff input.classId", "class", `updateOneOff(id: $myOneOff, input: {classId: $bad}, dryRun: $dry) { revision }`},
	{"updateOneOff input.clientIds", "client", `updateOneOff(id: $myOneOff, input: {clientIds: [$bad]}, dryRun: $dry) { revision }`},
	{"updateOneOff input.roomId", "room", `updateOneOff(id: $myOneOff, input: {roomId: $bad}, dryRun: $dry) { revision }`},
	{"updatePlan id", "plan", `updatePlan(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updatePlan input.seriesId", "series", `updatePlan(id: $myPlan, input: {seriesId: $bad}, dryRun: $dry) { revision }`},
	{"updateRoom id", "room", `updateRoom(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateSeries id", "series", `updateSeries(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateSeries input.entries.class.activityId", "activity", `updateSeries(id: $mySeries, input: {entries: [{week: 1, classTimeId: $myClassTime, class: {activityId: $bad, staffIds: [$myStaff]}}]}, dryRun: $dry) { revision }`},
	{"updateSeries input.entries.class.staffIds", "staff", `updateSeries(id: $mySeries, input: {entries: [{week: 1, classTimeId: $myClassTime, class: {activityId: $myActivity, staffIds: [$bad]}}]}, dryRun: $dry) { revision }`},
	{"updateSeries input.entries.classId", "class", `updateSeries(id: $mySeries, input: {entries: [{week: 1, classTimeId: $myClassTime, classId: $bad}]}, dryRun: $dry) { revision }`},
	{"updateSeries input.entries.classTime.roomId", "room", `updateSeries(id: $mySeries, input: {entries: [{week: 1, classTime: {roomId: $bad, weekday: SATURDAY, start: "06:00", end: "07:00"}, classId: $myClass}]}, dryRun: $dry) { revision }`},
	{"updateSeries input.entries.classTimeId", "classTime", `updateSeries(id: $mySeries, input: {entries: [{week: 1, classTimeId: $bad, classId: $myClass}]}, dryRun: $dry) { revision }`},
	{"updateSeries input.plans.id", "plan", `updateSeries(id: $mySeries, input: {plans: [{id: $bad}]}, dryRun: $dry) { revision }`},
	{"updateStaff id", "staff", `updateStaff(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateMembership id", "subscription", `updateMembership(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateMembership input.clientId", "client", `updateMembership(id: $mySub, input: {clientId: $bad}, dryRun: $dry) { revision }`},
	{"updateMembership input.planId", "plan", `updateMembership(id: $mySub, input: {planId: $bad}, dryRun: $dry) { revision }`},
	{"updateMembership input.seriesId", "series", `updateMembership(id: $mySub, input: {seriesId: $bad}, dryRun: $dry) { revision }`},
	{"createTimeOff input.staffId", "staff", `createTimeOff(input: {staffId: $bad, from: "2027-02-01", to: "2027-02-02"}, dryRun: $dry) { revision }`},
	{"updateTimeOff id", "timeOff", `updateTimeOff(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"updateTimeOff input.staffId", "staff", `updateTimeOff(id: $myTimeOff, input: {staffId: $bad}, dryRun: $dry) { revision }`},
	{"deleteTimeOff id", "timeOff", `deleteTimeOff(id: $bad, dryRun: $dry) { revision }`},
	{"setQualifications input.staffId", "staff", `setQualifications(input: {staffId: $bad, activityIds: []}, dryRun: $dry) { revision }`},
	{"setQualifications input.activityIds", "activity", `setQualifications(input: {staffId: $myStaff, activityIds: [$myActivity, $bad]}, dryRun: $dry) { revision }`},
	{"assignCover input.sessionId", "session", `assignCover(input: [{sessionId: $bad, staffId: $myStaff, replaces: $myStaff}], dryRun: $dry) { revision }`},
	{"assignCover input.staffId", "staff", `assignCover(input: [{sessionId: $mySession, staffId: $bad, replaces: $myStaff}], dryRun: $dry) { revision }`},
	{"assignCover input.replaces", "staff", `assignCover(input: [{sessionId: $mySession, staffId: $myStaff, replaces: $bad}], dryRun: $dry) { revision }`},
	{"setWorkingHours input.staffId", "staff", `setWorkingHours(input: {staffId: $bad, from: "2027-02-01", spans: []}, dryRun: $dry) { revision }`},
	{"deleteWorkingHours id", "workingHours", `deleteWorkingHours(id: $bad, dryRun: $dry) { revision }`},
	{"updateWebhookEndpoint id", "webhookEndpoint", `updateWebhookEndpoint(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"rotateWebhookSecret id", "webhookEndpoint", `rotateWebhookSecret(id: $bad, dryRun: $dry) { revision }`},
	{"deleteWebhookEndpoint id", "webhookEndpoint", `deleteWebhookEndpoint(id: $bad, dryRun: $dry) { revision }`},
	{"redeliverWebhook endpointId", "webhookEndpoint", `redeliverWebhook(eventId: $myEvent, endpointId: $bad, dryRun: $dry) { revision }`},
	{"createStandingBooking input.clientId", "client", `createStandingBooking(input: {clientId: $bad, sessionId: $mySession, from: "2026-12-09"}, dryRun: $dry) { revision }`},
	{"createStandingBooking input.sessionId", "session", `createStandingBooking(input: {clientId: $myClient, sessionId: $bad, from: "2026-12-09"}, dryRun: $dry) { revision }`},
	{"updateStandingBooking id", "standingBooking", `updateStandingBooking(id: $bad, input: {}, dryRun: $dry) { revision }`},
	{"endStandingBooking id", "standingBooking", `endStandingBooking(id: $bad, from: "2027-01-04", dryRun: $dry) { revision }`},
	{"skipStandingDate id", "standingBooking", `skipStandingDate(id: $bad, date: "2026-12-15", dryRun: $dry) { revision }`},
	{"proposeTimetable input.demand.activityId", "activity", `proposeTimetable(input: {demand: [{activityId: $bad, sessionsPerWeek: 1, minutes: 60}], timeLimit: 1}) { id }`},
	{"proposeTimetable input.demand.classId", "class", `proposeTimetable(input: {demand: [{classId: $bad, sessionsPerWeek: 1, minutes: 60}], timeLimit: 1}) { id }`},
	{"proposeTimetable input.demand.staffIds", "staff", `proposeTimetable(input: {demand: [{activityId: $myActivity, staffIds: [$myStaff, $bad], sessionsPerWeek: 1, minutes: 60}], timeLimit: 1}) { id }`},
	{"proposeTimetable input.demand.roomIds", "room", `proposeTimetable(input: {demand: [{activityId: $myActivity, roomIds: [$myRoom, $bad], sessionsPerWeek: 1, minutes: 60}], timeLimit: 1}) { id }`},
	{"proposeTimetable input.seriesIds", "series", `proposeTimetable(input: {demand: [{activityId: $myActivity, sessionsPerWeek: 1, minutes: 60}], keep: SERIES, seriesIds: [$mySeries, $bad], timeLimit: 1}) { id }`},
	{"proposeTimetable input.limits.staffId", "staff", `proposeTimetable(input: {demand: [{activityId: $myActivity, sessionsPerWeek: 1, minutes: 60}], limits: [{staffId: $bad, maxSessions: 3}], timeLimit: 1}) { id }`},
	{"applyProposal id", "proposal", `applyProposal(id: $bad, dryRun: $dry) { revision }`},
	{"cancelProposal id", "proposal", `cancelProposal(id: $bad) { id }`},
	{"swapStandingDate id", "standingBooking", `swapStandingDate(id: $bad, date: "2026-12-16", sessionId: $mySession, dryRun: $dry) { revision }`},
	{"swapStandingDate sessionId", "session", `swapStandingDate(id: $myStanding, date: "2026-12-16", sessionId: $bad, dryRun: $dry) { revision }`},
	{"replayWebhooks endpointId", "webhookEndpoint", `replayWebhooks(endpointId: $bad, since: "2026-11-01T00:00:00Z", dryRun: $dry) { revision }`},
}

// field is what extensions.field says for the slot: the field holding the
// id (a session named by ref is the ref; a plan of a series' plans list,
// whose own field is id like the series', is plans).
func (c idCase) field() string {
	slot := strings.Fields(c.slot)[1]
	switch {
	case strings.HasPrefix(slot, "ref."):
		return "ref"
	case slot == "input.plans.id":
		return "plans"
	}
	return slot[strings.LastIndexByte(slot, '.')+1:]
}

var placeholderRE = regexp.MustCompile(`\$[a-zA-Z]+`)

// fill writes a case's document with values: each $name is replaced by
// its GraphQL literal.
func (c idCase) fill(values map[string]string) (string, error) {
	var missing []string
	doc := placeholderRE.ReplaceAllStringFunc(c.doc, func(name string) string {
		v, ok := values[name[1:]]
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%s: no value for %v", c.slot, missing)
	}
	return "mutation { " + doc + " }", nil
}

// TestUnknownIDs names, in every place a mutation takes an id (found by
// introspection), one the business does not have: an id no row has, and
// one of another business's rows of the same kind. Each is NOT_FOUND with
// extensions.field naming where the id was, as a dry run and as a write,
// and nothing is written.
func TestUnknownIDs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		alpha, beta := twoBusinesses(a)
		s := introspect(a, alpha)
		var slots []string
		for _, f := range s.types[s.mutation].Fields {
			for _, sl := range s.idSlots(f) {
				slots = append(slots, f.Name+" "+sl)
			}
		}
		for _, sl := range slots {
			if !slices.ContainsFunc(idCases, func(c idCase) bool { return c.slot == sl }) {
				t.Errorf("%s takes an id and no idCase names it", sl)
			}
		}
		for _, c := range idCases {
			if !slices.Contains(slots, c.slot) {
				t.Errorf("idCase %s: the schema has no such place", c.slot)
			}
		}

		mine := alphaValues(a, alpha)
		theirs := betaValues(a, beta)
		betaWords := betaNames(a, beta)
		before := a.dump(alpha) + firstTokens(a, alpha)
		for _, c := range idCases {
			t.Run(c.slot, func(t *testing.T) {
				a := a.on(t)
				other, ok := theirs[c.kind]
				if !ok {
					t.Fatalf("no id of beta's %s", c.kind)
				}
				for _, bad := range []struct{ what, id string }{{"an unknown id", "99999"}, {"beta's id", other}} {
					for _, dry := range []string{"true", "false"} {
						values := map[string]string{"bad": `"` + bad.id + `"`, "dry": dry}
						if c.kind == "session" && bad.id == "99999" {
							values["bad"] = `"` + unknownSession(mine["mySession"]) + `"`
						}
						for k, v := range mine {
							values[k] = v
						}
						doc, err := c.fill(values)
						if err != nil {
							t.Fatal(err)
						}
						rev := a.ok(alpha, `{ business { revision } }`, nil)
						e := a.fails(alpha, "NOT_FOUND", doc, nil)
						if e.Extensions["field"] != c.field() {
							t.Errorf("%s, dryRun %s: field %v, want %s (%s)", bad.what, dry, e.Extensions["field"], c.field(), e.Message)
						}
						plainWords(t, e.Message)
						for _, w := range betaWords {
							if strings.Contains(e.Message, w) {
								t.Errorf("message %q: names beta's %q", e.Message, w)
							}
						}
						if after := a.ok(alpha, `{ business { revision } }`, nil); fmt.Sprint(after) != fmt.Sprint(rev) {
							t.Errorf("%s, dryRun %s: the revision moved from %v to %v", bad.what, dry, rev, after)
						}
					}
				}
			})
		}
		if after := a.dump(alpha) + firstTokens(a, alpha); after != before {
			t.Errorf("the refused writes changed alpha:\ngot  %s\nwant %s", after, before)
		}
	})
}

// unknownSession is a session key of the same date and class as key, in a
// class time no business has.
func unknownSession(key string) string {
	parts := strings.Split(strings.Trim(key, `"`), "/")
	parts[2] = "99999"
	return strings.Join(parts, "/")
}

// alphaValues are alpha's own rows, as GraphQL literals, for the parts of
// each case that must be valid.
func alphaValues(a *api, alpha string) map[string]string {
	a.t.Helper()
	q := func(s string) string { return `"` + s + `"` }
	ids := alphaIDs(a, alpha)
	out := map[string]string{}
	for k, v := range ids {
		if s, ok := v.(string); ok {
			out[k] = q(s)
		}
	}
	ref := sessionRefOf(a, alpha, "2026-12-09", "Daily standup")
	out["refDate"], out["refClassTime"], out["refClass"] = q(ref["date"].(string)), q(ref["classTimeId"].(string)), q(ref["classId"].(string))
	out["mySession"] = q(fmt.Sprintf("s/%s/%s/%s", ref["date"], ref["classTimeId"], ref["classId"]))
	out["myRule"] = q(created(a, alpha, allDayRule, "createCapacityRule", "capacityRule", map[string]any{"room": ids["myRoom"]}))
	out["myTimeOff"] = q(created(a, alpha, `mutation($s: ID!) { createTimeOff(input: {staffId: $s, from: "2027-03-01", to: "2027-03-02"}) { timeOff { id } } }`,
		"createTimeOff", "timeOff", map[string]any{"s": ids["myStaff"]}))
	out["myStanding"] = q(created(a, alpha, `mutation($s: SessionID!, $c: ID!) { createStandingBooking(input: {sessionId: $s, clientId: $c, from: "2026-12-09"}) { standingBooking { id } } }`,
		"createStandingBooking", "standingBooking", map[string]any{"s": strings.Trim(out["mySession"], `"`), "c": idOf(a, alpha, "clients", "name", "Orbit Analytics")}))
	// An event alpha's writes have recorded, for redeliverWebhook.
	p, err := models.Authenticate(context.Background(), a.db.DB, alpha)
	if err != nil {
		a.t.Fatal(err)
	}
	var event string
	if err := a.db.DB.NewSelect().Model((*models.WebhookEvent)(nil)).Column("uid").Where("business_id = ?", p.BusinessID).
		OrderExpr("id").Limit(1).Scan(context.Background(), &event); err != nil {
		a.t.Fatalf("an event of alpha's: %v", err)
	}
	out["myEvent"] = q(event)
	return out
}

// betaValues are ids of beta's rows of every kind a mutation names: none
// of them is alpha's.
func betaValues(a *api, beta string) map[string]string {
	a.t.Helper()
	ids := betaIDs(a, beta)
	out := map[string]string{}
	for kind, key := range map[string]string{"room": "room", "staff": "staff", "class": "class", "classTime": "classTime", "series": "series",
		"plan": "plan", "client": "client", "subscription": "sub", "oneOff": "oneOff", "closure": "closure", "token": "token"} {
		out[kind] = ids[key].(string)
	}
	out["activity"] = idOf(a, beta, "activities", "name", "Boxing")
	ref := sessionRefOf(a, beta, "2026-12-08", "Fundamentals")
	out["session"] = fmt.Sprintf("s/%s/%s/%s", ref["date"], ref["classTimeId"], ref["classId"])
	out["booking"] = path(a.ok(beta, `mutation($ref: SessionRefInput!, $c: ID!) { bookSession(ref: $ref, clientId: $c) { booking { id } } }`,
		map[string]any{"ref": ref, "c": ids["client"]}), "bookSession", "booking", "id").(string)
	out["standingBooking"] = created(a, beta, `mutation($s: SessionID!, $c: ID!) { createStandingBooking(input: {sessionId: $s, clientId: $c, from: "2026-12-08"}) { standingBooking { id } } }`,
		"createStandingBooking", "standingBooking", map[string]any{"s": out["session"], "c": ids["client"]})
	out["capacityRule"] = created(a, beta, allDayRule, "createCapacityRule", "capacityRule", map[string]any{"room": ids["room"]})
	out["roomBooking"] = created(a, beta, `mutation($r: ID!) { bookRoom(input: {roomId: $r, date: "2027-02-06", start: "03:00", end: "04:00"}) { roomBooking { id } } }`,
		"bookRoom", "roomBooking", map[string]any{"r": ids["room"]})
	out["timeOff"] = created(a, beta, `mutation($s: ID!) { createTimeOff(input: {staffId: $s, from: "2027-03-01", to: "2027-03-02"}) { timeOff { id } } }`,
		"createTimeOff", "timeOff", map[string]any{"s": ids["staff"]})
	out["workingHours"] = path(a.ok(beta, `mutation($s: ID!) { setWorkingHours(input: {staffId: $s, from: "2027-03-01", spans: []}) { workingHours { id } } }`,
		map[string]any{"s": ids["staff"]}), "setWorkingHours", "workingHours", "id").(string)
	out["webhookEndpoint"] = path(a.ok(beta, `mutation { createWebhookEndpoint(input: {url: "https://93.184.215.14/hooks", events: ["schedule.changed"]}) { endpoint { id } } }`, nil),
		"createWebhookEndpoint", "endpoint", "id").(string)
	out["proposal"] = path(a.ok(beta, `mutation($a: ID!) { proposeTimetable(input: {demand: [{activityId: $a, sessionsPerWeek: 1, minutes: 30}], timeLimit: 1}) { id } }`,
		map[string]any{"a": out["activity"]}), "proposeTimetable", "id").(string)
	out["appPassword"] = path(a.ok(beta, `mutation { createAppPassword(input: {login: "beta-desk", role: FRONT_DESK}) { appPassword { id } } }`, nil),
		"createAppPassword", "appPassword", "id").(string)
	return out
}

// idSlots lists where a field's arguments hold ids: "roomId" for an
// argument, "input.entries.classTimeId" inside an input (a list's elements
// share their list's path).
func (s schemaInfo) idSlots(f gqlField) []string {
	var out []string
	var walk func(prefix string, in gqlInput, seen map[string]bool)
	walk = func(prefix string, in gqlInput, seen map[string]bool) {
		name := in.Type.named()
		switch t := s.types[name]; {
		case name == "ID" || name == "SessionID":
			out = append(out, prefix+in.Name)
		case t.Kind == "INPUT_OBJECT" && !seen[name]:
			seen[name] = true
			for _, x := range t.InputFields {
				walk(prefix+in.Name+".", x, seen)
			}
			delete(seen, name)
		}
	}
	for _, a := range f.Args {
		walk("", a, map[string]bool{})
	}
	return out
}
