// Verifies Standard Webhooks signatures with the specification's own
// JavaScript library (npm standardwebhooks), as a receiver would: one JSON
// line on stdin per request, {"secret", "headers", "body"}, answered by one
// line on stdout, {"ok": true} or {"ok": false, "error"}. The Go tests of
// cmd/koredyne send every request their receivers get through it.
import { createInterface } from "node:readline";
import { Webhook } from "standardwebhooks";

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let answer;
  try {
    const { secret, headers, body } = JSON.parse(line);
    new Webhook(secret).verify(body, headers);
    answer = { ok: true };
  } catch (err) {
    answer = { ok: false, error: String(err && err.message ? err.message : err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
