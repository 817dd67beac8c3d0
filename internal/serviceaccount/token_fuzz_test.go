package serviceaccount

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// FuzzAuthenticateToken hands the authenticator a valid service account token with one byte
// replaced, inserted or removed, or any string at all. Properties: it never panics, and
// whatever it accepts decodes to exactly the header, the claims and the signature that the
// chain signed: no change to what a token says gets past the signature check. (How it is
// encoded may differ: base64 decoders skip line breaks, so "\r" + token is the same token.)
func FuzzAuthenticateToken(f *testing.F) {
	w := newWorld(f, ecKey(f))
	good := w.issue(f, Request{Pod: w.pod, Node: w.node}, time.Now())
	decoded := func(token string) [][]byte {
		var out [][]byte
		for _, part := range strings.Split(token, ".") {
			b, _ := base64.RawURLEncoding.DecodeString(part)
			out = append(out, b)
		}
		return out
	}
	signed := decoded(good)
	goodParts := strings.Split(good, ".")
	const (
		replace = iota
		insert
		remove
		raw
	)
	f.Add(uint16(0), byte('x'), uint8(replace), "")
	f.Add(uint16(len(goodParts[0])+5), byte('A'), uint8(replace), "")
	f.Add(uint16(len(good)-1), byte('B'), uint8(replace), "") // the last signature character: its low bits are padding
	f.Add(uint16(len(goodParts[0])), byte('.'), uint8(insert), "")
	f.Add(uint16(10), byte(0), uint8(remove), "")
	f.Add(uint16(0), byte('\r'), uint8(insert), "") // a line break: the same token
	f.Add(uint16(0), byte(0), uint8(raw), "")
	f.Add(uint16(0), byte(0), uint8(raw), "a.b.c")
	f.Add(uint16(0), byte(0), uint8(raw), "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.")
	f.Add(uint16(0), byte(0), uint8(raw), "{}")
	f.Fuzz(func(t *testing.T, pos uint16, b byte, op uint8, s string) {
		token := good
		i := int(pos) % (len(good) + 1)
		switch op % 4 {
		case replace:
			if i == len(good) {
				return
			}
			token = good[:i] + string([]byte{b}) + good[i+1:]
		case insert:
			token = good[:i] + string([]byte{b}) + good[i:]
		case remove:
			if i == len(good) {
				return
			}
			token = good[:i] + good[i+1:]
		case raw:
			token = s
		}
		resp, ok, err := w.authn.AuthenticateToken(context.Background(), token)
		if !ok {
			return
		}
		if err != nil || resp == nil {
			t.Fatalf("accepted with err %v, response %v", err, resp)
		}
		if got := decoded(token); len(got) != 3 || !bytes.Equal(got[0], signed[0]) || !bytes.Equal(got[1], signed[1]) || !bytes.Equal(got[2], signed[2]) {
			t.Fatalf("accepted a token that is not the one signed:\n%q\nsigned:\n%q", token, good)
		}
		if resp.User.GetName() != "system:serviceaccount:ns:robot" {
			t.Errorf("user %q", resp.User.GetName())
		}
	})
}
