package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
)

// Verbs whose latency is the SLO's: single-object mutating calls.
var mutatingVerbs = []string{"create", "update", "apply", "patch", "delete"}

// Recorder sees every request the soak's clients send: its verb, how long it took, and how it
// was answered. Latencies are kept whole (a few hundred thousand durations in an hour), per
// sampling window and for the run.
type Recorder struct {
	start time.Time
	info  request.RequestInfoFactory

	mu sync.Mutex
	// window and all hold latencies by verb: since the last Window call, and for the run.
	window, all map[string][]time.Duration
	// codes counts answers by status code; transport errors are code 0.
	codes map[int]int
	// failures are the 5xx answers and the requests that got no answer, with when they happened.
	failures []Failure
	// quiet are the periods of deliberate disruption (a chain restart), in which failures are
	// expected.
	quiet []period
	// paused marks time that the chain was down: the latency of a request sent then is the
	// outage's, not the server's.
	paused bool
}

// Failure is a request answered 5xx, or not answered at all.
type Failure struct {
	At     time.Duration // since the start of the soak
	Verb   string
	Path   string
	Code   int // 0: no answer
	Detail string
}

type period struct{ from, to time.Duration }

// NewRecorder starts recording; times are reported relative to start.
func NewRecorder(start time.Time) *Recorder {
	return &Recorder{
		start:  start,
		info:   request.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")},
		window: map[string][]time.Duration{},
		all:    map[string][]time.Duration{},
		codes:  map[int]int{},
	}
}

// Since is the time elapsed since the start of the soak.
func (r *Recorder) Since() time.Duration { return time.Since(r.start) }

// Wrap makes cfg's requests go through the recorder. If cut is not nil, it cuts cfg's
// connections: a request that loses its answer just after a cut is not a failure.
func (r *Recorder) Wrap(cfg *rest.Config, cut *Cutter) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recordingTransport{r, rt, cut} })
}

// Reset starts the clock again and forgets what was recorded: the soak begins now.
func (r *Recorder) Reset(start time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.start = start
	r.window, r.all, r.codes, r.failures, r.quiet = map[string][]time.Duration{}, map[string][]time.Duration{}, map[int]int{}, nil, nil
}

// BeginQuiet marks the start of a deliberate disruption; EndQuiet its end.
func (r *Recorder) BeginQuiet() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.quiet = append(r.quiet, period{from: r.Since(), to: -1})
	r.paused = true
}

// EndQuiet ends the disruption BeginQuiet began, grace later: requests sent before the restart
// may still be answered during it.
func (r *Recorder) EndQuiet(grace time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.quiet); n > 0 {
		r.quiet[n-1].to = r.Since() + grace
	}
	r.paused = false
}

func (r *Recorder) inQuiet(at time.Duration) bool {
	for _, p := range r.quiet {
		if at >= p.from && (p.to < 0 || at <= p.to) {
			return true
		}
	}
	return false
}

type recordingTransport struct {
	r   *Recorder
	rt  http.RoundTripper
	cut *Cutter
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	verb := t.r.verb(req)
	began := time.Now()
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		// A request its caller gave up on (a watch stopped, the soak ending) is no failure.
		if !errors.Is(err, context.Canceled) && (t.cut == nil || !t.cut.CutWithin(5*time.Second)) {
			t.r.done(verb, req.URL.Path, began, 0, err.Error())
		}
		return resp, err
	}
	if verb == "watch" {
		// A watch's latency is how long it stays open: only its answer counts.
		t.r.done(verb, req.URL.Path, time.Time{}, resp.StatusCode, "")
		return resp, nil
	}
	// The request is done when its body has been read.
	resp.Body = &timedBody{ReadCloser: resp.Body, done: func() { t.r.done(verb, req.URL.Path, began, resp.StatusCode, resp.Status) }}
	return resp, nil
}

// verb is kube-apiserver's name for what req does (get, list, watch, create, update, patch,
// delete, ...), with server-side apply apart from other patches and subresources named.
func (r *Recorder) verb(req *http.Request) string {
	info, err := r.info.NewRequestInfo(req)
	if err != nil || !info.IsResourceRequest {
		return "other"
	}
	v := info.Verb
	if v == "patch" && strings.HasPrefix(req.Header.Get("Content-Type"), "application/apply-patch") {
		v = "apply"
	}
	if info.Subresource != "" {
		v += "/" + info.Subresource
	}
	return v
}

func (r *Recorder) done(verb, path string, began time.Time, code int, detail string) {
	at := r.Since()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.codes[code]++
	if code == 0 || code >= 500 {
		r.failures = append(r.failures, Failure{At: at, Verb: verb, Path: path, Code: code, Detail: detail})
	}
	if !began.IsZero() && code != 0 && !r.paused {
		d := time.Since(began)
		r.window[verb] = append(r.window[verb], d)
		r.all[verb] = append(r.all[verb], d)
	}
}

type timedBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.done)
	}
	return n, err
}

func (b *timedBody) Close() error {
	b.once.Do(b.done)
	return b.ReadCloser.Close()
}

// Window returns the latencies by verb since the last call, and starts a new window.
func (r *Recorder) Window() map[string][]time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.window
	r.window = map[string][]time.Duration{}
	return w
}

// Totals are the run's figures so far.
type Totals struct {
	Latencies map[string][]time.Duration // sorted
	Codes     map[int]int
	// Failures outside and inside the quiet periods.
	Failures, Expected []Failure
}

// Totals sums up the run.
func (r *Recorder) Totals() Totals {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := Totals{Latencies: map[string][]time.Duration{}, Codes: map[int]int{}}
	for v, l := range r.all {
		t.Latencies[v] = slices.Sorted(slices.Values(l))
	}
	for c, n := range r.codes {
		t.Codes[c] = n
	}
	for _, f := range r.failures {
		if r.inQuiet(f.At) {
			t.Expected = append(t.Expected, f)
		} else {
			t.Failures = append(t.Failures, f)
		}
	}
	return t
}

// Percentile is the p-th percentile (0-100) of sorted durations by nearest rank: the smallest
// that at least p percent are not above. 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(float64(len(sorted))*p/100)) - 1
	return sorted[max(i, 0)]
}

// Cutter dials a client's connections and can cut them all at once: a watcher's connection
// broken under it, as a network or a proxy breaks it.
type Cutter struct {
	mu      sync.Mutex
	conns   map[net.Conn]bool
	lastCut time.Time
}

// NewCutter returns a Cutter with no connection yet.
func NewCutter() *Cutter { return &Cutter{conns: map[net.Conn]bool{}} }

// Apply makes cfg dial through the cutter. Such a config gets a transport of its own (client-go
// does not share transports of configs with a dialer).
func (c *Cutter) Apply(cfg *rest.Config) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		tracked := &trackedConn{Conn: conn, c: c}
		c.conns[tracked] = true
		return tracked, nil
	}
}

// Cut closes every open connection and says how many there were.
func (c *Cutter) Cut() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.conns)
	for conn := range c.conns {
		_ = conn.(*trackedConn).Conn.Close()
		delete(c.conns, conn)
	}
	c.lastCut = time.Now()
	return n
}

// CutWithin says whether the cutter cut its connections less than d ago.
func (c *Cutter) CutWithin(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.lastCut.IsZero() && time.Since(c.lastCut) < d
}

type trackedConn struct {
	net.Conn
	c *Cutter
}

func (t *trackedConn) Close() error {
	t.c.mu.Lock()
	delete(t.c.conns, t)
	t.c.mu.Unlock()
	return t.Conn.Close()
}

// String names a failure for the report.
func (f Failure) String() string {
	what := fmt.Sprintf("%d", f.Code)
	if f.Code == 0 {
		what = "no answer"
	}
	return fmt.Sprintf("%s %s %s: %s (%s)", fmtDur(f.At), f.Verb, f.Path, what, f.Detail)
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
