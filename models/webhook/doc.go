// Package webhook sends a business's events to the HTTP endpoints its
// owners register, as the Standard Webhooks specification 1.0.0 says
// (github.com/standard-webhooks/standard-webhooks, spec/standard-webhooks.md):
// a POST of the event's JSON with the headers webhook-id (the event's id,
// the same on every attempt: the receiver's idempotency key),
// webhook-timestamp (the attempt's Unix time) and webhook-signature
// ("v1," and the base64 HMAC-SHA256 of "id.timestamp.body" keyed with the
// secret's base64-decoded bytes; during a rotation one signature per
// secret, space-separated).
//
// The events themselves are written by the guarded write, in its
// transaction (an outbox: package models); this package holds what does
// not touch the database: the registry of event types, the signature,
// which addresses an endpoint may have (Policy, checked again as each
// attempt connects), one attempt (Sender), the retry schedule and the
// Dispatcher that drains each endpoint's queue through the Queue it is
// given, which models.Store satisfies. It imports nothing of the project
// but the engine's error vocabulary, so graph checks endpoints with it
// without reaching the database.
package webhook
