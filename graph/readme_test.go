package graph_test

import (
	"os"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// TestReadmeAssistantExamples runs the README's example of each part of
// the assistant on the gym demo, one operation at a time as a newcomer
// pastes them into GraphiQL, in order: every one answers without an error,
// the demo's week away has sessions needing cover and a plan to cover them,
// and the class still has places to go.
func TestReadmeAssistantExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "**The assistant.**")
	_, rest, ok2 := strings.Cut(rest, "```graphql\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("the README has no graphql block after **The assistant.**")
	}
	ops := operations(block)
	if len(ops) != 5 {
		t.Fatalf("%d operations, want one each for time off, hours, qualifications, cover and placements:\n%q", len(ops), ops)
	}
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("demo", engine.Gym)
		for _, op := range ops {
			r := a.do(tok, op, nil)
			if len(r.Errors) > 0 {
				t.Errorf("%s\n: %+v", op, r.Errors)
				continue
			}
			if strings.Contains(op, "placements") {
				if n := path(r.Data, "placements", "totalCount"); n == float64(0) {
					t.Errorf("no placements, after the examples before them: %v", r.Data)
				}
			}
			if strings.Contains(op, "coverPlan") {
				data := r.Data
				if len(path(data, "sessionsNeedingCover").([]any)) == 0 || len(path(data, "coverPlan", "assignments").([]any))+len(path(data, "coverPlan", "open").([]any)) == 0 {
					t.Errorf("the demo's week away: %v", data)
				}
			}
		}
	})
}

// operations splits a block of GraphQL into its operations, at each brace
// that closes its outermost level.
func operations(block string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(block); i++ {
		switch block[i] {
		case '#':
			for i < len(block) && block[i] != '\n' {
				i++
			}
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				out = append(out, strings.TrimSpace(block[start:i+1]))
				start = i + 1
			}
		}
	}
	return out
}
