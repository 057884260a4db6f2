package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Money is an amount in thousandths of the currency unit, so three-decimal
// currencies such as the Kuwaiti dinar are exact.
type Money int64

// ParseMoney reads a plain decimal amount with at most three decimals ("180",
// "47.5", "0.125").
func ParseMoney(s string) (Money, error) {
	bad := fmt.Errorf("%q is not an amount of money", s)
	if s == "" || strings.HasPrefix(s, "+") {
		return 0, bad
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 3 {
		return 0, bad
	}
	w, ok := digits(whole)
	if !ok || len(whole) > 12 {
		return 0, bad
	}
	f := 0
	if frac != "" {
		var okf bool
		if f, okf = digits(frac); !okf {
			return 0, bad
		}
		for i := len(frac); i < 3; i++ {
			f *= 10
		}
	}
	m := Money(w)*1000 + Money(f)
	if neg {
		m = -m
	}
	return m, nil
}

// String writes the amount with no trailing zeros: 180, 47.5, 0.125.
func (m Money) String() string {
	neg := m < 0
	if neg {
		m = -m
	}
	s := strconv.FormatInt(int64(m/1000), 10)
	if frac := int64(m % 1000); frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%03d", frac), "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Format writes the amount followed by the currency: "47.5 KD".
func (m Money) Format(currency string) string {
	if currency == "" {
		return m.String()
	}
	return m.String() + " " + currency
}
