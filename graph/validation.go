package graph

import (
	"regexp"
	"strings"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/locale"
)

// gqlMessages are the validation messages of gqlparser (gqlgen's parser)
// a client meets most, as gqlparser writes them (%s for what it fills in):
// the catalogues translate them like the code's own.
var gqlMessages = []gqlMessage{
	gqlFormat(`Cannot query field "%s" on type "%s".`),
	gqlFormat(`Unknown argument "%s" on field "%s.%s".`),
	gqlFormat(`Field "%s" argument "%s" of type "%s" is required, but it was not provided.`),
	gqlFormat(`Field "%s" of type "%s" must have a selection of subfields.`),
	gqlFormat(`Field "%s" must not have a selection since type "%s" has no subfields.`),
	gqlFormat(`Variable "%s" is not defined.`),
	gqlFormat(`Unknown type "%s".`),
}

// gqlMessage is a message format of gqlparser and what reads it back.
type gqlMessage struct {
	format string
	read   *regexp.Regexp
}

func gqlFormat(format string) gqlMessage {
	return gqlMessage{format, regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(format), "%s", "(.*?)"))}
}

// gqlMessageIn writes one of gqlgen's parse or validation errors in the
// locale's language: the code's message first ("The query does not fit
// the schema"), then gqlparser's sentence, translated where it is one of
// gqlMessages, with the names it quotes as they are. What gqlparser adds
// after it (its "Did you mean …?", which quotes the schema's names) and the
// sentences not listed stay in its English.
func gqlMessageIn(l *locale.Locale, code, message string) string {
	lead := l.Code(code, "") + ": "
	for _, m := range gqlMessages {
		found := m.read.FindStringSubmatch(message)
		if found == nil {
			continue
		}
		args := make([]any, len(found)-1)
		for i := range args {
			args[i] = found[i+1]
		}
		return lead + l.Message(engine.Gym, code, "", message, m.format, args) + message[len(found[0]):]
	}
	return lead + message
}
