package engine

import "testing"

func TestWords(t *testing.T) {
	tests := []struct {
		kind                                 Kind
		class, staff, activity, client, sers string
		title                                string
	}{
		{Gym, "class", "coach", "activity", "member", "package", "Training Schedule"},
		{Clinic, "session", "practitioner", "service", "patient", "programme", "Clinic Timetable"},
		{Office, "meeting", "host", "meeting type", "client", "series", "Room Bookings"},
		{"bakery", "class", "coach", "activity", "member", "package", "Training Schedule"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			v := Words(tt.kind)
			got := []string{v.Class.One, v.Staff.One, v.Activity.One, v.Client.One, v.Series.One, v.PrintTitle}
			want := []string{tt.class, tt.staff, tt.activity, tt.client, tt.sers, tt.title}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("got %q, want %q", got[i], want[i])
				}
			}
			if v.Room.One != "room" {
				t.Errorf("rooms are rooms in every kind, got %q", v.Room.One)
			}
		})
	}
}

func TestWordForms(t *testing.T) {
	gym, clinic, office := Words(Gym), Words(Clinic), Words(Office)
	tests := []struct{ name, got, want string }{
		{"singular", gym.Class.N(1), "1 class"},
		{"plural", gym.Class.N(3), "3 classes"},
		{"zero is plural", clinic.Client.N(0), "0 patients"},
		{"irregular plural", office.Series.N(2), "2 series"},
		{"two-word noun", office.Activity.N(2), "2 meeting types"},
		{"a", gym.Staff.A(), "a coach"},
		{"an", gym.Activity.A(), "an activity"},
		{"title", office.Staff.Title(), "Host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestMoney(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"180", "180 KD", true}, {"47.5", "47.5 KD", true}, {"47.50", "47.5 KD", true},
		{"0.125", "0.125 KD", true}, {"0", "0 KD", true}, {"-3.2", "-3.2 KD", true},
		{"1.2345", "", false}, {"abc", "", false}, {".5", "", false}, {"", "", false}, {"1,5", "", false}, {"+1", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, err := ParseMoney(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseMoney(%q): %v, want ok %v", tt.in, err, tt.ok)
			}
			if err == nil && m.Format("KD") != tt.want {
				t.Errorf("got %q, want %q", m.Format("KD"), tt.want)
			}
		})
	}
}

func TestPlanLabel(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		plan Plan
		want string
	}{
		{"limited", Clinic, Plan{PerMonth: 12, Months: 3, Price: 180000}, "12 sessions a month · 3 months · 180 KD"},
		{"gym words", Gym, Plan{PerMonth: 1, Months: 1, Price: 47500}, "1 class a month · 1 month · 47.5 KD"},
		{"unlimited", Gym, Plan{Months: 1, Price: 60000}, "Unlimited · 1 month · 60 KD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.plan.Label(Words(tt.kind), "KD"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	tests := []struct {
		start  string
		months int
		want   string
	}{
		{"2026-01-31", 1, "2026-02-27"},
		{"2026-01-15", 1, "2026-02-14"},
		{"2026-03-01", 3, "2026-05-31"},
		{"2028-01-31", 1, "2028-02-28"},
		{"2026-11-30", 3, "2027-02-27"},
		{"2026-02-28", 12, "2027-02-27"},
	}
	for _, tt := range tests {
		t.Run(tt.start, func(t *testing.T) {
			if got := Expiry(MustParse(tt.start), tt.months).String(); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
