package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/koredyne/schedule/models/modelstest"
)

// referenceExport is the reference system's own export of its gym demo.
var referenceExport = filepath.Join("..", "..", "engine", "reference", "testdata", "reference", "export-gym.json")

// TestImportDryRunAsTheRun: a dry run refuses the name of a new business
// that the real run refuses, with the same words, and creates nothing;
// the summary of both counts plans and subscriptions.
func TestImportDryRunAsTheRun(t *testing.T) {
	dir := newDatabase(t)
	args := []string{"import", "koredyne", referenceExport, "--business", "Ref Gym", "--create", "--time-zone", "Asia/Kuwait"}
	_, _, dry := run(t, dir, append(args, "--dry-run")...)
	code, _, real := run(t, dir, args...)
	want := `"Ref Gym" is not a usable name for a business: use lower-case letters, digits and dashes (such as "ref-gym")`
	if code != 2 || !strings.Contains(real, want) || dry != strings.ReplaceAll(real, "--dry-run", "") {
		t.Errorf("a name no business can have: exit %d\nrun:     %q\ndry run: %q\nwant both to say %q", code, real, dry, want)
	}
	store := storedStore(t, dir)
	if n, err := store.DB.NewSelect().Table("businesses").Count(context.Background()); err != nil || n != 0 {
		t.Errorf("%d businesses after the refusals (%v)", n, err)
	}
	var x struct{ Tables map[string][]any }
	b, err := os.ReadFile(referenceExport)
	if err != nil || json.Unmarshal(b, &x) != nil {
		t.Fatal(err)
	}
	counts := fmt.Sprintf("%d plans, %d clients, %d subscriptions", len(x.Tables["package_plans"]), len(x.Tables["members"]), len(x.Tables["package_members"]))
	for _, dry := range []bool{true, false} {
		args := []string{"import", "koredyne", referenceExport, "--business", "ref-gym", "--create", "--time-zone", "Asia/Kuwait"}
		if dry {
			args = append(args, "--dry-run")
		}
		code, out, errs := run(t, dir, args...)
		if code != 0 || !strings.Contains(out, counts) {
			t.Errorf("dry run %v: exit %d, %q %q; want it to count %q", dry, code, out, errs, counts)
		}
	}
}

// TestBrokenExportsSaySo: an export whose every slot names a room that is
// not there says so in a few lines (three of them and a count), not a
// line per slot; one cut short says where it ends, by line and byte.
func TestBrokenExportsSaySo(t *testing.T) {
	dir := newDatabase(t)
	b, err := os.ReadFile(referenceExport)
	if err != nil {
		t.Fatal(err)
	}
	var x map[string]any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	x["tables"].(map[string]any)["areas"] = []any{}
	broken := filepath.Join(t.TempDir(), "broken.json")
	nb, _ := json.Marshal(x)
	os.WriteFile(broken, nb, 0o600)
	code, _, errs := run(t, dir, "import", "koredyne", broken, "--business", "ref-gym", "--create", "--time-zone", "Asia/Kuwait")
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if code != 1 || len(lines) != 6 || len(errs) > 600 || !strings.Contains(errs, "the export cannot be imported (110 problems):") ||
		!strings.Contains(errs, "\n  and 106 more like these in slots, area_id\n") {
		t.Errorf("every slot's room gone: exit %d, %d lines, %d bytes:\n%s", code, len(lines), len(errs), errs)
	}

	cut := filepath.Join(t.TempDir(), "cut.json")
	os.WriteFile(cut, b[:30000], 0o600)
	code, _, errs = run(t, dir, "import", "koredyne", cut, "--business", "ref-gym", "--create", "--time-zone", "Asia/Kuwait")
	want := fmt.Sprintf("ends early, at line %d, column %d (byte offset 30000)", strings.Count(string(b[:30000]), "\n")+1,
		30000-strings.LastIndex(string(b[:30000]), "\n"))
	if code != 1 || !strings.Contains(errs, want) {
		t.Errorf("a file cut short: exit %d %q, want %q", code, errs, want)
	}

	// A backup cut short says the same.
	if code, _, errs := run(t, dir, "demo", "load", "gym", "--business", "gym"); code != 0 {
		t.Fatal(errs)
	}
	backup := filepath.Join(t.TempDir(), "backup.json")
	if code, _, errs := run(t, dir, "export", "json", "--business", "gym", "--out", backup); code != 0 {
		t.Fatal(errs)
	}
	whole, _ := os.ReadFile(backup)
	os.WriteFile(backup, whole[:5000], 0o600)
	want = fmt.Sprintf("ends early, at line %d, column %d (byte offset 5000)", strings.Count(string(whole[:5000]), "\n")+1,
		5000-strings.LastIndex(string(whole[:5000]), "\n"))
	if code, _, errs := run(t, dir, "import", "json", backup, "--business", "gym-copy"); code != 1 || !strings.Contains(errs, want) {
		t.Errorf("a backup cut short: exit %d %q, want %q", code, errs, want)
	}
}

// TestHelpListsWhatItNames: every flag a command's help names is listed
// there with its description, and no flag gives two defaults.
func TestHelpListsWhatItNames(t *testing.T) {
	flag := regexp.MustCompile(`--[a-z][a-z-]+`)
	for _, path := range [][]string{nil, {"serve"}, {"migrate"}, {"migrate", "up"}, {"token"}, {"token", "create"}, {"token", "list"},
		{"token", "revoke"}, {"demo", "load"}, {"export", "json"}, {"import", "koredyne"}, {"import", "ics"}, {"import", "json"}} {
		_, out, _ := mainWith(nil, append(path, "--help")...)
		listed := map[string]bool{}
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "--") {
				listed[strings.TrimSuffix(f[0], ",")] = true
			}
			if strings.Count(line, "(default:") > 1 {
				t.Errorf("%v --help gives two defaults: %s", path, strings.TrimSpace(line))
			}
		}
		for _, named := range flag.FindAllString(out, -1) {
			if !listed[named] && named != "--help" {
				t.Errorf("%v --help names %s but does not list it:\n%s", path, named, out)
			}
		}
	}
	_, out, _ := mainWith(nil, "migrate", "--help")
	for _, usage := range []string{"directory of the SQLite database", "most PostgreSQL connections"} {
		if !strings.Contains(out, usage) {
			t.Errorf("migrate --help lacks %q:\n%s", usage, out)
		}
	}
	_, out, _ = mainWith(nil, "serve", "--help")
	if !strings.Contains(out, "(default: the CPUs Go uses)") {
		t.Errorf("serve --help does not say --cold-loads' default:\n%s", out)
	}
}

// tokenIDs reads the ids token list prints.
func tokenIDs(t *testing.T, list string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) == 0 || strings.Join(strings.Fields(lines[0]), " ") != "ID ROLE NAME FOR" {
		t.Fatalf("token list:\n%s", list)
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		out[f[0]] = strings.Join(f[1:], " ")
	}
	return out
}

// TestTokenListAndRevoke lists the tokens token create made (never their
// secrets) and revokes one by its id, on the database a server runs on:
// the server refuses it from the next request on and ends the websocket and
// event stream opened with it (4403, as GraphQL's revokeToken), while the
// others go on. On PostgreSQL the server hears the revocation from the
// command's process; on SQLite it finds it.
func TestTokenListAndRevoke(t *testing.T) {
	for _, db := range databases(t) {
		t.Run(db.name, func(t *testing.T) {
			s := startMain(t, db.env, db.where...)
			defer s.stop()
			main := func(args ...string) (int, string, string) {
				return mainWith(db.env, append(args, db.where...)...)
			}
			code, secret, errs := main("token", "create", "--business", "demo", "--role", "read_only", "--name", "front desk")
			if code != 0 {
				t.Fatal(errs)
			}
			secret = strings.TrimSpace(secret)
			code, list, errs := main("token", "list", "--business", "demo")
			if code != 0 || strings.Contains(list, secret) || strings.Contains(list, bootstrapToken) {
				t.Fatalf("token list: exit %d %s\n%s", code, errs, list)
			}
			ids := tokenIDs(t, list)
			var id string
			for k, v := range ids {
				if v == "read_only front desk" {
					id = k
				}
			}
			if len(ids) != 2 || id == "" {
				t.Fatalf("token list shows %v, want the bootstrap token and the front desk's", ids)
			}

			ws := subscribe(t, s.url, secret)
			sse := eventStream(t, s.url, secret)
			other := subscribe(t, s.url, bootstrapToken)
			waitSubscribed(t, s.url, 3)

			if code, out, errs := main("token", "revoke", id, "--business", "demo"); code != 0 || !strings.Contains(out, `revoked token `+id+` "front desk" (read_only)`) {
				t.Fatalf("token revoke: exit %d %q %q", code, out, errs)
			}
			if _, errs := post(t, s.url, secret, `{ business { slug } }`, nil); len(errs) == 0 || errs[0]["extensions"].(map[string]any)["code"] != "UNAUTHENTICATED" {
				t.Errorf("the revoked token still reads: %v", errs)
			}
			if code, reason := ws.closed(); code != 4403 {
				t.Errorf("the revoked token's websocket closed with %d %q, want 4403", code, reason)
			}
			waitLine(t, sse, "event: complete")
			changeSchedule(t, s.url, 1)
			if m := other.next(); m["type"] != "next" {
				t.Errorf("another token's subscription heard %v after the revocation, want the change", m)
			}
			if code, _, errs := main("token", "revoke", id, "--business", "demo"); code != 1 || !strings.Contains(errs, "no token with id "+id) {
				t.Errorf("revoking it again: exit %d %q", code, errs)
			}
			if _, list, _ := main("token", "list", "--business", "demo"); len(tokenIDs(t, list)) != 1 {
				t.Errorf("token list after the revocation:\n%s", list)
			}
		})
	}
}

// database is where a test runs the commands and a server: SQLite in a
// directory, and PostgreSQL when the tests have one.
type database struct {
	name  string
	env   map[string]string
	where []string
}

func databases(t *testing.T) []database {
	t.Helper()
	env := map[string]string{"KOREDYNE_BOOTSTRAP_TOKEN": bootstrapToken}
	out := []database{{name: "sqlite", env: env, where: []string{"--data", t.TempDir()}}}
	if pg, ok := modelstest.EmptyPostgres(t); ok {
		out = append(out, database{name: "postgres", env: map[string]string{"KOREDYNE_BOOTSTRAP_TOKEN": bootstrapToken, "DATABASE_URL": pg}})
	}
	return out
}
