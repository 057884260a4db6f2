package graph

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// checkShape refuses what GraphQL over HTTP calls a malformed request
// before it reaches gqlgen (which answers some of them as internal errors,
// and echoes the body back): methods other than GET and POST, a POST body
// that is not application/json, not JSON, empty, a batch, or whose members
// have the wrong types, and a GET that would run a mutation or a
// subscription. It returns the status and error to answer with, or nil.
// Websocket upgrades and CORS preflights pass.
func checkShape(req *http.Request, body []byte) (int, *apiError) {
	if isWebsocket(req) {
		return 0, nil
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		return checkGet(req)
	case http.MethodPost:
	case http.MethodOptions:
		return 0, nil
	default:
		return http.StatusMethodNotAllowed, errMethod
	}
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, errMediaType
	}
	b := bytes.TrimSpace(body)
	switch {
	case len(b) == 0:
		return http.StatusBadRequest, badRequest(`The request body is empty: send a JSON object with "query"`)
	case !json.Valid(b):
		return http.StatusBadRequest, badRequest("The request body is not JSON")
	case b[0] == '[':
		return http.StatusBadRequest, badRequest("Batches are not supported: send one operation per request")
	case b[0] != '{':
		return http.StatusBadRequest, badRequest(`The request body must be a JSON object with "query"`)
	}
	// The members are looked at where they lie: a copy of each would
	// double a large body in memory.
	var wrong *apiError
	eachMember(b, func(name string, v []byte) {
		// gqlgen decodes with encoding/json, which matches names in any case.
		switch want := kindOf(name); {
		case wrong != nil || want == "" || string(v) == "null":
		case jsonKind(v) == want:
		case want == "object":
			wrong = badRequest("%q must be an object", name)
		default:
			wrong = badRequest("%q must be a string", name)
		}
	})
	if wrong != nil {
		return http.StatusBadRequest, wrong
	}
	return 0, nil
}

// kindOf is the JSON kind a member of a GraphQL request must have ("" for
// members that are not read).
func kindOf(member string) string {
	for _, name := range []string{"query", "operationName"} {
		if strings.EqualFold(member, name) {
			return "string"
		}
	}
	for _, name := range []string{"variables", "extensions"} {
		if strings.EqualFold(member, name) {
			return "object"
		}
	}
	return ""
}

func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	}
	return "other"
}

// checkGet refuses a GET whose variables or extensions are not JSON
// objects, and one that would run a mutation or subscription: GET may not
// change anything (a link or a prefetch could send it), so those are 405
// with Allow: POST, as GraphQL over HTTP asks.
func checkGet(req *http.Request) (int, *apiError) {
	q, err := url.ParseQuery(req.URL.RawQuery)
	if err != nil {
		return http.StatusBadRequest, badRequest("The query string could not be read")
	}
	for _, name := range []string{"variables", "extensions"} {
		if v := q.Get(name); v != "" && (!json.Valid([]byte(v)) || jsonKind(json.RawMessage(strings.TrimSpace(v))) != "object") {
			return http.StatusBadRequest, badRequest("%q must be a JSON object", name)
		}
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: q.Get("query")})
	if err != nil {
		return 0, nil // gqlgen reports the syntax error with its code
	}
	if op := doc.Operations.ForName(q.Get("operationName")); op != nil && op.Operation != ast.Query {
		return http.StatusMethodNotAllowed, errGetMutation
	}
	return 0, nil
}

func badRequest(format string, args ...any) *apiError {
	return apiErrorf("BAD_REQUEST", format, args...)
}

var (
	errMethod      = &apiError{code: "METHOD_NOT_ALLOWED", message: "GraphQL is served over GET and POST"}
	errGetMutation = &apiError{code: "METHOD_NOT_ALLOWED", message: "Only queries may be sent with GET: send mutations and subscriptions with POST"}
	errMediaType   = &apiError{code: "UNSUPPORTED_MEDIA_TYPE", message: "Send the request as Content-Type: application/json"}
)
