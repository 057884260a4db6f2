package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"github.com/koredyne/schedule/engine"
)

// Policy says which endpoints may be called. In production an endpoint is
// a public https address; AllowPrivate (serve --webhook-allow-private)
// also lets http and every address through, for development and tests
// that run their receivers on loopback.
type Policy struct {
	AllowPrivate bool
	// Resolver looks names up; nil: net.DefaultResolver.
	Resolver *net.Resolver
}

// refused are the networks no endpoint may reach without AllowPrivate:
// where a server's own and its neighbours' services listen, and the cloud
// metadata services (169.254.169.254 and fd00:ec2::254 are link-local and
// unique local; Alibaba's 100.100.100.200 is in the shared space).
var refused = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (cloud metadata services live there)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "a reserved address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address"},
	{netip.MustParsePrefix("fc00::/7"), "a private (unique local) address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

// Refused says why the policy refuses to call ip, or "" when it may.
func (p Policy) Refused(ip netip.Addr) string {
	if p.AllowPrivate {
		return ""
	}
	ip = ip.Unmap()
	for _, r := range refused {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	return ""
}

// CheckURL checks an endpoint's URL as it is registered: an absolute
// https URL (http too with AllowPrivate) without credentials or a
// fragment, whose host is, or resolves only to, addresses the policy
// allows. Its errors are engine errors on the field "url".
func (p Policy) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	bad := func(format string, args ...any) (*url.URL, error) {
		return nil, engine.Errorf(engine.Invalid, "url", format, args...)
	}
	if len(raw) > 2000 {
		return bad("The URL is longer than 2000 characters")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return bad("%q is not a URL: %v", raw, err)
	case u.Scheme != "https" && (u.Scheme != "http" || !p.AllowPrivate):
		return bad("An endpoint must be an https:// URL, not %q", raw)
	case u.User != nil:
		return bad("An endpoint's URL may not hold credentials (user:password@): receivers check the signature instead")
	case u.Host == "" || u.Hostname() == "" || u.Opaque != "":
		return bad("%q names no host", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("An endpoint's URL has no #fragment")
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		if why := p.Refused(ip); why != "" {
			return bad("%s is %s, which endpoints may not be", ip, why)
		}
		return u, nil
	}
	addrs, err := p.resolver().LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil || len(addrs) == 0 {
		return bad("%s does not resolve: %v", u.Hostname(), err)
	}
	for _, ip := range addrs {
		if why := p.Refused(ip); why != "" {
			return bad("%s resolves to %s, %s, which endpoints may not be", u.Hostname(), ip, why)
		}
	}
	return u, nil
}

func (p Policy) resolver() *net.Resolver {
	if p.Resolver != nil {
		return p.Resolver
	}
	return net.DefaultResolver
}

// ErrRefusedAddress is the error of a connection the policy refused.
var ErrRefusedAddress = errors.New("refused address")

// Dialer returns a dialer that connects only to the addresses the policy
// allows. It checks the address each connection is about to be made to,
// after the name was resolved: a name that resolved to a public address
// when the endpoint was registered and resolves to a private one now (DNS
// rebinding) is refused as it connects.
func (p Policy) Dialer() *net.Dialer {
	return &net.Dialer{
		Resolver: p.Resolver,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s is not an address: %v", ErrRefusedAddress, address, err)
			}
			if why := p.Refused(ap.Addr()); why != "" {
				return fmt.Errorf("%w: %s is %s", ErrRefusedAddress, ap.Addr(), why)
			}
			return nil
		},
	}
}
