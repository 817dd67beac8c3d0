// Package etcd runs the chain's embedded etcd: one member, in-process, with its data under the
// chain's data dir. It sits below the whole chain: every server's storage talks to it through the
// ordinary etcd v3 client, exactly as kube-apiserver talks to an external etcd, so --etcd-servers
// can replace it without changing anything above.
//
// etcd has no authentication of its own here, and whoever reaches it reads every Secret and
// writes any object past authentication, RBAC and admission. So the member opens no network
// port at all: it serves clients on a unix socket in its own directory (Dir/etcd.sock, the
// directory 0700, the socket 0600), which only this user (and root) can open, the same people
// who can read its data files anyway. A lone member has no peers, so it listens for none.
//
// It also owns the files in a chain's data dir that name the etcd in use, embedded or external
// (WriteEndpoints at start; ReadEndpoints and ReadClientTLS for `chain etcdctl`).
package etcd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/klog/v2"
)

// Config says where the member keeps its data and how careful it is with it.
type Config struct {
	// Dir holds the member's WAL and snapshots, and its client socket; objects survive a
	// restart with the same Dir.
	Dir string
	// UnsafeNoFsync skips fsync: faster, but acknowledged writes can be lost on a crash. Tests only.
	UnsafeNoFsync bool
	// LogLevel is etcd's own log level (debug, info, warn, error, fatal); empty follows klog -v.
	LogLevel string
	// Seed is written into the member when it starts with no key at all (seed.go): what a
	// caller knows every new cluster's first start would write (chaintest's snapshot of the
	// bootstrap objects). A member that holds keys already is left as it is.
	Seed []KeyValue
}

// Server is a running embedded member.
type Server struct {
	etcd *embed.Etcd
	// ClientURL is what clients dial: unix:///<Dir>/etcd.sock.
	ClientURL string
	// Seeded says Config.Seed was written: the member started empty.
	Seeded bool
}

// SocketName is the member's client socket in Dir.
const SocketName = "etcd.sock"

// maxSocketPath is the longest path a unix socket may have on Linux (108 bytes with the NUL).
const maxSocketPath = 107

// Start starts the member and returns once it can serve requests (it has elected itself leader).
func Start(ctx context.Context, c Config) (*Server, error) {
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil, fmt.Errorf("etcd data dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating etcd data dir: %w", err)
	}
	// MkdirAll leaves an existing directory as it was: the socket's privacy rests on this mode.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the etcd data dir private: %w", err)
	}
	socket := filepath.Join(dir, SocketName)
	if len(socket) > maxSocketPath {
		return nil, fmt.Errorf("etcd's socket %s is longer than the %d bytes a unix socket path may have: use a shorter --data-dir", socket, maxSocketPath)
	}
	clientURL := url.URL{Scheme: "unix", Path: socket}

	cfg := embed.NewConfig()
	cfg.Name = "chain"
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	// No peer listener: the member is its own cluster. It still needs a peer URL to name itself
	// in the initial cluster; nothing listens there.
	cfg.ListenPeerUrls = nil
	cfg.AdvertisePeerUrls = []url.URL{{Scheme: "unix", Path: filepath.Join(dir, "no-peers")}}
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
	// The listener made the socket with the process umask; the directory already keeps others
	// out, and 0600 says so on the socket itself.
	if err := os.Chmod(socket, 0o600); err != nil {
		e.Close()
		return nil, fmt.Errorf("making etcd's socket private: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		s := &Server{etcd: e, ClientURL: clientURL.String()}
		if s.Seeded, err = s.seed(ctx, c.Seed); err != nil {
			e.Close()
			return nil, err
		}
		return s, nil
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
