package graph

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
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
		keep(&zone, in.TimeZone, "timeZone"),
		applyLocale(&dst.Locale, in))
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

// applyLocale maps the language and the locale facts; the facts clear to
// the language's default.
func applyLocale(dst *engine.Locale, in model.UpdateBusinessInput) error {
	var lang string
	if err := keep(&lang, in.Language, "language"); err != nil {
		return err
	}
	if in.Language.IsSet() {
		name, ok := locale.Match(lang)
		if !ok || strings.TrimSpace(lang) == "" {
			return badInput("language", "%q is not a language the business's words are written in: use one of %s", lang, strings.Join(locale.Languages, ", "))
		}
		dst.Language = name
	}
	if p, ok := in.FirstDayOfWeek.ValueOK(); ok {
		dst.FirstDay = 0
		if p != nil {
			dst.FirstDay = int8(*p) + 1
		}
	}
	if p, ok := in.Clock.ValueOK(); ok {
		dst.Clock = 0
		if p != nil {
			dst.Clock = map[model.Clock]int8{model.ClockH12: 12, model.ClockH24: 24}[*p]
		}
	}
	if p, ok := in.Digits.ValueOK(); ok {
		dst.Digits = ""
		if p != nil {
			dst.Digits = map[model.Digits]string{model.DigitsLatin: "latn", model.DigitsArabicIndic: "arab"}[*p]
		}
	}
	return nil
}

func firstDayOf(d int8) *time.Weekday {
	if d <= 0 {
		return nil
	}
	w := time.Weekday(d - 1)
	return &w
}

func clockOf(c int) *model.Clock {
	var v model.Clock
	switch c {
	case 12:
		v = model.ClockH12
	case 24:
		v = model.ClockH24
	default:
		return nil
	}
	return &v
}

func digitsOf(d string) *model.Digits {
	var v model.Digits
	switch d {
	case "latn":
		v = model.DigitsLatin
	case "arab":
		v = model.DigitsArabicIndic
	default:
		return nil
	}
	return &v
}

// localeOf answers the facts a locale writes by.
func localeOf(l *locale.Locale) *model.Locale {
	return &model.Locale{Language: l.Language, RightToLeft: l.RTL(), FirstDayOfWeek: l.FirstDay,
		Clock: *clockOf(l.Clock), Digits: *digitsOf(l.Digits), PluralCategories: l.Categories()}
}

// locale is the locale the request reads the business in: its language, or
// the one the request's Accept-Language asks for.
func (r *Resolver) locale(ctx context.Context, b engine.Business) *locale.Locale {
	accept := ""
	if rq := requestFrom(ctx); rq != nil {
		accept = rq.acceptLanguage
	}
	return locale.ForBusiness(b, accept)
}

// rowLocale is the locale settings of a business's row.
func rowLocale(b *models.Business) engine.Business {
	return engine.Business{WeekStart: time.Weekday(b.WeekStart),
		Locale: engine.Locale{Language: b.Language, FirstDay: b.FirstDay, Clock: b.Clock, Digits: b.Digits}}
}
