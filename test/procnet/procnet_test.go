package procnet

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestOfFindsWhatThisProcessListensOn(t *testing.T) {
	var want []netip.AddrPort
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("%s: %v", addr, err) // no IPv6 on this machine
			continue
		}
		defer l.Close()
		want = append(want, l.Addr().(*net.TCPAddr).AddrPort())
	}
	sock := filepath.Join(t.TempDir(), "s.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	// A connected socket is not a listener.
	c, err := net.Dial("tcp", want[0].String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()

	got, err := Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !slices.Contains(got.TCP, w) {
			t.Errorf("%v not among %v", w, got.TCP)
		}
	}
	if slices.Contains(got.TCP, closed.Addr().(*net.TCPAddr).AddrPort()) {
		t.Errorf("a closed listener is listed: %v", got.TCP)
	}
	if len(got.TCP) != len(want) {
		t.Errorf("TCP listeners %v, want %v", got.TCP, want)
	}
	if !slices.Equal(got.Unix, []string{sock}) {
		t.Errorf("unix listeners %v, want [%s]", got.Unix, sock)
	}
}
