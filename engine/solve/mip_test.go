package solve

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// big is what one placed session is worth in the MIP's objective: more
// than one session's preferences cost in the benchmark's instances (weights
// up to 3, at most 5 sessions a week), so that the MIP, like the solver,
// places as many as it can first.
const big = 1000

// mipCol is one integer column of the MIP: how many sessions of a line
// start at one start (week, weekday, tick) in room (an index into the
// line's rooms) and given by crew (an index into its crews). Room -1 is a
// column that counts the sessions given by crew whatever their room; crew
// -1 one that counts the sessions in room whoever gives them.
type mipCol struct {
	line, week, wd int
	st, en         int // ticks
	start          engine.LocalTime
	room, crew     int
}

// mipModel is the MIP of a model: its CPLEX LP text, and its columns
// x0, x1, … in order.
type mipModel struct {
	lp      string
	cols    []mipCol
	ints    int // integer columns, binaries included
	columns int // and the continuous ones
	rows    int
}

// mip writes the model m as a mixed-integer program in the CPLEX LP
// format: the solver's own options (the same static filter), its hard
// constraints and its soft score, exactly, in as few columns and rows as
// the model allows:
//
//   - At a start where a line may use any of several rooms and any of
//     several crews, and every pair is an option, a session's room and crew
//     are chosen independently (room and crew rules never meet), so it has
//     a column per room and one per crew, their sums equal, rather than one
//     per pair: the sessions are then paired up in any order. Elsewhere a
//     column per option.
//   - Room capacity and staff overlap (rest included) as one clique row per
//     resource and start: at most its free units, or one, of what covers
//     that start.
//   - At most the demand per line and week (or rotation); weekly limits.
//   - Windows: what starts outside them costs.
//   - Same room and coach: a binary per room or crew a line uses, bounded
//     by the line's whole demand, and one that is 1 when any is (the first
//     is free).
//   - Days apart: the pairs of a week's sessions fewer days apart than
//     asked, counted exactly as the solver and the oracle count them (n
//     sessions on one day are n(n−1)/2 pairs, two days n₁·n₂), with a
//     binary per day and count (n > j) and the products of counts
//     linearised. (The earlier model approximated them per pair of days.)
//
// Its objective is big a session placed minus the soft cost, so a proven
// optimum is the solver's lexicographic optimum.
func mip(m *model) *mipModel {
	mm := &mipModel{}
	var obj, cons, bin, gen, bounds []string
	col := func(c mipCol, binary bool, ub int) string {
		name := fmt.Sprintf("x%d", len(mm.cols))
		mm.cols = append(mm.cols, c)
		if binary || ub <= 1 {
			bin = append(bin, name)
		} else {
			gen = append(gen, name)
			bounds = append(bounds, fmt.Sprintf("%s <= %d", name, ub))
		}
		return name
	}
	aux, conts := 0, 0
	name := func(prefix string) string { aux++; return fmt.Sprintf("%s%d", prefix, aux) }
	sum := func(terms []string) string { return strings.Join(terms, " ") }
	type res struct{ res, w, wd int } // room ri ≥ 0, staff -1-si
	type span struct {
		st, en int
		term   string
	}
	spans := map[res][]span{}
	type load struct{ si, w int }
	counts, minutes := map[load][]string{}, map[load][]string{}
	for li := range m.lines {
		l := &m.lines[li]
		w := l.weight
		// The options of each start, in order.
		type start struct{ w, wd, st int }
		at := map[start][]option{}
		var order []start
		for _, o := range l.opts {
			k := start{int(o.week), int(o.wd), int(o.st)}
			if _, ok := at[k]; !ok {
				order = append(order, k)
			}
			at[k] = append(at[k], o)
		}
		roomUse := make([][]string, len(l.rooms)) // per room: its columns, for same room
		crewUse := make([][]string, len(l.crews))
		byDay := map[[2]int][]string{} // week, weekday: the columns that count sessions
		byGroup := map[int][]string{}  // week (or 0 per rotation): the same
		use := func(x string, c mipCol) {
			if c.room >= 0 {
				ri := l.rooms[c.room]
				spans[res{ri, c.week, c.wd}] = append(spans[res{ri, c.week, c.wd}], span{c.st, c.en, fmt.Sprintf("%+d %s", l.need[c.room], x)})
				roomUse[c.room] = append(roomUse[c.room], "+ "+x)
			}
			if c.crew >= 0 {
				for _, si := range l.crews[c.crew] {
					en := c.en
					if r := m.staff[si].Rest; r > 0 {
						en = min(en+ceilTick(engine.LocalTime(r)), perDay)
					}
					k := res{-1 - si, c.week, c.wd}
					spans[k] = append(spans[k], span{c.st, en, "+ " + x})
					counts[load{si, c.week}] = append(counts[load{si, c.week}], "+ "+x)
					minutes[load{si, c.week}] = append(minutes[load{si, c.week}], fmt.Sprintf("+%d %s", l.Minutes, x))
				}
				crewUse[c.crew] = append(crewUse[c.crew], "+ "+x)
			}
		}
		counted := func(x string, c mipCol, out bool) {
			gain := big
			if out {
				gain -= w * m.weights[0]
			}
			obj = append(obj, fmt.Sprintf("%+d %s", gain, x))
			byDay[[2]int{c.week, c.wd}] = append(byDay[[2]int{c.week, c.wd}], "+ "+x)
			g := c.week
			if l.PerRotation {
				g = 0
			}
			byGroup[g] = append(byGroup[g], "+ "+x)
		}
		for _, k := range order {
			opts := at[k]
			var rooms, crews []int
			for _, o := range opts {
				if !slices.Contains(rooms, int(o.room)) {
					rooms = append(rooms, int(o.room))
				}
				if !slices.Contains(crews, int(o.crew)) {
					crews = append(crews, int(o.crew))
				}
			}
			o0 := opts[0]
			base := mipCol{line: li, week: k.w, wd: k.wd, st: k.st, en: int(o0.en), start: o0.start}
			if len(rooms) == 1 || len(crews) == 1 || len(opts) != len(rooms)*len(crews) {
				for _, o := range opts {
					c := base
					c.room, c.crew = int(o.room), int(o.crew)
					x := col(c, true, 1)
					use(x, c)
					counted(x, c, o.out)
				}
				continue
			}
			var ys, zs []string
			for _, r := range rooms {
				c := base
				c.room, c.crew = r, -1
				free := math.MaxInt
				b := m.at(l.rooms[r], k.w, k.wd, 0)
				for t := k.st; t < int(o0.en); t++ {
					free = min(free, int(m.roomCap[b+t]-m.roomBase[b+t]))
				}
				x := col(c, false, min(free/l.need[r], len(crews)))
				use(x, c)
				ys = append(ys, "+ "+x)
			}
			for _, cr := range crews {
				c := base
				c.room, c.crew = -1, cr
				x := col(c, true, 1)
				use(x, c)
				counted(x, c, o0.out)
				zs = append(zs, "- "+x)
			}
			cons = append(cons, fmt.Sprintf("%s: %s %s = 0", name("pair"), sum(ys), sum(zs)))
		}
		// Demand.
		total := 0
		for g := range m.cycle {
			if t := byGroup[g]; len(t) > 0 {
				cons = append(cons, fmt.Sprintf("%s: %s <= %d", name("demand"), sum(t), l.Sessions))
				total += l.Sessions
			}
		}
		// Same room, same coach: each used beyond the first costs.
		for k, uses := range [][][]string{roomUse, crewUse} {
			if (k == 0 && !l.SameRoom) || (k == 1 && !l.SameCoach) || len(uses) < 2 {
				continue
			}
			// h is 1 when any is used: the first is free.
			h := name("h")
			bin = append(bin, h)
			obj = append(obj, fmt.Sprintf("%+d %s", w*m.weights[2+k], h))
			var us []string
			for _, t := range uses {
				if len(t) == 0 {
					continue
				}
				u := name("u")
				bin = append(bin, u)
				us = append(us, "- "+u)
				obj = append(obj, fmt.Sprintf("%+d %s", -w*m.weights[2+k], u))
				cons = append(cons, fmt.Sprintf("%s: %s - %d %s <= 0", name("used"), sum(t), total, u))
			}
			cons = append(cons, fmt.Sprintf("%s: %s %s <= 0", name("first"), h, sum(us)))
		}
		// Days apart: per week, a[d][j] = 1 when day d holds more than j
		// sessions; its pairs are Σ j·a[d][j]; the pairs of two days
		// fewer than DaysApart apart are n_d·n_e = Σ_j a[d][j]·n_e, each
		// product v ≥ n_e − K(1 − a[d][j]).
		if l.DaysApart <= 0 {
			continue
		}
		cost := w * m.weights[1]
		for wk := range m.cycle {
			K := l.Sessions
			a := make([][]string, days)
			n := make([]string, days) // n_d as Σ_j a[d][j]
			for d := range days {
				t := byDay[[2]int{wk, d}]
				if len(t) == 0 {
					continue
				}
				var as []string
				for j := range K {
					v := name("a")
					bin = append(bin, v)
					a[d] = append(a[d], v)
					as = append(as, "+ "+v)
					if j > 0 {
						obj = append(obj, fmt.Sprintf("%+d %s", -cost*j, v))
						cons = append(cons, fmt.Sprintf("%s: %s - %s <= 0", name("order"), v, a[d][j-1]))
					}
				}
				n[d] = sum(as)
				neg := strings.NewReplacer("+ ", "- ").Replace(sum(t))
				cons = append(cons, fmt.Sprintf("%s: %s %s = 0", name("day"), n[d], neg))
			}
			for d := range days {
				for j := 1; j < min(l.DaysApart, 4); j++ {
					e := (d + j) % days
					if a[d] == nil || a[e] == nil {
						continue
					}
					for _, ad := range a[d] {
						v := name("v")
						conts++
						obj = append(obj, fmt.Sprintf("%+d %s", -cost, v))
						neg := strings.NewReplacer("+ ", "- ").Replace(n[e])
						cons = append(cons, fmt.Sprintf("%s: %s %s - %d %s >= %d", name("pairs"), v, neg, K, ad, -K))
					}
				}
			}
		}
	}
	// Rooms and staff: at each start of a span, what covers it.
	keys := make([]res, 0, len(spans))
	for k := range spans {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b res) int {
		return cmp.Or(cmp.Compare(a.res, b.res), cmp.Compare(a.w, b.w), cmp.Compare(a.wd, b.wd))
	})
	for _, k := range keys {
		ss := spans[k]
		var points []int
		for _, s := range ss {
			if !slices.Contains(points, s.st) {
				points = append(points, s.st)
			}
		}
		slices.Sort(points)
		for _, p := range points {
			var t []string
			for _, s := range ss {
				if s.st <= p && p < s.en {
					t = append(t, s.term)
				}
			}
			if k.res >= 0 {
				free := m.roomCap[m.at(k.res, k.w, k.wd, p)] - m.roomBase[m.at(k.res, k.w, k.wd, p)]
				if len(t) > 1 {
					cons = append(cons, fmt.Sprintf("%s: %s <= %d", name("room"), sum(t), free))
				}
			} else if len(t) > 1 {
				cons = append(cons, fmt.Sprintf("%s: %s <= 1", name("staff"), sum(t)))
			}
		}
	}
	// Limits a week.
	for si, s := range m.staff {
		for wk := range m.cycle {
			k := load{si, wk}
			if s.MaxSessions > 0 && len(counts[k]) > 0 {
				cons = append(cons, fmt.Sprintf("%s: %s <= %d", name("sessions"), sum(counts[k]), s.MaxSessions-m.baseCount[si*m.cycle+wk]))
			}
			if s.MaxMinutes > 0 && len(minutes[k]) > 0 {
				cons = append(cons, fmt.Sprintf("%s: %s <= %d", name("minutes"), sum(minutes[k]), s.MaxMinutes-m.baseMin[si*m.cycle+wk]))
			}
		}
	}
	mm.ints = len(bin) + len(gen)
	mm.columns = mm.ints + conts
	var b strings.Builder
	b.WriteString("Maximize\n obj: ")
	b.WriteString(wrap(obj))
	b.WriteString("\nSubject To\n")
	for _, c := range cons {
		b.WriteString(" " + c + "\n")
	}
	if len(bounds) > 0 {
		b.WriteString("Bounds\n")
		for _, c := range bounds {
			b.WriteString(" " + c + "\n")
		}
	}
	if len(gen) > 0 {
		b.WriteString("General\n")
		b.WriteString(wrap(gen))
		b.WriteString("\n")
	}
	b.WriteString("Binary\n")
	b.WriteString(wrap(bin))
	b.WriteString("\nEnd\n")
	mm.lp = b.String()
	mm.rows = len(cons)
	return mm
}

func wrap(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 && i%10 == 0 {
			b.WriteString("\n ")
		}
		b.WriteString(" " + t)
	}
	return b.String()
}

// slots turns the values of the MIP's columns (by index) into sessions:
// at a start with room and crew columns apart, the rooms and the crews are
// paired up in order.
func (mm *mipModel) slots(m *model, values map[int]int) []slot {
	type start struct{ line, w, wd, st int }
	rooms, crews := map[start][]int{}, map[start][]int{}
	var out []slot
	add := func(c mipCol, room, crew int) {
		l := &m.lines[c.line]
		var ids []int64
		for _, si := range l.crews[crew] {
			ids = append(ids, m.staff[si].ID)
		}
		out = append(out, slot{line: c.line, week: c.week, wd: time.Weekday(c.wd), start: int(c.start), end: int(c.start) + l.Minutes, room: m.rooms[l.rooms[room]].ID, crew: ids})
	}
	var order []start
	for i := range mm.cols {
		v := values[i]
		c := mm.cols[i]
		k := start{c.line, c.week, c.wd, c.st}
		switch {
		case v <= 0:
		case c.room >= 0 && c.crew >= 0:
			add(c, c.room, c.crew)
		case c.crew < 0:
			for range v {
				rooms[k] = append(rooms[k], c.room)
			}
			order = append(order, k)
		default:
			crews[k] = append(crews[k], c.crew)
		}
	}
	for _, k := range order {
		rs, cs := rooms[k], crews[k]
		if rs == nil {
			continue
		}
		delete(rooms, k)
		for i := range min(len(rs), len(cs)) {
			c := mipCol{line: k.line, week: k.w, wd: k.wd, st: k.st, start: engine.LocalTime(k.st * tick)}
			add(c, rs[i], cs[i])
		}
	}
	return out
}

// highsAnswer is what HiGHS answers: its status, the sessions of its best
// solution if it found one, the dual bound on the objective (no solution
// is worth more) and the seconds it took, reading the model included.
type highsAnswer struct {
	status    string
	feasible  bool
	slots     []slot
	objective float64 // of slots
	bound     float64 // +Inf: none
	secs      float64
}

// highs solves the MIP with HiGHS within limit.
func highs(t testing.TB, m *model, mm *mipModel, limit time.Duration) highsAnswer {
	dir, _ := filepath.Abs(filepath.Join("testdata", "highs"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "highs")); err != nil {
		t.Skipf("need HiGHS: (cd engine/solve/testdata/highs && npm ci), or bash .ci/install-test-tools")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("need node (Node.js) to run HiGHS")
	}
	cmd := exec.Command("node", filepath.Join(dir, "solve.mjs"), strconv.FormatFloat(limit.Seconds(), 'f', -1, 64), os.Getenv("KOREDYNE_BENCH_HIGHS_OPTIONS"))
	cmd.Dir = dir
	if dump := os.Getenv("KOREDYNE_BENCH_HIGHS_DUMP"); dump != "" {
		_ = os.WriteFile(dump, []byte(mm.lp), 0o644)
	}
	cmd.Stdin = strings.NewReader(mm.lp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("HiGHS: %v: %s", err, errb.String())
	}
	var r struct {
		Status    string
		Feasible  bool
		Objective float64
		Bound     *float64 // null when HiGHS has none
		Seconds   float64
		Values    map[string]float64
	}
	if err := json.NewDecoder(bufio.NewReader(&out)).Decode(&r); err != nil {
		t.Fatalf("HiGHS answered %q: %v", out.String(), err)
	}
	values := map[int]int{}
	for name, v := range r.Values {
		var i int
		if _, err := fmt.Sscanf(name, "x%d", &i); err != nil || i >= len(mm.cols) {
			t.Fatalf("column %s: %v", name, err)
		}
		values[i] = int(math.Round(v))
	}
	bound := math.Inf(1)
	if r.Bound != nil {
		bound = *r.Bound
	}
	return highsAnswer{status: r.Status, feasible: r.Feasible, slots: mm.slots(m, values), objective: r.Objective, bound: bound, secs: r.Seconds}
}

// TestAgainstHiGHS compares the solver with HiGHS on the same model of
// generated gym-size instances at the same time limit, checks every HiGHS
// answer with the oracle and scores it as the solver's own, and holds the
// solver to the bar wherever HiGHS answers: at least 98 % of what
// HiGHS places and, unless the solver places more, at most its soft cost.
// It logs the table docs/solver.md shows. Minutes of CPU: set
// KOREDYNE_BENCH_HIGHS=1.
func TestAgainstHiGHS(t *testing.T) {
	if os.Getenv("KOREDYNE_BENCH_HIGHS") == "" {
		t.Skip("set KOREDYNE_BENCH_HIGHS=1 to compare the solver with HiGHS (minutes)")
	}
	limit, n := 5*time.Second, 6
	if v, err := time.ParseDuration(os.Getenv("KOREDYNE_BENCH_HIGHS_LIMIT")); err == nil {
		limit = v
	}
	if v, err := strconv.Atoi(os.Getenv("KOREDYNE_BENCH_HIGHS_INSTANCES")); err == nil {
		n = v
	}
	ours := limit // KOREDYNE_BENCH_OURS_LIMIT: the solver's, when not HiGHS's
	if v, err := time.ParseDuration(os.Getenv("KOREDYNE_BENCH_OURS_LIMIT")); err == nil {
		ours = v
	}
	lo, hi := 60, 120
	if _, err := fmt.Sscanf(os.Getenv("KOREDYNE_BENCH_HIGHS_SESSIONS"), "%d-%d", &lo, &hi); err == nil {
		t.Logf("instances of %d to %d sessions a week", lo, hi)
	}
	step := 60
	if v, err := strconv.Atoi(os.Getenv("KOREDYNE_BENCH_HIGHS_STEP")); err == nil {
		step = v
	}
	t.Logf("starts every %d minutes; HiGHS %v, the solver %v", step, limit, ours)
	t.Logf("| instance | sessions | options | MIP columns (integer) | rows | MIP status | MIP placed / soft | ours placed / soft | soft bound |")
	for seed := range uint64(n) {
		p := gymOf(seed, lo, hi)
		p.Frame.Step = step
		m, err := compile(p, Nothing{})
		if err != nil {
			t.Fatal(err)
		}
		mm := mip(m)
		var got []slot
		var status string
		bound, objective := math.Inf(1), math.NaN()
		if os.Getenv("KOREDYNE_BENCH_MIP") == "cbc" {
			got, status = cbc(t, m, mm, limit)
			status = "CBC: " + status
		} else {
			a := highs(t, m, mm, limit)
			got, bound = a.slots, a.bound
			if a.feasible {
				objective = a.objective
			}
			status = fmt.Sprintf("%s (%.1f s)", a.status, a.secs)
			if !a.feasible {
				status = fmt.Sprintf("%s, no solution (%.1f s)", a.status, a.secs)
			}
		}
		for _, s := range got {
			if !oracleAlone(p, fixed{}, s) {
				t.Errorf("seed %d: the MIP's %+v breaks a rule on its own", seed, s)
			}
		}
		if err := oracleTogether(p, fixed{}, got); err != nil {
			t.Errorf("seed %d: the MIP's answer breaks a rule: %v", seed, err)
		}
		// The MIP charges its answer at least the oracle's score (more
		// only where a cost column is left above what it must be).
		soft := oracleSoft(p, got)
		if objective > float64(big*len(got)-soft)+1e-6 {
			t.Errorf("seed %d: the MIP values its answer at %v, the oracle at %d", seed, objective, big*len(got)-soft)
		}
		// The budget the server gives a time limit (graph/solver.go's
		// workPerSecond), and the deadline as the server's guard.
		deadline := time.Now().Add(ours)
		work := int64(4_000_000 * ours.Seconds())
		pr, err := Solve(p, Nothing{}, Options{Seed: seed, Work: work, Stop: func() bool { return time.Now().After(deadline) }})
		if err != nil {
			t.Fatal(err)
		}
		// The solver's answer is a solution of the MIP, so no better than
		// its dual bound: a check that the MIP charges no more than the
		// solver's score, and how far from the optimum the solver may be.
		floor, lower := 0, "–"
		if !math.IsInf(bound, 0) {
			floor = int(math.Ceil(float64(big*len(pr.Placements)) - bound - 1e-6))
			lower = strconv.Itoa(max(floor, 0))
		}
		if floor > pr.Score.Soft {
			t.Errorf("seed %d: the solver places %d at soft %d, beyond the MIP's bound %v", seed, len(pr.Placements), pr.Score.Soft, bound)
		}
		options := 0
		for _, l := range m.lines {
			options += len(l.opts)
		}
		stopped := ""
		if pr.Stopped {
			stopped = " (stopped on time)"
		}
		t.Logf("| gym %d | %d | %d | %d (%d) | %d | %s | %d / %d | %d / %d%s | %s |", seed, sessionsOf(p), options, mm.columns, mm.ints, mm.rows, status, len(got), soft, len(pr.Placements), pr.Score.Soft, stopped, lower)
		if len(got) == 0 {
			continue // no answer to hold the solver to
		}
		if ours := len(pr.Placements); 100*ours < 98*len(got) || (ours <= len(got) && pr.Score.Soft > soft) {
			t.Errorf("seed %d: the solver places %d with soft cost %d, the MIP %d with %d", seed, ours, pr.Score.Soft, len(got), soft)
		}
	}
}

// cbc solves the MIP with COIN-OR CBC (Debian's coinor-cbc) within limit
// and answers its sessions and its status line.
func cbc(t testing.TB, m *model, mm *mipModel, limit time.Duration) (slots []slot, status string) {
	bin, err := exec.LookPath("cbc")
	if err != nil {
		t.Skip("need cbc: apt-get install coinor-cbc")
	}
	dir := t.TempDir()
	lp, sol := filepath.Join(dir, "model.lp"), filepath.Join(dir, "model.sol")
	if err := os.WriteFile(lp, []byte(mm.lp), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, lp, "timeMode", "elapsed", "sec", strconv.Itoa(int(limit.Seconds())), "solve", "solu", sol).CombinedOutput(); err != nil {
		t.Fatalf("cbc: %v: %s", err, out)
	}
	b, err := os.ReadFile(sol)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	status = strings.TrimSpace(lines[0])
	if strings.Contains(status, "no integer solution") {
		return nil, status
	}
	values := map[int]int{}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(f[1], "x%d", &i); err != nil || i >= len(mm.cols) {
			continue
		}
		v, _ := strconv.ParseFloat(f[2], 64)
		values[i] = int(math.Round(v))
	}
	return mm.slots(m, values), status
}
