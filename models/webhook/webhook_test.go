package webhook

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestSignKnownAnswer signs the example of the reference implementation's
// own test (standard-webhooks, libraries/go/webhook_test.go,
// TestWebhookSign): the same secret, id, timestamp and body give the
// signature it expects.
func TestSignKnownAnswer(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestSignatureOfARotation(t *testing.T) {
	at := time.Unix(1614265330, 0)
	a, b := NewSecret(), NewSecret()
	if !strings.HasPrefix(a, SecretPrefix) || a == b {
		t.Fatalf("secrets %q and %q", a, b)
	}
	both, err := Signature([]string{a, b}, "evt_1", at, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := Sign(a, "evt_1", at, []byte("{}"))
	sb, _ := Sign(b, "evt_1", at, []byte("{}"))
	if both != sa+" "+sb {
		t.Errorf("got %q, want both signatures, space-separated", both)
	}
	if _, err := Sign("whsec_not base64!", "evt_1", at, nil); err == nil {
		t.Error("a secret that is not base64 signed")
	}
}

func TestPolicyRefuses(t *testing.T) {
	cases := []struct {
		ip     string
		refuse bool
	}{
		{"93.184.215.14", false}, {"2606:2800:21f:cb07:6820:80da:af6b:8b2c", false},
		{"127.0.0.1", true}, {"127.8.9.1", true}, {"::1", true}, {"::ffff:127.0.0.1", true},
		{"10.1.2.3", true}, {"172.16.0.1", true}, {"172.31.255.255", true}, {"172.32.0.1", false}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"fd00:ec2::254", true}, {"100.100.100.200", true}, {"fe80::1", true},
		{"224.0.0.1", true}, {"ff02::1", true}, {"0.0.0.0", true}, {"::", true}, {"255.255.255.255", true},
	}
	for _, c := range cases {
		why := Policy{}.Refused(netip.MustParseAddr(c.ip))
		if (why != "") != c.refuse {
			t.Errorf("%s: refused %q, want refused %v", c.ip, why, c.refuse)
		}
		if why := (Policy{AllowPrivate: true}).Refused(netip.MustParseAddr(c.ip)); why != "" {
			t.Errorf("%s refused with AllowPrivate: %s", c.ip, why)
		}
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://93.184.215.14/hooks", false, true},
		{"http://93.184.215.14/hooks", false, false},
		{"http://127.0.0.1:8080/hooks", true, true},
		{"https://127.0.0.1/hooks", false, false},
		{"https://[::1]/hooks", false, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://user:pass@93.184.215.14/", false, false},
		{"https://93.184.215.14/#frag", false, false},
		{"ftp://93.184.215.14/", true, false},
		{"https:///nohost", false, false},
		{"not a url", false, false},
		{"https://localhost/hooks", false, false}, // resolves to loopback
	}
	for _, c := range cases {
		_, err := Policy{AllowPrivate: c.allowPrivate}.CheckURL(ctx, c.url)
		if (err == nil) != c.ok {
			t.Errorf("%s (allow private %v): got %v, want ok %v", c.url, c.allowPrivate, err, c.ok)
		}
	}
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	for n := 1; n < 40; n++ {
		full := min(5*time.Second<<min(n-1, 20), 2*time.Hour)
		for range 50 {
			if d := Backoff(n); d < full/2 || d > full {
				t.Fatalf("attempt %d: waited %v, want %v to %v", n, d, full/2, full)
			}
		}
	}
}

// TestRetriedForADay follows one delivery whose every attempt fails,
// on a clock moved to each retry: it is retried for MaxAge from its first
// attempt, the last attempt exactly then, and then fails.
func TestRetriedForADay(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	now := start
	d := Delivery{ID: 1}
	for attempts := 1; ; attempts++ {
		r := outcome(d, Attempt{Status: 500}, now, MaxAge)
		if r.Number != attempts {
			t.Fatalf("attempt numbered %d, want %d", r.Number, attempts)
		}
		if r.State == Failed {
			if got := now.Sub(start); got != MaxAge {
				t.Fatalf("failed %v after the first attempt, want %v", got, MaxAge)
			}
			if attempts < 15 || attempts > 40 {
				t.Fatalf("%d attempts over a day", attempts)
			}
			return
		}
		if r.State != Pending || !r.RetryAt.After(now) {
			t.Fatalf("attempt %d: %+v", attempts, r)
		}
		if d.First.IsZero() {
			d.First = now
		}
		d.Attempts++
		now = r.RetryAt
	}
}

func TestOutcomes(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if r := outcome(Delivery{}, Attempt{Status: 204}, now, MaxAge); r.State != Delivered {
		t.Errorf("204: %+v", r)
	}
	if r := outcome(Delivery{}, Attempt{Status: 410}, now, MaxAge); !r.Gone || r.State != Pending {
		t.Errorf("410: %+v", r)
	}
	if r := outcome(Delivery{}, Attempt{Status: 301}, now, MaxAge); r.State != Pending {
		t.Errorf("a redirect is a failure: %+v", r)
	}
	r := outcome(Delivery{}, Attempt{Status: 429, RetryAfter: time.Hour}, now, MaxAge)
	if r.RetryAt.Sub(now) != time.Hour {
		t.Errorf("Retry-After 3600 waited %v", r.RetryAt.Sub(now))
	}
}
