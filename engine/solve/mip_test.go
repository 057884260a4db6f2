package solve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// mip writes the model of p as a mixed-integer program in the CPLEX LP
// format: a binary x_line_option per option the solver itself considers
// (the same static filter), at most the demand per line and week, room
// capacity and staff overlap (rest included) at every start, weekly limits,
// and the preferences as penalties. Days apart is linearised per pair of
// days (n₁ + n₂ − 1), which counts two sessions on one day's pairs less
// than the solver does; every answer is scored again by oracleSoft.
func mip(m *model) string {
	var b strings.Builder
	const big = 1000
	var obj, cons, bin []string
	term := func(c int, v string) string { return fmt.Sprintf("%+d %s", c, v) }
	x := func(li, oi int) string { return fmt.Sprintf("x%d_%d", li, oi) }
	// Demand.
	for li := range m.lines {
		l := &m.lines[li]
		w := l.weight
		groups := l.byWeek
		if l.PerRotation {
			groups = [][]int32{l.all()}
		}
		for gi, g := range groups {
			if len(g) == 0 {
				continue
			}
			var row []string
			for _, oi := range g {
				row = append(row, "+ "+x(li, int(oi)))
			}
			cons = append(cons, fmt.Sprintf("d%d_%d: %s <= %d", li, gi, strings.Join(row, " "), l.Sessions))
		}
		for oi, o := range l.opts {
			c := big
			if o.out {
				c -= w * m.weights[0]
			}
			obj = append(obj, term(c, x(li, oi)))
			bin = append(bin, x(li, oi))
		}
		// Days apart.
		if d := l.DaysApart; d > 0 {
			for wk := range m.cycle {
				day := func(wd int) []string {
					var t []string
					for oi, o := range l.opts {
						if int(o.week) == wk && int(o.wd) == wd {
							t = append(t, "+ "+x(li, oi))
						}
					}
					return t
				}
				for d1 := range days {
					for d2 := d1; d2 < days; d2++ {
						dist := min(d2-d1, days-(d2-d1))
						if dist >= d {
							continue
						}
						t := day(d1)
						if d2 != d1 {
							t = append(t, day(d2)...)
						}
						if len(t) < 2 {
							continue
						}
						p := fmt.Sprintf("p%d_%d_%d_%d", li, wk, d1, d2)
						obj = append(obj, term(-w*m.weights[1], p))
						cons = append(cons, fmt.Sprintf("c%s: %s - %s <= 1", p, strings.Join(t, " "), p))
					}
				}
			}
		}
		// Same room, same coach.
		for k, on := range []bool{l.SameRoom, l.SameCoach} {
			if !on {
				continue
			}
			n := len(l.rooms)
			if k == 1 {
				n = len(l.crews)
			}
			for r := range n {
				u := fmt.Sprintf("u%d_%d_%d", li, k, r)
				obj = append(obj, term(-w*m.weights[2+k], u))
				bin = append(bin, u)
				for oi, o := range l.opts {
					if (k == 0 && int(o.room) == r) || (k == 1 && int(o.crew) == r) {
						cons = append(cons, fmt.Sprintf("c%s_%d: %s - %s <= 0", u, oi, x(li, oi), u))
					}
				}
			}
		}
	}
	// Rooms and staff at every start.
	type key struct{ res, w, wd, t int }
	roomAt, staffAt := map[key][]string{}, map[key][]string{}
	starts := map[key]bool{}
	for li := range m.lines {
		l := &m.lines[li]
		for _, o := range l.opts {
			starts[key{l.rooms[o.room], int(o.week), int(o.wd), int(o.st)}] = true
			for _, si := range l.crews[o.crew] {
				starts[key{-1 - si, int(o.week), int(o.wd), int(o.st)}] = true
			}
		}
	}
	for li := range m.lines {
		l := &m.lines[li]
		for oi, o := range l.opts {
			for t := int(o.st); t < int(o.en); t++ {
				k := key{l.rooms[o.room], int(o.week), int(o.wd), t}
				if starts[k] {
					roomAt[k] = append(roomAt[k], fmt.Sprintf("%+d %s", l.need[o.room], x(li, oi)))
				}
			}
			for _, si := range l.crews[o.crew] {
				r := 0
				if m.staff[si].Rest > 0 {
					r = ceilTick(engine.LocalTime(m.staff[si].Rest))
				}
				for t := int(o.st); t < int(o.en)+r && t < perDay; t++ {
					k := key{-1 - si, int(o.week), int(o.wd), t}
					if starts[k] {
						staffAt[k] = append(staffAt[k], "+ "+x(li, oi))
					}
				}
			}
		}
	}
	n := 0
	for k, t := range roomAt {
		free := m.roomCap[m.at(k.res, k.w, k.wd, k.t)] - m.roomBase[m.at(k.res, k.w, k.wd, k.t)]
		if len(t) > 1 {
			cons = append(cons, fmt.Sprintf("r%d: %s <= %d", n, strings.Join(t, " "), free))
			n++
		}
	}
	for _, t := range staffAt {
		if len(t) > 1 {
			cons = append(cons, fmt.Sprintf("s%d: %s <= 1", n, strings.Join(t, " ")))
			n++
		}
	}
	// Limits a week.
	for si, s := range m.staff {
		for w := range m.cycle {
			var cnt, mins []string
			for li := range m.lines {
				l := &m.lines[li]
				for oi, o := range l.opts {
					if int(o.week) == w && contains(l.crews[o.crew], si) {
						cnt = append(cnt, "+ "+x(li, oi))
						mins = append(mins, fmt.Sprintf("+%d %s", l.Minutes, x(li, oi)))
					}
				}
			}
			if s.MaxSessions > 0 && len(cnt) > 0 {
				cons = append(cons, fmt.Sprintf("ls%d_%d: %s <= %d", si, w, strings.Join(cnt, " "), s.MaxSessions-m.baseCount[si*m.cycle+w]))
			}
			if s.MaxMinutes > 0 && len(mins) > 0 {
				cons = append(cons, fmt.Sprintf("lm%d_%d: %s <= %d", si, w, strings.Join(mins, " "), s.MaxMinutes-m.baseMin[si*m.cycle+w]))
			}
		}
	}
	b.WriteString("Maximize\n obj: ")
	b.WriteString(wrap(obj))
	b.WriteString("\nSubject To\n")
	for _, c := range cons {
		b.WriteString(" " + c + "\n")
	}
	b.WriteString("Binary\n")
	b.WriteString(wrap(bin))
	b.WriteString("\nEnd\n")
	return b.String()
}

func contains(a []int, v int) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
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

// highs solves the model of p with HiGHS within limit and answers the
// sessions it places as the oracle's slots.
func highs(t testing.TB, m *model, limit time.Duration) (slots []slot, status string, secs float64) {
	dir, _ := filepath.Abs(filepath.Join("testdata", "highs"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "highs")); err != nil {
		t.Skipf("need HiGHS: (cd engine/solve/testdata/highs && npm ci), or bash .ci/install-test-tools")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("need node (Node.js) to run HiGHS")
	}
	cmd := exec.Command("node", filepath.Join(dir, "solve.mjs"), strconv.FormatFloat(limit.Seconds(), 'f', -1, 64))
	cmd.Dir = dir
	lp := mip(m)
	if dump := os.Getenv("KOREDYNE_BENCH_HIGHS_DUMP"); dump != "" {
		_ = os.WriteFile(dump, []byte(lp), 0o644)
	}
	cmd.Stdin = strings.NewReader(lp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("HiGHS: %v: %s", err, errb.String())
	}
	var r struct {
		Status  string
		Seconds float64
		Ones    []string
	}
	if err := json.NewDecoder(bufio.NewReader(&out)).Decode(&r); err != nil {
		t.Fatalf("HiGHS answered %q: %v", out.String(), err)
	}
	for _, name := range r.Ones {
		var li, oi int
		if _, err := fmt.Sscanf(name, "x%d_%d", &li, &oi); err != nil {
			t.Fatalf("column %s: %v", name, err)
		}
		l := &m.lines[li]
		o := l.opts[oi]
		var crew []int64
		for _, si := range l.crews[o.crew] {
			crew = append(crew, m.staff[si].ID)
		}
		slots = append(slots, slot{line: li, week: int(o.week), wd: time.Weekday(o.wd), start: int(o.start), end: int(o.start) + l.Minutes, room: m.rooms[l.rooms[o.room]].ID, crew: crew})
	}
	return slots, r.Status, r.Seconds
}

// TestAgainstHiGHS compares the solver with HiGHS on the same model of
// generated gym-size instances, at the same time limit, and logs the table
// docs/solver.md shows. It takes a few minutes: set KOREDYNE_BENCH_HIGHS=1.
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
	t.Logf("| instance | sessions | options (MIP binaries) | MIP solver status | MIP placed | MIP soft | ours placed | ours soft |")
	lo, hi := 60, 120
	if _, err := fmt.Sscanf(os.Getenv("KOREDYNE_BENCH_HIGHS_SESSIONS"), "%d-%d", &lo, &hi); err == nil {
		t.Logf("instances of %d to %d sessions a week", lo, hi)
	}
	step := 15
	if v, err := strconv.Atoi(os.Getenv("KOREDYNE_BENCH_HIGHS_STEP")); err == nil {
		step = v
		t.Logf("starts every %d minutes", step)
	}
	for seed := range uint64(n) {
		p := gymOf(seed, lo, hi)
		p.Frame.Step = step
		m, err := compile(p, Nothing{})
		if err != nil {
			t.Fatal(err)
		}
		var got []slot
		var status string
		var secs float64
		if os.Getenv("KOREDYNE_BENCH_MIP") == "cbc" {
			got, status, _ = cbc(t, m, limit)
			status = "CBC: " + status
		} else {
			got, status, secs = highs(t, m, limit)
			status = fmt.Sprintf("HiGHS: %s (%.0f s)", status, secs)
		}
		occ := fixed{}
		if err := oracleTogether(p, occ, got); err != nil {
			t.Errorf("seed %d: HiGHS's answer breaks a rule: %v", seed, err)
		}
		deadline := time.Now().Add(limit)
		pr, err := Solve(p, Nothing{}, Options{Seed: seed, Stop: func() bool { return time.Now().After(deadline) }})
		if err != nil {
			t.Fatal(err)
		}
		vars := 0
		for _, l := range m.lines {
			vars += len(l.opts)
		}
		t.Logf("| gym %d | %d | %d | %s | %d | %d | %d | %d |", seed, sessionsOf(p), vars, status, len(got), oracleSoft(p, got), len(pr.Placements), pr.Score.Soft)
	}
}

// cbc solves the model with COIN-OR CBC (Debian's coinor-cbc) within limit:
// the sessions of its best integer solution, if any, its status line and
// the objective it reports (the relaxation's when it found no integer
// solution: a bound on what can be placed).
func cbc(t testing.TB, m *model, limit time.Duration) (slots []slot, status string, objective float64) {
	bin, err := exec.LookPath("cbc")
	if err != nil {
		t.Skip("need cbc: apt-get install coinor-cbc")
	}
	dir := t.TempDir()
	lp, sol := filepath.Join(dir, "model.lp"), filepath.Join(dir, "model.sol")
	if err := os.WriteFile(lp, []byte(mip(m)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, lp, "sec", strconv.Itoa(int(limit.Seconds())), "solve", "solu", sol).CombinedOutput(); err != nil {
		t.Fatalf("cbc: %v: %s", err, out)
	}
	b, err := os.ReadFile(sol)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	status = strings.TrimSpace(lines[0])
	if i := strings.LastIndex(status, "objective value"); i >= 0 {
		objective, _ = strconv.ParseFloat(strings.TrimSpace(status[i+len("objective value"):]), 64)
	}
	if strings.Contains(status, "no integer solution") {
		return nil, status, objective
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[1], "x") {
			continue
		}
		if v, _ := strconv.ParseFloat(f[2], 64); v < 0.5 {
			continue
		}
		var li, oi int
		fmt.Sscanf(f[1], "x%d_%d", &li, &oi)
		l := &m.lines[li]
		o := l.opts[oi]
		var crew []int64
		for _, si := range l.crews[o.crew] {
			crew = append(crew, m.staff[si].ID)
		}
		slots = append(slots, slot{line: li, week: int(o.week), wd: time.Weekday(o.wd), start: int(o.start), end: int(o.start) + l.Minutes, room: m.rooms[l.rooms[o.room]].ID, crew: crew})
	}
	return slots, status, objective
}
