package page

import (
	"strings"
)

// On paper the page is meant for a wall: text at 10 pt, the week on one
// sheet. The page names the sheet the print dialog starts with, the
// smallest that holds the week: A4 landscape, which every printer takes,
// when the week fits it; A3 landscape otherwise (the gym demo's hundred
// sessions fill one A3 sheet and would take three A4 ones). A week too
// big for one A3 sheet takes several, broken between activities.
//
// Whether the week fits is estimated from its text, with the measures of
// page.css's print rules and the widest of the common sans-serif faces
// (DejaVu Sans, what Chromium picks on Linux; Arial, Helvetica and Segoe UI
// are narrower), so that a week said to fit does, whatever the face; one
// that barely would is given A3.

// mm is a millimetre in points.
const mm = 72 / 25.4

// The measures of page.css's print rules, in points.
const (
	title       = 24          // the title, the business and the range, with its rule
	accentRule  = 1.5         // the rule in the activity's colour above its table
	textSize    = 10          // every text's size
	textLine    = 10.5        // 10 pt at line-height 1.05
	rowEdges    = 1.6         // a row's padding (0.15 mm above and below) and rule (0.4 pt): 1.5 pt and at times 2.25 pt once Chromium lays them on whole pixels
	startColumn = 30 * mm     // th.start: the start times and the corner
	padding     = 2 * .6 * mm // either side of a cell
)

// sheet is a paper size in landscape and the room it leaves for the page:
// less page.css's margins, 10 mm at the sides and 8 mm at the top and
// bottom.
type sheet struct {
	name          string
	width, height float64
}

var sheets = []sheet{
	{"A4", (297 - 20) * mm, (210 - 16) * mm},
	{"A3", (420 - 20) * mm, (297 - 16) * mm},
}

// paper is the name of the smallest sheet the week fits on, or of the
// largest when it fits none.
func paper(w *week) string {
	for _, s := range sheets[:len(sheets)-1] {
		if printedHeight(w, s.width) <= s.height {
			return s.name
		}
	}
	return sheets[len(sheets)-1].name
}

// printedHeight estimates the height in points of the week printed on a
// sheet width points wide: the title, and for each activity its header
// row (as many lines as its name takes in the corner) and its rows (as
// many as their fullest cell takes).
func printedHeight(w *week, width float64) float64 {
	days := 0
	for _, d := range w.Days {
		if !d.Idle {
			days++
		}
	}
	column := (width-startColumn)/float64(max(days, 1)) - padding
	corner := startColumn - padding
	height := float64(title)
	row := func(lines int) { height += float64(lines)*textLine + rowEdges }
	for _, t := range w.Tables {
		height += accentRule
		row(wrap(corner, t.Activity, ""))
		for _, r := range t.Rows {
			head := r.Span
			if head == "" {
				head = r.From
			}
			tall := wrap(corner, "", head)
			for i, sessions := range r.Cells {
				if w.Days[i].Idle {
					continue
				}
				lines := 0
				for _, c := range sessions {
					lines += wrap(column, c.Label, c.printed())
				}
				tall = max(tall, lines)
			}
			row(tall)
		}
	}
	return height
}

// printed is what paper shows of a cell after its label.
func (c cell) printed() string {
	var b strings.Builder
	if !c.Usual {
		b.WriteString(" " + c.Time)
	}
	if c.Staff != "" {
		b.WriteString(" · " + c.Staff)
	}
	if c.Moved != "" {
		b.WriteString(" · " + c.Moved)
	}
	return b.String()
}

// wrap is how many lines bold then plain take in a column width points
// wide, breaking at spaces as a browser does (a browser also breaks after
// a hyphen or a dash, which the estimate does not: it errs long).
func wrap(width float64, bold, plain string) int {
	lines, used := 1, 0.0
	put := func(word float64, weight int) {
		space := advance(' ', weight)
		switch {
		case used == 0:
			used = word
		case used+space+word <= width:
			used += space + word
		default:
			lines++
			used = word
		}
		for used > width { // a word wider than the column
			lines++
			used -= width
		}
	}
	for _, word := range strings.Fields(bold) {
		put(measure(word, 1), 1)
	}
	for _, word := range strings.Fields(plain) {
		put(measure(word, 0), 0)
	}
	return lines
}

// measure is the width in points of a word in DejaVu Sans (weight 0) or
// DejaVu Sans Bold (1).
func measure(word string, weight int) float64 {
	size := 0.0
	for _, r := range word {
		size += advance(r, weight)
	}
	return size
}

// advance is the width of one character, in points. A character the
// tables do not hold counts as 0.7 em (wider than most letters), or a whole
// em from the CJK blocks on.
func advance(r rune, weight int) float64 {
	em := 700
	switch w, ok := dejaVuMore[r]; {
	case r >= ' ' && r <= '~':
		em = int(dejaVu[weight][r-' '])
	case ok:
		em = int(w[weight])
	case r >= 0x2E80:
		em = 1000
	}
	return float64(em) * textSize / 1000
}
