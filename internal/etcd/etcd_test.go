package etcd_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/test/procnet"
)

// TestOnlyThisUserReachesEtcd: the member opens no TCP port, only a socket in its directory,
// which this user can use and another user cannot even connect to.
func TestOnlyThisUserReachesEtcd(t *testing.T) {
	before, err := procnet.Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir() // <tmp>/<TestName><n>/001
	dir := filepath.Join(base, "etcd")
	member, err := etcd.Start(context.Background(), etcd.Config{Dir: dir, UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	socket := filepath.Join(dir, etcd.SocketName)

	after, err := procnet.Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before.TCP, after.TCP) {
		t.Errorf("TCP listeners before %v, after %v: etcd opened a port", before.TCP, after.TCP)
	}
	if want := append(before.Unix, socket); !slices.Equal(after.Unix, want) {
		t.Errorf("unix listeners %v, want %v", after.Unix, want)
	}
	if member.ClientURL != "unix://"+socket {
		t.Errorf("client URL %s", member.ClientURL)
	}
	for path, want := range map[string]os.FileMode{dir: os.ModeDir | 0o700, socket: os.ModeSocket | 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode()&(os.ModeType|os.ModePerm) != want {
			t.Errorf("%s: %v %v, want %v", path, st.Mode(), err, want)
		}
	}

	client, err := clientv3.New(clientv3.Config{Endpoints: []string{member.ClientURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.Put(ctx, "/k", "v"); err != nil {
		t.Fatalf("this user cannot write: %v", err)
	}

	curl, err := exec.LookPath("curl")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("another user's attempt needs root (to become nobody) and curl")
	}
	// health asks etcd's /health over the socket as uid (0: root, 65534: nobody) and says
	// whether it was answered.
	health := func(uid uint32) bool {
		cmd := exec.Command(curl, "-sS", "--max-time", "10", "--unix-socket", socket, "http://etcd/health")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.CombinedOutput()
		t.Logf("uid %d: %s (%v)", uid, strings.TrimSpace(string(out)), err)
		return err == nil && strings.Contains(string(out), `"health":"true"`)
	}
	if !health(0) {
		t.Fatal("the owner gets no answer over the socket")
	}
	// Let nobody through the test's own temporary directories (0700), so that only etcd's
	// directory and socket stand in the way.
	for _, p := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if health(65534) {
		t.Error("another user reached etcd")
	}
	// Each of the two modes keeps others out on its own: open the directory, then the socket too.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if health(65534) {
		t.Error("another user reached etcd through a 0600 socket")
	}
	if err := os.Chmod(socket, 0o666); err != nil {
		t.Fatal(err)
	}
	if !health(65534) {
		t.Error("another user cannot reach a socket open to all: the checks above prove nothing")
	}
}
