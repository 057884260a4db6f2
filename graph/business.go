package graph

import (
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
)

// Input mapping of the business's settings (business.graphqls,
// business.resolvers.go).

func applyBusiness(dst *engine.Business, in model.BusinessInput) error {
	set(&dst.Name, in.Name)
	set(&dst.Kind, in.Kind)
	set(&dst.Currency, in.Currency)
	set(&dst.WeekStart, in.WeekStart)
	if in.TimeZone != nil {
		loc, err := time.LoadLocation(*in.TimeZone)
		if err != nil || *in.TimeZone == "" || *in.TimeZone == "Local" {
			return badInput("timeZone", "%q is not a time zone: use an IANA name such as Europe/Berlin", *in.TimeZone)
		}
		dst.Location = loc
	}
	return nil
}
