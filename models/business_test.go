package models_test

import (
	"context"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestTakeBackBusiness: a business no write has committed to can be taken
// back; one holding a timetable is left alone.
func TestTakeBackBusiness(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			if found, err := models.AnyBusiness(ctx, d.DB); err != nil || found {
				t.Fatalf("an empty database holds a business: %v %v", found, err)
			}
			_, kept := demoBusiness(t, d.DB, engine.Gym)
			settings, err := kept.Settings()
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := models.CreateBusiness(ctx, d.DB, "fresh", settings)
			if err != nil {
				t.Fatal(err)
			}
			if found, err := models.AnyBusiness(ctx, d.DB); err != nil || !found {
				t.Fatalf("businesses not found: %v %v", found, err)
			}
			for _, b := range []*models.Business{kept, fresh} {
				if err := models.TakeBackBusiness(ctx, d.DB, b.ID); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := models.BusinessBySlug(ctx, d.DB, "fresh"); engine.ErrorCode(err) != engine.NotFound {
				t.Errorf("the new business is still there: %v", err)
			}
			if _, err := models.BusinessBySlug(ctx, d.DB, kept.Slug); err != nil {
				t.Errorf("a business holding a timetable was taken back: %v", err)
			}
		})
	}
}
