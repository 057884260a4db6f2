package engine

// progression is the set of weeks first, first+step, … up to last
// (inclusive). step 0 means the single week first. Intersecting it with a
// segment is the Chinese remainder theorem: two residue classes meet in one
// residue class modulo the lcm of their moduli, or not at all.
type progression struct {
	first, last, step int
}

// startProgression returns the weeks of a segment as a progression.
func startProgression(s segment) (progression, bool) {
	return progression{first: s.from, last: s.to - 1, step: 1}.meet(s)
}

// meet intersects p with the weeks of segment s.
func (p progression) meet(s segment) (progression, bool) {
	lo, hi := max(p.first, s.from), min(p.last, s.to-1)
	if lo > hi {
		return progression{}, false
	}
	if p.step == 0 {
		if mod(p.first-s.res, s.mod) != 0 {
			return progression{}, false
		}
		return p, true
	}
	// x ≡ p.first (mod p.step) and x ≡ s.res (mod s.mod).
	g, inv := gcdInv(p.step, s.mod)
	diff := s.res - p.first
	if mod(diff, g) != 0 {
		return progression{}, false
	}
	m2 := s.mod / g
	k := mod((diff/g)%m2*inv, m2)
	l := p.step / g * s.mod
	x := p.first + p.step*k // one solution; all are x + n·l
	first := x + ceilDiv(lo-x, l)*l
	if first > hi {
		return progression{}, false
	}
	if first+l > hi {
		return progression{first: first, last: first}, true
	}
	return progression{first: first, last: first + (hi-first)/l*l, step: l}, true
}

// contains reports whether every week of q is a week of p.
func (p progression) contains(q progression) bool {
	if q.first < p.first || q.last > p.last {
		return false
	}
	if p.step == 0 {
		return q.first == p.first && q.last == p.first
	}
	if mod(q.first-p.first, p.step) != 0 {
		return false
	}
	return q.step == 0 || q.first == q.last || q.step%p.step == 0
}

// count returns how many weeks p holds.
func (p progression) count() int {
	if p.step == 0 {
		return 1
	}
	return (p.last-p.first)/p.step + 1
}

// gcdInv returns g = gcd(a, b) and the inverse of a/g modulo b/g.
func gcdInv(a, b int) (g, inv int) {
	// Extended Euclid on (a, b): x·a + y·b = g.
	oldR, r := a, b
	oldX, x := 1, 0
	for r != 0 {
		q := oldR / r
		oldR, r = r, oldR-q*r
		oldX, x = x, oldX-q*x
	}
	g = oldR
	if m := b / g; m > 1 {
		inv = mod(oldX, m)
	}
	return g, inv
}

func mod(a, m int) int {
	if m == 1 {
		return 0
	}
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}

func ceilDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}
