package chain_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestNotFoundIs503UntilReady builds the chain without running it: until every server has
// installed its routes (signalled by the post-start hooks), an unknown path is 503, so a client
// racing start-up is told to retry rather than that the API does not exist. Once running, 404.
func TestNotFoundIs503UntilReady(t *testing.T) {
	dir := t.TempDir()
	member, err := etcd.Start(context.Background(), etcd.Config{Dir: dir + "/etcd", UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	// The options of a test chain (test/testchain), which this test builds by hand.
	o := chain.NewOptions()
	o.DataDir, o.SecurePort, o.UnsafeNoFsync, o.Metrics, o.Controllers = dir, 0, true, chain.MetricsOff, nil
	completed, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	files := pki.FilesIn(dir + "/pki")
	if _, err := pki.Ensure(files, pki.ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	config, err := chain.NewConfig(completed, files, []string{member.ClientURL})
	if err != nil {
		t.Fatal(err)
	}
	head, err := chain.CreateServerChain(config.Complete())
	if err != nil {
		t.Fatal(err)
	}
	prepared, err := head.PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	token := config.Aggregator.GenericConfig.LoopbackClientConfig.BearerToken
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/apis/nope.example.com/v1/things", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		head.GenericAPIServer.Handler.ServeHTTP(rec, req)
		return rec
	}
	if rec := serve(); rec.Code != http.StatusServiceUnavailable || rec.Header().Get(chain.ChainServerHeader) != "not-found" {
		t.Errorf("before the chain runs: %d (%s) %s", rec.Code, rec.Header().Get(chain.ChainServerHeader), rec.Body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- prepared.Run(ctx) }()
	defer func() { cancel(); <-done }()
	testchain.WaitFor(t, func() bool { return serve().Code == http.StatusNotFound })
}
