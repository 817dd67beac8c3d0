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
// whatever it accepts carries exactly the header, the claims and the signature that the chain
// signed: no change to what a token says gets past the signature check, however it is encoded.
func FuzzAuthenticateToken(f *testing.F) {
	w := newWorld(f, ecKey(f))
	good := w.issue(f, Request{Pod: w.pod, Node: w.node}, time.Now())
	goodParts := strings.Split(good, ".")
	goodSig, err := base64.RawURLEncoding.DecodeString(goodParts[2])
	if err != nil {
		f.Fatal(err)
	}
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
		parts := strings.Split(token, ".")
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		if parts[0] != goodParts[0] || parts[1] != goodParts[1] || !bytes.Equal(sig, goodSig) {
			t.Fatalf("accepted a token that is not the one signed:\n%q\nsigned:\n%q", token, good)
		}
		if resp.User.GetName() != "system:serviceaccount:ns:robot" {
			t.Errorf("user %q", resp.User.GetName())
		}
	})
}
