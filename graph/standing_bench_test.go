package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkStandingWeek is a week of the gym demo asked afresh (a week not
// asked before at the revision, as BenchmarkDaysWeekUncached), with how
// many places each session has taken, without standing places and with
// 2,000 of them spread over its sessions (the issue: within 10 %).
func BenchmarkStandingWeek(b *testing.B) {
	for _, n := range []int{0, 2000} {
		b.Run(fmt.Sprintf("standing=%d", n), func(b *testing.B) {
			h, tok, store, biz := gymAPI(b, modelstest.SQLite(b), models.ReadOnly)
			if n > 0 {
				ctx := context.Background()
				if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
					var clients []int64
					if err := e.Tx.NewSelect().Model((*models.Client)(nil)).Column("id").Where("business_id = ?", biz.ID).OrderExpr("id").Scan(ctx, &clients); err != nil {
						return err
					}
					s := &e.State
					for i := range n {
						en := s.Entries[i%len(s.Entries)]
						s.Standing = append(s.Standing, engine.Standing{ID: e.NewID(), ClientID: clients[i%len(clients)],
							ClassTimeID: en.ClassTimeID, ClassID: en.ClassID, From: engine.DateOf(now), Waitlist: true})
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			q := `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions {
	id start end startsAt room { name } class { name } staff { name } series { week cycleWeeks series { name } } cancelled placesTaken placesLeft waitlist } } }`
			start := engine.MustDate(2026, 11, 29)
			i := 0
			for b.Loop() {
				from := start.AddDays(7 * (i % 2000))
				i++
				body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]string{"from": from.String(), "to": from.AddDays(7).String()}})
				req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 || bytes.Contains(w.Body.Bytes(), []byte(`"errors"`)) {
					b.Fatal(w.Body.String())
				}
			}
		})
	}
}
