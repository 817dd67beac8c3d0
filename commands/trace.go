package commands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/apichain/apichain/internal/tracing"
)

// traceOptions are `chain trace`'s flags.
type traceOptions struct {
	kubeconfig, context string
	filter              traceFilter
	output              string
	last                int
	web                 string
}

// newTraceCommand is `chain trace`: it follows a running chain's recent requests
// (/debug/apichain/traces) and prints each as it completes, as a tree of the hops it made
// through the chain, or serves a page that draws them (--web).
func newTraceCommand() *cobra.Command {
	o := &traceOptions{}
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Follow the requests a running chain serves, hop by hop",
		Long: `trace follows a running chain and prints each request as it completes: who asked what, how it
ended, and the tree of its hops through the chain (authentication, authorization, the servers it
passed and why each handed it on, admission, storage, the remote hop), each with when it started
after the request did and how long it took. It finds the chain as kubectl does (KUBECONFIG,
--kubeconfig, --context) and needs the ClusterRole apichain:trace-reader (system:masters has it).

	chain trace                                   # every request, until Ctrl-C
	chain trace --path /api/v1/namespaces/*/pods  # a prefix, or a glob (* within a segment)
	chain trace --user admin --verb create,delete --slower-than 5ms
	chain trace --last 5                          # the 5 most recent, then exit
	chain trace -o json                           # one JSON object a request, a line each
	chain trace --web 127.0.0.1:8001              # a page that draws them, at http://127.0.0.1:8001/`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			err := o.run(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr())
			stop()
			if err != nil {
				// Said as kubectl says it, not as a log line (which the command's runner
				// makes of a returned error); the exit code is the same.
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				os.Exit(1)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "The kubeconfig to reach the chain with (default: KUBECONFIG, then ~/.kube/config, as kubectl).")
	fs.StringVar(&o.context, "context", "", "The kubeconfig context to use (default: its current context).")
	fs.StringSliceVar(&o.filter.Users, "user", nil, "Only requests of these users (comma-separated or repeated).")
	fs.StringSliceVar(&o.filter.Verbs, "verb", nil, "Only requests with these verbs: get, list, watch, create, update, patch, delete, ... (comma-separated or repeated).")
	fs.StringVar(&o.filter.Path, "path", "", "Only requests whose path starts with this, or matches this glob (* within a segment) in its first segments.")
	fs.DurationVar(&o.filter.SlowerThan, "slower-than", 0, "Only requests that took longer than this (e.g. 5ms).")
	fs.StringVarP(&o.output, "output", "o", "", "How to print requests: a tree (default) or json (one object a request, a line each).")
	fs.IntVar(&o.last, "last", 0, "Begin with the N most recent requests that pass the filters; without --web, print them and exit.")
	fs.StringVar(&o.web, "web", "", "Serve a page that draws the requests at this address (host:port) instead of printing them.")
	return cmd
}

func (o *traceOptions) validate() error {
	if o.output != "" && o.output != "json" {
		return fmt.Errorf("-o must be json (or not given, for a tree), not %q", o.output)
	}
	if o.last < 0 {
		return fmt.Errorf("--last %d: must not be negative", o.last)
	}
	if o.web != "" && o.output != "" {
		return fmt.Errorf("--web draws the requests on a page: -o does not apply")
	}
	return o.filter.validate()
}

func (o *traceOptions) run(ctx context.Context, out, errOut io.Writer) error {
	c, err := newChainClient(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	if o.web != "" {
		return o.serveWeb(ctx, c, out, errOut)
	}
	show := o.printer(out)
	if o.last > 0 {
		recent, err := o.recent(ctx, c)
		if err != nil {
			return err
		}
		for _, r := range recent {
			show(r, o.filter.matches(r.trace))
		}
		return nil
	}
	body, err := o.open(ctx, c, 0, false)
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "following the requests %s serves (Ctrl-C to stop)\n", c.host)
	_, err = o.read(ctx, c, body, show)
	return err
}

// received is a trace as it came: decoded, and its line (which -o json prints as it is).
type received struct {
	trace *tracing.Trace
	raw   []byte
}

// printer returns what shows a received trace: every trace is remembered (a hop of a later
// one may have caused it), those that pass the filters are printed.
func (o *traceOptions) printer(out io.Writer) func(r received, passes bool) {
	if o.output == "json" {
		return func(r received, passes bool) {
			if passes {
				out.Write(append(bytes.TrimSpace(r.raw), '\n'))
			}
		}
	}
	p := newTracePrinter(out)
	return func(r received, passes bool) {
		p.remember(r.trace)
		if passes {
			p.print(r.trace)
		}
	}
}

// recent asks for the traces the chain keeps and returns them all, oldest first, but with only
// the last o.last of those that pass the filters marked to be shown (the rest may still be
// linked from those).
func (o *traceOptions) recent(ctx context.Context, c *chainClient) ([]received, error) {
	body, err := c.traces(ctx, url.Values{})
	if err != nil {
		return nil, err
	}
	defer body.Close()
	var raws []json.RawMessage
	if err := json.NewDecoder(body).Decode(&raws); err != nil {
		return nil, fmt.Errorf("reading the traces of the chain at %s: %w", c.host, err)
	}
	all := make([]received, 0, len(raws))
	matching := 0
	for _, raw := range raws {
		t := &tracing.Trace{}
		if err := json.Unmarshal(raw, t); err != nil {
			return nil, fmt.Errorf("reading the traces of the chain at %s: %w", c.host, err)
		}
		all = append(all, received{trace: t, raw: raw})
		if o.filter.matches(t) {
			matching++
		}
	}
	// Keep the traces up to the first of the last o.last that pass: the ones before can
	// neither be shown nor have been caused by a shown one.
	skip := matching - o.last
	for i, r := range all {
		if skip <= 0 {
			return all[i:], nil
		}
		if o.filter.matches(r.trace) {
			skip--
		}
	}
	return nil, nil
}

// open opens the chain's stream of traces after since (without hasSince: from now on).
func (o *traceOptions) open(ctx context.Context, c *chainClient, since uint64, hasSince bool) (io.ReadCloser, error) {
	query := url.Values{"follow": {"true"}}
	if hasSince {
		query.Set("since", strconv.FormatUint(since, 10))
	}
	return c.traces(ctx, query)
}

// read hands each trace of the stream body to show until ctx ends (nil: Ctrl-C is how a user
// stops) or the stream does, and closes body. It returns the seq of the last trace read, where
// a reader that comes back picks up.
func (o *traceOptions) read(ctx context.Context, c *chainClient, body io.ReadCloser, show func(received, bool)) (uint64, error) {
	defer body.Close()
	var since uint64
	lines := bufio.NewReader(body)
	for {
		line, err := lines.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 && err == nil {
			t := &tracing.Trace{}
			if err := json.Unmarshal(line, t); err != nil {
				return since, fmt.Errorf("reading the traces of the chain at %s: %w", c.host, err)
			}
			since = t.Seq
			show(received{trace: t, raw: line}, o.filter.matches(t))
		}
		switch {
		case ctx.Err() != nil:
			return since, nil
		case errors.Is(err, io.EOF):
			return since, fmt.Errorf("the chain at %s ended the stream of traces: did it stop?", c.host)
		case err != nil:
			return since, fmt.Errorf("the stream of traces from %s broke: %w", c.host, err)
		}
	}
}
