package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/apichain/apichain/commands/traceweb"
)

// webKeep is how many requests the page's server keeps for a page opened late.
const webKeep = 200

// retryEvery is how long `chain trace --web` waits before it asks a chain that went away again.
const retryEvery = time.Second

// serveWeb is `chain trace --web`: it serves the page at o.web and follows the chain for it.
// A chain that is not there at the start is an error, as without --web; one that goes away
// later is asked again every retryEvery, and the page says so meanwhile.
func (o *traceOptions) serveWeb(ctx context.Context, c *chainClient, out, errOut io.Writer) error {
	page := traceweb.New(webKeep)
	var since uint64
	hasSince := false
	if o.last > 0 {
		recent, err := o.recent(ctx, c)
		if err != nil {
			return err
		}
		for _, r := range recent {
			if o.filter.matches(r.trace) {
				page.Publish(r.raw)
			}
			since, hasSince = r.trace.Seq, true
		}
	}
	body, err := o.open(ctx, c, since, hasSince)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.web)
	if err != nil {
		body.Close()
		return fmt.Errorf("--web %s: %w", o.web, err)
	}
	srv := &http.Server{Handler: page.Handler(ln.Addr()), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	serveErr := make(chan error, 1)
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			serveErr <- fmt.Errorf("serving the page: %w", err)
			cancel()
		}
	}()
	// The page's streams never end by themselves: Close, not Shutdown.
	defer srv.Close()
	fmt.Fprintf(out, "the page is at http://%s/ (following %s; Ctrl-C to stop)\n", ln.Addr(), c.host)

	publish := func(r received, passes bool) {
		if passes {
			page.Publish(r.raw)
		}
	}
	for {
		page.SetStatus("following "+c.host, true)
		last, err := o.read(ctx, c, body, publish)
		if last > 0 {
			since, hasSince = last, true
		}
		for err != nil && ctx.Err() == nil {
			fmt.Fprintln(errOut, err)
			page.SetStatus(err.Error()+"; retrying", false)
			select {
			case <-ctx.Done():
			case <-time.After(retryEvery):
				body, err = o.open(ctx, c, since, hasSince)
			}
		}
		if ctx.Err() != nil {
			select {
			case err := <-serveErr:
				return err
			default:
				return nil // Ctrl-C
			}
		}
	}
}
