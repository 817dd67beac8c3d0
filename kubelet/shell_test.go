package kubelet

import (
	"context"
	"strings"
	"testing"
)

func TestShell(t *testing.T) {
	for _, tc := range []struct {
		argv     []string
		stdin    string
		tty      bool
		out, err string
		code     int
	}{
		{argv: []string{"echo", "a", "b"}, out: "a b\n"},
		{argv: []string{"/bin/echo", "-n", "x"}, out: "x"},
		{argv: []string{"sh", "-c", `echo "$FOO" '$FOO' ${FOO}x \$FOO # not this`}, out: "bar $FOO barx $FOO\n"},
		{argv: []string{"sh", "-c", "false && echo no || echo yes; echo $?"}, out: "yes\n0\n"},
		{argv: []string{"sh", "-c", "false; echo $?; exit 7; echo never"}, out: "1\n", code: 7},
		{argv: []string{"sh", "-c", "cat /etc/hostname /nope"}, out: "box\n", err: "cat: can't open '/nope': No such file or directory\n", code: 1},
		{argv: []string{"sh", "-c", "nosuch"}, err: "sh: nosuch: not found\n", code: 127},
		{argv: []string{"sh", "-c", "echo 'open"}, err: "sh: syntax error: unterminated quoted string\n", code: 2},
		{argv: []string{"printenv", "FOO", "NONE"}, out: "bar\n", code: 1},
		{argv: []string{"cat"}, stdin: "piped", out: "piped"},
		{argv: []string{"sh"}, stdin: "echo one\nexit 4\necho never\n", out: "one\n", code: 4},
		{argv: []string{"sh"}, stdin: "echo hx\x7fi\r\x04", tty: true, out: "/ # echo hx\b \bi\nhi\n/ # \n"},
		{argv: []string{"sleep", "x"}, err: "sleep: invalid number 'x'\n", code: 1},
	} {
		var out, errOut strings.Builder
		sh := &shell{env: []string{"FOO=bar"}, hostname: "box", files: map[string]string{"/etc/hostname": "box\n"},
			stdout: &out, stderr: &errOut, tty: tc.tty}
		if tc.stdin != "" {
			sh.stdin = strings.NewReader(tc.stdin)
		}
		code, err := sh.start(context.Background(), tc.argv)
		if err != nil || code != tc.code || out.String() != tc.out || errOut.String() != tc.err {
			t.Errorf("%q: %d %v, out %q, err %q; want %d, %q, %q", tc.argv, code, err, out.String(), errOut.String(), tc.code, tc.out, tc.err)
		}
	}
	if _, err := (&shell{}).start(context.Background(), []string{"ls"}); err == nil || err.Error() != `exec: "ls": executable file not found in $PATH` {
		t.Errorf("a program the shell lacks: %v", err)
	}
}
