package caldav

import (
	"bytes"
	"encoding/xml"
	"math/rand/v2"
	"testing"
)

// xmlEscape is what escape must equal: encoding/xml's own escaping.
func xmlEscape(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// TestEscapeAgainstEncodingXML compares escape and escapeTo with
// xml.EscapeText on random strings of plain text, the characters XML
// escapes, control characters, multi-byte runes, characters XML forbids
// and broken UTF-8.
func TestEscapeAgainstEncodingXML(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	pieces := []string{"a", "Z", " ", "BEGIN:VEVENT", "\r\n", "\n", "\r", "\t", `"`, "'", "&", "<", ">", "\x00", "\x1f", "\x7f",
		"é", "·", "–", "€", "😀", "\uFFFD", "\uFFFE", "\uD7FF", "\uE000", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\U0010FFFF"}
	for n := 0; n < 20000; n++ {
		var s string
		for range r.IntN(12) {
			s += pieces[r.IntN(len(pieces))]
		}
		want := xmlEscape(s)
		if got := escape(s); got != want {
			t.Fatalf("escape(%q) = %q, want %q", s, got, want)
		}
		var b bytes.Buffer
		if escapeTo(&b, s); b.String() != want {
			t.Fatalf("escapeTo(%q) wrote %q, want %q", s, b.String(), want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("BEGIN:VCALENDAR\r\nSUMMARY:Boxing · \"Fundamentals\" & <more>\r\n")
	f.Add("\xff\x00\uFFFE")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := escape(s), xmlEscape(s); got != want {
			t.Fatalf("escape(%q) = %q, want %q", s, got, want)
		}
	})
}
