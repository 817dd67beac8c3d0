package chain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/servers/aggregator"
)

// start brings a chain up, one named step after the other. Each step pushes onto one cleanup
// stack what undoes it; if a step fails, the stack runs, last first, and start returns the
// step's error. Once the servers run, their goroutine owns the stack: it runs it when they stop.
func start(ctx context.Context, o CompletedOptions, p progress) (*Chain, error) {
	// A higher GC target while starting (gc.go). However start ends, it says so; a second after
	// the last start of the process has ended, start-up's garbage goes back to the OS and the
	// target is restored (settleGC), in the background: it is a full collection.
	startOver := relaxGC()
	defer startOver()

	s := &starter{parent: ctx, o: o, p: p}
	for _, step := range []func() error{
		s.lockDataDir,
		s.newContext,
		s.ensurePKI,
		s.startEtcd,
		s.newConfig,
		s.createServerChain,
		s.addHooks,
		s.prepare,
		s.serve,
		s.watchEtcd,
		s.writeKubeconfig,
		s.waitReady,
		s.startAddons,
		s.limitRecording,
	} {
		if err := step(); err != nil {
			s.undo.run()
			return nil, err
		}
	}
	s.chain.addons.Done() // start's own count (Chain.addons): the addons have joined
	return s.chain, nil
}

// cleanups is start's one cleanup stack: each step pushes what undoes it.
type cleanups []func()

func (c *cleanups) push(undo func()) { *c = append(*c, undo) }

// run undoes everything pushed, last first, and empties the stack.
func (c *cleanups) run() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
	*c = nil
}

// handOver empties the stack and returns what it held, for someone else to run.
func (c *cleanups) handOver() cleanups {
	held := *c
	*c = nil
	return held
}

// starter is a chain on its way up: what each step of start makes, for the steps after it.
type starter struct {
	parent context.Context
	o      CompletedOptions
	p      progress
	undo   cleanups

	// ctx is the chain's: canceled by Stop, by the caller's ctx, by a failed start, or by a
	// failing embedded etcd.
	ctx         context.Context
	cancel      context.CancelFunc
	files       pki.Files
	etcdServers []string
	member      *etcd.Server // the embedded etcd; nil with --etcd-servers
	config      *Config
	completed   CompletedConfig
	url         string
	head        *aggregator.Server
	prepared    aggregator.PreparedServer
	chain       *Chain
	runErr      chan error // the servers' Run returned (with its error)
	// controllers counts the controllers' terms until every controller has returned.
	controllers sync.WaitGroup
}

// lockDataDir: one instance per data dir. Two embedded etcds (or two admin kubeconfigs) in one
// directory would wreck each other; instances of one cluster share --pki-dir and
// --etcd-servers instead.
func (s *starter) lockDataDir() error {
	unlock, err := lockDir(s.o.DataDir)
	if err != nil {
		return err
	}
	s.undo.push(unlock)
	return nil
}

// newContext makes the context the chain runs in.
func (s *starter) newContext() error {
	s.ctx, s.cancel = context.WithCancel(s.parent)
	s.undo.push(s.cancel)
	return nil
}

// ensurePKI creates the certificates and keys under --pki-dir, or reuses those there.
func (s *starter) ensurePKI() error {
	s.files = pki.FilesIn(s.o.PKIDir)
	created, err := pki.Ensure(s.files, servingNames(s.o))
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	s.p.printf("pki: %s (%s)", map[bool]string{true: "created", false: "reused"}[created], s.files.Dir)
	return nil
}

// startEtcd starts the embedded etcd member, unless --etcd-servers names a cluster, and writes
// which etcd the chain uses into the data dir (for `chain etcdctl` and a second instance).
func (s *starter) startEtcd() error {
	s.etcdServers = s.o.EtcdServers
	if len(s.etcdServers) == 0 {
		dir := filepath.Join(s.o.DataDir, "etcd")
		member, err := etcd.Start(s.ctx, etcd.Config{Dir: dir, UnsafeNoFsync: s.o.UnsafeNoFsync, Seed: s.o.EtcdSeed})
		if err != nil {
			return err
		}
		s.member = member
		s.undo.push(member.Close)
		s.etcdServers = []string{member.ClientURL}
		s.p.printf("etcd: embedded member serving on %s, for this user only (data in %s)", member.ClientURL, dir)
		if member.Seeded {
			s.p.printf("etcd: seeded with %d keys", len(s.o.EtcdSeed))
		}
	} else {
		s.p.printf("etcd: external cluster %v%s", s.etcdServers, map[bool]string{true: " (TLS client certificate)", false: ""}[s.o.EtcdCertFile != ""])
	}
	return etcd.WriteEndpoints(s.o.DataDir, s.etcdServers, etcd.TLSFiles{CAFile: s.o.EtcdCAFile, CertFile: s.o.EtcdCertFile, KeyFile: s.o.EtcdKeyFile})
}

// newConfig builds the chain's configuration (config.go), which opens the listener.
func (s *starter) newConfig() error {
	config, err := NewConfig(s.o, s.files, s.etcdServers)
	if err != nil {
		return fmt.Errorf("configuring the chain: %w", err)
	}
	s.config, s.completed = config, config.Complete()
	listener := config.Aggregator.GenericConfig.SecureServing.Listener
	// Until the servers run: then Run closes it, and closing it again does nothing.
	s.undo.push(func() { listener.Close() })
	s.url = "https://" + net.JoinHostPort(publicAddress(s.o.BindIP).String(), strconv.Itoa(listenerPort(listener)))
	s.p.printf("config: one listener on %s, authentication (x509, front-proxy, tokens) and authorization (RBAC) at the head", s.url)
	return nil
}

// createServerChain builds the three servers, linked by delegation (chain.go).
func (s *starter) createServerChain() error {
	head, err := CreateServerChain(s.completed)
	if err != nil {
		return err
	}
	s.head = head
	return nil
}

// addHooks adds the chain's own post-start hooks to the head, and their steps to its
// pre-shutdown work (stop.go): its identity Lease (identity.go) and the controllers (addons.go).
func (s *starter) addHooks() error {
	if err := addIdentityLease(s.head.GenericAPIServer, s.o, s.completed.stopping); err != nil {
		return err
	}
	return addControllers(s.head.GenericAPIServer, s.o, s.files, &s.controllers, s.completed.tracing, s.completed.stopping)
}

// prepare runs the head's PrepareRun (health checks, OpenAPI, discovery) and makes the Chain
// that Start returns.
func (s *starter) prepare() error {
	prepared, err := s.head.PrepareRun()
	if err != nil {
		return fmt.Errorf("preparing the chain: %w", err)
	}
	s.prepared = prepared
	server := s.head.GenericAPIServer
	s.p.printf("servers: aggregator → core → apiextensions → not-found")
	s.p.printf("identity: %s (Lease kube-system/%s)", server.APIServerID, server.APIServerID)

	c := &Chain{URL: s.url, KubeconfigPath: filepath.Join(s.o.DataDir, "admin.kubeconfig"), PKI: s.files, cancel: s.cancel, done: make(chan struct{})}
	c.head = server.Handler
	if core, ok := server.NextDelegate().(*genericapiserver.GenericAPIServer); ok {
		c.core = core.Handler
	}
	s.chain = c
	return nil
}

// serve runs the servers in the background until the chain's context is done. From here on
// their goroutine owns the cleanups: it runs them once the servers and the addons have stopped,
// and a start that fails only stops the servers and waits for that.
func (s *starter) serve() error {
	c := s.chain
	// A metrics server withdraws its registration when it stops (servers/metrics), through the
	// chain; the chain accepts requests until its pre-shutdown work is done, so one step of it
	// waits for the addons (at most 15 s: a child that does not stop is killed after 10).
	s.completed.stopping.add("addons", func() error {
		stopped := make(chan struct{})
		go func() { c.addons.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(15 * time.Second):
		}
		return nil
	})
	c.addons.Add(1) // start's own count, until it returns
	s.runErr = make(chan error, 1)
	stopped := s.undo.handOver()
	go func() {
		err := s.prepared.Run(s.ctx)
		if err == nil && s.ctx.Err() == nil {
			err = errors.New("the chain stopped serving")
		}
		s.cancel() // the servers stopped on their own: stop the addons too
		c.err = err
		s.runErr <- err
		c.addons.Wait()
		// The controllers stop with the servers (their context ends with them); etcd and
		// the rest close once they have all returned.
		s.controllers.Wait()
		stopped.run()
		close(c.done)
	}()
	s.undo.push(func() {
		s.cancel()
		c.addons.Done()
		<-c.done
	})
	return nil
}

// watchEtcd stops the chain if its embedded etcd fails.
func (s *starter) watchEtcd() error {
	if s.member == nil {
		return nil
	}
	member, done := s.member, s.chain.done
	go func() {
		select {
		case err := <-member.Err():
			if err != nil {
				fmt.Fprintf(os.Stderr, "embedded etcd failed: %v\n", err)
				s.cancel()
			}
		case <-done:
		}
	}()
	return nil
}

// writeKubeconfig writes <data-dir>/admin.kubeconfig, for kubectl and the steps after this one.
func (s *starter) writeKubeconfig() error {
	admin, err := writeAdminKubeconfig(s.chain.KubeconfigPath, s.url, s.files)
	if err != nil {
		return err
	}
	s.chain.Admin = admin
	s.p.printf("serving: %s", s.url)
	return nil
}

// waitReady waits for /readyz, or for the servers to stop, or for --start-timeout.
func (s *starter) waitReady() error {
	if err := pollReady(s.ctx, s.chain.Admin, s.runErr, s.o.StartTimeout); err != nil {
		return err
	}
	s.p.printf("ready: /readyz ok")
	return nil
}

// limitRecording bounds what the chain records from now on (--record-traces-per-second): its
// start, bounded work, is recorded whole, and the first requests made of the started chain find
// room.
func (s *starter) limitRecording() error {
	if ring := s.completed.tracing.Ring(); ring != nil {
		ring.StartLimiting()
	}
	return nil
}

// startAddons starts what runs beside the servers: the metrics server (addons.go).
func (s *starter) startAddons() error {
	if err := startMetrics(s.ctx, s.o, s.files, s.url, s.p, &s.chain.addons, s.completed.tracing); err != nil {
		return fmt.Errorf("starting the metrics server: %w", err)
	}
	return nil
}
