// Package etcd runs the chain's embedded etcd: one member, in-process, on loopback ports chosen
// free at start, with its data under the chain's data dir. It sits below the whole chain: every
// server's storage talks to it through the ordinary etcd v3 client, exactly as kube-apiserver talks
// to an external etcd, so --etcd-servers can replace it without changing anything above.
package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/klog/v2"
)

// Config says where the member keeps its data and how careful it is with it.
type Config struct {
	// Dir holds the member's WAL and snapshots; objects survive a restart with the same Dir.
	Dir string
	// UnsafeNoFsync skips fsync: faster, but acknowledged writes can be lost on a crash. Tests only.
	UnsafeNoFsync bool
	// LogLevel is etcd's own log level (debug, info, warn, error, fatal); empty follows klog -v.
	LogLevel string
}

// Server is a running embedded member.
type Server struct {
	etcd *embed.Etcd
	// ClientURL is what clients dial (http on loopback).
	ClientURL string
}

// Start starts the member and returns once it can serve requests (it has elected itself leader).
func Start(ctx context.Context, c Config) (*Server, error) {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating etcd data dir: %w", err)
	}
	var lastErr error
	// Ports are picked by binding :0 and closing; another process can take one in between, so retry.
	for attempt := 0; attempt < 5; attempt++ {
		s, err := start(ctx, c)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !isAddrInUse(err) {
			break
		}
	}
	return nil, lastErr
}

func start(ctx context.Context, c Config) (*Server, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
	peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))}

	cfg := embed.NewConfig()
	cfg.Name = "chain"
	cfg.Dir = c.Dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = c.UnsafeNoFsync
	// One member has nobody to wait for, yet it still waits out part of an election timeout
	// before it makes itself leader (etcd fast-forwards all but 1 to electionTicks ticks of the
	// randomized timeout). The shortest timeout etcd accepts for a 10 ms heartbeat (5 of them)
	// makes that 10–50 ms (etcd's defaults, 100/1000 ms: up to a second; 10/100: 10–100 ms,
	// ~25 ms more per start on average). A 5 ms heartbeat would halve it again but costs the
	// idle chain about 1 % of a core more. Heartbeats go to no one; a lone member cannot lose
	// leadership.
	cfg.TickMs = 10
	cfg.ElectionMs = 50
	// etcd logs routine events (and every shutdown) at error level; its real failures reach the
	// chain through Err() instead. Its log shows from -v 2 on.
	cfg.LogLevel = c.LogLevel
	if cfg.LogLevel == "" {
		cfg.LogLevel = "fatal"
		if klog.V(2).Enabled() {
			cfg.LogLevel = "warn"
		}
	}
	// kube-apiserver compacts etcd itself (every 5 minutes), as it does against an external etcd.
	cfg.AutoCompactionRetention = "0"

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("starting embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return &Server{etcd: e, ClientURL: clientURL.String()}, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd failed: %w", err)
	case <-time.After(time.Minute):
		e.Close()
		return nil, errors.New("embedded etcd did not become ready within a minute")
	case <-ctx.Done():
		e.Close()
		return nil, ctx.Err()
	}
}

// Err reports a failure of the running member.
func (s *Server) Err() <-chan error { return s.etcd.Err() }

// Close stops the member cleanly: in-flight requests finish, the WAL is synced and closed.
func (s *Server) Close() { s.etcd.Close() }

func freePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port for etcd: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func isAddrInUse(err error) bool {
	return err != nil && strings.Contains(err.Error(), "address already in use")
}
