package tracing

import (
	"container/list"
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// RingOptions bound what a Ring holds, and what it records. Zero fields take the defaults.
type RingOptions struct {
	// Traces is how many completed traces the ring keeps, and how many it follows at once while
	// they are under way. Default 1000.
	Traces int
	// SpansPerTrace is how many spans of one trace it keeps; the rest are counted, not kept.
	// Default 256.
	SpansPerTrace int
	// Bytes bounds the estimated size of every span held, under way and completed together:
	// the oldest completed traces make room, and a span that finds no room is counted, not
	// kept. Default 16 MiB.
	Bytes int
	// PerSecond, if positive, bounds the requests the ring records from StartLimiting on: at
	// most PerSecond new requests a second, and a burst of as many, so that what recording
	// costs a busy chain is bounded, as its memory is. The requests it passes over are counted
	// (Trace.NotRecorded). Zero: every request.
	PerSecond float64
}

func (o RingOptions) withDefaults() RingOptions {
	if o.Traces <= 0 {
		o.Traces = 1000
	}
	if o.SpansPerTrace <= 0 {
		o.SpansPerTrace = 256
	}
	if o.Bytes <= 0 {
		o.Bytes = 16 << 20
	}
	return o
}

// Ring keeps the most recent request traces. It follows every trace that starts with a request
// (a server span) in this process, collects its spans as they end, and completes the trace when
// the last of its spans that it saw start has ended; then it publishes the trace, numbered, for
// readers (Since, Wait). Its spans come from the ring's own tracer (ringtracer.go) when the
// chain only records, or from the OpenTelemetry SDK, whose SpanProcessor it is, when it also
// exports. Spans of other processes come in through Receive (the OTLP receiver) and join their
// trace by ID.
//
// It is on every request's path, so it does there only what keeping the spans needs: it keeps
// them as they ended, and turns a trace into a Trace (convert.go) when a reader first asks for
// it.
//
// What it holds is bounded: Traces completed traces, as many under way, SpansPerTrace spans a
// trace, and Bytes of spans (estimated, sizeOf) in all. So at most about Bytes of memory,
// whatever the load; see RingOptions. With PerSecond, what it records is bounded too: under a
// load beyond that rate it records a sample of the requests, and says how many it passed over.
type Ring struct {
	opts RingOptions

	mu      sync.Mutex
	pending map[trace.TraceID]*pending
	order   *list.List // pending, oldest first
	done    []*kept    // completed, by Seq
	byID    map[trace.TraceID]*kept
	seq     uint64
	bytes   int
	// changed is closed, and replaced, at every publication: Wait's signal.
	changed chan struct{}
	closed  bool

	// The requests recorded, with PerSecond and once limiting: a bucket of up to a second's
	// worth of tokens, one a request, refilled at PerSecond (admit); and the requests passed
	// over since the last publication.
	limiting    bool
	tokens      float64
	refilled    time.Time
	notRecorded int
	now         func() time.Time // time.Now; a test's clock
}

// pending is a trace under way.
type pending struct {
	id   trace.TraceID
	elem *list.Element
	// open are the spans seen starting and not yet ended; the trace completes when none is left.
	// A few at a time: a slice costs a request less than a map.
	open    []trace.SpanID
	recs    []*record
	skipped map[trace.SpanID]trace.SpanID // spans left out: id → parent
	bytes   int
	dropped int
	// received: the trace is known only from spans of other processes (Receive); it completes
	// when the root of their request arrives.
	received bool
}

// kept is a published trace: its records until a reader asks for it (built), then its Trace.
type kept struct {
	id      trace.TraceID
	seq     uint64
	update  bool
	skipped map[trace.SpanID]trace.SpanID
	dropped int
	bytes   int
	// notRecorded: requests the ring passed over (PerSecond) between the trace before and this.
	notRecorded int

	once  sync.Once
	recs  []*record
	trace *Trace
}

// built is the trace as readers see it, built at the first call; nil when it holds no request
// worth showing (the ring's own URLs).
func (k *kept) built() *Trace {
	k.once.Do(func() {
		t := buildTrace(k.id, k.recs, k.skipped, k.dropped)
		k.recs = nil
		if len(t.Spans) == 0 || strings.HasPrefix(t.Request.Path, PathPrefix) {
			return
		}
		t.Seq, t.Update, t.NotRecorded = k.seq, k.update, k.notRecorded
		k.trace = t
	})
	return k.trace
}

// NewRing returns an empty ring bounded by o.
func NewRing(o RingOptions) *Ring {
	return &Ring{opts: o.withDefaults(), pending: map[trace.TraceID]*pending{}, order: list.New(),
		byID: map[trace.TraceID]*kept{}, changed: make(chan struct{}), now: time.Now}
}

// StartLimiting applies RingOptions.PerSecond from now on, with a full bucket. Until then the
// ring records every request: the chain calls it once it has started, so that its own start,
// bounded work, is recorded whole, and the first requests made of it find room.
func (r *Ring) StartLimiting() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limiting, r.tokens, r.refilled = true, r.burst(), r.now()
}

// burst is the bucket's size: a second's worth, and room for one request at least.
func (r *Ring) burst() float64 { return max(1, r.opts.PerSecond) }

// admit says whether the ring records a request that starts a span of trace tid in this
// process: always when it already follows the trace (the part of a recorded request that a
// kubelet or the metrics server in this process serves); otherwise if the rate allows
// (RingOptions.PerSecond). One it passes over is counted, and its spans are not made at all:
// what a request not recorded costs is what it costs with recording off, nearly.
func (r *Ring) admit(tid trace.TraceID) bool {
	if r.opts.PerSecond <= 0 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.pending[tid]; ok || r.closed || !r.limiting {
		return true
	}
	now := r.now()
	r.tokens = min(r.burst(), r.tokens+now.Sub(r.refilled).Seconds()*r.opts.PerSecond)
	r.refilled = now
	if r.tokens < 1 {
		r.notRecorded++
		return false
	}
	r.tokens--
	return true
}

// OnStart follows the span's trace if the span is a request's (a server span) or belongs to a
// trace the ring already follows.
func (r *Ring) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	sc := s.SpanContext()
	r.started(sc.TraceID(), sc.SpanID(), s.Parent().SpanID(), s.SpanKind() == trace.SpanKindServer,
		s.InstrumentationScope().Name == skippedScope)
}

// started notes a span that starts, of a request (server) or of a trace the ring already
// follows; skip: a span the ring leaves out, hanging its children on parent. It says whether
// the ring follows the span: only then does it want to hear of its end.
func (r *Ring) started(tid trace.TraceID, id, parent trace.SpanID, server, skip bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending[tid]
	if p == nil {
		if r.closed || skip || !server {
			return false
		}
		p = r.newPendingLocked(tid)
	}
	p.open = append(p.open, id)
	if skip {
		p.skip(id, parent)
	}
	return true
}

// OnEnd adds the span to its trace, if the ring saw it start, and completes the trace if it was
// the last one open.
func (r *Ring) OnEnd(s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	r.mu.Lock()
	p := r.pending[sc.TraceID()]
	if p == nil {
		r.mu.Unlock()
		return
	}
	open := slices.Contains(p.open, sc.SpanID())
	_, skip := p.skipped[sc.SpanID()]
	r.mu.Unlock()
	if !open {
		return
	}
	var rec *record
	if !skip {
		rec = recordOf(s) // outside the lock: other requests' spans go on ending meanwhile
	}
	r.ended(sc.TraceID(), sc.SpanID(), rec)
}

// ended adds rec, what the ring keeps of a span it saw start (nil: one it leaves out), to its
// trace, and completes the trace if the span was the last one open.
func (r *Ring) ended(tid trace.TraceID, id trace.SpanID, rec *record) {
	r.mu.Lock()
	p := r.pending[tid]
	i := -1
	if p != nil {
		i = slices.Index(p.open, id)
	}
	if i < 0 { // evicted meanwhile (and perhaps followed again since, without this span)
		r.mu.Unlock()
		return
	}
	p.open = slices.Delete(p.open, i, i+1)
	if rec != nil {
		r.addLocked(p, rec)
	}
	complete := len(p.open) == 0
	if complete {
		r.removePendingLocked(p)
	}
	r.mu.Unlock()
	if complete {
		r.publish(p, false)
	}
}

// Shutdown does nothing: a ring may serve several providers (the chain's, the kubelets'), and
// its owner closes it (Close).
func (r *Ring) Shutdown(context.Context) error { return nil }

// ForceFlush does nothing: the ring publishes as traces complete.
func (r *Ring) ForceFlush(context.Context) error { return nil }

// Close stops the ring: it follows no more traces, and Wait returns.
func (r *Ring) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.changed)
	}
}

// Since returns the published traces numbered after seq, oldest first.
func (r *Ring) Since(seq uint64) []*Trace {
	r.mu.Lock()
	ks := r.sinceLocked(seq)
	r.mu.Unlock()
	return traces(ks)
}

func (r *Ring) sinceLocked(seq uint64) []*kept {
	i := sort.Search(len(r.done), func(i int) bool { return r.done[i].seq > seq })
	return slices.Clone(r.done[i:])
}

// traces builds the traces of ks, outside the ring's lock: requests go on ending meanwhile.
func traces(ks []*kept) []*Trace {
	out := make([]*Trace, 0, len(ks))
	for _, k := range ks {
		if t := k.built(); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// Wait returns the traces numbered after seq, waiting until there are some, ctx is done or the
// ring closes. Published traces are never changed: a reader may keep them.
func (r *Ring) Wait(ctx context.Context, seq uint64) ([]*Trace, error) {
	for {
		r.mu.Lock()
		ks, changed, closed := r.sinceLocked(seq), r.changed, r.closed
		r.mu.Unlock()
		if ts := traces(ks); len(ts) > 0 {
			return ts, nil
		}
		if len(ks) > 0 {
			seq = ks[len(ks)-1].seq // published, but nothing to show
		}
		if closed {
			return nil, errClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Receive merges spans of other processes (converted from OTLP) into their traces: one under
// way takes them as they are; one already published is published again, with them, under a new
// Seq and Update set; for one the ring does not know, it waits for the root of their request.
func (r *Ring) Receive(recs []receivedSpan) {
	byTrace := map[trace.TraceID][]*record{}
	var ids []trace.TraceID
	for _, rs := range recs {
		if _, ok := byTrace[rs.traceID]; !ok {
			ids = append(ids, rs.traceID)
		}
		byTrace[rs.traceID] = append(byTrace[rs.traceID], rs.record)
	}
	for _, id := range ids {
		r.receive(id, byTrace[id])
	}
}

func (r *Ring) receive(id trace.TraceID, recs []*record) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	if k := r.byID[id]; k != nil {
		// Published: build it again, with these added to what it had.
		r.removeKeptLocked(k)
		var had []*record
		if t := k.built(); t != nil {
			had = flatten(t)
		}
		p := &pending{id: id, recs: had, skipped: k.skipped, dropped: k.dropped, received: true}
		for _, rec := range p.recs {
			p.bytes += rec.bytes
		}
		r.bytes += p.bytes
		r.addAllLocked(p, recs)
		r.mu.Unlock()
		r.publish(p, true)
		return
	}
	p := r.pending[id]
	if p == nil {
		p = r.newPendingLocked(id)
		p.received = true
	}
	r.addAllLocked(p, recs)
	complete := false
	if p.received && len(p.open) == 0 {
		for _, rec := range recs {
			complete = complete || (rec.hasRoot && !rec.skipped)
		}
	}
	if complete {
		r.removePendingLocked(p)
	}
	r.mu.Unlock()
	if complete {
		r.publish(p, false)
	}
}

func (r *Ring) addAllLocked(p *pending, recs []*record) {
	for _, rec := range recs {
		if rec.skipped {
			p.skip(rec.id, rec.parent)
			continue
		}
		r.addLocked(p, rec)
	}
}

// addLocked adds a span to a trace under way, within the bounds.
func (r *Ring) addLocked(p *pending, rec *record) {
	if len(p.recs) >= r.opts.SpansPerTrace {
		p.dropped++
		return
	}
	for r.bytes+rec.bytes > r.opts.Bytes && len(r.done) > 0 {
		r.removeKeptLocked(r.done[0])
	}
	if r.bytes+rec.bytes > r.opts.Bytes {
		p.dropped++
		return
	}
	p.recs = append(p.recs, rec)
	p.bytes += rec.bytes
	r.bytes += rec.bytes
}

func (r *Ring) newPendingLocked(id trace.TraceID) *pending {
	for len(r.pending) >= r.opts.Traces {
		oldest := r.order.Front().Value.(*pending)
		r.removePendingLocked(oldest)
		r.bytes -= oldest.bytes
	}
	p := &pending{id: id, open: make([]trace.SpanID, 0, 8), recs: make([]*record, 0, 16)}
	p.elem = r.order.PushBack(p)
	r.pending[id] = p
	return p
}

// skip notes a span the ring leaves out, and its parent.
func (p *pending) skip(id, parent trace.SpanID) {
	if p.skipped == nil {
		p.skipped = map[trace.SpanID]trace.SpanID{}
	}
	p.skipped[id] = parent
}

// removePendingLocked stops following p; its bytes stay counted until it is published or
// dropped.
func (r *Ring) removePendingLocked(p *pending) {
	delete(r.pending, p.id)
	r.order.Remove(p.elem)
}

func (r *Ring) removeKeptLocked(k *kept) {
	if len(r.done) > 0 && r.done[0] == k {
		// The oldest, which a full ring drops at every publish: neither a search (each step of
		// it a kept trace to read from memory) nor shifting the thousand after it (append
		// moves them once its array is used up).
		r.done[0] = nil
		r.done = r.done[1:]
	} else if i := sort.Search(len(r.done), func(i int) bool { return r.done[i].seq >= k.seq }); i < len(r.done) && r.done[i] == k {
		copy(r.done[i:], r.done[i+1:])
		r.done[len(r.done)-1] = nil
		r.done = r.done[:len(r.done)-1]
	}
	delete(r.byID, k.id)
	r.bytes -= k.bytes
}

// publish numbers a trace that has ended and makes it the newest. With update, the ring
// published it before. Readers build it (kept.built).
func (r *Ring) publish(p *pending, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(p.recs) == 0 || r.closed {
		r.bytes -= p.bytes
		return
	}
	r.seq++
	k := &kept{id: p.id, seq: r.seq, update: update, recs: p.recs, skipped: p.skipped, dropped: p.dropped, bytes: p.bytes,
		notRecorded: r.notRecorded}
	r.notRecorded = 0
	r.done = append(r.done, k)
	r.byID[p.id] = k
	for len(r.done) > r.opts.Traces {
		r.removeKeptLocked(r.done[0])
	}
	close(r.changed)
	r.changed = make(chan struct{})
}
