package graph_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// writeFragment is what every dry run asks of its payload, through the
// Write interface: the queries of the table spread it as ...write.
const writeFragment = `
fragment write on Write { dryRun revision clashes { kind message firstDate } }`

// validationFailed is gqlgen's code for a document the schema refuses; the
// handler answers it with HTTP 422, before any resolver runs.
const validationFailed = "GRAPHQL_VALIDATION_FAILED"

// fromVar names a variable of a case's setup as the value a payload must
// show: a deletion answers with the id it was given.
type fromVar string

// mutationCase is one mutation, tried with bad input and as a dry run
// against the office demo. Both calls get the variables setup returns.
type mutationCase struct {
	name  string
	setup func(a *api, tok string) map[string]any

	bad  string // a call with a clearly invalid value
	code string // the extensions.code it fails with

	dry   string // a valid call with dryRun: true; spreads ...write
	shows string // a dotted path in the payload
	want  any    // what the payload shows there
}

// roofTalks is a small calendar file: every other Friday at 16:00.
const roofTalks = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:talks@example.com\r\n" +
	"DTSTAMP:20260101T000000Z\r\nDTSTART:20260904T160000\r\nDTEND:20260904T170000\r\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR\r\n" +
	"SUMMARY:Roof talk\r\nLOCATION:Roof Terrace\r\nORGANIZER;CN=Visiting Speaker:mailto:speaker@example.com\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

var credentials = map[string]bool{"createToken": true, "revokeToken": true, "rotateFeedToken": true, "rotateTimetableToken": true, "createAppPassword": true, "revokeAppPassword": true,
	// Webhook endpoints, written outside the schedule too: TestWebhookEndpoints.
	"createWebhookEndpoint": true, "updateWebhookEndpoint": true, "rotateWebhookSecret": true, "deleteWebhookEndpoint": true,
	"redeliverWebhook": true, "replayWebhooks": true,
	// A proposal saves nothing (it is kept in memory until applyProposal
	// writes it): TestProposeTimetable; nor does stopping its search,
	// which has no dry run: TestProposeInTheBackground.
	"proposeTimetable": true, "cancelProposal": true}

// mutationCases holds every field of Mutation but the credentials ones, which
// write outside the schedule, so that dump does not show them: createToken and
// revokeToken (TestTokens), rotateFeedToken, rotateTimetableToken, createAppPassword
// and revokeAppPassword (caldav's tests); TestCredentialPayloads checks their dry
// runs. TestMutationCasesCoverSchema keeps it complete.
var mutationCases = []mutationCase{
	{
		name:  "updateBusiness",
		bad:   `mutation { updateBusiness(input: {timeZone: "Mars/Olympus_Mons"}) { business { timeZone } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation { updateBusiness(input: {name: "Meridian Towers"}, dryRun: true) { ...write business { name } } }`,
		shows: "business.name", want: "Meridian Towers",
	},

	{
		name:  "createRoom",
		bad:   `mutation { createRoom(input: {name: ""}) { room { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation { createRoom(input: {name: "Room C", capacity: 2}, dryRun: true) { ...write room { name capacity } } }`,
		shows: "room.name", want: "Room C",
	},
	{
		name: "updateRoom",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "rooms", "name", "Room B")}
		},
		bad:   `mutation($id: ID!) { updateRoom(id: $id, input: {name: "room a"}) { room { name } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateRoom(id: $id, input: {name: "Quiet Room"}, dryRun: true) { ...write room { name } } }`,
		shows: "room.name", want: "Quiet Room",
	},
	{
		name: "deleteRoom",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"used": idOf(a, tok, "rooms", "name", "Room A"),
				"id":   created(a, tok, `mutation { createRoom(input: {name: "Spare Room"}) { room { id } } }`, "createRoom", "room"),
			}
		},
		bad:   `mutation($used: ID!) { deleteRoom(id: $used) { id } }`,
		code:  "IN_USE",
		dry:   `mutation($id: ID!) { deleteRoom(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name:  "createStaff",
		bad:   `mutation { createStaff(input: {name: "   "}) { staff { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation { createStaff(input: {name: "Priya Shah"}, dryRun: true) { ...write staff { name } } }`,
		shows: "staff.name", want: "Priya Shah",
	},
	{
		name: "updateStaff",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "staff", "name", "Mei Chen")}
		},
		bad:   `mutation { updateStaff(id: "999999", input: {name: "Nobody"}) { staff { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { updateStaff(id: $id, input: {name: "Mei Chen-Wang"}, dryRun: true) { ...write staff { name } } }`,
		shows: "staff.name", want: "Mei Chen-Wang",
	},
	{
		name: "deleteStaff",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"used": idOf(a, tok, "staff", "name", "Mei Chen"),
				"id":   created(a, tok, `mutation { createStaff(input: {name: "Temp Host"}) { staff { id } } }`, "createStaff", "staff"),
			}
		},
		bad:   `mutation($used: ID!) { deleteStaff(id: $used) { id } }`,
		code:  "IN_USE",
		dry:   `mutation($id: ID!) { deleteStaff(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name:  "createActivity",
		bad:   `mutation { createActivity(input: {name: "standup"}) { activity { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation { createActivity(input: {name: "Workshop", color: "#123456"}, dryRun: true) { ...write activity { name color } } }`,
		shows: "activity.name", want: "Workshop",
	},
	{
		name: "updateActivity",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "activities", "name", "Interview")}
		},
		bad:   `mutation($id: ID!) { updateActivity(id: $id, input: {name: ""}) { activity { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateActivity(id: $id, input: {color: "#000000"}, dryRun: true) { ...write activity { color } } }`,
		shows: "activity.color", want: "#000000",
	},
	{
		name: "deleteActivity",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"used": idOf(a, tok, "activities", "name", "Standup"),
				"id":   created(a, tok, `mutation { createActivity(input: {name: "Offsite"}) { activity { id } } }`, "createActivity", "activity"),
			}
		},
		bad:   `mutation($used: ID!) { deleteActivity(id: $used) { id } }`,
		code:  "IN_USE",
		dry:   `mutation($id: ID!) { deleteActivity(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name: "createClass",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"activity": idOf(a, tok, "activities", "name", "Interview"),
				"staff":    idOf(a, tok, "staff", "name", "Mei Chen"),
			}
		},
		bad:   `mutation($activity: ID!) { createClass(input: {activityId: $activity, staffIds: []}) { class { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($activity: ID!, $staff: ID!) { createClass(input: {activityId: $activity, staffIds: [$staff]}, dryRun: true) { ...write class { name } } }`,
		shows: "class.name", want: "Interview with Mei Chen",
	},
	{
		name: "updateClass",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"id":    idOf(a, tok, "classes", "name", "Standup with Mei Chen"),
				"staff": idOf(a, tok, "staff", "name", "Laura Becker"),
			}
		},
		bad:   `mutation($id: ID!) { updateClass(id: $id, input: {activityId: "999999"}) { class { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!, $staff: ID!) { updateClass(id: $id, input: {staffIds: [$staff]}, dryRun: true) { ...write class { name } } }`,
		shows: "class.name", want: "Standup with Laura Becker",
	},
	{
		name: "deleteClass",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{
				"used":     idOf(a, tok, "classes", "name", "Standup with Mei Chen"),
				"activity": idOf(a, tok, "activities", "name", "Retrospective"),
				"staff":    idOf(a, tok, "staff", "name", "Sofia Marquez"),
			}
			vars["id"] = created(a, tok, `mutation($activity: ID!, $staff: ID!) { createClass(input: {activityId: $activity, staffIds: [$staff]}) { class { id } } }`,
				"createClass", "class", vars)
			return vars
		},
		bad:   `mutation($used: ID!) { deleteClass(id: $used) { id } }`,
		code:  "IN_USE",
		dry:   `mutation($id: ID!) { deleteClass(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name: "createClassTime",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"room": idOf(a, tok, "rooms", "name", "Room B")}
		},
		bad:  `mutation($room: ID!) { createClassTime(input: {roomId: $room, weekday: MONDAY, start: "10:00", end: "09:00"}) { classTime { id } } }`,
		code: "BAD_USER_INPUT",
		dry: `mutation($room: ID!) { createClassTime(input: {roomId: $room, weekday: SATURDAY, start: "10:00", end: "11:00", label: "Weekend desk"}, dryRun: true) {
			...write classTime { label start end } } }`,
		shows: "classTime.label", want: "Weekend desk",
	},
	{
		name: "updateClassTime",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "classTimes", "label", "Sprint review")}
		},
		bad:   `mutation($id: ID!) { updateClassTime(id: $id, input: {bufferMinutes: -5}) { classTime { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateClassTime(id: $id, input: {label: "Sprint demo"}, dryRun: true) { ...write classTime { label } } }`,
		shows: "classTime.label", want: "Sprint demo",
	},
	{
		name: "deleteClassTime",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{
				"used": idOf(a, tok, "classTimes", "label", "Board meeting"),
				"room": idOf(a, tok, "rooms", "name", "Room B"),
			}
			vars["id"] = created(a, tok, `mutation($room: ID!) { createClassTime(input: {roomId: $room, weekday: SATURDAY, start: "08:00", end: "09:00"}) { classTime { id } } }`,
				"createClassTime", "classTime", vars)
			return vars
		},
		bad:   `mutation($used: ID!) { deleteClassTime(id: $used) { id } }`,
		code:  "IN_USE",
		dry:   `mutation($id: ID!) { deleteClassTime(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name: "createSeries",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"room":     idOf(a, tok, "rooms", "name", "Room B"),
				"activity": idOf(a, tok, "activities", "name", "Interview"),
				"staff":    idOf(a, tok, "staff", "name", "Sofia Marquez"),
			}
		},
		// 2026-12-01 is a Tuesday; the office's weeks start on Monday.
		bad:  `mutation { createSeries(input: {name: "Lunch talks", anchorDate: "2026-12-01"}) { series { id } } }`,
		code: "BAD_USER_INPUT",
		dry: `mutation($room: ID!, $activity: ID!, $staff: ID!) { createSeries(input: {name: "Lunch talks", anchorDate: "2026-11-30", cycleWeeks: 1,
			entries: [{week: 1, classTime: {roomId: $room, weekday: FRIDAY, start: "12:00", end: "13:00"}, class: {activityId: $activity, staffIds: [$staff]}}],
			plans: [{name: "Drop-in", months: 1, price: "25"}]}, dryRun: true) {
			...write series { name entries { week } plans { name } } } }`,
		shows: "series.name", want: "Lunch talks",
	},
	{
		name: "updateSeries",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "allSeries", "name", "Sprint cycle")}
		},
		bad:   `mutation($id: ID!) { updateSeries(id: $id, input: {cycleWeeks: 0}) { series { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateSeries(id: $id, input: {name: "Sprint rhythm"}, dryRun: true) { ...write series { name } } }`,
		shows: "series.name", want: "Sprint rhythm",
	},
	{
		name: "deleteSeries",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"used": idOf(a, tok, "allSeries", "name", "Sprint cycle"),
				"id":   created(a, tok, `mutation { createSeries(input: {name: "Scratch", anchorDate: "2026-11-30"}) { series { id } } }`, "createSeries", "series"),
			}
		},
		bad:   `mutation($used: ID!) { deleteSeries(id: $used) { id } }`,
		code:  "IN_USE",
		dry:   `mutation($id: ID!) { deleteSeries(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},
	{
		name: "replaceSeriesFrom",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "allSeries", "name", "Daily standup")}
		},
		bad:   `mutation($id: ID!) { replaceSeriesFrom(id: $id, date: "2020-01-06") { series { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { replaceSeriesFrom(id: $id, date: "2027-01-04", name: "Daily standup 2027", dryRun: true) { ...write series { name anchorDate } } }`,
		shows: "series.name", want: "Daily standup 2027",
	},

	{
		name: "createPlan",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"series": idOf(a, tok, "allSeries", "name", "Board meeting")}
		},
		bad:   `mutation($series: ID!) { createPlan(input: {seriesId: $series, name: "Board seat", price: "abc"}) { plan { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($series: ID!) { createPlan(input: {seriesId: $series, name: "Board seat", months: 12, price: "2400"}, dryRun: true) { ...write plan { name price } } }`,
		shows: "plan.name", want: "Board seat",
	},
	{
		name: "updatePlan",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": planOf(a, tok, "Daily standup")}
		},
		bad:   `mutation($id: ID!) { updatePlan(id: $id, input: {months: 0}) { plan { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updatePlan(id: $id, input: {price: "5000"}, dryRun: true) { ...write plan { price } } }`,
		shows: "plan.price", want: "5000",
	},
	{
		name: "deletePlan",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": planOf(a, tok, "Daily standup")}
		},
		bad:   `mutation { deletePlan(id: "999999") { id } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { deletePlan(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name:  "createClient",
		bad:   `mutation { createClient(input: {name: "", email: "nobody@example.com"}) { client { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation { createClient(input: {name: "Acme Corp", email: "hi@acme.example"}, dryRun: true) { ...write client { name email } } }`,
		shows: "client.name", want: "Acme Corp",
	},
	{
		name: "updateClient",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "clients", "name", "Bluefin Legal")}
		},
		bad:   `mutation { updateClient(id: "999999", input: {name: "Nobody"}) { client { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { updateClient(id: $id, input: {phone: "+1 212 555 0100"}, dryRun: true) { ...write client { phone } } }`,
		shows: "client.phone", want: "+1 212 555 0100",
	},
	{
		name: "deleteClient",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"used": idOf(a, tok, "clients", "name", "Bluefin Legal"),
				"id":   created(a, tok, `mutation { createClient(input: {name: "Walk-in"}) { client { id } } }`, "createClient", "client"),
			}
		},
		bad:   `mutation($used: ID!) { deleteClient(id: $used) { id } }`,
		code:  "IN_USE",
		dry:   `mutation($id: ID!) { deleteClient(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name: "createMembership",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"client": idOf(a, tok, "clients", "name", "Cedar & Pine Architects"),
				"series": idOf(a, tok, "allSeries", "name", "Daily standup"),
			}
		},
		bad: `mutation($client: ID!, $series: ID!) {
			createMembership(input: {clientId: $client, seriesId: $series, startDate: "2026-12-01", endDate: "2026-11-01"}) { membership { id } } }`,
		code: "BAD_USER_INPUT",
		dry: `mutation($client: ID!, $series: ID!) {
			createMembership(input: {clientId: $client, seriesId: $series, startDate: "2026-12-07"}, dryRun: true) { ...write membership { startDate client { name } } } }`,
		shows: "membership.startDate", want: "2026-12-07",
	},
	{
		name: "updateMembership",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"id":        membershipOf(a, tok, "Orbit Analytics", "Daily standup"),
				"otherPlan": planOf(a, tok, "Sprint cycle"),
			}
		},
		// A plan of another series than the membership's.
		bad:   `mutation($id: ID!, $otherPlan: ID!) { updateMembership(id: $id, input: {planId: $otherPlan}) { membership { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateMembership(id: $id, input: {endDate: "2027-06-30"}, dryRun: true) { ...write membership { endDate } } }`,
		shows: "membership.endDate", want: "2027-06-30",
	},
	{
		name: "deleteMembership",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": membershipOf(a, tok, "Orbit Analytics", "Daily standup")}
		},
		bad:   `mutation { deleteMembership(id: "999999") { id } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { deleteMembership(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name: "changeSession",
		setup: func(a *api, tok string) map[string]any {
			// Sprint planning is on Mondays: its class time has no session
			// on Tuesday 1 December.
			return map[string]any{
				"ref": sessionRefOf(a, tok, "2026-12-01", "Daily standup"),
				"wrong": map[string]any{"date": "2026-12-01",
					"classTimeId": idOf(a, tok, "classTimes", "label", "Sprint planning"),
					"classId":     idOf(a, tok, "classes", "name", "Sprint Planning with Mei Chen")},
			}
		},
		bad:  `mutation($wrong: SessionRefInput!) { changeSession(ref: $wrong, change: {note: "Moved"}) { session { id } } }`,
		code: "NOT_FOUND",
		dry: `mutation($ref: SessionRefInput!) { changeSession(ref: $ref, change: {start: "09:30", end: "09:45"}, dryRun: true) {
			...write session { start end changed } } }`,
		shows: "session.start", want: "09:30",
	},
	{
		name: "cancelSession",
		setup: func(a *api, tok string) map[string]any {
			ref := sessionRefOf(a, tok, "2026-12-01", "Board meeting")
			// The standup is not given in the board meeting's class time.
			wrong := map[string]any{"date": ref["date"], "classTimeId": ref["classTimeId"],
				"classId": idOf(a, tok, "classes", "name", "Standup with Mei Chen")}
			return map[string]any{"ref": ref, "wrong": wrong}
		},
		bad:   `mutation($wrong: SessionRefInput!) { cancelSession(ref: $wrong, reason: "Snow day") { session { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($ref: SessionRefInput!) { cancelSession(ref: $ref, reason: "Snow day", dryRun: true) { ...write session { cancelled cancelReason } } }`,
		shows: "session.cancelled", want: true,
	},
	{
		name: "restoreSession",
		setup: func(a *api, tok string) map[string]any {
			// The demo moves Wednesday's standup to Room B.
			ref := sessionRefOf(a, tok, "2026-12-02", "Daily standup")
			wrong := map[string]any{"date": "2026-12-05", "classTimeId": ref["classTimeId"], "classId": ref["classId"]}
			return map[string]any{"ref": ref, "wrong": wrong}
		},
		bad:   `mutation($wrong: SessionRefInput!) { restoreSession(ref: $wrong) { session { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref, dryRun: true) { ...write session { changed room { name } } } }`,
		shows: "session.room.name", want: "Room A",
	},

	{
		name: "createOneOff",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"class": idOf(a, tok, "classes", "name", "Interview with Sofia Marquez"),
				"room":  idOf(a, tok, "rooms", "name", "Room B"),
			}
		},
		bad: `mutation($class: ID!, $room: ID!) {
			createOneOff(input: {classId: $class, roomId: $room, date: "2026-12-04", start: "11:00", end: "10:00"}) { oneOff { id } } }`,
		code: "BAD_USER_INPUT",
		dry: `mutation($class: ID!, $room: ID!) {
			createOneOff(input: {classId: $class, roomId: $room, date: "2026-12-04", start: "10:00", end: "11:00", label: "Screening"}, dryRun: true) {
			...write oneOff { label date } } }`,
		shows: "oneOff.label", want: "Screening",
	},
	{
		name: "updateOneOff",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "oneOffs", "label", "Contract signing")}
		},
		// It starts at 10:00.
		bad:   `mutation($id: ID!) { updateOneOff(id: $id, input: {end: "09:00"}) { oneOff { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateOneOff(id: $id, input: {label: "Contract signing (moved)"}, dryRun: true) { ...write oneOff { label } } }`,
		shows: "oneOff.label", want: "Contract signing (moved)",
	},
	{
		name: "cancelOneOff",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "oneOffs", "label", "Contract signing")}
		},
		bad:   `mutation { cancelOneOff(id: "999999", reason: "Postponed") { oneOff { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { cancelOneOff(id: $id, reason: "Postponed", dryRun: true) { ...write oneOff { cancelled note } } }`,
		shows: "oneOff.cancelled", want: true,
	},
	{
		name: "deleteOneOff",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": idOf(a, tok, "oneOffs", "label", "Design review")}
		},
		bad:   `mutation { deleteOneOff(id: "999999") { id } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { deleteOneOff(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name: "createClosure",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"room": idOf(a, tok, "rooms", "name", "Boardroom")}
		},
		bad:  `mutation { createClosure(input: {from: "2026-12-24", to: "2026-12-20", reason: "Holidays"}) { closure { id } } }`,
		code: "BAD_USER_INPUT",
		dry: `mutation($room: ID!) { createClosure(input: {from: "2026-12-24", to: "2026-12-26", roomIds: [$room], reason: "Holidays"}, dryRun: true) {
			...write closure { reason rooms { name } } } }`,
		shows: "closure.reason", want: "Holidays",
	},
	{
		name: "deleteClosure",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"id": created(a, tok, `mutation { createClosure(input: {from: "2027-02-01", to: "2027-02-02", reason: "Inventory"}) { closure { id } } }`,
				"createClosure", "closure")}
		},
		bad:   `mutation { deleteClosure(id: "999999") { id } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { deleteClosure(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		// A weekly talk on the roof, floating time (the business's clock):
		// a room and a speaker the office does not have yet, so no clash.
		name:  "importCalendar",
		setup: func(*api, string) map[string]any { return map[string]any{"ics": roofTalks} },
		bad:   `mutation { importCalendar(ics: "BEGIN:VCALENDAR\nEND:VCALENDAR-ish") { events } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($ics: String!) { importCalendar(ics: $ics, dryRun: true) { ...write events series problems { line } } }`,
		shows: "series", want: float64(1),
	},
	{
		// Every kind has a demo, so the only bad kind is one the schema
		// refuses.
		name:  "loadDemo",
		bad:   `mutation { loadDemo(kind: POOL) { business { name } } }`,
		code:  validationFailed,
		dry:   `mutation { loadDemo(kind: GYM, dryRun: true) { ...write business { name kind } } }`,
		shows: "business.name", want: "Harbor Combat Club",
	},
	{
		// clearData takes nothing but dryRun; the settings stay.
		name:  "clearData",
		bad:   `mutation { clearData(dryRun: "yes") { business { name } } }`,
		code:  validationFailed,
		dry:   `mutation { clearData(dryRun: true) { ...write business { name } } }`,
		shows: "business.name", want: "Meridian Business Centre",
	},

	{
		name: "bookSession",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{
				"ref":   sessionRefOf(a, tok, "2026-12-08", "Daily standup"),
				"orbit": idOf(a, tok, "clients", "name", "Orbit Analytics"),
				"cedar": idOf(a, tok, "clients", "name", "Cedar & Pine Architects"),
			}
		},
		// Cedar & Pine has no membership of the standup.
		bad:   `mutation($ref: SessionRefInput!, $cedar: ID!) { bookSession(ref: $ref, clientId: $cedar) { booking { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($ref: SessionRefInput!, $orbit: ID!) { bookSession(ref: $ref, clientId: $orbit, dryRun: true) { ...write booking { status } } }`,
		shows: "booking.status", want: "BOOKED",
	},
	{
		name: "cancelBooking",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"ref": sessionRefOf(a, tok, "2026-12-08", "Daily standup"), "orbit": idOf(a, tok, "clients", "name", "Orbit Analytics")}
			vars["id"] = created(a, tok, `mutation($ref: SessionRefInput!, $orbit: ID!) { bookSession(ref: $ref, clientId: $orbit) { booking { id } } }`, "bookSession", "booking", vars)
			return vars
		},
		bad:   `mutation { cancelBooking(id: "999999") { booking { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { cancelBooking(id: $id, dryRun: true) { ...write booking { status } } }`,
		shows: "booking.status", want: "CANCELLED",
	},
	{
		name: "markAttendance",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"ref": sessionRefOf(a, tok, "2026-12-08", "Daily standup"), "orbit": idOf(a, tok, "clients", "name", "Orbit Analytics")}
			vars["future"] = created(a, tok, `mutation($ref: SessionRefInput!, $orbit: ID!) { bookSession(ref: $ref, clientId: $orbit) { booking { id } } }`, "bookSession", "booking", vars)
			vars["past"] = pastBooking(a, tok, vars["orbit"].(string))
			return vars
		},
		// A session that has not started yet cannot be attended.
		bad:   `mutation($future: ID!) { markAttendance(id: $future, status: ATTENDED) { booking { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($past: ID!) { markAttendance(id: $past, status: NO_SHOW, dryRun: true) { ...write booking { status } } }`,
		shows: "booking.status", want: "NO_SHOW",
	},
	{
		name: "bookRoom",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"room": idOf(a, tok, "rooms", "name", "Room B")}
		},
		bad:   `mutation($room: ID!) { bookRoom(input: {roomId: $room, date: "2026-12-02", start: "19:00", end: "18:00"}) { roomBooking { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($room: ID!) { bookRoom(input: {roomId: $room, date: "2026-12-02", start: "18:00", end: "19:00", note: "Evening workshop"}, dryRun: true) { ...write roomBooking { start note } } }`,
		shows: "roomBooking.note", want: "Evening workshop",
	},
	{
		name: "cancelRoomBooking",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"room": idOf(a, tok, "rooms", "name", "Room B")}
			vars["id"] = created(a, tok, `mutation($room: ID!) { bookRoom(input: {roomId: $room, date: "2026-12-02", start: "18:00", end: "19:00"}) { roomBooking { id } } }`, "bookRoom", "roomBooking", vars)
			return vars
		},
		bad:   `mutation { cancelRoomBooking(id: "999999") { roomBooking { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { cancelRoomBooking(id: $id, dryRun: true) { ...write roomBooking { cancelled } } }`,
		shows: "roomBooking.cancelled", want: true,
	},
	{
		name: "createCapacityRule",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"room": idOf(a, tok, "rooms", "name", "Room B")}
		},
		bad:   `mutation($room: ID!) { createCapacityRule(input: {roomId: $room, start: "08:00", end: "20:00", units: 1}) { capacityRule { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($room: ID!) { createCapacityRule(input: {roomId: $room, weekdays: [SUNDAY, MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY], start: "00:00", end: "24:00", units: 1}, dryRun: true) { ...write capacityRule { units } } }`,
		shows: "capacityRule.units", want: float64(1),
	},
	{
		name: "updateCapacityRule",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"room": idOf(a, tok, "rooms", "name", "Room B")}
			vars["id"] = created(a, tok, allDayRule, "createCapacityRule", "capacityRule", vars)
			return vars
		},
		bad:   `mutation($id: ID!) { updateCapacityRule(id: $id, input: {units: -1}) { capacityRule { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateCapacityRule(id: $id, input: {units: 2}, dryRun: true) { ...write capacityRule { units } } }`,
		shows: "capacityRule.units", want: float64(2),
	},
	{
		name: "deleteCapacityRule",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"room": idOf(a, tok, "rooms", "name", "Room B")}
			vars["id"] = created(a, tok, allDayRule, "createCapacityRule", "capacityRule", vars)
			return vars
		},
		bad:   `mutation { deleteCapacityRule(id: "999999") { id } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { deleteCapacityRule(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},

	{
		name: "createTimeOff",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"staff": idOf(a, tok, "staff", "name", "Mei Chen")}
		},
		bad:  `mutation($staff: ID!) { createTimeOff(input: {staffId: $staff, from: "2026-12-24", to: "2026-12-20"}) { timeOff { id } } }`,
		code: "BAD_USER_INPUT",
		dry: `mutation($staff: ID!) { createTimeOff(input: {staffId: $staff, from: "2026-12-21", to: "2026-12-23", reason: "Dentist"}, dryRun: true) {
			...write timeOff { reason staff { name } } needsCover { firstDate session { id } } } }`,
		shows: "timeOff.reason", want: "Dentist",
	},
	{
		name: "updateTimeOff",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"staff": idOf(a, tok, "staff", "name", "Mei Chen")}
			vars["id"] = created(a, tok, `mutation($staff: ID!) { createTimeOff(input: {staffId: $staff, from: "2027-02-01", to: "2027-02-02"}) { timeOff { id } } }`,
				"createTimeOff", "timeOff", vars)
			return vars
		},
		bad:   `mutation($id: ID!) { updateTimeOff(id: $id, input: {to: "2027-01-01"}) { timeOff { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { updateTimeOff(id: $id, input: {toTime: "12:00"}, dryRun: true) { ...write timeOff { toTime } } }`,
		shows: "timeOff.toTime", want: "12:00",
	},
	{
		name: "deleteTimeOff",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"staff": idOf(a, tok, "staff", "name", "Mei Chen")}
			vars["id"] = created(a, tok, `mutation($staff: ID!) { createTimeOff(input: {staffId: $staff, from: "2027-02-01", to: "2027-02-02"}) { timeOff { id } } }`,
				"createTimeOff", "timeOff", vars)
			return vars
		},
		bad:   `mutation { deleteTimeOff(id: "999999") { id } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { deleteTimeOff(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},
	{
		name: "setWorkingHours",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"staff": idOf(a, tok, "staff", "name", "Mei Chen")}
		},
		bad: `mutation($staff: ID!) { setWorkingHours(input: {staffId: $staff, from: "2027-01-04",
			spans: [{weekday: MONDAY, start: "09:00", end: "13:00"}, {weekday: MONDAY, start: "12:00", end: "17:00"}]}) { workingHours { id } } }`,
		code: "BAD_USER_INPUT",
		dry: `mutation($staff: ID!) { setWorkingHours(input: {staffId: $staff, from: "2027-01-04", spans: [{weekday: MONDAY, start: "09:00", end: "17:00"}]}, dryRun: true) {
			...write workingHours { from spans { weekday start end } } } }`,
		shows: "workingHours.from", want: "2027-01-04",
	},
	{
		name: "setQualifications",
		setup: func(a *api, tok string) map[string]any {
			return map[string]any{"staff": idOf(a, tok, "staff", "name", "Mei Chen"), "activity": idOf(a, tok, "activities", "name", "Standup")}
		},
		bad:   `mutation($staff: ID!, $activity: ID!) { setQualifications(input: {staffId: $staff, activityIds: [$activity, $activity]}) { staff { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($staff: ID!, $activity: ID!) { setQualifications(input: {staffId: $staff, activityIds: [$activity]}, dryRun: true) { ...write staff { qualifications { name } } } }`,
		shows: "staff.qualifications", want: []any{map[string]any{"name": "Standup"}},
	},
	{
		name: "assignCover",
		setup: func(a *api, tok string) map[string]any {
			ref := sessionRefOf(a, tok, "2026-12-09", "Daily standup")
			return map[string]any{"session": fmt.Sprintf("s/%s/%s/%s", ref["date"], ref["classTimeId"], ref["classId"]),
				"mei":  idOf(a, tok, "staff", "name", "Mei Chen"),
				"stan": created(a, tok, `mutation { createStaff(input: {name: "Stan Inn"}) { staff { id } } }`, "createStaff", "staff")}
		},
		bad:   `mutation($session: SessionID!, $mei: ID!) { assignCover(input: {sessionId: $session, staffId: $mei, replaces: $mei}) { revision } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($session: SessionID!, $mei: ID!, $stan: ID!) { assignCover(input: {sessionId: $session, staffId: $stan, replaces: $mei}, dryRun: true) { ...write sessions { staff { name } } } }`,
		shows: "sessions", want: []any{map[string]any{"staff": []any{map[string]any{"name": "Stan Inn"}}}},
	},
	{
		name: "deleteWorkingHours",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"staff": idOf(a, tok, "staff", "name", "Mei Chen")}
			vars["id"] = path(a.ok(tok, `mutation($staff: ID!) { setWorkingHours(input: {staffId: $staff, from: "2027-01-04", spans: []}) { workingHours { id } } }`, vars),
				"setWorkingHours", "workingHours", "id")
			return vars
		},
		bad:   `mutation { deleteWorkingHours(id: "999999") { id } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { deleteWorkingHours(id: $id, dryRun: true) { ...write id } }`,
		shows: "id", want: fromVar("id"),
	},
	{
		name:  "createStandingBooking",
		setup: standingSetup(false),
		bad:   `mutation($session: SessionID!, $client: ID!) { createStandingBooking(input: {sessionId: $session, clientId: $client, from: "2026-12-15", until: "2026-12-08"}) { standingBooking { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($session: SessionID!, $client: ID!) { createStandingBooking(input: {sessionId: $session, clientId: $client, from: "2026-12-08"}, dryRun: true) { ...write standingBooking { from } } }`,
		shows: "standingBooking.from", want: "2026-12-08",
	},
	{
		name:  "updateStandingBooking",
		setup: standingSetup(true),
		bad:   `mutation { updateStandingBooking(id: "999999", input: {}) { standingBooking { id } } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { updateStandingBooking(id: $id, input: {until: "2027-01-26"}, dryRun: true) { ...write standingBooking { until } } }`,
		shows: "standingBooking.until", want: "2027-01-26",
	},
	{
		name:  "endStandingBooking",
		setup: standingSetup(true),
		bad:   `mutation($id: ID!) { endStandingBooking(id: $id, from: "2026-11-03") { standingBooking { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { endStandingBooking(id: $id, from: "2026-12-22", dryRun: true) { ...write standingBooking { until } } }`,
		shows: "standingBooking.until", want: "2026-12-21",
	},
	{
		name:  "skipStandingDate",
		setup: standingSetup(true),
		bad:   `mutation($id: ID!) { skipStandingDate(id: $id, date: "2026-12-09") { standingBooking { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!) { skipStandingDate(id: $id, date: "2026-12-15", dryRun: true) { ...write standingBooking { id } } }`,
		shows: "standingBooking.id", want: fromVar("id"),
	},
	{
		name: "applyProposal",
		setup: func(a *api, tok string) map[string]any {
			vars := map[string]any{"a": idOf(a, tok, "activities", "name", "Standup")}
			q := `mutation($a: ID!) { proposeTimetable(input: {demand: [{activityId: $a, sessionsPerWeek: 1, minutes: 30}], timeLimit: 1, seed: 1}) { id } }`
			return map[string]any{"id": path(a.ok(tok, q, vars), "proposeTimetable", "id")}
		},
		bad:   `mutation { applyProposal(id: "999999") { revision } }`,
		code:  "NOT_FOUND",
		dry:   `mutation($id: ID!) { applyProposal(id: $id, dryRun: true) { ...write series { name } } }`,
		shows: "series", want: []any{map[string]any{"name": "Standup"}},
	},
	{
		name: "swapStandingDate",
		setup: func(a *api, tok string) map[string]any {
			vars := standingSetup(true)(a, tok)
			ref := sessionRefOf(a, tok, "2026-12-16", "Daily standup")
			vars["to"] = fmt.Sprintf("s/%s/%s/%s", ref["date"], ref["classTimeId"], ref["classId"])
			return vars
		},
		bad:   `mutation($id: ID!, $session: SessionID!) { swapStandingDate(id: $id, date: "2026-12-15", sessionId: $session) { standingBooking { id } } }`,
		code:  "BAD_USER_INPUT",
		dry:   `mutation($id: ID!, $to: SessionID!) { swapStandingDate(id: $id, date: "2026-12-15", sessionId: $to, dryRun: true) { ...write booking { session { date } } } }`,
		shows: "booking.session.date", want: "2026-12-16",
	},
}

// standingSetup names the standup of 8 December and Orbit Analytics, a
// member of its series in the office demo, and with place a standing
// place of Orbit's in it from that date.
func standingSetup(place bool) func(a *api, tok string) map[string]any {
	return func(a *api, tok string) map[string]any {
		ref := sessionRefOf(a, tok, "2026-12-08", "Daily standup")
		vars := map[string]any{"session": fmt.Sprintf("s/%s/%s/%s", ref["date"], ref["classTimeId"], ref["classId"]),
			"client": idOf(a, tok, "clients", "name", "Orbit Analytics")}
		if place {
			vars["id"] = created(a, tok, `mutation($session: SessionID!, $client: ID!) { createStandingBooking(input: {sessionId: $session, clientId: $client, from: "2026-12-08"}) { standingBooking { id } } }`,
				"createStandingBooking", "standingBooking", vars)
		}
		return vars
	}
}

// TestMutations tries every mutation with bad input, which must fail in
// plain words and write nothing, and as a dry run, which must answer with
// the change and write nothing.
func TestMutations(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		for _, tc := range mutationCases {
			t.Run(tc.name, func(t *testing.T) {
				a := a.on(t)
				tok := a.business(strings.ToLower(tc.name), engine.Office)
				vars := map[string]any{}
				if tc.setup != nil {
					vars = tc.setup(a, tok)
				}

				t.Run("bad input", func(t *testing.T) {
					a := a.on(t)
					before := a.dump(tok)
					if tc.code == validationFailed {
						refused(a, tok, tc.bad)
					} else {
						e := a.fails(tok, tc.code, tc.bad, vars)
						plainWords(t, e.Message)
					}
					if after := a.dump(tok); after != before {
						t.Errorf("a refused %s changed the business:\ngot  %s\nwant %s", tc.name, after, before)
					}
				})

				t.Run("dry run", func(t *testing.T) {
					a := a.on(t)
					before, rev := a.dump(tok), revision(a, tok)
					data := a.ok(tok, tc.dry+writeFragment, vars)
					payload := path(data, tc.name)
					if got := path(payload, "dryRun"); got != true {
						t.Errorf("dryRun: got %v, want true", got)
					}
					if got := number(path(payload, "revision")); got != rev {
						t.Errorf("revision: got %d, want %d (unchanged)", got, rev)
					}
					if got := path(payload, "clashes"); !reflect.DeepEqual(got, []any{}) {
						t.Errorf("clashes: got %v, want none", got)
					}
					want := tc.want
					if v, ok := want.(fromVar); ok {
						want = vars[string(v)]
					}
					if got := path(payload, strings.Split(tc.shows, ".")...); !reflect.DeepEqual(got, want) {
						t.Errorf("%s: got %v, want %v", tc.shows, got, want)
					}
					if got := revision(a, tok); got != rev {
						t.Errorf("revision after: got %d, want %d", got, rev)
					}
					if after := a.dump(tok); after != before {
						t.Errorf("a dry run of %s changed the business:\ngot  %s\nwant %s", tc.name, after, before)
					}
				})
			})
		}
	})
}

// TestMutationCasesCoverSchema keeps mutationCases in step with the schema.
func TestMutationCasesCoverSchema(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("schema", engine.Office)
		data := a.ok(tok, `{ __type(name: "Mutation") { fields { name } } }`, nil)
		var want []string // the schema's
		for _, f := range path(data, "__type", "fields").([]any) {
			if name := path(f, "name").(string); !credentials[name] {
				want = append(want, name)
			}
		}
		var got []string // the table's
		for _, tc := range mutationCases {
			got = append(got, tc.name)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("mutations with a case:\ngot  %v\nwant %v (the schema's)", got, want)
		}
	})
}

// TestDryRunClash puts a second session into an occupied slot of the office
// demo: the dry run reports the clash, the write is refused with it, and
// neither writes anything.
func TestDryRunClash(t *testing.T) {
	cases := []struct {
		name  string
		setup func(a *api, tok string) map[string]any
		call  string // takes $dryRun
	}{
		{
			// Sprint planning holds Room A on Mondays 10:00–12:00 every
			// other week.
			name: "createSeries",
			setup: func(a *api, tok string) map[string]any {
				return map[string]any{
					"room":     idOf(a, tok, "rooms", "name", "Room A"),
					"activity": idOf(a, tok, "activities", "name", "Interview"),
					"staff":    idOf(a, tok, "staff", "name", "Sofia Marquez"),
				}
			},
			call: `mutation($room: ID!, $activity: ID!, $staff: ID!, $dryRun: Boolean) {
				createSeries(input: {name: "Hiring day", anchorDate: "2026-11-30",
				entries: [{week: 1, classTime: {roomId: $room, weekday: MONDAY, start: "10:30", end: "11:30"}, class: {activityId: $activity, staffIds: [$staff]}}]},
				dryRun: $dryRun) { ...write } }`,
		},
		{
			// The review (14:00–15:00) then runs into the retro at 15:00.
			name: "updateClassTime",
			setup: func(a *api, tok string) map[string]any {
				return map[string]any{"id": idOf(a, tok, "classTimes", "label", "Sprint review")}
			},
			call: `mutation($id: ID!, $dryRun: Boolean) { updateClassTime(id: $id, input: {start: "14:30", end: "15:30"}, dryRun: $dryRun) { ...write } }`,
		},
		{
			// The board meets in the Boardroom on Tuesday 10:00–12:00.
			name: "changeSession",
			setup: func(a *api, tok string) map[string]any {
				return map[string]any{
					"ref":  sessionRefOf(a, tok, "2026-12-01", "Daily standup"),
					"room": idOf(a, tok, "rooms", "name", "Boardroom"),
				}
			},
			call: `mutation($ref: SessionRefInput!, $room: ID!, $dryRun: Boolean) {
				changeSession(ref: $ref, change: {roomId: $room, start: "10:00", end: "10:15"}, dryRun: $dryRun) { ...write } }`,
		},
	}
	eachDatabase(t, func(t *testing.T, a *api) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				a := a.on(t)
				tok := a.business("clash-"+strings.ToLower(tc.name), engine.Office)
				vars := tc.setup(a, tok)
				before, rev := a.dump(tok), revision(a, tok)

				vars["dryRun"] = true
				payload := path(a.ok(tok, tc.call+writeFragment, vars), tc.name)
				if got := path(payload, "dryRun"); got != true {
					t.Errorf("dryRun: got %v, want true", got)
				}
				if got := number(path(payload, "revision")); got != rev {
					t.Errorf("revision: got %d, want %d (unchanged)", got, rev)
				}
				clashes, _ := path(payload, "clashes").([]any)
				if len(clashes) == 0 {
					t.Errorf("dry run clashes: got none, want the clash it adds")
				}
				for _, c := range clashes {
					plainWords(t, path(c, "message").(string))
				}

				vars["dryRun"] = false
				e := a.fails(tok, "CLASH", tc.call+writeFragment, vars)
				plainWords(t, e.Message)
				if got, _ := e.Extensions["clashes"].([]any); len(got) == 0 {
					t.Errorf("extensions.clashes: got %v, want the clash", e.Extensions["clashes"])
				} else if len(got) != len(clashes) {
					t.Errorf("extensions.clashes: got %d, want %d as the dry run said", len(got), len(clashes))
				}

				if after := a.dump(tok); after != before {
					t.Errorf("a clashing %s changed the business:\ngot  %s\nwant %s", tc.name, after, before)
				}
			})
		}
	})
}

// TestDryRunPayloadBusiness asks the business of a dry run's payload for its
// revision: nothing was committed, so it is the revision before, like the
// payload's own.
func TestDryRunPayloadBusiness(t *testing.T) {
	cases := []struct{ field, call string }{
		{"updateBusiness", `mutation { updateBusiness(input: {name: "Meridian Towers"}, dryRun: true) { revision business { revision } } }`},
		{"loadDemo", `mutation { loadDemo(kind: GYM, dryRun: true) { revision business { revision } } }`},
		{"clearData", `mutation { clearData(dryRun: true) { revision business { revision } } }`},
	}
	eachDatabase(t, func(t *testing.T, a *api) {
		for _, tc := range cases {
			t.Run(tc.field, func(t *testing.T) {
				a := a.on(t)
				tok := a.business("revision-"+strings.ToLower(tc.field), engine.Office)
				rev := revision(a, tok)
				payload := path(a.ok(tok, tc.call, nil), tc.field)
				if got := number(path(payload, "business", "revision")); got != rev {
					t.Errorf("business.revision: got %d, want %d (nothing committed)", got, rev)
				}
			})
		}
	})
}

// TestDryRunOneOffClients books a client into a one-off as a dry run: the
// payload shows the one-off as the write would leave it, its clients too.
func TestDryRunOneOffClients(t *testing.T) {
	cases := []struct{ name, call string }{
		{"createOneOff", `mutation($class: ID!, $room: ID!, $client: ID!) { createOneOff(input: {classId: $class, roomId: $room,
			date: "2026-12-04", start: "10:00", end: "11:00", clientIds: [$client]}, dryRun: true) { oneOff { clients { name } } } }`},
		{"updateOneOff", `mutation($id: ID!, $client: ID!) { updateOneOff(id: $id, input: {clientIds: [$client]}, dryRun: true) { oneOff { clients { name } } } }`},
	}
	eachDatabase(t, func(t *testing.T, a *api) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				a := a.on(t)
				tok := a.business("attendees-"+strings.ToLower(tc.name), engine.Office)
				vars := map[string]any{
					"class":  idOf(a, tok, "classes", "name", "Interview with Sofia Marquez"),
					"room":   idOf(a, tok, "rooms", "name", "Room B"),
					"client": idOf(a, tok, "clients", "name", "Orbit Analytics"),
					"id":     idOf(a, tok, "oneOffs", "label", "Contract signing"),
				}
				got := path(a.ok(tok, tc.call, vars), tc.name, "oneOff", "clients")
				want := []any{map[string]any{"name": "Orbit Analytics"}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("oneOff.clients: got %v, want %v", got, want)
				}
			})
		}
	})
}

// TestTokens: owners make and revoke tokens, managers cannot, a new secret
// signs in and a revoked one no longer does.
func TestTokens(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("tokens", engine.Office)
		manager := a.token("tokens", models.Manager)

		e := a.fails(manager, "FORBIDDEN", `mutation { createToken(input: {role: READ_ONLY, name: "kiosk"}) { secret } }`, nil)
		plainWords(t, e.Message)

		made := path(a.ok(owner, `mutation { createToken(input: {role: READ_ONLY, name: "kiosk"}) { secret token { id name role } } }`, nil), "createToken")
		secret, _ := path(made, "secret").(string)
		id := path(made, "token", "id")
		if secret == "" {
			t.Fatalf("createToken: got no secret")
		}
		if got := path(made, "token", "role"); got != "READ_ONLY" {
			t.Errorf("info.role: got %v, want READ_ONLY", got)
		}
		if got := path(a.ok(secret, `{ business { slug } }`, nil), "business", "slug"); got != "tokens" {
			t.Errorf("the new token's business: got %v, want tokens", got)
		}
		a.fails(secret, "FORBIDDEN", `mutation { createRoom(input: {name: "Kiosk"}) { room { id } } }`, nil)

		e = a.fails(manager, "FORBIDDEN", `mutation($id: ID!) { revokeToken(id: $id) { token { id } } }`, map[string]any{"id": id})
		plainWords(t, e.Message)
		e = a.fails(owner, "NOT_FOUND", `mutation { revokeToken(id: "999999") { token { id } } }`, nil)
		plainWords(t, e.Message)

		revoked := path(a.ok(owner, `mutation($id: ID!) { revokeToken(id: $id) { token { id name } } }`, map[string]any{"id": id}), "revokeToken")
		if got := path(revoked, "token", "name"); got != "kiosk" {
			t.Errorf("revokeToken name: got %v, want kiosk", got)
		}
		// An unauthenticated request never reaches GraphQL: the handler
		// answers 401, which the client returns as an error.
		_, err := a.c.RawPost(`{ business { slug } }`, client.AddHeader("Authorization", "Bearer "+secret))
		if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "UNAUTHENTICATED") {
			t.Errorf("a revoked token: got %v, want HTTP 401 UNAUTHENTICATED", err)
		}
		for _, tk := range path(a.ok(owner, `{ tokens { nodes { id } } }`, nil), "tokens", "nodes").([]any) {
			if path(tk, "id") == id {
				t.Errorf("tokens: got the revoked token %v still listed", id)
			}
		}
	})
}

// on returns a with its helpers failing t, for use inside a subtest.
func (a *api) on(t *testing.T) *api {
	c := *a
	c.t = t
	return &c
}

// refused sends a document the schema must refuse, which the handler answers
// with HTTP 422 and gqlgen's validation code.
func refused(a *api, tok, query string) {
	a.t.Helper()
	_, err := a.c.RawPost(query, client.AddHeader("Authorization", "Bearer "+tok))
	if err == nil || !strings.Contains(err.Error(), "422") || !strings.Contains(err.Error(), validationFailed) {
		a.t.Fatalf("%s: got %v, want HTTP 422 %s", firstLine(query), err, validationFailed)
	}
}

// plainWords checks that an error message speaks to a person, not of the
// storage underneath.
func plainWords(t *testing.T, msg string) {
	t.Helper()
	if strings.TrimSpace(msg) == "" {
		t.Errorf("message: got none, want plain words")
	}
	lower := strings.ToLower(msg)
	for _, leak := range []string{"sql", "bun", "pq", "internal", "%!", "<nil>"} {
		if strings.Contains(lower, leak) {
			t.Errorf("message %q: got %q in it, want plain words", msg, leak)
		}
	}
}

// revision reads the business's revision.
func revision(a *api, tok string) int {
	a.t.Helper()
	return number(path(a.ok(tok, `{ business { revision } }`, nil), "business", "revision"))
}

func number(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// pick runs query and returns the id of the first element of the list at
// list whose value at key (a dotted path) is value.
func pick(a *api, tok, query, list, key, value string) string {
	a.t.Helper()
	for _, r := range rows(a.ok(tok, query, nil), list) {
		if path(r, strings.Split(key, ".")...) == value {
			return path(r, "id").(string)
		}
	}
	a.t.Fatalf("%s: no %s with %s %q", firstLine(query), list, key, value)
	return ""
}

// idOf returns the id of the row of list whose field is value.
func idOf(a *api, tok, list, field, value string) string {
	a.t.Helper()
	return pick(a, tok, listQuery(list, "id "+field), list, field, value)
}

// planOf returns the first plan of a series.
func planOf(a *api, tok, series string) string {
	a.t.Helper()
	return pick(a, tok, `{ plans { id series { name } } }`, "plans", "series.name", series)
}

// membershipOf returns the membership of a client of a series.
func membershipOf(a *api, tok, client, series string) string {
	a.t.Helper()
	for _, r := range rows(a.ok(tok, `{ memberships(first: 500) { nodes { id client { name } series { name } } } }`, nil), "memberships") {
		if path(r, "client", "name") == client && path(r, "series", "name") == series {
			return path(r, "id").(string)
		}
	}
	a.t.Fatalf("no membership of %s of %s", client, series)
	return ""
}

// sessionRefOf returns, as a SessionRefInput, the ref of the session with
// label on date.
func sessionRefOf(a *api, tok, date, label string) map[string]any {
	a.t.Helper()
	data := a.ok(tok, `query($d: Date!) { day(date: $d) { sessions { label ref { date classTime { id } class { id } } } } }`, map[string]any{"d": date})
	for _, s := range path(data, "day", "sessions").([]any) {
		if path(s, "label") == label && path(s, "ref") != nil {
			return map[string]any{
				"date":        path(s, "ref", "date"),
				"classTimeId": path(s, "ref", "classTime", "id"),
				"classId":     path(s, "ref", "class", "id"),
			}
		}
	}
	a.t.Fatalf("no session %q on %s", label, date)
	return nil
}

// created runs a create mutation for real and returns the new row's id.
func created(a *api, tok, query, field, object string, vars ...map[string]any) string {
	a.t.Helper()
	var v map[string]any
	if len(vars) > 0 {
		v = vars[0]
	}
	id, _ := path(a.ok(tok, query, v), field, object, "id").(string)
	if id == "" {
		a.t.Fatalf("%s: no id", firstLine(query))
	}
	return id
}

// allDayRule gives $room one unit all day, every day: no session changes.
const allDayRule = `mutation($room: ID!) { createCapacityRule(input: {roomId: $room, weekdays: [SUNDAY, MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY], start: "00:00", end: "24:00", units: 1}) { capacityRule { id } } }`

// pastBooking stores a booking of a session that has already started, as
// the past is stored: a row, not a rule.
func pastBooking(a *api, tok, client string) string {
	a.t.Helper()
	ctx := context.Background()
	b, err := models.Authenticate(ctx, a.db.DB, tok)
	if err != nil {
		a.t.Fatal(err)
	}
	var cid int64
	fmt.Sscan(client, &cid)
	row := &models.SessionBooking{BusinessID: b.BusinessID, ClientID: cid, Status: models.Booked, OneOffID: 999, CreatedUnix: now.Unix() - 86400,
		ChangedUnix: now.Unix() - 86400, SessionDate: models.Day(engine.DateOf(now)), StartMinute: 0, EndMinute: 60,
		StartsUnix: now.Unix() - 3600, Activity: "Standup", Room: "Room A", Staff: "Mei Chen"}
	if _, err := a.db.DB.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
		a.t.Fatal(err)
	}
	return fmt.Sprint(row.ID)
}
