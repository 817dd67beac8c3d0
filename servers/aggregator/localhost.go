package aggregator

import (
	"context"
	"net"
	"strings"
	"time"
)

// DialLocalhost is the aggregator's dialer towards aggregated API servers (and the admission
// webhooks' towards their Services, servers/chain/admission). It dials like any
// dialer, except that names under .localhost go to the loopback interface, as RFC 6761 §6.3 asks
// (systemd-resolved, curl and browsers do the same; Go's resolver does not).
//
// Why the chain needs it: an APIService reaches its server through a Service and EndpointSlice,
// and EndpointSlice validation (like kube-apiserver's) rejects loopback IPs. A metrics server
// on this machine's loopback therefore registers an FQDN endpoint, metrics-server.localhost,
// which this dialer takes to 127.0.0.1. Servers elsewhere register real IPs and are dialed as is.
func DialLocalhost(ctx context.Context, network, addr string) (net.Conn, error) {
	if host, port, err := net.SplitHostPort(addr); err == nil && (host == "localhost" || strings.HasSuffix(host, ".localhost")) {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	d := net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return d.DialContext(ctx, network, addr)
}
