package graph_test

import (
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

const endpointFields = `id url events description status disabledReason pending delivered failed previousSecretExpiresAt`

// TestWebhookEndpoints manages endpoints through the API: the secret is
// shown once, a dry run keeps nothing, a rotation shows the old secret's
// grace, owners and managers only, another business's endpoint is not
// found, and bad input names its field and writes nothing.
func TestWebhookEndpoints(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("hooks", engine.Gym)
		manager := a.token("hooks", models.Manager)
		desk := a.token("hooks", models.FrontDesk)
		create := `mutation($in: CreateWebhookEndpointInput!, $dry: Boolean) { createWebhookEndpoint(input: $in, dryRun: $dry) { dryRun secret endpoint { ` + endpointFields + ` } } }`
		in := map[string]any{"url": "https://93.184.215.14/hooks", "events": []any{"session.cancelled", "schedule.changed"}, "description": "SMS"}
		dry := a.ok(manager, create, map[string]any{"in": in, "dry": true})
		if path(dry, "createWebhookEndpoint", "secret") != nil {
			t.Errorf("a dry run showed a secret: %v", dry)
		}
		list := `{ webhookEndpoints { totalCount nodes { id } } }`
		if n := path(a.ok(owner, list, nil), "webhookEndpoints", "totalCount"); n != float64(0) {
			t.Fatalf("a dry run kept %v endpoints", n)
		}
		made := path(a.ok(manager, create, map[string]any{"in": in}), "createWebhookEndpoint").(map[string]any)
		secret, _ := made["secret"].(string)
		ep := made["endpoint"].(map[string]any)
		if !strings.HasPrefix(secret, "whsec_") || ep["status"] != "ACTIVE" || ep["url"] != "https://93.184.215.14/hooks" ||
			strings.Join(strs(ep["events"]), ",") != "schedule.changed,session.cancelled" {
			t.Fatalf("created %v", made)
		}
		id := ep["id"]
		one := `query($id: ID!) { webhookEndpoint(id: $id) { ` + endpointFields + ` } }`
		if strings.Contains(fmtJSON(a.ok(owner, one, map[string]any{"id": id})), "whsec_") {
			t.Error("the secret is shown again")
		}
		a.fails(desk, "FORBIDDEN", list, nil)
		a.fails(desk, "FORBIDDEN", create, map[string]any{"in": in})

		// Pause, rotate.
		upd := `mutation($id: ID!, $in: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $in) { endpoint { ` + endpointFields + ` } } }`
		got := a.ok(owner, upd, map[string]any{"id": id, "in": map[string]any{"status": "PAUSED", "description": nil}})
		if path(got, "updateWebhookEndpoint", "endpoint", "status") != "PAUSED" || path(got, "updateWebhookEndpoint", "endpoint", "description") != nil {
			t.Errorf("paused: %v", got)
		}
		rot := a.ok(owner, `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { previousSecretExpiresAt } } }`, map[string]any{"id": id})
		if s, _ := path(rot, "rotateWebhookSecret", "secret").(string); !strings.HasPrefix(s, "whsec_") || s == secret ||
			path(rot, "rotateWebhookSecret", "endpoint", "previousSecretExpiresAt") != "2026-12-02T12:00:00+03:00" { // in Kuwait
			t.Errorf("rotated: %v", rot)
		}

		// Bad input: nothing written, the field named.
		before := fmtJSON(a.ok(owner, `{ webhookEndpoints { nodes { `+endpointFields+` } } }`, nil))
		for _, c := range []struct {
			in    map[string]any
			field string
		}{
			{map[string]any{"url": "http://93.184.215.14/", "events": []any{"schedule.changed"}}, "url"},
			{map[string]any{"url": "https://me:pw@93.184.215.14/", "events": []any{"schedule.changed"}}, "url"},
			{map[string]any{"url": "https://127.0.0.1/", "events": []any{"schedule.changed"}}, "url"},
			{map[string]any{"url": "https://169.254.169.254/", "events": []any{"schedule.changed"}}, "url"},
			{map[string]any{"url": "https://93.184.215.14/", "events": []any{"session.exploded"}}, "events"},
			{map[string]any{"url": "https://93.184.215.14/", "events": []any{}}, "events"},
		} {
			e := a.fails(owner, "BAD_USER_INPUT", create, map[string]any{"in": c.in})
			if e.Extensions["field"] != c.field {
				t.Errorf("%v: field %v, want %s", c.in, e.Extensions["field"], c.field)
			}
		}
		e := a.fails(owner, "BAD_USER_INPUT", upd, map[string]any{"id": id, "in": map[string]any{"url": nil}})
		if e.Extensions["field"] != "url" {
			t.Errorf("url set to null: %v", e)
		}
		if after := fmtJSON(a.ok(owner, `{ webhookEndpoints { nodes { `+endpointFields+` } } }`, nil)); after != before {
			t.Errorf("bad input changed the endpoints:\n%s\n%s", before, after)
		}

		// Another business's endpoint is not found.
		other := a.business("elsewhere", engine.Office)
		a.fails(other, "NOT_FOUND", one, map[string]any{"id": id})
		a.fails(other, "NOT_FOUND", `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { endpoint { id } } }`, map[string]any{"id": id})
		a.fails(other, "NOT_FOUND", `query($id: ID!) { webhookDeliveries(endpointId: $id) { totalCount } }`, map[string]any{"id": id})

		// Events are queued for it, paused or not; the log starts empty.
		a.ok(owner, `mutation { createClient(input: {name: "Hook Client"}) { client { id } } }`, nil)
		got = a.ok(owner, one, map[string]any{"id": id})
		if path(got, "webhookEndpoint", "pending") != float64(1) {
			t.Errorf("a write queued %v events for the paused endpoint (it asked for schedule.changed): %v", path(got, "webhookEndpoint", "pending"), got)
		}
		log := a.ok(owner, `query($id: ID!) { webhookDeliveries(endpointId: $id, first: 10) { totalCount edges { cursor } } }`, map[string]any{"id": id})
		if path(log, "webhookDeliveries", "totalCount") != float64(0) {
			t.Errorf("log: %v", log)
		}
		types := a.ok(desk, `{ webhookEventTypes { name description } }`, nil)
		if !strings.Contains(fmtJSON(types), `"booking.promoted"`) {
			t.Errorf("event types: %v", types)
		}
		del := a.ok(owner, `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { endpoint { id } } }`, map[string]any{"id": id})
		if path(del, "deleteWebhookEndpoint", "endpoint", "id") != id {
			t.Errorf("deleted %v", del)
		}
		if n := path(a.ok(owner, list, nil), "webhookEndpoints", "totalCount"); n != float64(0) {
			t.Errorf("%v endpoints after the delete", n)
		}
	})
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
