package tracing

import (
	"context"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// What a trace never holds. Spans carry paths, users, decisions and timings; no library the
// chain is built from records bodies or headers. What could still carry a secret is a URL's
// query (kube-apiserver's http.target and the clients' url.full carry it whole) or its user
// info, and an attribute someone named after a credential: the first are cleaned, the second
// dropped, on the way into the ring and on the way out to a collector alike.

// secretParams are query parameters known to carry credentials (OAuth's and the clouds'
// signed URLs). Matched without regard to case.
var secretParams = []string{
	"access_token", "id_token", "refresh_token", "token", "client_secret", "password", "passwd",
	"secret", "api_key", "apikey", "sig", "signature", "x-amz-signature", "x-amz-credential",
	"x-amz-security-token", "x-goog-signature", "x-goog-credential", "awsaccesskeyid",
}

// urlKeys are the attributes that hold a URL, a request target or a query.
var urlKeys = map[string]bool{
	"url.full": true, "url.query": true, "url.original": true, "http.target": true, "http.url": true,
}

// credentialWords in an attribute's key drop it whole (say, an http.request.header.authorization
// captured by an instrumentation configured to capture headers).
var credentialWords = []string{"authorization", "cookie", "token", "password", "secret", "credential"}

// redacted replaces what is cleaned out, as OpenTelemetry's semantic conventions write it.
const redacted = "REDACTED"

// cleanAttr returns the attribute as a trace may hold it, or false to drop it.
func cleanAttr(kv attribute.KeyValue) (attribute.KeyValue, bool) {
	key := string(kv.Key)
	if !strings.HasPrefix(key, "apichain.") {
		lower := strings.ToLower(key)
		for _, w := range credentialWords {
			if strings.Contains(lower, w) {
				return kv, false
			}
		}
	}
	if urlKeys[key] && kv.Value.Type() == attribute.STRING {
		if clean := cleanURL(kv.Value.AsString()); clean != kv.Value.AsString() {
			return attribute.String(key, clean), true
		}
	}
	return kv, true
}

// cleanURL redacts the secret-bearing parameters of a URL, a request target ("/path?query") or a
// bare query, and the password of its user info. Anything else is left as it is.
func cleanURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if u, err := url.Parse(s); err == nil && u.User != nil {
			u.User = url.User(redacted)
			s = u.String()
		}
	}
	path, query, hasQuery := strings.Cut(s, "?")
	if !hasQuery {
		if strings.Contains(s, "/") || !strings.Contains(s, "=") {
			return s
		}
		path, query = "", s // a bare query (url.query)
	}
	parts := strings.Split(query, "&")
	changed := false
	for i, part := range parts {
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		for _, secret := range secretParams {
			if strings.EqualFold(name, secret) {
				parts[i] = url.QueryEscape(name) + "=" + redacted
				changed = true
				break
			}
		}
	}
	if !changed {
		return s
	}
	if !hasQuery {
		return strings.Join(parts, "&")
	}
	return path + "?" + strings.Join(parts, "&")
}

// cleanAttrs cleans a list of attributes; changed is false, and out is attrs itself, when
// nothing needs cleaning.
func cleanAttrs(attrs []attribute.KeyValue) (out []attribute.KeyValue, changed bool) {
	for i, kv := range attrs {
		clean, keep := cleanAttr(kv)
		if !changed && keep && clean == kv {
			continue
		}
		if !changed {
			out, changed = append(make([]attribute.KeyValue, 0, len(attrs)), attrs[:i]...), true
		}
		if keep {
			out = append(out, clean)
		}
	}
	if !changed {
		return attrs, false
	}
	return out, true
}

// cleanExporter hands a collector the spans as cleaned as the ring keeps them.
type cleanExporter struct{ sdktrace.SpanExporter }

func (e cleanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i, s := range spans {
		out[i] = cleanSpan(s)
	}
	return e.SpanExporter.ExportSpans(ctx, out)
}

// cleanSpan is s, with its attributes and its events' attributes cleaned.
func cleanSpan(s sdktrace.ReadOnlySpan) sdktrace.ReadOnlySpan {
	attrs, changed := cleanAttrs(s.Attributes())
	events, copied := s.Events(), false
	for i, e := range events {
		if a, c := cleanAttrs(e.Attributes); c {
			if !copied {
				events, copied = append([]sdktrace.Event(nil), events...), true
			}
			events[i].Attributes, changed = a, true
		}
	}
	if !changed {
		return s
	}
	return cleanedSpan{ReadOnlySpan: s, attrs: attrs, events: events}
}

// cleanedSpan overrides what cleanSpan changed. Embedding the interface keeps everything else,
// the SDK's unexported method included.
type cleanedSpan struct {
	sdktrace.ReadOnlySpan
	attrs  []attribute.KeyValue
	events []sdktrace.Event
}

func (s cleanedSpan) Attributes() []attribute.KeyValue { return s.attrs }
func (s cleanedSpan) Events() []sdktrace.Event         { return s.events }
