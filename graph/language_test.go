package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
)

// doIn is do with an Accept-Language header.
func (a *api) doIn(lang, token, query string, vars map[string]any) result {
	a.t.Helper()
	opts := []client.Option{client.AddHeader("Authorization", "Bearer "+token), client.AddHeader("Accept-Language", lang)}
	for k, v := range vars {
		opts = append(opts, client.Var(k, v))
	}
	resp, err := a.c.RawPost(query, opts...)
	if err != nil {
		a.t.Fatalf("%s: %v", firstLine(query), err)
	}
	var r result
	if len(resp.Errors) > 0 {
		if err := json.Unmarshal(resp.Errors, &r.Errors); err != nil {
			a.t.Fatal(err)
		}
	}
	r.Data, _ = resp.Data.(map[string]any)
	return r
}

const localeQuery = `{
	business { language firstDayOfWeek clock digits revision
		locale { language rightToLeft firstDayOfWeek clock digits pluralCategories } }
	vocabulary { printTitle class { one many forms { zero one two few many other } } }
}`

// TestBusinessLanguage: updateBusiness sets the language and the locale
// facts, with defaults per language; vocabulary answers in it, or in the
// request's Accept-Language; bad input is refused and writes nothing.
func TestBusinessLanguage(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("lang", engine.Gym)
		got := a.ok(owner, localeQuery, nil)
		if path(got, "business", "language") != "en" || path(got, "business", "firstDayOfWeek") != nil ||
			path(got, "business", "locale", "firstDayOfWeek") != "SUNDAY" || path(got, "business", "locale", "clock") != "H12" ||
			path(got, "vocabulary", "class", "many") != "classes" || path(got, "vocabulary", "class", "forms", "other") != "classes" ||
			path(got, "vocabulary", "class", "forms", "few") != nil {
			t.Fatalf("English business: %v", got)
		}
		rev := path(got, "business", "revision").(float64)

		const update = `mutation($in: UpdateBusinessInput!, $dry: Boolean) { updateBusiness(input: $in, dryRun: $dry) { revision business { language } } }`
		// A dry run and refused input change nothing.
		a.ok(owner, update, map[string]any{"in": map[string]any{"language": "ar"}, "dry": true})
		for _, in := range []map[string]any{{"language": "fr"}, {"language": nil}, {"language": ""}, {"language": "ar", "digits": "ROMAN"}} {
			r := a.do(owner, update, map[string]any{"in": in})
			if len(r.Errors) == 0 || r.Errors[0].code() != "BAD_USER_INPUT" {
				t.Errorf("%v: %+v", in, r)
			}
		}
		if e := a.fails(owner, "BAD_USER_INPUT", update, map[string]any{"in": map[string]any{"language": "fr"}}); e.Extensions["field"] != "language" {
			t.Errorf("field %v", e.Extensions)
		}
		if got := a.ok(owner, localeQuery, nil); path(got, "business", "language") != "en" || path(got, "business", "revision").(float64) != rev {
			t.Fatalf("a dry run or a refused write changed the business: %v", got)
		}

		set := a.ok(owner, update, map[string]any{"in": map[string]any{"language": "ar-KW"}})
		if path(set, "updateBusiness", "business", "language") != "ar" || path(set, "updateBusiness", "revision").(float64) != rev+1 {
			t.Fatalf("set Arabic: %v", set)
		}
		got = a.ok(owner, localeQuery, nil)
		wantForms := map[string]any{"zero": "حصة", "one": "حصة", "two": "حصتان", "few": "حصص", "many": "حصة", "other": "حصة"}
		if path(got, "business", "locale", "rightToLeft") != true || path(got, "business", "locale", "firstDayOfWeek") != "SATURDAY" ||
			path(got, "business", "locale", "digits") != "ARABIC_INDIC" || path(got, "business", "locale", "clock") != "H12" ||
			len(path(got, "business", "locale", "pluralCategories").([]any)) != 6 ||
			path(got, "vocabulary", "printTitle") != "جدول التدريب" || path(got, "vocabulary", "class", "many") != "حصص" {
			t.Fatalf("Arabic business: %v", got)
		}
		forms, _ := json.Marshal(path(got, "vocabulary", "class", "forms"))
		want, _ := json.Marshal(wantForms)
		if string(forms) != string(want) {
			t.Errorf("Arabic forms %s, want %s", forms, want)
		}

		// The same language again changes nothing: the revision stays.
		again := a.ok(owner, update, map[string]any{"in": map[string]any{"language": "ar"}})
		if path(again, "updateBusiness", "revision").(float64) != rev+1 {
			t.Errorf("an unchanged language moved the revision: %v", again)
		}

		// Settings, then null back to the defaults.
		a.ok(owner, update, map[string]any{"in": map[string]any{"firstDayOfWeek": "SUNDAY", "clock": "H24", "digits": "LATIN"}})
		got = a.ok(owner, localeQuery, nil)
		if path(got, "business", "firstDayOfWeek") != "SUNDAY" || path(got, "business", "locale", "firstDayOfWeek") != "SUNDAY" ||
			path(got, "business", "clock") != "H24" || path(got, "business", "locale", "digits") != "LATIN" {
			t.Fatalf("settings: %v", got)
		}
		a.ok(owner, update, map[string]any{"in": map[string]any{"firstDayOfWeek": nil, "clock": nil, "digits": nil}})
		got = a.ok(owner, localeQuery, nil)
		if path(got, "business", "firstDayOfWeek") != nil || path(got, "business", "locale", "firstDayOfWeek") != "SATURDAY" ||
			path(got, "business", "clock") != nil || path(got, "business", "locale", "digits") != "ARABIC_INDIC" {
			t.Fatalf("cleared: %v", got)
		}

		// Accept-Language asks for another language; one the catalogues
		// lack falls back to the business's.
		ru := a.doIn("ru-RU,ru;q=0.9", owner, localeQuery, nil)
		if len(ru.Errors) > 0 || path(ru.Data, "vocabulary", "class", "forms", "many") != "занятий" || path(ru.Data, "business", "locale", "language") != "ru" ||
			path(ru.Data, "business", "language") != "ar" {
			t.Fatalf("Russian request: %+v", ru)
		}
		fr := a.doIn("fr-CH, fr;q=0.9", owner, localeQuery, nil)
		if len(fr.Errors) > 0 || path(fr.Data, "vocabulary", "class", "one") != "حصة" {
			t.Fatalf("French request: %+v", fr)
		}
	})
}
