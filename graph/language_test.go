package graph_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
)

// doIn is do with an Accept-Language header.
func (a *api) doIn(lang, token, query string, vars map[string]any) result {
	a.t.Helper()
	return a.send(token, query, vars, client.AddHeader("Accept-Language", lang))
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

		// Stored, not only cached: a server started afresh on the database
		// reads it.
		fresh := &graph.Resolver{Store: models.NewStore(a.db.DB, func() time.Time { return now }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		restarted := (&api{t: t, db: a.db, handler: fresh.Handler()})
		restarted.c = client.New(restarted.handler)
		if got := restarted.ok(owner, `{ business { language } }`, nil); path(got, "business", "language") != "ar" {
			t.Fatalf("after a restart: %v", got)
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

// TestErrorsSpeakTheLanguage: every error message is in the business's
// language, or the request's Accept-Language; extensions.code and field
// stay as they are, and English stays as the code writes it.
func TestErrorsSpeakTheLanguage(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("errs", engine.Gym)
		const missing = `{ staffMember(id: "999") { id } }`
		const zone = `mutation { updateBusiness(input: {timeZone: "Mars/Base"}) { revision } }`
		if e := a.fails(owner, "NOT_FOUND", missing, nil); e.Message != "There is no coach with id 999" || e.Extensions["field"] != "id" {
			t.Fatalf("English: %+v", e)
		}
		a.ok(owner, `mutation { updateBusiness(input: {language: "ar"}) { revision } }`, nil)
		cases := []struct {
			lang, query, code, field, want string
		}{
			{"", missing, "NOT_FOUND", "id", "لا يوجد مدرب بالمعرّف ٩٩٩"},
			{"tr-TR", missing, "NOT_FOUND", "id", "Böyle bir antrenör yok (kimlik 999)"},
			{"ru", missing, "NOT_FOUND", "id", "Нет записи «тренер» с id 999"},
			{"en-GB", missing, "NOT_FOUND", "id", "There is no coach with id 999"},
			{"fr", missing, "NOT_FOUND", "id", "لا يوجد مدرب بالمعرّف ٩٩٩"},
			{"", zone, "BAD_USER_INPUT", "timeZone", `"Mars/Base" ليست منطقة زمنية: استخدم اسمًا من IANA مثل Europe/Berlin`},
			{"ru", zone, "BAD_USER_INPUT", "timeZone", `"Mars/Base" — не часовой пояс: используйте имя IANA, например Europe/Berlin`},
		}
		for _, c := range cases {
			r := a.doIn(c.lang, owner, c.query, nil)
			if len(r.Errors) != 1 {
				t.Errorf("%s %s: %+v", c.lang, firstLine(c.query), r)
				continue
			}
			e := r.Errors[0]
			field, _ := e.Extensions["field"].(string)
			if e.code() != c.code || field != c.field || e.Message != c.want {
				t.Errorf("%s %s: got %s %q %q, want %s %q %q", c.lang, firstLine(c.query), e.code(), field, e.Message, c.code, c.field, c.want)
			}
		}

		// gqlgen's own errors, about the query's text, say what they are in
		// the language and quote gqlgen's words.
		req := httptest.NewRequest("POST", "/graphql", strings.NewReader(`{"query": "{ nosuch }"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+owner)
		w := httptest.NewRecorder()
		a.handler.ServeHTTP(w, req)
		var r result
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || len(r.Errors) != 1 {
			t.Fatalf("%d %s: %v", w.Code, w.Body, err)
		}
		if e := r.Errors[0]; e.code() != "GRAPHQL_VALIDATION_FAILED" || e.Message != `الاستعلام لا يطابق المخطط: لا يوجد الحقل "nosuch" في النوع "Query".` {
			t.Errorf("validation: %+v", e)
		}
		// The sentences of gqlparser the catalogues have are translated,
		// the names they quote and what gqlparser suggests kept; the
		// locations and the code are gqlgen's, in every language.
		for _, c := range []struct{ lang, query, code, want string }{
			{"ru", "{\\n  business { slugg } }", "GRAPHQL_VALIDATION_FAILED", `Запрос не соответствует схеме: У типа "Business" нет поля "slugg". Did you mean "slug"?`},
			{"tr", "{ staffMember { id } }", "GRAPHQL_VALIDATION_FAILED", `Sorgu şemaya uymuyor: "staffMember" alanının "ID!" türündeki "id" argümanı zorunlu, ama verilmedi.`},
			{"en", "{\\n  business { slugg } }", "GRAPHQL_VALIDATION_FAILED", `Cannot query field "slugg" on type "Business". Did you mean "slug"?`},
			{"ar", "{ business { slug ", "GRAPHQL_PARSE_FAILED", ""},
		} {
			req := httptest.NewRequest("POST", "/graphql", strings.NewReader(`{"query": "`+c.query+`"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+owner)
			req.Header.Set("Accept-Language", c.lang)
			w := httptest.NewRecorder()
			a.handler.ServeHTTP(w, req)
			var r struct {
				Errors []struct {
					Message    string
					Locations  []struct{ Line, Column int }
					Extensions map[string]any
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || len(r.Errors) != 1 {
				t.Fatalf("%s %s: %d %s: %v", c.lang, c.query, w.Code, w.Body, err)
			}
			e := r.Errors[0]
			if e.Extensions["code"] != c.code || len(e.Locations) != 1 || e.Locations[0].Line == 0 {
				t.Errorf("%s %s: code %v, locations %v", c.lang, c.query, e.Extensions["code"], e.Locations)
			}
			if c.want != "" && e.Message != c.want {
				t.Errorf("%s %s: got %q, want %q", c.lang, c.query, e.Message, c.want)
			}
			if c.want == "" && !strings.HasPrefix(e.Message, "تعذّرت قراءة الاستعلام: ") && !strings.HasPrefix(e.Message, "لا يمكن قراءة الاستعلام: ") {
				t.Errorf("%s %s: %q does not lead in Arabic", c.lang, c.query, e.Message)
			}
		}
		if got := w.Header().Get("Content-Language"); got != "ar" {
			t.Errorf("Content-Language %q, want ar", got)
		}

		// Refusals of a request's shape come after its token: in its
		// business's language, or the one it asks for.
		for _, c := range []struct{ lang, body, want string }{
			{"", `{"query": `, "جسم الطلب ليس JSON"},
			{"ru", `[{"query": "{ business { slug } }"}]`, "Пакеты запросов не поддерживаются: отправляйте одну операцию на запрос"},
			{"", `{"query": 7}`, `يجب أن يكون "query" سلسلة نصية`},
			{"tr", `{"query": "{ business { slug } }", "variables": []}`, `"variables" bir nesne olmalı`},
		} {
			req := httptest.NewRequest("POST", "/graphql", strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+owner)
			req.Header.Set("Accept-Language", c.lang)
			w := httptest.NewRecorder()
			a.handler.ServeHTTP(w, req)
			var r result
			if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || len(r.Errors) != 1 {
				t.Fatalf("%s: %d %s: %v", c.body, w.Code, w.Body, err)
			}
			if e := r.Errors[0]; w.Code != 400 || e.code() != "BAD_REQUEST" || e.Message != c.want {
				t.Errorf("%s %q: %d %s %q, want 400 BAD_REQUEST %q", c.body, c.lang, w.Code, e.code(), e.Message, c.want)
			}
		}
	})
}

// TestClashesSpeakTheLanguage: a clash's message is written from its facts
// in the business's language (English: the reference format, unchanged),
// in a dry run's payload and in a refused write's error alike.
func TestClashesSpeakTheLanguage(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("clashlang", engine.Gym)
		day := a.ok(owner, `{ day(date: "2026-12-02") { sessions { id start end room { id name } } } }`, nil)
		var move, onto map[string]any
		seen := map[any]map[string]any{}
		for _, s := range path(day, "day", "sessions").([]any) {
			s := s.(map[string]any)
			room := path(s, "room", "id")
			if other, ok := seen[room]; ok && other["start"] != s["start"] {
				move, onto = s, other
				break
			}
			seen[room] = s
		}
		if move == nil {
			t.Fatal("no two sessions in one room on 2026-12-02")
		}
		const change = `mutation($id: SessionID!, $start: LocalTime!, $end: LocalTime!, $dry: Boolean) {
			changeSession(sessionId: $id, change: {start: $start, end: $end}, dryRun: $dry) { clashes { message } } }`
		vars := map[string]any{"id": move["id"], "start": onto["start"], "end": onto["end"], "dry": true}
		english := a.ok(owner, change, vars)
		enMsg, _ := path(english, "changeSession", "clashes").([]any)[0].(map[string]any)["message"].(string)
		if !strings.Contains(enMsg, " double-booked: ") && !strings.Contains(enMsg, " over capacity") {
			t.Fatalf("English clash %q", enMsg)
		}
		a.ok(owner, `mutation { updateBusiness(input: {language: "ar"}) { revision } }`, nil)
		arabic := a.ok(owner, change, vars)
		arMsg, _ := path(arabic, "changeSession", "clashes").([]any)[0].(map[string]any)["message"].(string)
		if arMsg == enMsg || !strings.Contains(arMsg, "٢٠٢٦") && !strings.Contains(arMsg, "ديسمبر") || strings.Contains(arMsg, "double-booked") || strings.Contains(arMsg, " AM") {
			t.Errorf("Arabic clash %q (English %q)", arMsg, enMsg)
		}
		ru := a.doIn("ru", owner, change, vars)
		ruMsg, _ := path(ru.Data, "changeSession", "clashes").([]any)[0].(map[string]any)["message"].(string)
		if !strings.Contains(ruMsg, "декабря") || strings.Contains(ruMsg, "double-booked") {
			t.Errorf("Russian clash %q", ruMsg)
		}
		delete(vars, "dry")
		r := a.do(owner, change, vars)
		if len(r.Errors) != 1 || r.Errors[0].code() != "CLASH" || r.Errors[0].Message != arMsg {
			t.Fatalf("refused write: %+v, want the message %q", r.Errors, arMsg)
		}
		list, _ := r.Errors[0].Extensions["clashes"].([]any)
		if len(list) != 1 || path(list[0], "message") != arMsg {
			t.Errorf("extensions.clashes %v", list)
		}
	})
}
