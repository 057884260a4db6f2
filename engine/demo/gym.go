package demo

import (
	"time"

	"github.com/koredyne/schedule/engine"
)

// Gym is Harbor Combat Club, a martial-arts gym in Kuwait City: three rooms,
// ten disciplines, eleven coaches and seventeen weekly packages — one per
// discipline and level, plus All Access and Mornings, which sell the same
// sessions again (a class in a class time listed in several packages is one
// real session). Friday is the day off. week is any day of the week to build
// around; weeks start on Sunday.
func Gym(week engine.Date) engine.State {
	week = week.WeekStart(time.Sunday)

	const (
		ring int64 = iota + 1
		mats
		studio
	)
	const (
		marco int64 = iota + 1
		sami
		nok
		dana
		rafael
		yousef
		ivan
		kenji
		leila
		omar
		priya
	)
	const (
		boxing int64 = iota + 1
		muayThai
		kickboxing
		bjj
		wrestling
		mma
		judo
		strength
		mobility
		youth
	)
	const (
		boxingMarco int64 = iota + 1
		boxingSami
		boxingPair
		muayThaiNok
		kickboxingDana
		bjjRafael
		bjjYousef
		openMat
		wrestlingIvan
		mmaPair
		mmaIvan
		judoKenji
		strengthOmar
		strengthLeila
		mobilityPriya
		mobilityLeila
		youthPair
		youthKenji
	)
	const (
		pkgBoxingFund int64 = iota + 1
		pkgBoxingAdv
		pkgMuayThaiFund
		pkgMuayThaiAdv
		pkgKickboxing
		pkgLadies
		pkgBJJGi
		pkgNoGi
		pkgWrestling
		pkgMMA
		pkgJudo
		pkgStrength
		pkgMobility
		pkgKids
		pkgTeens
		pkgAllAccess
		pkgMornings
	)

	t := tables{s: engine.State{
		Business: engine.Business{
			Kind: engine.Gym, Name: "Harbor Combat Club", Currency: "KD",
			Location: zone("Asia/Kuwait"), WeekStart: time.Sunday,
		},
		Rooms: []engine.Room{
			{ID: ring, Name: "Ring", Capacity: 1},
			{ID: mats, Name: "Mat Room", Capacity: 1},
			{ID: studio, Name: "Studio", Capacity: 1},
		},
		Staff: []engine.Staff{
			{ID: marco, Name: "Marco Reyes"},
			{ID: sami, Name: "Sami Al-Otaibi"},
			{ID: nok, Name: "Nok Chaiyaporn"},
			{ID: dana, Name: "Dana Haddad"},
			{ID: rafael, Name: "Rafael Costa"},
			{ID: yousef, Name: "Yousef Al-Mutairi"},
			{ID: ivan, Name: "Ivan Petrov"},
			{ID: kenji, Name: "Kenji Mori"},
			{ID: leila, Name: "Leila Nasser"},
			{ID: omar, Name: "Omar Khalil"},
			{ID: priya, Name: "Priya Raman"},
		},
		Activities: []engine.Activity{
			{ID: boxing, Name: "Boxing", Color: "#d62828"},
			{ID: muayThai, Name: "Muay Thai", Color: "#f77f00"},
			{ID: kickboxing, Name: "Kickboxing", Color: "#fcbf49"},
			{ID: bjj, Name: "Brazilian Jiu-Jitsu", Color: "#1d3557"},
			{ID: wrestling, Name: "Wrestling", Color: "#6a4c93"},
			{ID: mma, Name: "MMA", Color: "#2b2d42"},
			{ID: judo, Name: "Judo", Color: "#457b9d"},
			{ID: strength, Name: "Strength & Conditioning", Color: "#2a9d8f"},
			{ID: mobility, Name: "Mobility", Color: "#8ab17d"},
			{ID: youth, Name: "Youth Martial Arts", Color: "#e76f51"},
		},
		Classes: []engine.Class{
			{ID: boxingMarco, ActivityID: boxing, StaffIDs: staff(marco)},
			{ID: boxingSami, ActivityID: boxing, StaffIDs: staff(sami)},
			{ID: boxingPair, ActivityID: boxing, StaffIDs: staff(marco, sami)},
			{ID: muayThaiNok, ActivityID: muayThai, StaffIDs: staff(nok)},
			{ID: kickboxingDana, ActivityID: kickboxing, StaffIDs: staff(dana)},
			{ID: bjjRafael, ActivityID: bjj, StaffIDs: staff(rafael)},
			{ID: bjjYousef, ActivityID: bjj, StaffIDs: staff(yousef)},
			{ID: openMat, ActivityID: bjj, StaffIDs: staff(rafael, yousef)},
			{ID: wrestlingIvan, ActivityID: wrestling, StaffIDs: staff(ivan)},
			{ID: mmaPair, ActivityID: mma, StaffIDs: staff(ivan, omar)},
			{ID: mmaIvan, ActivityID: mma, StaffIDs: staff(ivan)},
			{ID: judoKenji, ActivityID: judo, StaffIDs: staff(kenji)},
			{ID: strengthOmar, ActivityID: strength, StaffIDs: staff(omar)},
			{ID: strengthLeila, ActivityID: strength, StaffIDs: staff(leila)},
			{ID: mobilityPriya, ActivityID: mobility, StaffIDs: staff(priya)},
			{ID: mobilityLeila, ActivityID: mobility, StaffIDs: staff(leila)},
			{ID: youthPair, ActivityID: youth, StaffIDs: staff(kenji, priya)},
			{ID: youthKenji, ActivityID: youth, StaffIDs: staff(kenji)},
		},
	}}

	// The packages. The discipline packages have run for a season; Ladies
	// Kickboxing and Mornings are newer.
	type planSpec struct {
		perMonth, months int
		kd               int64
	}
	var (
		standard  = []planSpec{{8, 1, 28}, {12, 1, 35}, {0, 3, 120}}
		advanced  = []planSpec{{12, 1, 38}, {0, 3, 130}}
		young     = []planSpec{{8, 1, 30}, {8, 3, 80}}
		allAccess = []planSpec{{0, 1, 60}, {0, 3, 165}, {0, 12, 540}}
		mornings  = []planSpec{{12, 1, 30}, {0, 3, 99}}
		season    = week.AddDays(-12 * 7)
	)
	packages := []struct {
		id     int64
		name   string
		anchor engine.Date
		plans  []planSpec
	}{
		{pkgBoxingFund, "Boxing Fundamentals", season, standard},
		{pkgBoxingAdv, "Boxing Advanced", season, advanced},
		{pkgMuayThaiFund, "Muay Thai Fundamentals", season, standard},
		{pkgMuayThaiAdv, "Muay Thai Advanced", season, advanced},
		{pkgKickboxing, "Kickboxing", season, standard},
		{pkgLadies, "Ladies Kickboxing", week.AddDays(-3 * 7), standard},
		{pkgBJJGi, "BJJ Gi", season, standard},
		{pkgNoGi, "BJJ No-Gi", season, standard},
		{pkgWrestling, "Wrestling", season, standard},
		{pkgMMA, "MMA", season, advanced},
		{pkgJudo, "Judo", season, standard},
		{pkgStrength, "Strength & Conditioning", season, standard},
		{pkgMobility, "Mobility", season, standard},
		{pkgKids, "Kids Martial Arts (6–11)", season, young},
		{pkgTeens, "Teens Martial Arts (12–16)", season, young},
		{pkgAllAccess, "All Access", season, allAccess},
		{pkgMornings, "Mornings", week.AddDays(-2 * 7), mornings},
	}
	for _, p := range packages {
		t.s.Series = append(t.s.Series, engine.Series{ID: p.id, Name: p.name, Anchor: p.anchor, Cycle: 1})
		for _, pl := range p.plans {
			t.plan(p.id, pl.perMonth, pl.months, price(pl.kd))
		}
	}

	// The weekly grid, room by room. Each room's sessions on a day follow one
	// another, and the Mat Room is wiped down for 15 minutes after each
	// class, hence its quarter-past starts. pkg is the discipline package; 0
	// means the class is sold only through All Access.
	const sunTueThu, monWed = "Sun Tue Thu", "Mon Wed"
	grid := []struct {
		room       int64
		days       string
		start, end string
		label      string
		class      int64
		pkg        int64
	}{
		{ring, sunTueThu, "06:00", "07:00", "Fundamentals", boxingMarco, pkgBoxingFund},
		{ring, sunTueThu, "17:00", "18:00", "Fundamentals", muayThaiNok, pkgMuayThaiFund},
		{ring, sunTueThu, "18:00", "19:00", "Fundamentals", boxingSami, pkgBoxingFund},
		{ring, sunTueThu, "19:00", "20:00", "Advanced", boxingMarco, pkgBoxingAdv},
		{ring, sunTueThu, "20:00", "21:00", "Advanced", muayThaiNok, pkgMuayThaiAdv},
		{ring, sunTueThu, "21:00", "22:00", "All levels", kickboxingDana, pkgKickboxing},
		{mats, sunTueThu, "06:00", "07:00", "Gi", bjjRafael, pkgBJJGi},
		{mats, sunTueThu, "16:00", "17:00", "Kids 6–11", youthPair, pkgKids},
		{mats, sunTueThu, "17:15", "18:15", "All levels", judoKenji, pkgJudo},
		{mats, sunTueThu, "18:30", "19:30", "Gi", bjjRafael, pkgBJJGi},
		{mats, sunTueThu, "19:45", "20:45", "All levels", mmaPair, pkgMMA},
		{mats, sunTueThu, "21:00", "22:00", "No-Gi", bjjYousef, pkgNoGi},
		{studio, sunTueThu, "06:00", "07:00", "Circuit", strengthOmar, pkgStrength},
		{studio, sunTueThu, "09:30", "10:30", "Ladies", kickboxingDana, pkgLadies},
		{studio, sunTueThu, "17:00", "18:00", "Mobility flow", mobilityPriya, pkgMobility},
		{studio, sunTueThu, "18:00", "19:00", "Barbell", strengthLeila, pkgStrength},
		{studio, sunTueThu, "19:00", "20:00", "Ladies", kickboxingDana, pkgLadies},
		{studio, sunTueThu, "20:00", "21:00", "Stretch & recover", mobilityLeila, pkgMobility},

		{ring, monWed, "06:00", "07:00", "Fundamentals", muayThaiNok, pkgMuayThaiFund},
		{ring, monWed, "17:00", "18:00", "Fundamentals", boxingSami, pkgBoxingFund},
		{ring, monWed, "18:00", "19:00", "All levels", kickboxingDana, pkgKickboxing},
		{ring, monWed, "19:00", "20:00", "Fundamentals", muayThaiNok, pkgMuayThaiFund},
		{ring, monWed, "20:00", "21:00", "Sparring", boxingPair, pkgBoxingAdv},
		{ring, monWed, "21:00", "22:00", "Sparring", mmaIvan, pkgMMA},
		{mats, monWed, "06:00", "07:00", "No-Gi", bjjYousef, pkgNoGi},
		{mats, monWed, "16:00", "17:00", "Teens 12–16", youthKenji, pkgTeens},
		{mats, monWed, "17:15", "18:15", "All levels", wrestlingIvan, pkgWrestling},
		{mats, monWed, "18:30", "19:30", "No-Gi", bjjYousef, pkgNoGi},
		{mats, monWed, "19:45", "20:45", "Gi", bjjRafael, pkgBJJGi},
		{mats, monWed, "21:00", "22:00", "Randori", judoKenji, pkgJudo},
		{studio, monWed, "06:00", "07:00", "Morning mobility", mobilityPriya, pkgMobility},
		{studio, monWed, "09:30", "10:30", "Circuit", strengthLeila, pkgStrength},
		{studio, monWed, "17:00", "18:00", "Fight conditioning", strengthOmar, pkgStrength},
		{studio, monWed, "18:00", "19:00", "Mobility flow", mobilityPriya, pkgMobility},
		{studio, monWed, "19:00", "20:00", "Barbell", strengthLeila, pkgStrength},

		{ring, "Sat", "09:00", "10:00", "Fundamentals", boxingMarco, pkgBoxingFund},
		{ring, "Sat", "10:00", "11:00", "Fundamentals", muayThaiNok, pkgMuayThaiFund},
		{ring, "Sat", "11:00", "12:00", "All levels", kickboxingDana, pkgKickboxing},
		{ring, "Sat", "17:00", "18:00", "Sparring", mmaPair, pkgMMA},
		{ring, "Sat", "18:00", "19:00", "Advanced", boxingSami, pkgBoxingAdv},
		{mats, "Sat", "09:00", "10:00", "Kids 6–11", youthPair, pkgKids},
		{mats, "Sat", "10:15", "11:15", "Teens 12–16", youthKenji, pkgTeens},
		{mats, "Sat", "11:30", "12:30", "Open mat", openMat, 0},
		{mats, "Sat", "17:15", "18:15", "All levels", judoKenji, pkgJudo},
		{mats, "Sat", "18:30", "19:30", "Gi", bjjRafael, pkgBJJGi},
		{studio, "Sat", "08:00", "09:00", "Circuit", strengthLeila, pkgStrength},
		{studio, "Sat", "09:00", "10:00", "Stretch & recover", mobilityLeila, pkgMobility},
		{studio, "Sat", "10:00", "11:00", "Ladies", kickboxingDana, pkgLadies},
		{studio, "Sat", "17:00", "18:00", "Barbell", strengthLeila, pkgStrength},
	}
	places := map[int64]int{ring: 16, mats: 24, studio: 14}
	buffer := map[int64]int{mats: 15}
	for _, g := range grid {
		kids := g.pkg == pkgKids || g.pkg == pkgTeens
		kind := "Group"
		if kids {
			kind = "Kids"
		}
		for _, wd := range on(g.days) {
			ct := t.classTime(engine.ClassTime{
				RoomID: g.room, Weekday: wd, Start: hm(g.start), End: hm(g.end), Label: g.label,
				Capacity: places[g.room], Type: kind, Buffer: buffer[g.room],
			})
			if g.pkg != 0 {
				t.entry(g.pkg, ct, g.class, 1)
			}
			// All Access is every adult class; Mornings every adult class
			// before noon. Both list the discipline packages' own sessions.
			if !kids {
				t.entry(pkgAllAccess, ct, g.class, 1)
				if hm(g.start) < hm("12:00") {
					t.entry(pkgMornings, ct, g.class, 1)
				}
			}
		}
	}

	members := []struct {
		name, phone string
		pkg         int64
		plan        string
		start       int // days from the start of this week
	}{
		{"Fahad Al-Sabah", "+965 5011 2044", pkgBoxingFund, "12 a month · 1 month", -10},
		{"Noor Al-Rashid", "+965 5522 8190", pkgLadies, "unlimited · 3 months", -20},
		{"Khalid Al-Enezi", "+965 6098 3321", pkgAllAccess, "unlimited · 12 months", -70},
		{"Sara Al-Mutawa", "+965 9765 0412", pkgMobility, "8 a month · 1 month", -5},
		{"Abdullah Al-Hajri", "+965 6630 7785", pkgMuayThaiAdv, "unlimited · 3 months", -40},
		{"Maryam Bukhari", "+965 5140 9923", pkgBJJGi, "12 a month · 1 month", -12},
		{"Yaqoub Al-Kandari", "+965 9912 4476", pkgMMA, "unlimited · 3 months", -30},
		{"Hessa Al-Fadhli", "+965 6677 1205", pkgStrength, "12 a month · 1 month", -3},
		{"Ali Dashti", "+965 5088 6612", pkgAllAccess, "unlimited · 3 months", -60},
		{"Jassim Al-Qattan", "+965 9403 5587", pkgWrestling, "12 a month · 1 month", -15},
		{"Lulwa Al-Ghanim", "+965 6055 3149", pkgMornings, "unlimited · 3 months", -7},
		{"Rohan Mehta", "+965 5267 0038", pkgBoxingAdv, "12 a month · 1 month", -8},
		{"Carlos Mendes", "+965 9871 2260", pkgNoGi, "unlimited · 3 months", -50},
		{"Aisha Al-Awadhi", "+965 6612 9954", pkgKickboxing, "8 a month · 1 month", -2},
		{"Hamad Al-Shammari", "+965 5590 4417", pkgKids, "8 a month · 3 months", -25},
		{"Zaid Al-Shammari", "+965 5590 4417", pkgTeens, "8 a month · 3 months", -25},
		{"Bader Al-Mutairi", "+965 9934 7701", pkgJudo, "12 a month · 1 month", -18},
		{"Fatima Hayat", "+965 6021 8836", pkgMuayThaiFund, "8 a month · 1 month", -1},
		{"Tom Hughes", "+965 5177 6093", pkgBoxingFund, "unlimited · 3 months", -35},
		{"Reem Al-Saleh", "+965 9650 2318", pkgAllAccess, "unlimited · 1 month", -4},
	}
	var fahad int64
	for _, m := range members {
		id := t.client(m.name, email(m.name, "example.com"), m.phone)
		t.subscribe(id, m.pkg, m.plan, week.AddDays(m.start), 0)
		if m.name == "Fahad Al-Sabah" {
			fahad = id
		}
	}

	// This week: Fahad has a private boxing lesson with Marco on Monday
	// morning, when the Ring is empty; Tuesday's late kickboxing is off.
	t.oneOff(engine.OneOff{
		ClassID: boxingMarco, RoomID: ring, Date: dayOf(week, time.Monday),
		Start: hm("10:00"), End: hm("11:00"), Label: "Private lesson", Capacity: 1,
		ClientIDs: []int64{fahad},
	})
	t.s.Changes = append(t.s.Changes, engine.DayChange{
		Ref: engine.SessionRef{
			Date:        dayOf(week, time.Tuesday),
			ClassTimeID: t.classTimeAt(ring, time.Tuesday, "21:00"),
			ClassID:     kickboxingDana,
		},
		Cancelled: true,
		Note:      "Coach Dana is cornering at a fight night; kickboxing is back on Thursday",
	})

	// Nok is away for a week from Thursday at a Muay Thai seminar. Dana takes
	// Thursday's classes and Marco Saturday's; next week's still need cover,
	// so a new user meets the assistant at once.
	t.s.TimeOffs = append(t.s.TimeOffs, engine.TimeOff{
		ID: 1, StaffID: nok, From: dayOf(week, time.Thursday), To: dayOf(week, time.Thursday).AddDays(6),
		Reason: "Muay Thai seminar in Bangkok",
	})
	covers := []struct {
		wd    time.Weekday
		start string
		by    int64
	}{
		{time.Thursday, "17:00", dana},
		{time.Thursday, "20:00", dana},
		{time.Saturday, "10:00", marco},
	}
	for _, c := range covers {
		t.s.Changes = append(t.s.Changes, engine.DayChange{
			Ref: engine.SessionRef{
				Date: dayOf(week, c.wd), ClassTimeID: t.classTimeAt(ring, c.wd, c.start), ClassID: muayThaiNok,
			},
			StaffIDs: staff(c.by),
		})
	}
	return t.s
}
