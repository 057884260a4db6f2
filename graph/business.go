package graph

import (
	"errors"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// Input mapping of the business's settings (business.graphqls,
// business.resolvers.go). None of them can be empty: null is refused.

func applyBusiness(dst *engine.Business, in model.UpdateBusinessInput) error {
	var zone string
	err := errors.Join(
		keep(&dst.Name, in.Name, "name"),
		keep(&dst.Kind, in.Kind, "kind"),
		keep(&dst.Currency, in.Currency, "currency"),
		keep(&dst.WeekStart, in.WeekStart, "weekStart"),
		keep(&zone, in.TimeZone, "timeZone"))
	if err != nil {
		return err
	}
	if in.TimeZone.IsSet() {
		loc, err := time.LoadLocation(zone)
		if err != nil || zone == "" || zone == "Local" {
			return badInput("timeZone", "%q is not a time zone: use an IANA name such as Europe/Berlin", zone)
		}
		dst.Location = loc
	}
	return nil
}

// businessPayload answers a write of the business with the business after it.
func businessPayload(res *models.Result, err error) (*model.BusinessPayload, error) {
	if err != nil {
		return nil, err
	}
	b := res.After.Business
	return &model.BusinessPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, Business: &b}, nil
}
