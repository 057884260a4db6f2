package locale

import (
	"regexp"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// TestClashInEachLanguage writes clashes of every shape in each language:
// with every name in Arabic script, an Arabic message has no Latin letter
// left (no English); Turkish and Russian have none of the English words.
func TestClashInEachLanguage(t *testing.T) {
	today := engine.MustDate(2026, 12, 1)
	item := engine.ClashItem{Activity: "ملاكمة", Room: "الحلبة", Start: 17 * 60, End: 18*60 + 30,
		Series: []engine.SeriesWeekName{{Name: "الكل", Week: 2}, {Name: "صباحي"}}}
	moved := item
	moved.MovedFrom = engine.MustDate(2026, 12, 3)
	oneOff := engine.ClashItem{Activity: "تقييم", Room: "الحلبة", Start: 17 * 60, End: 18 * 60, OneOff: true}
	clashes := []engine.ClashFacts{
		{Kind: engine.StaffClash, Staff: "عمر", Items: []engine.ClashItem{item, oneOff}, First: engine.MustDate(2026, 12, 6)},
		{Kind: engine.RoomClash, Room: "الحلبة", Double: true, Items: []engine.ClashItem{item, moved}, Once: true, First: engine.MustDate(2027, 1, 6)},
		{Kind: engine.RoomClash, Room: "المسبح", Need: 7, Units: 6, Items: []engine.ClashItem{item, oneOff, {Booking: true, Units: 3, Room: "المسبح", Start: 17 * 60, End: 19 * 60}}, First: engine.MustDate(2026, 12, 6)},
		{Kind: engine.RoomClash, Room: "المسبح", Items: []engine.ClashItem{item, {Booking: true, Room: "المسبح", Start: 17 * 60, End: 19 * 60}}, First: engine.MustDate(2026, 12, 6)},
	}
	latin := regexp.MustCompile(`[A-Za-z]`)
	english := []string{"double-booked", "Room", "room", "first", " on ", "Booking", "unit", "one-off", "moved", "capacity", " AM", " PM", " W2"}
	for _, lang := range []string{"ar", "tr", "ru"} {
		l := Of(engine.Locale{Language: lang})
		for i, f := range clashes {
			c := engine.Clash{Facts: f, Message: "English"}
			got := l.Clash(&c, engine.Gym, today)
			if got == "English" || got == "" {
				t.Errorf("%s %d: %q", lang, i, got)
			}
			if lang == "ar" && latin.MatchString(got) {
				t.Errorf("ar %d has Latin letters: %q", i, got)
			}
			for _, w := range english {
				if strings.Contains(got, w) {
					t.Errorf("%s %d has %q: %q", lang, i, w, got)
				}
			}
		}
	}
	c := engine.Clash{Facts: clashes[0], Message: "as the engine wrote it"}
	if got := Of(engine.Locale{}).Clash(&c, engine.Gym, today); got != c.Message {
		t.Errorf("English: %q", got)
	}
	ar := Of(engine.Locale{Language: "ar"})
	c = engine.Clash{Facts: clashes[2]}
	if got, want := ar.Clash(&c, engine.Gym, today), "تجاوز سعة قاعة المسبح (٧ من ٦): ملاكمة (الحلبة، ٥:٠٠ م – ٦:٣٠ م، الكل الأسبوع ٢، صباحي)، تقييم (الحلبة، ٥:٠٠ م – ٦:٠٠ م، حصة منفردة) وحجز (المسبح، ٥:٠٠ م – ٧:٠٠ م، ٣ وحدات)، أولها ٦ ديسمبر"; got != want {
		t.Errorf("Arabic:\n got %q\nwant %q", got, want)
	}
	ru := Of(engine.Locale{Language: "ru"})
	c = engine.Clash{Facts: clashes[1]}
	if got, want := ru.Clash(&c, engine.Gym, today), "Зал الحلبة — двойное бронирование: ملاكمة (الحلبة, 17:00 – 18:30, الكل — нед. 2, صباحي) и ملاكمة (الحلبة, 17:00 – 18:30, الكل — нед. 2, صباحي, перенесено с 3 декабря), 6 января 2027"; got != want {
		t.Errorf("Russian:\n got %q\nwant %q", got, want)
	}
}
