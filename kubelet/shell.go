package kubelet

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The simulated containers run no programs, so exec and attach get this instead: a shell of a
// few built-in commands, enough for `kubectl exec <pod> -- sh -c 'echo $HOSTNAME'`,
// `kubectl exec <pod> -- cat /etc/podinfo/labels` and an interactive `kubectl exec -it <pod> -- sh`:
//
//	echo [-n] ARG...   env   printenv [NAME...]   hostname   date   pwd   true   false
//	cat [FILE...]      with no FILE, stdin; the files are /etc/hostname, /etc/hosts and the
//	                   pod's downward API volumes
//	sleep SECONDS      exit [CODE]
//	sh [-c SCRIPT]     without -c, commands from stdin, one a line (a prompt on a terminal)
//
// A script is words split at blanks, with '...' and "..." quoting, \ escapes, $NAME, ${NAME} and
// $? expanded, # comments, and commands joined by ';', newlines, '&&' and '||'. No pipes,
// redirections, globs or control flow.
type shell struct {
	env            []string          // NAME=value, in order
	files          map[string]string // what cat reads, by absolute path
	hostname       string
	stdin          io.Reader // nil: none (reads see end of file)
	stdout, stderr io.Writer
	tty            bool // stdout and stderr are a terminal's: whoever makes the shell writes \r\n for \n
	status         int  // $?
}

// errExit ends a script early: the exit command.
var errExit = errors.New("exit")

// builtin is the command of that name (a path's last element), if the shell has it.
func (sh *shell) builtin(name string) (func(ctx context.Context, args []string) int, bool) {
	say := func(text string) func(context.Context, []string) int {
		return func(context.Context, []string) int { sh.printf("%s\n", text); return 0 }
	}
	switch path.Base(name) {
	case "echo":
		return sh.echo, true
	case "env":
		return say(strings.Join(sh.env, "\n")), true
	case "printenv":
		return sh.printenv, true
	case "hostname":
		return say(sh.hostname), true
	case "date":
		return say(time.Now().UTC().Format(time.UnixDate)), true
	case "pwd":
		return say("/"), true
	case "true":
		return func(context.Context, []string) int { return 0 }, true
	case "false":
		return func(context.Context, []string) int { return 1 }, true
	case "cat":
		return sh.cat, true
	case "sleep":
		return sh.sleep, true
	case "sh", "bash", "ash":
		return sh.sh, true
	}
	return nil, false
}

// start runs argv as the container's runtime would start it: the program must exist.
func (sh *shell) start(ctx context.Context, argv []string) (int, error) {
	if len(argv) == 0 {
		return 0, errors.New("no command given")
	}
	run, ok := sh.builtin(argv[0])
	if !ok {
		return 0, fmt.Errorf("exec: %q: executable file not found in $PATH", argv[0])
	}
	return run(ctx, argv), nil
}

func (sh *shell) printf(format string, args ...any) { fmt.Fprintf(sh.stdout, format, args...) }

func (sh *shell) echo(_ context.Context, args []string) int {
	args, end := args[1:], "\n"
	if len(args) > 0 && args[0] == "-n" {
		args, end = args[1:], ""
	}
	sh.printf("%s%s", strings.Join(args, " "), end)
	return 0
}

func (sh *shell) printenv(_ context.Context, args []string) int {
	if len(args) == 1 {
		sh.printf("%s\n", strings.Join(sh.env, "\n"))
		return 0
	}
	code := 0
	for _, name := range args[1:] {
		if v, ok := sh.lookup(name); ok {
			sh.printf("%s\n", v)
		} else {
			code = 1
		}
	}
	return code
}

func (sh *shell) cat(_ context.Context, args []string) int {
	if len(args) == 1 {
		args = append(args, "-")
	}
	code := 0
	for _, name := range args[1:] {
		if name == "-" {
			if sh.stdin != nil {
				_, _ = io.Copy(sh.stdout, sh.stdin)
			}
			continue
		}
		content, ok := sh.files[path.Clean(path.Join("/", name))]
		if !ok {
			fmt.Fprintf(sh.stderr, "cat: can't open '%s': No such file or directory\n", name)
			code = 1
			continue
		}
		sh.printf("%s", content)
	}
	return code
}

func (sh *shell) sleep(ctx context.Context, args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(sh.stderr, "sleep: usage: sleep SECONDS")
		return 1
	}
	secs, err := strconv.ParseFloat(args[1], 64)
	if err != nil || secs < 0 {
		fmt.Fprintf(sh.stderr, "sleep: invalid number '%s'\n", args[1])
		return 1
	}
	t := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		return 130 // interrupted, as by a signal
	}
}

// sh runs `sh -c SCRIPT`, or reads commands from stdin.
func (sh *shell) sh(ctx context.Context, args []string) int {
	switch {
	case len(args) >= 3 && args[1] == "-c":
		code, _ := sh.script(ctx, args[2])
		return code
	case len(args) == 1 || (len(args) == 2 && args[1] == "-i"):
		return sh.interactive(ctx)
	}
	fmt.Fprintf(sh.stderr, "%s: can't open '%s': No such file or directory\n", args[0], args[1])
	return 2
}

// interactive reads commands from stdin and runs each, until exit or the end of stdin. On a
// terminal it plays the terminal's part too: a prompt, the echo of what is typed and the line
// editing keys (backspace, ^C, ^D).
func (sh *shell) interactive(ctx context.Context) int {
	if sh.stdin == nil {
		return 0
	}
	if !sh.tty {
		lines := bufio.NewScanner(sh.stdin)
		for lines.Scan() {
			if _, err := sh.script(ctx, lines.Text()); errors.Is(err, errExit) {
				break
			}
		}
		return sh.status
	}
	in := bufio.NewReader(sh.stdin)
	var line []byte
	sh.printf("/ # ")
	for {
		b, err := in.ReadByte()
		if err != nil || (b == 4 && len(line) == 0) { // end of input, or ^D on an empty line
			sh.printf("\n")
			return sh.status
		}
		switch b {
		case '\r', '\n':
			sh.printf("\n")
			if _, err := sh.script(ctx, string(line)); errors.Is(err, errExit) {
				return sh.status
			}
			line = line[:0]
			sh.printf("/ # ")
		case 3: // ^C: drop the line
			sh.printf("^C\n/ # ")
			line = line[:0]
		case 127, 8: // backspace
			if len(line) > 0 {
				line = line[:len(line)-1]
				sh.printf("\b \b")
			}
		default:
			line = append(line, b)
			sh.printf("%c", b)
		}
	}
}

// crlf writes \n as \r\n, as a terminal in cooked mode does.
type crlf struct{ w io.Writer }

func (c crlf) Write(p []byte) (int, error) {
	_, err := c.w.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n")))
	return len(p), err
}

// script runs the commands of src, and returns the last one's status; errExit when one of them
// was exit.
func (sh *shell) script(ctx context.Context, src string) (int, error) {
	cmds, err := parse(src)
	if err != nil {
		fmt.Fprintf(sh.stderr, "sh: syntax error: %v\n", err)
		sh.status = 2
		return 2, nil
	}
	for _, c := range cmds {
		if (c.op == "&&" && sh.status != 0) || (c.op == "||" && sh.status == 0) {
			continue
		}
		argv := make([]string, len(c.words))
		for i, w := range c.words {
			argv[i] = w.expand(sh)
		}
		if len(argv) == 0 {
			continue
		}
		if argv[0] == "exit" {
			if len(argv) > 1 {
				code, err := strconv.Atoi(argv[1])
				if err != nil {
					fmt.Fprintf(sh.stderr, "sh: exit: Illegal number: %s\n", argv[1])
					code = 2
				}
				sh.status = code & 0xff
			}
			return sh.status, errExit
		}
		run, ok := sh.builtin(argv[0])
		if !ok {
			fmt.Fprintf(sh.stderr, "sh: %s: not found\n", argv[0])
			sh.status = 127
			continue
		}
		sh.status = run(ctx, argv)
	}
	return sh.status, nil
}

func (sh *shell) lookup(name string) (string, bool) {
	if name == "?" {
		return strconv.Itoa(sh.status), true
	}
	for _, kv := range slices.Backward(sh.env) {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

// A command of a script: its words, and how it follows the one before (";", "&&" or "||").
type command struct {
	words []word
	op    string
}

// A word is literal text and variables, expanded when its command runs (so $? is the status
// of the command before).
type word []piece

type piece struct{ text, variable string }

func (w word) expand(sh *shell) string {
	var b strings.Builder
	for _, p := range w {
		if p.variable == "" {
			b.WriteString(p.text)
		} else {
			v, _ := sh.lookup(p.variable)
			b.WriteString(v)
		}
	}
	return b.String()
}

// parse splits a script into commands.
func parse(src string) ([]command, error) {
	var cmds []command
	cur := command{op: ";"}
	var w word
	inWord := false // a word has begun, perhaps an empty quoted one
	endWord := func() {
		if inWord {
			cur.words = append(cur.words, w)
		}
		w, inWord = nil, false
	}
	endCommand := func(op string) {
		endWord()
		if len(cur.words) > 0 {
			cmds = append(cmds, cur)
		}
		cur = command{op: op}
	}
	lit := func(s string) { w, inWord = append(w, piece{text: s}), true }
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == ';' || c == '\n':
			endCommand(";")
		case (c == '&' || c == '|') && i+1 < len(src) && src[i+1] == c:
			endCommand(src[i : i+2])
			i++
		case c == '#' && !inWord:
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i-- // the newline ends the command
		case c == '\\' && i+1 < len(src):
			i++
			lit(src[i : i+1])
		case c == '\'':
			end := strings.IndexByte(src[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated quoted string")
			}
			lit(src[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(src) && src[i] != '"'; i++ {
				switch {
				case src[i] == '\\' && i+1 < len(src) && strings.IndexByte(`"\$`, src[i+1]) >= 0:
					i++
					lit(src[i : i+1])
				case src[i] == '$':
					i += variable(src[i:], &w) - 1
				default:
					lit(src[i : i+1])
				}
			}
			if i >= len(src) {
				return nil, errors.New("unterminated quoted string")
			}
		case c == '$':
			inWord = true
			i += variable(src[i:], &w) - 1
		default:
			lit(src[i : i+1])
		}
	}
	endCommand("")
	return cmds, nil
}

// variable reads the variable that s starts with ($?, $NAME or ${NAME}) onto w and says how
// many bytes it took; a $ that starts none is itself.
func variable(s string, w *word) int {
	name, n := "", 1
	switch {
	case len(s) > 1 && s[1] == '?':
		name, n = "?", 2
	case len(s) > 2 && s[1] == '{':
		if end := strings.IndexByte(s, '}'); end > 2 {
			name, n = s[2:end], end+1
		}
	default:
		for n < len(s) && (s[n] == '_' || ('a' <= s[n] && s[n] <= 'z') || ('A' <= s[n] && s[n] <= 'Z') || (n > 1 && '0' <= s[n] && s[n] <= '9')) {
			n++
		}
		name = s[1:n]
	}
	if name == "" {
		*w = append(*w, piece{text: "$"})
		return 1
	}
	*w = append(*w, piece{variable: name})
	return n
}
