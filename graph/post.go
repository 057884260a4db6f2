package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// post is gqlgen's POST transport (transport.POST, whose Do it follows
// step by step) but for how it writes the answer. gqlgen marshals the
// whole response with encoding/json, which scans and copies the data its
// executor wrote, already JSON, again to compact it: 30 % of an uncached
// week. post writes the data as it is, with the HTML escaping
// encoding/json gives it, and marshals only the errors and extensions:
// the same bytes (TestPostIsGqlgens). It decodes the body the handler read
// (readBody) where it lies, not a copy of it.
type post struct{ transport.POST }

func (post) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	ctype := responseType(r)
	w.Header().Add("Content-Type", ctype)
	start := graphql.Now()
	body, err := bodyBytes(r)
	if err != nil {
		writeResponse(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("could not read request body: %+v", err)}))
		return
	}
	var params graphql.RawParams
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeResponse(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("json request body could not be decoded: %+v body:%s", err, body)}))
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	rc, opErr := exec.CreateOperationContext(ctx, &params)
	if opErr != nil {
		switch {
		case errcode.GetErrorKind(opErr) != errcode.KindProtocol:
		case ctype == graphqlResponseJSON:
			w.WriteHeader(http.StatusBadRequest)
		default:
			w.WriteHeader(http.StatusUnprocessableEntity)
		}
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), opErr))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	writeResponse(w, responses(ctx))
}

const graphqlResponseJSON = "application/graphql-response+json"

// responseType is the media type of the answer, from the request's Accept
// header, as transport.POST chooses it by default.
func responseType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return "application/json"
	}
	for part := range strings.SplitSeq(accept, ",") {
		switch t, _, err := mime.ParseMediaType(strings.TrimSpace(part)); {
		case err != nil:
		case t == "*/*", t == "application/*", t == "application/json":
			return "application/json"
		case t == graphqlResponseJSON:
			return graphqlResponseJSON
		}
	}
	return graphqlResponseJSON
}

// writeResponse writes resp as json.Marshal would: its errors, its data
// (written by gqlgen's marshalers or the plain path, compact already)
// with <, >, &, U+2028 and U+2029 escaped, and its extensions. A part of
// an incremental answer (a label, path or hasNext) is marshaled whole.
func writeResponse(w io.Writer, resp *graphql.Response) {
	var buf bytes.Buffer
	if resp.Label != "" || resp.Path != nil || resp.HasNext != nil {
		marshalInto(&buf, resp)
		w.Write(buf.Bytes())
		return
	}
	buf.Grow(len(resp.Data) + 64)
	buf.WriteByte('{')
	if len(resp.Errors) > 0 {
		buf.WriteString(`"errors":`)
		marshalInto(&buf, resp.Errors)
		buf.WriteByte(',')
	}
	buf.WriteString(`"data":`)
	if len(resp.Data) == 0 {
		buf.WriteString("null")
	} else {
		json.HTMLEscape(&buf, resp.Data)
	}
	if len(resp.Extensions) > 0 {
		buf.WriteString(`,"extensions":`)
		marshalInto(&buf, resp.Extensions)
	}
	buf.WriteByte('}')
	w.Write(buf.Bytes())
}

func marshalInto(buf *bytes.Buffer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Errorf("unable to marshal %v: %w", v, err))
	}
	buf.Write(b)
}
