package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest"
)

// askRevision sends a GraphQL query with the Koredyne-Revision header (when rev is
// not empty) and returns the status, the revision the response names,
// and the business's revision it read.
func askRevision(t *testing.T, url, query, rev string) (status int, header string, read int64, body string) {
	t.Helper()
	return askRevisionAs(t, url, bootstrapToken, query, rev)
}

// askRevisionAs is askRevision with another token.
func askRevisionAs(t *testing.T, url, token, query, rev string) (status int, header string, read int64, body string) {
	t.Helper()
	data, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest("POST", url+"/graphql", bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if rev != "" {
		req.Header.Set("Koredyne-Revision", rev)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Data struct {
			Business      struct{ Revision int64 }
			CreateClosure struct{ Revision int64 }
		}
	}
	json.Unmarshal(b, &out)
	read = max(out.Data.Business.Revision, out.Data.CreateClosure.Revision)
	return resp.StatusCode, resp.Header.Get("Koredyne-Revision"), read, string(b)
}

// newToken makes a token through the API and returns its secret: a token
// no server holds in memory yet, whose check goes to the database.
func newToken(t *testing.T, url string) string {
	t.Helper()
	status, _, _, body := askRevision(t, url, `mutation { createToken(input: {role: READ_ONLY}) { secret } }`, "")
	var out struct {
		Data struct{ CreateToken struct{ Secret string } }
	}
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil || out.Data.CreateToken.Secret == "" {
		t.Fatalf("making a token: %d %v %s", status, err, body)
	}
	return out.Data.CreateToken.Secret
}

// TestServeWithReplica runs `koredyne serve` on a real primary with a
// streaming replica (KOREDYNE_REPLICA_URLS): responses name their
// revision, a client that sends it back reads its write while the replica
// is stopped in the past, and with the replica down no request fails.
// Tokens the server holds in memory (models.tokenCache) read nothing, so
// new tokens show where a read goes.
func TestServeWithReplica(t *testing.T) {
	rs := modelstest.Replication(t)
	p := startProcess(t, buildMain(t), rs.PrimaryDSN, "KOREDYNE_REPLICA_URLS="+rs.ReplicaDSN, "KOREDYNE_RATE_LIMIT=0")
	const read = `{ business { revision } }`
	status, header, rev, body := askRevision(t, p.url, read, "")
	if status != 200 || header != strconv.FormatInt(rev, 10) {
		t.Fatalf("%d, Koredyne-Revision %q for revision %d: %s", status, header, rev, body)
	}
	if status, _, _, body := askRevision(t, p.url, read, "yesterday"); status != 400 || !bytes.Contains([]byte(body), []byte(`"BAD_REQUEST"`)) {
		t.Errorf("a bad Koredyne-Revision: %d %s", status, body)
	}
	// Reads go to the replica once the server has seen it catch up (on a
	// busy machine the first read may come before).
	deadline := time.Now().Add(10 * time.Second)
	for replicaReads(t, p.url, "replica") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no read goes to the replica")
		}
		time.Sleep(20 * time.Millisecond)
		askRevision(t, p.url, read, "")
	}

	// The replica stops in the past; a client writes and reads its write.
	rs.Replica.SQL(t, "SELECT pg_wal_replay_pause()")
	status, header, wrote, body := askRevision(t, p.url, `mutation { createClosure(input: {from: "2090-01-01", to: "2090-01-02", reason: "test"}) { revision } }`, "")
	if status != 200 || wrote != rev+1 || header != strconv.FormatInt(wrote, 10) {
		t.Fatalf("the write: %d, Koredyne-Revision %q: %s", status, header, body)
	}
	reader := newToken(t, p.url) // unknown to the replica, stopped before it
	for _, tok := range []string{bootstrapToken, reader} {
		for range 5 {
			if _, header, got, body := askRevisionAs(t, p.url, tok, read, header); got != wrote || header != strconv.FormatInt(wrote, 10) {
				t.Fatalf("read after writing %d: revision %d, header %q: %s", wrote, got, header, body)
			}
		}
	}
	rs.Replica.SQL(t, "SELECT pg_wal_replay_resume()")

	// The replica goes down: every request is answered from the primary.
	reader = newToken(t, p.url)
	rs.Replica.Stop()
	for i := range 20 {
		tok := bootstrapToken
		if i%2 == 1 {
			tok = reader
		}
		if status, _, got, body := askRevisionAs(t, p.url, tok, read, ""); status != 200 || got != wrote {
			t.Fatalf("request %d with the replica down: %d, revision %d: %s", i, status, got, body)
		}
	}
	if replicaReads(t, p.url, "primary_behind") == 0 {
		t.Error("no reads counted for the primary while the replica was behind")
	}
	if replicaReads(t, p.url, "primary_down")+replicaReads(t, p.url, "primary_none") == 0 {
		t.Error("no reads counted on the primary with the replica down")
	}
}

// replicaReads is the reads the server at url has counted for target
// (koredyne_replica_reads_total).
func replicaReads(t *testing.T, url, target string) int {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(fmt.Sprintf(`koredyne_replica_reads_total\{target="%s"\} (\d+)`, target)).FindSubmatch(metrics)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
