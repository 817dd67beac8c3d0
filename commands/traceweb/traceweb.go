// Package traceweb is the page of `chain trace --web`: a local page that draws each request the
// chain serves as a waterfall across the lanes of the chain (client → aggregator → core →
// extensions → not-found, and etcd, the metrics server, the kubelets beside them), with the
// attributes of a hop a click away.
//
// Where it sits: in the command line, outside the chain. `chain trace` follows the chain's
// traces (/debug/apichain/traces) with the user's kubeconfig and hands each to Page.Publish;
// the page reads them from Page's own stream (server-sent events at /events), so the browser
// never talks to the chain and needs no credentials. The page is plain HTML, CSS and JavaScript
// in static/, embedded in the binary: no build step, no network.
package traceweb

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
)

//go:embed static
var static embed.FS

// Page is the page and the stream of traces it reads. It keeps the most recent traces, so that
// a page opened (or reloaded) late shows them too.
type Page struct {
	keep int

	mu     sync.Mutex
	recent [][]byte // traces as JSON, oldest first, at most keep
	status []byte   // the last status event's data
	subs   map[chan event]struct{}
}

// event is one server-sent event: a trace, or a change of status (JSON: text, ok).
type event struct {
	name string // "trace" or "status"
	data []byte
}

// subscriberBuffer is how many events a page may be behind before it is dropped; a dropped
// page's EventSource reconnects by itself and gets the recent traces again.
const subscriberBuffer = 256

// New returns a page that keeps the keep most recent traces.
func New(keep int) *Page {
	return &Page{keep: keep, subs: map[chan event]struct{}{}}
}

// Publish sends a trace (one JSON object, model tracing.Trace) to every open page.
func (p *Page) Publish(trace []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recent = append(p.recent, trace)
	if len(p.recent) > p.keep {
		p.recent = p.recent[len(p.recent)-p.keep:]
	}
	p.send(event{name: "trace", data: trace})
}

// SetStatus says, on every open page, how following the chain goes: a sentence, and whether
// all is well.
func (p *Page) SetStatus(text string, ok bool) {
	data, _ := json.Marshal(struct {
		Text string `json:"text"`
		OK   bool   `json:"ok"`
	}{text, ok})
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = data
	p.send(event{name: "status", data: data})
}

// send hands e to every subscriber; one that is too far behind is dropped. Call with mu held.
func (p *Page) send(e event) {
	for ch := range p.subs {
		select {
		case ch <- e:
		default:
			delete(p.subs, ch)
			close(ch)
		}
	}
}

// Handler serves the page at / and its stream at /events, to requests addressed to ln's
// address (see hostAllowed).
func (p *Page) Handler(ln net.Addr) http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree has static/: a build without it is broken
	}
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServerFS(files))
	mux.HandleFunc("GET /events", p.events)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(ln, r.Host) {
			http.Error(w, "this page answers only to the address it listens on", http.StatusForbidden)
			return
		}
		// Everything the page needs comes from here: the browser is told to load nothing else.
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'")
		mux.ServeHTTP(w, r)
	})
}

// events streams the recent traces, then each new one, as server-sent events, until the page
// goes.
func (p *Page) events(w http.ResponseWriter, r *http.Request) {
	ch := make(chan event, subscriberBuffer)
	p.mu.Lock()
	var backlog []event
	if p.status != nil {
		backlog = append(backlog, event{name: "status", data: p.status})
	}
	for _, t := range p.recent {
		backlog = append(backlog, event{name: "trace", data: t})
	}
	p.subs[ch] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if _, ok := p.subs[ch]; ok {
			delete(p.subs, ch)
			close(ch)
		}
		p.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	for _, e := range backlog {
		if writeEvent(w, e) != nil {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			if writeEvent(w, e) != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// writeEvent writes one server-sent event. Its data is one line of JSON.
func writeEvent(w http.ResponseWriter, e event) error {
	_, err := w.Write([]byte("event: " + e.name + "\ndata: " + string(e.data) + "\n\n"))
	return err
}

// hostAllowed says whether a request's Host may be served. On a loopback address the page
// answers only to loopback names, so that a web site the browser visits cannot read the
// traces by pointing a name of its own at 127.0.0.1 (DNS rebinding); on any other address the
// user chose to be reached from elsewhere.
func hostAllowed(ln net.Addr, host string) bool {
	tcp, ok := ln.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
